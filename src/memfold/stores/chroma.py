"""Chroma as the derived vector index over ``ArchiveItem.key_text``.

Only ids, embeddings and filter metadata ({user_id, kind, occurred_at epoch}) go into
Chroma, never the text: DuckDB is the system of record, and text kept out of Chroma
cannot linger in its write log after erasure. Chroma's default embedding function
would download a model, so collections are created without one and every call
passes embeddings.

Isolation: one collection per user (named by a hash of the user id), so a query can
only search that user's vectors; the collection's metadata names its owner, checked when
it is opened (a mismatch is a StoreCorruptError), and only that user's rows are ever
upserted into it. Each row also carries ``user_id`` and ``kind`` in its metadata. Measured
on this machine (20,000 vectors, k=100): a Chroma query with a ``where`` filter takes
~80 ms and grows with the collection (the filtered path is brute force over the matching
ids), against ~6 ms without one; at 100,000 vectors and k=200, fetching the hits'
metadata costs ~6 ms of a ~10 ms query, so a plain query returns ids and distances only
(recall then keeps only ids of the user's own DuckDB rows). ``kinds`` queries fetch the
metadata and filter on it, checking ``user_id`` per hit too (they over-fetch).

Server mode: ``ChromaVectorIndex(client=http_client("http://host:port"))`` keeps the same
layout (one collection per user, same names) on a ``chroma run`` server that several
memfold processes share. A collection handle another process made stale (it deleted the
collection) is dropped and the call made once more.
"""

from __future__ import annotations

import hashlib
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
from urllib.parse import urlsplit

import chromadb
import numpy as np
from chromadb.config import Settings
from chromadb.errors import ChromaError, NotFoundError

from memfold.errors import InvalidInputError, StoreClosedError, StoreCorruptError, VectorIndexError
from memfold.models import ArchiveItem
from memfold.stores._common import embedding_matrix, fsync_path, rows_by_user
from memfold.stores.lazy_index import COLLECTION  # prefix of the per-user collection names
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


def _drop_cached_system(path: Path | None) -> None:
    """chromadb caches one System per directory, even one whose start failed; the next
    PersistentClient for that path then got the broken one (AttributeError: no 'bindings').
    Drop it, so a retry opens the directory afresh (and fails or succeeds cleanly)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    cache = SharedSystemClient._identifier_to_system  # chromadb internals: no public API
    for identifier, system in list(cache.items()):
        if str(getattr(system.settings, "persist_directory", "")) == str(path):
            cache.pop(identifier, None)


def _metadata(item: ArchiveItem) -> dict[str, Any]:
    meta: dict[str, Any] = {"user_id": item.user_id, "kind": item.kind}
    if item.occurred_at is not None:
        meta["occurred_at"] = item.occurred_at.timestamp()
    return meta


def _check_owner(collection: Any, user_id: str) -> None:
    """A user's collection must say it is theirs (a hash collision or a tampered directory
    must not serve another user's vectors)."""
    owner = (collection.metadata or {}).get("memfold_user")
    if owner != user_id:
        raise StoreCorruptError(f"vector collection {collection.name} belongs to {owner!r}, "
                                f"not to {user_id!r}", hint="run `memfold reindex` to rebuild it")


def collection_name(prefix: str, user_id: str) -> str:
    """A valid Chroma collection name for a user (3-512 chars of [a-zA-Z0-9._-])."""
    return f"{prefix}-{hashlib.sha256(user_id.encode('utf-8')).hexdigest()[:32]}"


class ChromaVectorIndex:
    """One cosine-space Chroma collection in ``path``; scores are cosine similarity."""

    def __init__(self, path: str | Path | None = None, *, client: Any = None,
                 collection: str = COLLECTION, cleanup: bool = True) -> None:
        """A directory of its own (``path``), or a client of a Chroma server (``client``,
        e.g. :func:`http_client`); either way the client is this index's to close."""
        if (path is None) == (client is None):
            raise ValueError("ChromaVectorIndex takes a directory or a client, not both")
        self.path = None if path is None else Path(path)
        # a rebuild cut short by a crash: the old copy still holds deleted vectors
        if cleanup and self.path is not None:
            for leftover in (_sibling(self.path, ".old"), _sibling(self.path, ".rebuild")):
                shutil.rmtree(leftover, ignore_errors=True)
        self.collection_name = collection
        self._lock = threading.RLock()
        self._closed = False
        self._client: Any = None
        self._collections: dict[str, Any] = {}
        if client is None:
            self._connect()
        else:
            self._client = client
        with _translated("read the max batch size"):
            self._max_batch = max(1, int(self._client.get_max_batch_size()) - 1)

    def _collection(self, user_id: str, *, create: bool = True) -> Any:
        """The user's collection (cached); None when it does not exist and ``create`` is off."""
        name = collection_name(self.collection_name, user_id)
        if name not in self._collections:
            if not create and name not in self._names():
                return None
            collection = self._client.get_or_create_collection(
                name, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None,
                metadata={"memfold_user": user_id})
            _check_owner(collection, user_id)
            self._collections[name] = collection
        return self._collections[name]

    def _names(self) -> set[str]:
        prefix = self.collection_name + "-"
        return {c.name for c in self._client.list_collections() if c.name.startswith(prefix)}

    def _all(self) -> list[Any]:
        return [self._client.get_collection(name, embedding_function=None) for name in sorted(self._names())]

    def _call(self, what: str, work: Callable[[], T]) -> T:
        with self._lock:
            if self._closed:
                raise StoreClosedError(f"the vector index {self.path or 'on the Chroma server'} "
                                       "was used after close()")
            try:
                with _translated(what):
                    return work()
            except VectorIndexError as exc:
                if not isinstance(exc.__cause__, NotFoundError):
                    raise
            # a cached collection that another process deleted (a forget on another
            # replica): forget the handles and try once more (the work reopens them)
            self._collections.clear()
            with _translated(what):
                return work()

    def upsert(self, items: Sequence[ArchiveItem], embeddings: np.ndarray) -> None:
        matrix = embedding_matrix(items, embeddings)
        for user_id, rows in rows_by_user(items).items():
            for start in range(0, len(rows), self._max_batch):
                chunk = rows[start:start + self._max_batch]
                batch, vectors = [items[r] for r in chunk], matrix[chunk]
                self._call("upsert vectors", lambda u=user_id, b=batch, v=vectors: self._collection(u).upsert(
                    ids=[i.item_id for i in b], embeddings=v, metadatas=[_metadata(i) for i in b]))

    def query(self, user_id: str, embedding: np.ndarray, k: int,
              kinds: Sequence[str] | None = None) -> list[tuple[str, float]]:
        if k <= 0 or (kinds is not None and not kinds):
            return []
        vector = np.asarray(embedding, dtype=np.float32).reshape(1, -1)
        fetch = k if kinds is None else k * 4  # kinds are filtered after the search
        # Per-hit metadata is fetched only to filter kinds: it costs ~6 ms of a 10 ms query at
        # 100,000 vectors. Isolation does not need it: the collection is this user's alone
        # (its owner is checked when it is opened) and upsert only writes a user's rows there.
        include = ["distances"] if kinds is None else ["distances", "metadatas"]

        def search() -> Any:
            collection = self._collection(user_id, create=False)
            if collection is None:
                return None
            return collection.query(query_embeddings=vector, n_results=fetch, include=include)

        result = self._call("query", search)
        if result is None:
            return []
        metas = result["metadatas"][0] if kinds is not None else [None] * len(result["ids"][0])
        hits = []
        for item_id, distance, meta in zip(result["ids"][0], result["distances"][0], metas):
            if meta is not None and (meta.get("user_id") != user_id or meta.get("kind") not in kinds):
                continue
            hits.append((item_id, 1.0 - float(distance)))
        return hits[:k]

    def vectors(self, user_id: str, item_ids: Sequence[str]) -> dict[str, np.ndarray]:
        ids = list(dict.fromkeys(item_ids))
        if not ids:
            return {}

        def fetch() -> Any:
            collection = self._collection(user_id, create=False)  # this user's rows only
            return None if collection is None else collection.get(ids=ids, include=["embeddings"])

        found = self._call("get vectors", fetch)
        if found is None:
            return {}
        return {i: np.asarray(v, dtype=np.float32) for i, v in zip(found["ids"], found["embeddings"])}

    def delete(self, item_ids: Sequence[str]) -> None:
        ids = list(dict.fromkeys(item_ids))
        if not ids:
            return
        # ids do not name their user: delete from every user's collection (a no-op where absent)
        for collection in self._call("list collections", self._all):
            for start in range(0, len(ids), self._max_batch):
                batch = ids[start:start + self._max_batch]
                self._call("delete vectors", lambda c=collection, b=batch: c.delete(ids=b))

    def ids(self, user_id: str | None = None) -> set[str]:
        if user_id is None:
            collections = self._call("list collections", self._all)
        else:
            found = self._call("open collection", lambda: self._collection(user_id, create=False))
            collections = [found] if found is not None else []
        ids: set[str] = set()
        for collection in collections:
            ids |= self._collection_ids(collection)
        return ids

    def _collection_ids(self, collection: Any) -> set[str]:
        found: set[str] = set()
        offset = 0
        while True:
            page = self._call("list ids", lambda o=offset: collection.get(
                include=[], limit=self._max_batch, offset=o))
            found.update(page["ids"])
            if len(page["ids"]) < self._max_batch:
                return found
            offset += self._max_batch

    def count(self) -> int:
        return sum(int(self._call("count", c.count)) for c in self._call("list collections", self._all))

    def reset(self) -> None:
        """Drop every vector (every user's collection is deleted)."""
        def drop_all() -> None:
            for name in self._names():
                self._client.delete_collection(name)
            self._collections.clear()
        self._call("reset the index", drop_all)

    def purge_log(self) -> None:
        """Rebuild the index directory so deleted ids, metadata and vectors leave every file.

        ``delete`` only hides a vector: Chroma keeps the write in its log
        (``embeddings_queue`` in chroma.sqlite3) and in its HNSW files. Rebuilding inside
        this process is not enough either (measured: 1 run in 6 wrote a deleted vector
        into the new HNSW file, from uninitialised memory that had held the old index).
        So the live vectors are handed to a fresh process that writes a new directory,
        which then replaces this one. A crash midway leaves the index empty or stale; the
        next ``sync_index`` re-embeds the missing rows from DuckDB.

        On a server (``client=``) the server owns its files, so this only deletes the
        collections left empty (their metadata names their user); what the server's own
        log keeps is measured in the README ("PostgreSQL + Chroma server").
        """
        if self.path is None:
            self._call("drop empty collections", self._drop_empty_collections)
            return
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

    def _drop_empty_collections(self) -> None:
        for collection in self._all():
            if collection.count() == 0:
                self._client.delete_collection(collection.name)
        self._collections.clear()

    def _connect(self) -> None:
        from memfold.stores.heap import scrub_freed_memory

        scrub_freed_memory()  # HNSW writes unfilled heap slots to disk: stale bytes must be constant
        try:
            with _translated(f"open {self.path}"):
                self._client = chromadb.PersistentClient(
                    path=str(self.path),
                    settings=Settings(anonymized_telemetry=False, allow_reset=True))
                self._collections = {}
        except VectorIndexError:
            _drop_cached_system(self.path)
            raise

    def _release_client(self) -> None:
        client, self._client = self._client, None
        self._collections = {}
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
        fsync_path(self.path.parent)

    def _export(self) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
        ids: list[str] = []
        vectors: list[np.ndarray] = []
        metas: list[dict[str, Any]] = []
        for collection in self._call("list collections", self._all):
            for page in self._pages(collection):
                ids.extend(page["ids"])
                vectors.extend(np.asarray(v, dtype=np.float32) for v in page["embeddings"])
                metas.extend(dict(m) for m in page["metadatas"])
        return ids, np.stack(vectors) if vectors else np.zeros((0, 1), np.float32), metas

    def _pages(self, collection: Any) -> Iterator[dict[str, Any]]:
        """Every row of a collection with its vector and metadata, a max batch at a time."""
        offset = 0
        while True:
            page = self._call("read vectors", lambda o=offset: collection.get(
                include=["embeddings", "metadatas"], limit=self._max_batch, offset=o))
            yield page
            offset += len(page["ids"])
            if len(page["ids"]) < self._max_batch:
                return

    def user_vectors(self, user_id: str) -> tuple[list[str], np.ndarray, list[str]]:
        """Every vector of one user: (ids, rows, kinds), in the collection's order
        (what an in-process cache of the user's vectors loads, stores/vector_cache.py)."""
        collection = self._call("open collection", lambda: self._collection(user_id, create=False))
        ids: list[str] = []
        rows: list[Any] = []
        kinds: list[str] = []
        for page in [] if collection is None else self._pages(collection):
            ids.extend(page["ids"])
            rows.extend(page["embeddings"])
            kinds.extend(str((m or {}).get("kind", "")) for m in page["metadatas"])
        matrix = np.asarray(rows, dtype=np.float32) if rows else np.zeros((0, 0), dtype=np.float32)
        return ids, matrix, kinds

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
from memfold.stores.chroma import collection_name
ids, metas = records["ids"], records["metadatas"]
rows_by_user = {}
for row, meta in enumerate(metas):
    rows_by_user.setdefault(meta["user_id"], []).append(row)
for user_id, rows in rows_by_user.items():
    collection = client.get_or_create_collection(
        collection_name(name, user_id), configuration={"hnsw": {"space": "cosine"}},
        embedding_function=None, metadata={"memfold_user": user_id})
    for start in range(0, len(rows), batch):
        chunk = rows[start:start + batch]
        collection.upsert(ids=[ids[r] for r in chunk], embeddings=vectors[chunk],
                          metadatas=[metas[r] for r in chunk])
client.close()
"""


def _sibling(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def http_client(url: str) -> Any:
    """A client of the Chroma server at ``http://host:port`` (``https://`` for TLS)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInputError(f"not a Chroma server URL: {url!r}",
                                hint="e.g. http://127.0.0.1:8000")
    try:
        return chromadb.HttpClient(host=parts.hostname, ssl=parts.scheme == "https",
                                   port=parts.port or (443 if parts.scheme == "https" else 8000),
                                   settings=Settings(anonymized_telemetry=False))
    except _CHROMA_FAILURES as exc:
        raise VectorIndexError(f"cannot reach the Chroma server at {url}: {exc}",
                               hint="start it (`chroma run --path DIR --port N`) or fix "
                                    "MEMFOLD_CHROMA_URL") from exc
