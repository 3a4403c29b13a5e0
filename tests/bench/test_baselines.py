"""The raw-turn baselines, on the seeded hashing embedder (no model)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from memfold.bench.systems import (
    BM25Baseline,
    CachingEmbedder,
    DenseBaseline,
    HybridBaseline,
    RecallSystem,
    RecencyBaseline,
    default_factories,
    turn_text,
)
from memfold.embed import HashingEmbedder
from memfold.errors import ConfigError
from memfold.models import Message

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
TEXTS = ["I adopted a beagle called Pixel", "The weather in Porto was rainy",
         "We went hiking near the volcano", "My cello teacher is strict",
         "Pixel chewed my running shoes"]


def turns(user_id: str = "u") -> list[Message]:
    return [Message(msg_id=f"m{i}", user_id=user_id, speaker="Ana", text=text,
                    ts=T0 + timedelta(minutes=i)) for i, text in enumerate(TEXTS)]


def systems() -> list[RecallSystem]:
    embedder = HashingEmbedder()
    return [BM25Baseline(), DenseBaseline(embedder), HybridBaseline(embedder), RecencyBaseline()]


@pytest.mark.parametrize("system", systems(), ids=lambda s: s.name)
def test_every_baseline_satisfies_the_protocol_and_returns_single_turn_items(system) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(system, RecallSystem)
    assert system.ingest(turns()) == len(TEXTS)
    items = system.recall("beagle Pixel", "u", None, 3)
    assert 0 < len(items) <= 3
    for found in items:
        assert len(found.sources) == 1
        assert found.text.startswith("Ana: ")
    assert system.recall("beagle", "nobody", None, 3) == []


def test_bm25_ranks_the_matching_turns_first_and_drops_non_matches() -> None:
    bm25 = BM25Baseline()
    bm25.ingest(turns())
    items = bm25.recall("what did Pixel chew?", "u", None, 5)
    assert items[0].sources == ["m4"]
    assert {i.sources[0] for i in items} <= {"m0", "m4"}  # only turns sharing a term


def test_bm25_stems_words() -> None:
    bm25 = BM25Baseline()
    bm25.ingest(turns())
    assert bm25.recall("hikes", "u", None, 1)[0].sources == ["m2"]


def test_bm25_sees_turns_added_after_a_recall() -> None:
    bm25 = BM25Baseline()
    bm25.ingest(turns()[:2])
    assert bm25.recall("volcano", "u", None, 3) == []
    bm25.ingest(turns()[2:])
    assert bm25.recall("volcano", "u", None, 3)[0].sources == ["m2"]


def test_dense_finds_the_lexically_closest_turn_with_hashing_vectors() -> None:
    dense = DenseBaseline(HashingEmbedder())
    dense.ingest(turns())
    assert dense.recall("cello teacher", "u", None, 1)[0].sources == ["m3"]


def test_hybrid_fuses_both_rankings() -> None:
    hybrid = HybridBaseline(HashingEmbedder())
    hybrid.ingest(turns())
    items = hybrid.recall("Pixel chewed shoes", "u", None, 5)
    assert items[0].sources == ["m4"]
    scores = [i.score for i in items]
    assert scores == sorted(scores, reverse=True)


def test_recency_returns_latest_turns_before_now() -> None:
    recency = RecencyBaseline()
    recency.ingest(turns())
    assert [i.sources[0] for i in recency.recall("anything", "u", None, 2)] == ["m4", "m3"]
    now = T0 + timedelta(minutes=2)
    assert [i.sources[0] for i in recency.recall("anything", "u", now, 2)] == ["m2", "m1"]


def test_users_are_isolated() -> None:
    bm25 = BM25Baseline()
    bm25.ingest(turns("a"))
    bm25.ingest([Message(msg_id="x", user_id="b", text="volcano trip", ts=T0)])
    assert [i.sources for i in bm25.recall("volcano", "b", None, 5)] == [["x"]]


def test_turn_text_includes_the_caption() -> None:
    message = Message(msg_id="c", user_id="u", speaker="Ben", text="Look!", ts=T0,
                      meta={"blip_caption": "a red kite"})
    assert turn_text(message) == "Ben: Look! [image: a red kite]"


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts_embedded = 0

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.texts_embedded += len(texts)
        return super().embed(texts)


def test_caching_embedder_shares_turn_vectors_but_not_queries() -> None:
    shared: dict[str, np.ndarray] = {}
    first, second = CountingEmbedder(), CountingEmbedder()
    a, b = CachingEmbedder(first, shared), CachingEmbedder(second, shared)
    texts = [turn_text(m) for m in turns()]
    np.testing.assert_allclose(a.embed(texts), b.embed(texts))
    assert first.texts_embedded == len(texts) and second.texts_embedded == 0
    b.embed(["a query"])
    b.embed(["a query"])
    assert second.texts_embedded == 2  # queries are always this system's own work


def test_default_factories_reject_unknown_names() -> None:
    with pytest.raises(ConfigError):
        default_factories(["bm25", "magic"], HashingEmbedder)
    built = default_factories(["recency", "bm25"], HashingEmbedder)
    assert list(built) == ["recency", "bm25"]
