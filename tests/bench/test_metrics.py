"""The evidence-recall metric and the token budget against hand-computed cases (no model)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memfold.bench.locomo import load_sample
from memfold.bench.metrics import evidence_recall, percentile, recall_at_k, within_budget
from memfold.models import RecallItem
from memfold.tokens import WhitespaceCounter

from .conftest import synthetic_sample


def item(text: str, *sources: str) -> RecallItem:
    return RecallItem(store="archive", text=text, score=1.0, sources=list(sources),
                      occurred_at=datetime(2024, 1, 1, tzinfo=timezone.utc))


def test_no_evidence_counts_as_one() -> None:
    assert evidence_recall([], []) == 1.0


def test_share_of_evidence_covered() -> None:
    assert evidence_recall(["D1:1", "D1:3"], ["D1:3", "D5:5"]) == 0.5
    assert evidence_recall(["D1:1"], []) == 0.0


def test_recall_at_k_uses_only_the_first_k_items() -> None:
    items = [item("a", "D1:2"), item("b", "D1:1"), item("c", "D1:3")]
    assert recall_at_k(["D1:1", "D1:3"], items, 1) == 0.0
    assert recall_at_k(["D1:1", "D1:3"], items, 2) == 0.5
    assert recall_at_k(["D1:1", "D1:3"], items, 3) == 1.0


def test_an_item_with_several_sources_covers_them_all() -> None:
    episode = item("summary of a session", "D1:1", "D1:2", "D1:3")
    assert recall_at_k(["D1:1", "D1:3"], [episode], 1) == 1.0


def test_budget_takes_items_in_rank_order_while_they_fit() -> None:
    counter = WhitespaceCounter()  # 1.3 tokens a word, rounded
    items = [item("one two three", "a"), item("four five six seven eight nine ten", "b"),
             item("eleven", "c")]
    costs = [counter.count(i.text) for i in items]
    assert costs == [4, 9, 1]
    taken, used = within_budget(items, 10, counter)
    assert [i.sources for i in taken] == [["a"]] and used == 4  # the third would fit, but order rules
    taken, used = within_budget(items, 14, counter)
    assert len(taken) == 3 and used == 14
    assert within_budget(items, 3, counter) == ([], 0)


def test_quirky_evidence_scored_end_to_end() -> None:
    """Loader + metric on every quirk: joined ids, D:11:26-style, zero padding, missing turn."""
    questions = load_sample(synthetic_sample()).questions
    recalled = ["D1:1", "D2:1"]
    scores = [evidence_recall(q.evidence, recalled) for q in questions]
    # D1:1 | D1:1;D1:3 -> 1/2 | D:2:1,D2:02 -> 1/2 | D9:9 (no such turn) -> 0 | none -> 1
    assert scores == [1.0, 0.5, 0.5, 0.0, 1.0]


def test_percentile() -> None:
    assert percentile([10.0, 20.0, 30.0, 40.0], 50) == pytest.approx(25.0)
    assert percentile([], 95) == 0.0


@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6),
       st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=6))
def test_recall_is_a_share(evidence: list[str], sources: list[str]) -> None:
    value = evidence_recall(evidence, sources)
    assert 0.0 <= value <= 1.0
    assert evidence_recall(evidence, list(evidence) + sources) == 1.0
