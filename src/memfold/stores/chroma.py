"""Chroma as the derived vector index over ``ArchiveItem.key_text``.

Only ids, embeddings and filter metadata ({user_id, kind, occurred_at epoch}) go into
Chroma, never the text: DuckDB is the system of record, and text kept out of Chroma
cannot linger in its write log after erasure. Chroma's default embedding function
would download a model, so the collection is created without one and every call
passes embeddings. Every query filters on ``user_id``.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import chromadb
import numpy as np
from chromadb.config import Settings
from chromadb.errors import ChromaError

from memfold.errors import InvalidInputError, StoreClosedError, VectorIndexError
from memfold.models import ArchiveItem

COLLECTION = "memfold_archive"
T = TypeVar("T")
# What the Chroma client raises besides its own tree (sqlite, hnswlib and argument checks).
_CHROMA_FAILURES = (ChromaError, ValueError, RuntimeError, OSError, KeyError)


@contextmanager
def _translated(what: str) -> Iterator[None]:
    try:
        yield
    except _CHROMA_FAILURES as exc:
        raise VectorIndexError(f"Chroma failed to {what}: {exc}",
                               hint="run `memfold reindex` to rebuild it from DuckDB") from exc


def _metadata(item: ArchiveItem) -> dict[str, Any]:
    meta: dict[str, Any] = {"user_id": item.user_id, "kind": item.kind}
    if item.occurred_at is not None:
        meta["occurred_at"] = item.occurred_at.timestamp()
    return meta


def _where(user_id: str, kinds: Sequence[str] | None) -> dict[str, Any]:
    if kinds is None:
        return {"user_id": user_id}
    return {"$and": [{"user_id": user_id}, {"kind": {"$in": list(kinds)}}]}


class ChromaVectorIndex:
    """One cosine-space Chroma collection in ``path``; scores are cosine similarity."""

    def __init__(self, path: str | Path, *, collection: str = COLLECTION) -> None:
        self.path = Path(path)
        self.collection_name = collection
        self._lock = threading.RLock()
        self._closed = False
        with _translated(f"open {self.path}"):
            self._client = chromadb.PersistentClient(
                path=str(self.path),
                settings=Settings(anonymized_telemetry=False, allow_reset=True))
            self._collection = self._open_collection()
            self._max_batch = max(1, int(self._client.get_max_batch_size()) - 1)

    def _open_collection(self) -> Any:
        return self._client.get_or_create_collection(
            self.collection_name, configuration={"hnsw": {"space": "cosine"}},
            embedding_function=None)

    def _call(self, what: str, work: Callable[[], T]) -> T:
        with self._lock:
            if self._closed:
                raise StoreClosedError(f"the vector index {self.path} was used after close()")
            with _translated(what):
                return work()

    def upsert(self, items: Sequence[ArchiveItem], embeddings: np.ndarray) -> None:
        matrix = np.asarray(embeddings, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(items):
            raise InvalidInputError(
                f"expected {len(items)} embeddings as a 2-d array, got shape {matrix.shape}")
        for start in range(0, len(items), self._max_batch):
            batch = items[start:start + self._max_batch]
            vectors = matrix[start:start + self._max_batch]
            self._call("upsert vectors", lambda b=batch, v=vectors: self._collection.upsert(
                ids=[i.item_id for i in b], embeddings=v,
                metadatas=[_metadata(i) for i in b]))

    def query(self, user_id: str, embedding: np.ndarray, k: int,
              kinds: Sequence[str] | None = None) -> list[tuple[str, float]]:
        if k <= 0 or (kinds is not None and not kinds):
            return []
        vector = np.asarray(embedding, dtype=np.float32).reshape(1, -1)
        result = self._call("query", lambda: self._collection.query(
            query_embeddings=vector, n_results=k, where=_where(user_id, kinds),
            include=["distances"]))
        ids, distances = result["ids"][0], result["distances"][0]
        return [(item_id, 1.0 - float(d)) for item_id, d in zip(ids, distances)]

    def delete(self, item_ids: Sequence[str]) -> None:
        ids = list(dict.fromkeys(item_ids))
        for start in range(0, len(ids), self._max_batch):
            batch = ids[start:start + self._max_batch]
            self._call("delete vectors", lambda b=batch: self._collection.delete(ids=b))

    def ids(self, user_id: str | None = None) -> set[str]:
        where = None if user_id is None else {"user_id": user_id}
        found: set[str] = set()
        offset = 0
        while True:
            page = self._call("list ids", lambda o=offset: self._collection.get(
                where=where, include=[], limit=self._max_batch, offset=o))
            found.update(page["ids"])
            if len(page["ids"]) < self._max_batch:
                return found
            offset += self._max_batch

    def count(self) -> int:
        return int(self._call("count", self._collection.count))

    def reset(self) -> None:
        """Drop every vector (the collection is recreated empty)."""
        def recreate() -> None:
            self._client.delete_collection(self.collection_name)
            self._collection = self._open_collection()
        self._call("reset the collection", recreate)

    def purge_log(self) -> None:
        """Rewrite the index so deleted ids, metadata and vectors leave every file.

        ``delete`` only hides a vector: Chroma keeps the write in its log
        (``embeddings_queue`` in chroma.sqlite3) and the old HNSW files keep the vector.
        This copies the live vectors out, drops and recreates the collection, writes them
        back, VACUUMs the SQLite file and removes segment directories no longer in use.
        A crash midway leaves rows missing from the index; ``sync_index`` re-embeds them.
        """
        with self._lock:
            live = self._export()
            self._call("drop the collection",
                       lambda: self._client.delete_collection(self.collection_name))
            self._collection = self._call("recreate the collection", self._open_collection)
            for start in range(0, len(live[0]), self._max_batch):
                end = start + self._max_batch
                self._call("write vectors back", lambda s=start, e=end: self._collection.upsert(
                    ids=live[0][s:e], embeddings=live[1][s:e], metadatas=live[2][s:e]))
            self._vacuum_and_prune()

    def _export(self) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
        ids: list[str] = []
        vectors: list[np.ndarray] = []
        metas: list[dict[str, Any]] = []
        while True:
            page = self._call("read vectors", lambda o=len(ids): self._collection.get(
                include=["embeddings", "metadatas"], limit=self._max_batch, offset=o))
            ids.extend(page["ids"])
            vectors.extend(np.asarray(v, dtype=np.float32) for v in page["embeddings"])
            metas.extend(dict(m) for m in page["metadatas"])
            if len(page["ids"]) < self._max_batch:
                return ids, np.stack(vectors) if vectors else np.zeros((0, 1), np.float32), metas

    def _vacuum_and_prune(self) -> None:
        database = self.path / "chroma.sqlite3"
        try:
            conn = sqlite3.connect(database, timeout=30)
            try:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                conn.execute("VACUUM")
                in_use = {row[0] for row in conn.execute("SELECT id FROM segments")}
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise VectorIndexError(f"cannot vacuum {database}: {exc}") from exc
        for child in self.path.iterdir():
            if child.is_dir() and _is_uuid(child.name) and child.name not in in_use:
                shutil.rmtree(child, ignore_errors=True)

    def close(self) -> None:
        """Mark the index closed (Chroma 1.5 has no explicit close; its client is cached
        per path, so a reopen in the same process sees the same data)."""
        with self._lock:
            self._closed = True


def _is_uuid(name: str) -> bool:
    try:
        uuid.UUID(name)
    except ValueError:
        return False
    return True
