"""An ingest lets the write lock go once it has committed and upserts its vectors under
the index lock, so the next batch commits meanwhile. A forget (like every other write)
takes both locks: it never runs between a commit and its upsert, so no vector outlives
the rows it was derived from. The index here is slow on purpose, to widen that window."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np

from memfold.config import Settings, build_memory
from memfold.embed import HashingEmbedder
from memfold.memory import Memory
from memfold.models import ArchiveItem
from memfold.stores import Stores
from memfold.stores.memory import InMemoryVectorIndex

from .conftest import msg


class SlowIndex(InMemoryVectorIndex):
    """The reference index with an upsert that takes a while (as Chroma's does)."""

    def upsert(self, items: Sequence[ArchiveItem], embeddings: np.ndarray) -> None:
        time.sleep(0.02)
        super().upsert(items, embeddings)


def _memory() -> Memory:
    stores = Stores.in_memory()
    stores.index = SlowIndex()
    return build_memory(Settings(embedder="hashing", backend="offline"), stores=stores,
                        embedder=HashingEmbedder())


def test_a_forget_racing_ingests_leaves_no_vector_without_its_row() -> None:
    memory = _memory()
    try:
        for round_ in range(15):
            writer = threading.Thread(target=memory.ingest, args=(
                msg(f"m{round_}", f"I keep a blue notebook number {round_} on my desk"),))
            writer.start()
            time.sleep(0.005 * (round_ % 4))  # forget lands before, during or after the upsert
            memory.forget("ana")
            writer.join()
            rows = {item.item_id for item in memory.stores.archive.list("ana")}
            assert memory.stores.index.ids("ana") <= rows, f"orphan vectors in round {round_}"
    finally:
        memory.close()


def test_batches_commit_while_an_earlier_batch_is_indexed() -> None:
    memory = _memory()
    try:
        threads = [threading.Thread(target=memory.ingest, args=(
            msg(f"m{n}", f"note {n}: the plumber comes on day {n}", user=f"u{n}"),)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for n in range(8):  # every committed row was indexed, none twice or lost
            assert memory.stores.index.ids(f"u{n}") == {i.item_id for i in memory.stores.archive.list(f"u{n}")}
    finally:
        memory.close()
