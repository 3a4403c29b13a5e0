"""The learned intent head: used only in the embedding space it was trained in."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from memfold.embed import HashingEmbedder
from memfold.llm.head import ClassifierHead, packaged_head
from memfold.retrieval.intent import (
    HeuristicIntentClassifier,
    LearnedIntentClassifier,
    intent_cue_vector,
    query_range,
)

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


def _always_semantic_head(embedder: HashingEmbedder, cues: int) -> ClassifierHead:
    dim = len(embedder.embed(["probe"])[0])
    return ClassifierHead(labels=("fact", "temporal", "semantic"), cue_names=tuple(f"c{i}" for i in range(cues)),
                      embedders=(embedder.name,), weights=np.zeros((dim + cues, 3), dtype=np.float32),
                      bias=np.array([0.0, 0.0, 10.0], dtype=np.float32),
                      cue_mean=np.zeros(cues, dtype=np.float32), cue_scale=np.ones(cues, dtype=np.float32))


def test_a_question_naming_a_calendar_date_keeps_the_cues_reading() -> None:
    embedder = HashingEmbedder()
    cues = len(intent_cue_vector("probe", NOW))
    learned = LearnedIntentClassifier(embedder, head=_always_semantic_head(embedder, cues))
    heuristic = HeuristicIntentClassifier()
    dated = "What did Anna cook on 3 May 2026?"
    assert heuristic.classify(dated, NOW).primary == "temporal"
    assert learned.classify(dated, NOW).weights == heuristic.classify(dated, NOW).weights
    relative = "What did Anna cook last week?"  # a range, but no calendar date: the head arbitrates
    assert heuristic.classify(relative, NOW).primary == "temporal"
    assert learned.classify(relative, NOW).primary == "semantic"
