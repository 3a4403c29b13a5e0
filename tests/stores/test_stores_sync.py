"""sync_index / rebuild_index on every bundle (in-memory, DuckDB + Chroma, and PostgreSQL + a
Chroma server: the deployment on servers)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from stores_helpers import item

from memfold.embed import HashingEmbedder
from memfold.stores import Stores, duckdb_stores
from memfold.stores.chroma import ChromaVectorIndex
from memfold.stores.duckdb import DuckDBDatabase
from memfold.stores.sync import rebuild_index, sync_index


class CountingEmbedder:
    """HashingEmbedder that records how many texts it embedded."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.embed(texts)


@pytest.fixture(params=["memory", "duckdb+chroma", "postgres+chroma-server"])
def bundle(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stores]:
    if request.param == "memory":
        stores = Stores.in_memory()
    elif request.param == "postgres+chroma-server":
        from memfold.stores.postgres import connect, postgres_stores

        cluster = request.getfixturevalue("pg_cluster")
        server = request.getfixturevalue("chroma_server")
        stores = postgres_stores(connect(cluster.conninfo(cluster.new_schema())), ChromaVectorIndex(
            client=server.client(), collection=f"t{uuid.uuid4().hex[:12]}"))
    else:
        stores = duckdb_stores(DuckDBDatabase(tmp_path / "memfold.duckdb"),
                               ChromaVectorIndex(tmp_path / "chroma"))
    yield stores
    stores.close()


def test_sync_indexes_pending_rows_in_batches(bundle: Stores) -> None:
    embedder = CountingEmbedder()
    bundle.archive.add([item(f"a{n}", f"note number {n}") for n in range(25)])
    report = sync_index(bundle, embedder, batch_size=10)
    assert report.indexed == 25 and embedder.texts == 25
    assert bundle.index.ids() == bundle.archive.all_ids() and bundle.archive.count_unindexed() == 0
    top = bundle.index.query("ana", embedder.embed(["note number 7"])[0], k=1)
    assert top[0][0] == "a7"


def test_sync_with_nothing_pending_embeds_nothing(bundle: Stores) -> None:
    embedder = CountingEmbedder()
    bundle.archive.add([item("a1")])
    sync_index(bundle, embedder)
    embedder.texts = 0
    report = sync_index(bundle, embedder)
    assert report.indexed == 0 and report.orphans_deleted == 0 and embedder.texts == 0


def test_sync_deletes_orphan_vectors(bundle: Stores) -> None:
    embedder = CountingEmbedder()
    bundle.archive.add([item("a1", sources=("m1",)), item("a2", sources=("m2",))])
    sync_index(bundle, embedder)
    bundle.archive.delete_by_source("ana", ["m1"])  # a crash before index.delete leaves a1
    report = sync_index(bundle, embedder)
    assert report.orphans_deleted == 1 and bundle.index.ids() == {"a2"}


def test_sync_restores_vectors_lost_from_the_index(bundle: Stores) -> None:
    embedder = CountingEmbedder()
    bundle.archive.add([item("a1"), item("a2")])
    sync_index(bundle, embedder)
    bundle.index.reset()  # e.g. a crash in the middle of an index rewrite
    report = sync_index(bundle, embedder)
    assert (report.missing, report.indexed, report.index_vectors) == (2, 2, 2)
    assert bundle.index.ids() == {"a1", "a2"} and bundle.archive.count_unindexed() == 0


def test_rebuild_reembeds_everything(bundle: Stores) -> None:
    embedder = CountingEmbedder()
    bundle.archive.add([item("a1"), item("a2", user="bob")])
    sync_index(bundle, embedder)
    bundle.index.upsert([item("stray")], embedder.embed(["stray"]))
    embedder.texts = 0
    report = rebuild_index(bundle, embedder)
    assert report.indexed == 2 and embedder.texts == 2
    assert bundle.index.ids() == {"a1", "a2"}


def test_read_only_stores_are_never_written_by_sync(tmp_path: Path) -> None:
    from memfold.errors import StoreError
    from memfold.stores import open_stores

    directory = tmp_path / "store"
    with open_stores(directory) as writer:
        writer.archive.add([item("a1"), item("a2")])  # committed, not yet indexed
    reader = open_stores(directory, read_only=True)
    report = sync_index(reader, CountingEmbedder())
    assert (report.indexed, report.archive_rows, report.index_vectors) == (0, 2, 0)
    with pytest.raises(StoreError):
        rebuild_index(reader, CountingEmbedder())
    reader.close()
    with open_stores(directory) as writer:  # the next writer indexes them
        assert sync_index(writer, CountingEmbedder()).indexed == 2
