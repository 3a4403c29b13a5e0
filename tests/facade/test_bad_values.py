"""Issue 17 item 3: one bad value never aborts a batch. Every failure while validating or
deriving one message (an integer past Python's digit limit, a timestamp outside years
1-9999 in UTC, "yesterday" or "two years ago" said on 0001-01-01) becomes a Rejection
naming its line and field; the rest of the batch is stored."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfold.embed import HashingEmbedder
from memfold.memory import Memory

GOOD = [{"msg_id": "ok1", "user_id": "ana", "text": "I live in Lisbon.", "ts": "2026-03-02T09:00:00Z"},
        {"msg_id": "ok2", "user_id": "ana", "text": "I work as a nurse.", "ts": "2026-03-02T09:05:00Z"}]
BAD_LINES = [
    '{"msg_id": "big", "user_id": "ana", "text": "hello", "ts": "2026-03-02T09:00:00Z", "n": '
    + "9" * 5000 + "}",
    json.dumps({"msg_id": "old", "user_id": "ana", "text": "hello there", "ts": "0001-01-01T00:00:00+14:00"}),
    json.dumps({"msg_id": "y1", "user_id": "ana", "text": "Yesterday I ran a marathon.",
                "ts": "0001-01-01T05:00:00Z"}),
    json.dumps({"msg_id": "y2", "user_id": "ana", "text": "Two years ago I moved to Porto.",
                "ts": "0001-06-01T05:00:00Z"}),
    json.dumps({"msg_id": "y3", "user_id": "ana", "text": "Last month I started a new job.",
                "ts": "0001-01-15T05:00:00Z"}),
    json.dumps({"msg_id": "epochbig", "user_id": "ana", "text": "hi", "ts": 10**20}),
]
RELATIVE = ["Yesterday I ran a marathon.", "Two years ago I moved to Porto.", "Next week I fly to Rome.",
            "Last month I started a new job.", "In 3 days we leave.", "Tomorrow at 9 I see the dentist.",
            "A decade ago I lived in Leeds.", "On Friday we had dinner.", "Next year I retire."]


def test_a_file_with_bad_values_stores_the_good_lines_and_names_the_bad_ones(tmp_path):
    path = tmp_path / "t.jsonl"
    lines = [json.dumps(GOOD[0]), *BAD_LINES, json.dumps(GOOD[1])]
    path.write_text("\n".join(lines) + "\n")
    memory = Memory.in_memory(embedder=HashingEmbedder())
    report = memory.ingest_file(path)
    stored = {r["data"]["msg_id"] for r in memory.export("ana") if r["type"] == "message"}
    assert {"ok1", "ok2"} <= stored
    rejected = {r.position: r for r in report.rejected}
    assert report.accepted + len(report.rejected) == len(lines)
    assert 2 in rejected and "digits" in rejected[2].error  # the 5000-digit integer
    assert rejected[3].field == "ts" and "years 1-9999" in rejected[3].error
    assert rejected[7].field == "ts"
    assert all(r.error.startswith(f"line {r.position}:") for r in report.rejected)
    memory.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)),
                          st.sampled_from(RELATIVE), st.integers(-14, 14)), min_size=1, max_size=6))
def test_relative_dates_at_any_time_never_abort_the_batch(turns):
    memory = Memory.in_memory(embedder=HashingEmbedder())
    messages = [{"msg_id": f"m{n}", "user_id": "ana", "text": text,
                 "ts": when.replace(tzinfo=timezone(timedelta(hours=offset))).isoformat()}
                for n, (when, text, offset) in enumerate(turns)]
    messages.append({"msg_id": "good", "user_id": "ana", "text": "I like tea.", "ts": "2026-03-02T09:00:00Z"})
    report = memory.ingest_many(messages)
    assert report.accepted + len(report.rejected) == len(messages)
    assert "good" in {r["data"]["msg_id"] for r in memory.export("ana") if r["type"] == "message"}
    memory.close()
