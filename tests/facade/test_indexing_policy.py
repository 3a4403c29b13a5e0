"""Which archive rows an ingest writes: raw rows always, extraction rows only on request."""

from __future__ import annotations

import pytest

from memfold.config import Settings
from memfold.embed import HashingEmbedder
from memfold.memory import Memory

from .conftest import msg

TEXTS = ["I moved to Lisbon in March 2024.", "I'm allergic to peanuts.", "hi!"]


@pytest.mark.parametrize("extractions", [False, True])
def test_extraction_rows_follow_the_setting(extractions: bool) -> None:
    mem = Memory.in_memory(Settings(index_extractions=extractions), embedder=HashingEmbedder())
    try:
        mem.ingest_many([msg(f"m{i}", text, minutes=i) for i, text in enumerate(TEXTS)])
        kinds = [item.kind for item in mem.stores.archive.list("ana")]
        structured = len(mem.profile("ana")) + len(mem.events("ana"))
    finally:
        mem.close()
    assert kinds.count("message") == len(TEXTS)  # every raw turn stays findable
    assert structured  # there was something to extract, and it is in the profile/event log
    extra = [k for k in kinds if k in ("fact", "event")]
    assert bool(extra) is extractions


class CountingEmbedder(HashingEmbedder):
    """A working hashing embedder that records every text it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.seen.extend(texts)
        return super().embed(texts)


def _long_reply(words: int = 420) -> str:
    sentences = [f"Step {n} of the plan covers topic {n % 7} in some detail." for n in range(words // 10)]
    return " ".join(sentences)


def test_a_long_message_is_embedded_as_its_chunks_once_and_never_whole() -> None:
    from memfold.retrieval.indexing import row_texts
    from memfold.models import Message

    embedder = CountingEmbedder()
    mem = Memory.in_memory(embedder=embedder)
    long_text = _long_reply()
    try:
        mem.ingest_many([msg("m0", "Can you plan my week?"),
                         msg("m1", long_text, role="assistant", speaker="Bot", minutes=1)])
        chunks = row_texts(Message.model_validate(msg("m1", long_text, role="assistant", speaker="Bot")))
        indexed = {item.key_text for item in mem.stores.archive.list("ana")}
    finally:
        mem.close()
    assert len(chunks) >= 2
    assert long_text not in embedder.seen  # no forward pass over the whole (truncated) text
    for chunk in chunks:
        assert embedder.seen.count(chunk) == 1  # the router's vector and the index share it
        assert chunk in indexed


def test_the_router_reads_a_long_message_as_the_mean_of_its_chunks() -> None:
    import numpy as np

    from memfold.models import Message
    from memfold.retrieval.indexing import row_texts

    embedder = HashingEmbedder()
    mem = Memory.in_memory(embedder=embedder)
    try:
        message = Message.model_validate(msg("m1", _long_reply(), role="assistant", speaker="Bot"))
        [pooled], vectors = mem._embed_messages([message])
    finally:
        mem.close()
    chunks = row_texts(message)
    weights = np.array([len(c.split()) for c in chunks], dtype=np.float32)
    expected = (embedder.embed(chunks) * weights[:, None]).sum(axis=0)
    expected /= np.linalg.norm(expected)
    assert set(vectors) == set(chunks)
    assert np.allclose(pooled, expected, atol=1e-5)
    assert abs(float(np.linalg.norm(pooled)) - 1.0) < 1e-5


def test_every_row_is_indexed_when_ingest_many_returns_derived_ones_included(tmp_path) -> None:
    """Episodes leaving L2 are embedded by the ingest worker between batches (pipelined):
    none may be left pending once ingest_many returns, and each gets its own text's vector."""
    from memfold.bench.synthetic import long_conversation

    settings = Settings(store=tmp_path / "store", embedder="hashing", backend="offline",
                        ingest_batch_size=32)
    messages = list(long_conversation(400, user_id="ana"))
    with Memory.open(settings=settings) as mem:
        report = mem.ingest_many(messages)
        kinds = {item.kind for item in mem.stores.archive.list("ana")}
        pending = mem.stores.archive.count_unindexed()
        vectors, rows = mem.stores.index.count(), mem.stores.archive.count()
        [episode] = [i for i in mem.stores.archive.list("ana") if i.kind == "episode"][:1]
        hits = mem.search(episode.key_text, "ana", k=3)
    assert report.accepted == 400 and report.folds > 0
    assert "episode" in kinds  # L2 overflowed into the archive during the run
    assert pending == 0 and vectors == rows
    assert hits[0].item_id == episode.item_id  # its vector is its own text's, not a placeholder
