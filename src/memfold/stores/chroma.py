"""Chroma as the derived vector index over ``ArchiveItem.key_text``.

Only ids, embeddings and filter metadata ({user_id, kind, occurred_at epoch}) go into
Chroma, never the text: DuckDB is the system of record, and text kept out of Chroma
cannot linger in its write log after erasure. Chroma's default embedding function
would download a model, so the collection is created without one and every call
passes embeddings. Every query filters on ``user_id``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
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

    def __init__(self, path: str | Path, *, collection: str = COLLECTION,
                 cleanup: bool = True) -> None:
        self.path = Path(path)
        if cleanup:  # a rebuild cut short by a crash: the old copy still holds deleted vectors
            for leftover in (_sibling(self.path, ".old"), _sibling(self.path, ".rebuild")):
                shutil.rmtree(leftover, ignore_errors=True)
        self.collection_name = collection
        self._lock = threading.RLock()
        self._closed = False
        self._client: Any = None
        self._collection: Any = None
        self._connect()
        with _translated("read the max batch size"):
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
        return int(self._call("count", lambda: self._collection.count()))

    def reset(self) -> None:
        """Drop every vector (the collection is recreated empty)."""
        def recreate() -> None:
            self._client.delete_collection(self.collection_name)
            self._collection = self._open_collection()
        self._call("reset the collection", recreate)

    def purge_log(self) -> None:
        """Rebuild the index directory so deleted ids, metadata and vectors leave every file.

        ``delete`` only hides a vector: Chroma keeps the write in its log
        (``embeddings_queue`` in chroma.sqlite3) and in its HNSW files. Rebuilding inside
        this process is not enough either (measured: 1 run in 6 wrote a deleted vector
        into the new HNSW file, from uninitialised memory that had held the old index).
        So the live vectors are handed to a fresh process that writes a new directory,
        which then replaces this one. A crash midway leaves the index empty or stale; the
        next ``sync_index`` re-embeds the missing rows from DuckDB.
        """
        with self._lock:
            stage = _sibling(self.path, ".rebuild")
            shutil.rmtree(stage, ignore_errors=True)
            stage.mkdir(parents=True)
            try:
                self._stage_live_vectors(stage)
                self._build_in_subprocess(stage)
                self._release_client()
                self._swap_in(stage / "chroma")
            finally:
                shutil.rmtree(stage, ignore_errors=True)
                if self._client is None:
                    self._connect()

    def _connect(self) -> None:
        with _translated(f"open {self.path}"):
            self._client = chromadb.PersistentClient(
                path=str(self.path),
                settings=Settings(anonymized_telemetry=False, allow_reset=True))
            self._collection = self._open_collection()

    def _release_client(self) -> None:
        client, self._client, self._collection = self._client, None, None
        if client is not None:
            with _translated("close the client"):
                client.close()

    def _stage_live_vectors(self, stage: Path) -> None:
        ids, vectors, metas = self._export()
        np.save(stage / "vectors.npy", vectors)
        (stage / "records.json").write_text(json.dumps({"ids": ids, "metadatas": metas}))

    def _build_in_subprocess(self, stage: Path) -> None:
        args = [sys.executable, "-c", _REBUILD_SCRIPT, str(stage), self.collection_name,
                str(self._max_batch)]
        try:
            subprocess.run(args, check=True, capture_output=True, text=True, timeout=600)
        except subprocess.CalledProcessError as exc:
            raise VectorIndexError(f"rebuilding {self.path} failed: {exc.stderr[-2000:]}",
                                   hint="run `memfold reindex`") from exc
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise VectorIndexError(f"rebuilding {self.path} failed: {exc}") from exc

    def _swap_in(self, fresh: Path) -> None:
        trash = _sibling(self.path, ".old")
        shutil.rmtree(trash, ignore_errors=True)
        try:
            os.replace(self.path, trash)
            os.replace(fresh, self.path)
        except OSError as exc:
            raise VectorIndexError(
                f"cannot swap in the rebuilt index at {self.path}: {exc}") from exc
        shutil.rmtree(trash, ignore_errors=True)
        _fsync_dir(self.path.parent)

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

    def close(self) -> None:
        """Close the Chroma client (releases its SQLite file and HNSW files); idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._release_client()


# Runs in a fresh interpreter: its memory never held the deleted vectors.
_REBUILD_SCRIPT = """
import json, sys
import numpy as np
import chromadb
from chromadb.config import Settings
stage, name, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
records = json.load(open(stage + "/records.json"))
vectors = np.load(stage + "/vectors.npy")
client = chromadb.PersistentClient(path=stage + "/chroma",
                                   settings=Settings(anonymized_telemetry=False, allow_reset=True))
collection = client.get_or_create_collection(name, configuration={"hnsw": {"space": "cosine"}},
                                             embedding_function=None)
ids, metas = records["ids"], records["metadatas"]
for start in range(0, len(ids), batch):
    collection.upsert(ids=ids[start:start + batch], embeddings=vectors[start:start + batch],
                      metadatas=metas[start:start + batch])
client.close()
"""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sibling(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)
