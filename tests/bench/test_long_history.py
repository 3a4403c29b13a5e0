"""long_conversation's length mix, and benchmarks/long_history.py end to end (hashing embedder)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from memfold.bench.synthetic import long_conversation
from memfold.models import Message

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def conversation() -> list[Message]:
    return list(long_conversation(2000))


def test_same_seed_same_conversation() -> None:
    assert list(long_conversation(150, seed=5)) == list(long_conversation(150, seed=5))
    assert list(long_conversation(150, seed=5)) != list(long_conversation(150, seed=6))
    assert list(long_conversation(40)) == list(long_conversation(2000))[:40]  # a prefix of a longer run


def test_length_mix_is_assistant_like(conversation: list[Message]) -> None:
    user = [len(m.text) for m in conversation if m.role == "user" and len(m.text) < 3000]  # not pastes
    assistant = [len(m.text) for m in conversation if m.role == "assistant"]
    documents = [m.text for m in conversation if len(m.text) > 3000 and m.role != "assistant"]
    assert statistics.median(user) < 400
    assert 1000 < statistics.median(assistant) < 2500
    assert max(assistant) > 3000 and min(assistant) > 300
    assert len(documents) >= 20 and all("\n\n" in text for text in documents)
    assert any(m.role == "document" for m in conversation)
    shares = {role: sum(m.role == role for m in conversation) / len(conversation)
              for role in ("user", "assistant", "document")}
    assert 0.4 < shares["user"] < 0.6 and 0.35 < shares["assistant"] < 0.55 and shares["document"] < 0.1


def test_texts_vary_and_are_filled(conversation: list[Message]) -> None:
    replies = [m.text for m in conversation if m.role == "assistant"]
    assert len(set(replies)) == len(replies)
    assert not any("{" in m.text or "}" in m.text for m in conversation)
    assert all(1 <= reply.count("\n\n") + 1 <= 6 for reply in replies)
    assert all(90 <= len(reply.split()) <= 720 for reply in replies)


def test_sessions_timestamps_ids_and_speakers(conversation: list[Message]) -> None:
    assert len({m.msg_id for m in conversation}) == len(conversation)
    assert conversation[0].msg_id == "t0" and conversation[-1].msg_id == "t1999"
    assert all(a.ts < b.ts for a, b in zip(conversation, conversation[1:]))
    assert conversation[0].ts.year == 2024 and conversation[0].ts.utcoffset().total_seconds() == 0
    sessions: dict[str, list[Message]] = {}
    for message in conversation:
        sessions.setdefault(message.session_id, []).append(message)
    assert len(sessions) > 100
    assert all(8 <= len(turns) <= 14 for turns in list(sessions.values())[:-1])
    days = [turns[0].ts.date() for turns in sessions.values()]
    assert len(set(days)) == len(days)  # one session a day
    assert {(m.role, m.speaker) for m in conversation} == {
        ("user", "User"), ("assistant", "Assistant"), ("document", "Document")}
    assert {m.user_id for m in conversation} == {"long-user"}


@pytest.mark.timeout(180)
def test_script_writes_the_documented_json(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "long_history.py"), "--turns", "120",
                           "--batch", "40", "--embedder", "hashing", "--out", str(out)],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(out.read_text())
    assert results["messages"] == 120 and results["accepted"] == 120 and results["rejected"] == 0
    assert results["embedder"] == "hashing" and results["backend"] == "offline"
    assert results["messages_per_s"] > 0 and results["chars_per_s"] > results["messages_per_s"]
    assert len(results["batches"]) == 3 and sum(b["messages"] for b in results["batches"]) == 120
    for name in ("1k", "end"):
        window = results["windows"][name]
        assert window["ms_per_message"] > 0 and window["ms_per_1k_chars"] > 0
        assert window["messages"] == 40 and window["chars_per_message"] > 100
        profile = window["profile"]
        assert 0 < len(profile["top_cumulative"]) <= 15
        assert profile["top_cumulative"][0]["cumulative_s"] > 0
        split = profile["time_split_s"]
        assert set(split) == {"embedding", "compaction", "router", "lexical_index", "stores", "other"}
        assert split["embedding"] > 0 and split["stores"] > 0
        assert sum(split.values()) <= profile["seconds"] * 1.05
    assert results["cost_ratio_end_vs_1k"] > 0 and results["cost_ratio_end_vs_1k_per_1k_chars"] > 0
    assert results["store_bytes"] > 0 and results["peak_rss_mb"] > 0 and results["cpu_count"] >= 1
    assert len(results["load_avg_start"]) == 3 and len(results["load_avg_end"]) == 3
    assert results["git_commit"] and results["date"].startswith("20")
    assert "cost_ratio_end_vs_1k" in done.stdout and "| end |" in done.stdout


def test_windows_are_around_1k_turns_and_the_end() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import long_history
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    plans = long_history.plan_windows(10000, 50)
    assert plans["1k"]["turns"] == [1000, 2000] and plans["1k"]["batches"] == list(range(20, 40))
    assert plans["end"]["turns"] == [9000, 10000] and plans["end"]["batches"] == list(range(180, 200))
    assert (plans["1k"]["profiled"], plans["end"]["profiled"]) == (30, 190)
    small = long_history.plan_windows(300, 50)  # 10%-20% and the last 10%, whole batches
    assert small["1k"]["turns"] == [30, 60] and small["1k"]["batches"] == [1]
    assert small["end"]["turns"] == [270, 300] and small["end"]["batches"] == [5]
