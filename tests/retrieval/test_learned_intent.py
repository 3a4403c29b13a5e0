"""The learned intent head: used only in the embedding space it was trained in."""

from __future__ import annotations

from datetime import datetime, timezone

from memfold.embed import HashingEmbedder
from memfold.llm.head import packaged_head
from memfold.retrieval.intent import HeuristicIntentClassifier, LearnedIntentClassifier, query_range

NOW = datetime(2026, 6, 15, 12, tzinfo=timezone.utc)


def test_the_packaged_head_ships_and_names_its_embedders() -> None:
    head = packaged_head("intent_head")
    assert head is not None and head.labels == ("fact", "temporal", "semantic")
    assert "all-MiniLM-L6-v2-q8" in head.embedders


def test_another_embedder_gets_the_heuristics_unchanged() -> None:
    learned = LearnedIntentClassifier(HashingEmbedder())
    for query in ("whats my wifes name", "what's coming up this week?", "find my notes on kafka"):
        assert learned.classify(query, NOW).weights == HeuristicIntentClassifier().classify(query, NOW).weights


def test_whats_coming_up_is_the_next_weeks_without_a_named_date() -> None:
    start, end = query_range("anything coming up for me?", NOW)  # type: ignore[misc]
    assert start == NOW and (end - start).days == 60
    assert query_range("what did I eat?", NOW) is None
