"""`memfold export` then `memfold import` into an empty store reproduces every record exactly.

Property: for random message sets (several users, unicode text, equal timestamps, every
role), after ingest (and a hand-set fact and a fold, so that every record type occurs),
exporting the original store, importing the file into an empty store and exporting that
store again gives the same bytes; the same holds for the export of a single user.
"""

from __future__ import annotations

import json
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import T0, Cli, write_jsonl

USERS = ["ana", "ben", "zoë", "user 3"]
SENTENCES = [
    "I live in {w}.", "My favourite food is {w}.", "Yesterday I visited {w}.",
    "Last week I started learning {w}.", "I work as a {w}.", "What is {w}?",
    "Remind me to call {w} tomorrow.", "My sister {w} is a doctor.",
    "{w}", "I'm allergic to {w}.",
]
words = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20)
texts = st.builds(lambda template, word: template.format(w=word), st.sampled_from(SENTENCES),
                  words).filter(lambda text: text.strip())  # a blank text is rejected at ingest


@st.composite
def transcripts(draw) -> list[dict]:
    count = draw(st.integers(min_value=1, max_value=10))
    messages = []
    for number in range(count):
        user = draw(st.sampled_from(USERS))
        hours = draw(st.integers(min_value=0, max_value=24 * 30))  # equal timestamps happen
        messages.append({"msg_id": f"m{number}", "user_id": user, "session_id": f"s{hours // 48}",
                         "speaker": user,
                         "role": draw(st.sampled_from(["user", "assistant", "tool"])),
                         "text": draw(texts), "ts": (T0 + timedelta(hours=hours)).isoformat()})
    return messages


def round_trip(messages: list[dict], root: Path) -> tuple[str, str, list[str]]:
    """Ingest, enrich, export; import into an empty store; export again."""
    cli = Cli(root / "original")
    cli.ok("ingest", str(write_jsonl(root / "in.jsonl", messages)))
    first = messages[0]
    cli.ok("profile", "set", "note", first["text"][:50] or "x", "--user", first["user_id"],
           "--source", first["msg_id"])
    cli.ok("fold", "--user", first["user_id"])
    original = root / "original.jsonl"
    cli.ok("export", "--out", str(original))
    cli.ok("import", str(original), store=root / "copy")
    copied = root / "copy.jsonl"
    cli.ok("export", "--out", str(copied), store=root / "copy")
    single = cli.ok("export", "--user", first["user_id"]).stdout
    one = root / "one.jsonl"
    one.write_text(single, encoding="utf-8")
    cli.ok("import", str(one), store=root / "single")
    again = cli.ok("export", "--user", first["user_id"], store=root / "single").stdout
    return original.read_text(encoding="utf-8"), copied.read_text(encoding="utf-8"), [single, again]


def check_round_trip(messages: list[dict]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        original, copied, (single, again) = round_trip(messages, Path(tmp))
    assert copied == original
    assert again == single
    types = {json.loads(line)["type"] for line in original.splitlines()}
    assert {"message", "profile_fact", "profile_change", "archive_item", "fold_state"} <= types
    stored = [json.loads(line)["data"] for line in original.splitlines()
              if json.loads(line)["type"] == "message"]
    assert sorted((m["user_id"], m["msg_id"]) for m in stored) == \
        sorted((m["user_id"], m["msg_id"]) for m in messages)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transcripts())
def test_export_import_round_trips_exactly(messages):
    check_round_trip(messages)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transcripts())
def test_export_import_round_trips_exactly_many(messages):
    check_round_trip(messages)


def test_import_twice_is_refused_or_harmless(cli, tmp_path):
    out = tmp_path / "all.jsonl"
    cli.ok("export", "--out", str(out))
    before = cli.ok("export").stdout
    result = cli("import", str(out))
    assert result.exit_code in (0, 1) and "Traceback" not in result.output
    assert cli.ok("export").stdout == before
