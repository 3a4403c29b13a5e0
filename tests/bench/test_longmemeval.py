"""The LongMemEval_S loader, the prompt metric and the session/update scoring, on small records."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from memfold.bench import run_longmemeval
from memfold.bench.longmemeval import load_longmemeval
from memfold.bench.metrics import prompt_recall, ranked_sessions, session_recall
from memfold.bench.systems import BASELINES, default_factories
from memfold.embed import HashingEmbedder
from memfold.tokens import WhitespaceCounter


def _turn(role: str, content: str, answer: bool = False) -> dict:
    return {"role": role, "content": content, **({"has_answer": True} if answer else {})}


def _record(qid: str, qtype: str = "knowledge-update") -> dict:
    return {
        "question_id": qid, "question_type": qtype, "question": "How many plants do I have?",
        "question_date": "2023/06/01 (Thu) 10:00", "answer": "seven",
        "answer_session_ids": ["s_old", "s_new"],
        "haystack_session_ids": ["s_old", "s_noise", "s_new"],
        "haystack_dates": ["2023/05/01 (Mon) 09:00", "2023/05/10 (Wed) 09:00", "2023/05/20 (Sat) 09:00"],
        "haystack_sessions": [
            [_turn("user", "I have four plants on my balcony right now.", True), _turn("assistant", "Nice!")],
            [_turn("user", "What is a good pasta recipe for tonight?"), _turn("assistant", "Try carbonara."),
             _turn("user", "")],
            [_turn("user", "I bought three more, so I have seven plants on my balcony now.", True)],
        ],
    }


@pytest.fixture()
def lme_file(tmp_path: Path) -> Path:
    records = [_record("q1"), _record("q2_abs"), _record("q3", "multi-session"), {"question_id": "bad"}]
    path = tmp_path / "lme.json.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump(records, handle)
    return path


def test_loader_turns_sessions_updates_and_skips(lme_file: Path) -> None:
    dataset = load_longmemeval(lme_file)
    assert [c.user_id for c in dataset.conversations] == ["lme-q1", "lme-q3"]  # _abs left out
    assert len(dataset.skipped) == 1 and "bad" in dataset.skipped[0]  # named, the run goes on
    conversation = dataset.conversations[0]
    assert [m.msg_id for m in conversation.messages] == ["s_old#0", "s_old#1", "s_noise#0", "s_noise#1",
                                                         "s_new#0"]  # the empty turn is skipped
    question = conversation.questions[0]
    assert question.evidence == ["s_old#0", "s_new#0"]
    assert question.evidence_sessions == ["s_old", "s_new"]
    assert question.newest_evidence == "s_new#0" and question.replaced_evidence == ["s_old#0"]
    assert dataset.conversations[1].questions[0].newest_evidence is None  # not an update question


def test_prompt_recall_counts_whole_ids_or_long_texts() -> None:
    texts = {"D1:3": "I adopted a dog named Rex last spring.", "D1:4": "Yes!"}
    assert prompt_recall(["D1:3"], texts, "sources: D1:30, D1:31")[0] == 0.0  # not a whole id
    assert prompt_recall(["D1:3"], texts, "(2023-05-08, sources: D1:3)")[0] == 1.0
    assert prompt_recall(["D1:3"], texts, '- "I adopted a dog named   Rex last spring." (x)')[0] == 1.0
    assert prompt_recall(["D1:4"], texts, "Yes! Yes!") == (0.0, ["D1:4"])  # too short to match by text
    assert prompt_recall([], texts, "") == (1.0, [])


def test_session_recall_any_and_all() -> None:
    class Item:
        def __init__(self, *sources: str) -> None:
            self.sources = list(sources)
            self.text = ""

    sessions = {"a#0": "a", "b#1": "b", "c#0": "c"}
    ranked = ranked_sessions([Item("b#1"), Item("b#1"), Item("c#0"), Item("a#0")], sessions)
    assert ranked == ["b", "c", "a"]
    assert session_recall(["a", "b"], ranked, 1) == (1.0, 0.0)
    assert session_recall(["a", "b"], ranked, 3) == (1.0, 1.0)
    assert session_recall(["a"], ranked, 2) == (0.0, 0.0)


def test_run_longmemeval_reports_sessions_context_and_updates(lme_file: Path, tmp_path: Path) -> None:
    factories = default_factories(BASELINES, HashingEmbedder)
    results = run_longmemeval(lme_file, ks=(1, 3), budget=200, out=tmp_path / "out", factories=factories,
                              counter=WhitespaceCounter())
    assert results["questions"] == 2 and len(results["skipped"]) == 1
    bm25 = results["systems"]["bm25"]
    assert set(bm25["session_recall_any_at"]) == {"1", "5", "10"}
    assert set(bm25["context_at"]) == {"200", "500", "1000", "2000"}
    updates = bm25["by_category"]["knowledge-update"]["updates"]
    assert updates["n"] == 1 and 0.0 <= updates["newest_ranked_first"] <= 1.0
    # both evidence turns share the query's words: at 2,000 tokens the prompt holds all of them
    assert bm25["context_at"]["2000"] == 1.0
    recency = results["systems"]["recency"]["by_category"]["knowledge-update"]["updates"]
    assert recency["newest_ranked_first"] == 1.0  # newest first is what recency does
    markdown = (tmp_path / "out" / "results.md").read_text()
    assert "session recall_any@5" in markdown and "Knowledge updates" in markdown
