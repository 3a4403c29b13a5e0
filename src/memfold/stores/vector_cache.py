"""Recent users' vectors in process memory, in front of the store directory's Chroma index.

Every recall asks the vector index twice: the user's best 200 rows for the query, then
the vectors of the best 10 (the update links compare them). Under `memfold serve` the
index is a child process that answers one call at a time, so a recall waited for the
upserts of concurrent ingests: py-spy on the server under the load benchmark's mix
(benchmarks/load_http.py) found recall threads waiting for the child's lock in 56% of
their samples.

:class:`CachedVectorIndex` answers ``query`` and ``vectors`` from each user's vectors held
in memory (exact cosine search; a user's collection is loaded once with one call,
``user_vectors``), and passes every write to the index behind it first, then applies it
to the users it holds. Only the store's one writer process may use it (an embedded store
holds ``writer.lock``): writes from another process would never reach the cache, so
the PostgreSQL + Chroma server deployment, where replicas share the index, has none.

A load runs without the cache's lock (it is an index call); a write that lands meanwhile
marks the load stale, and a stale load answers that one call from the index behind the
cache instead of being kept. Users are evicted least recently used past ``max_bytes``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from memfold.stores._common import cosine_top, embedding_matrix, rows_by_user, unit_rows

if TYPE_CHECKING:
    from memfold.models import ArchiveItem
    from memfold.stores.base import VectorIndex

_ID_BYTES = 120  # what a row's id costs besides its vector (the string and its dict slot)


@dataclass
class _UserVectors:
    """One user's unit vectors: rows ``[:size]`` of ``matrix`` (grown by doubling)."""

    ids: list[str]
    kinds: list[str]
    matrix: np.ndarray
    rows: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.rows = {item_id: n for n, item_id in enumerate(self.ids)}

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes) + _ID_BYTES * self.size

    def put(self, item_id: str, kind: str, vector: np.ndarray) -> None:
        row = self.rows.get(item_id)
        if row is None:
            row = self.size
            if row == len(self.matrix) or self.matrix.shape[1] != len(vector):
                self._grow(len(vector))
            self.ids.append(item_id)
            self.kinds.append(kind)
            self.rows[item_id] = row
        self.kinds[row] = kind
        self.matrix[row] = vector

    def _grow(self, dim: int) -> None:
        grown = np.zeros((max(16, 2 * len(self.matrix)), dim), dtype=np.float32)
        if self.matrix.shape[1] == dim:
            grown[: self.size] = self.matrix[: self.size]
        self.matrix = grown

    def drop(self, item_ids: set[str]) -> None:
        keep = [n for n, item_id in enumerate(self.ids) if item_id not in item_ids]
        self.ids = [self.ids[n] for n in keep]
        self.kinds = [self.kinds[n] for n in keep]
        self.matrix = self.matrix[keep]
        self.__post_init__()

    def query(self, embedding: np.ndarray, k: int, kinds: Sequence[str] | None) -> list[tuple[str, float]]:
        query = unit_rows(np.asarray(embedding).reshape(1, -1), 1)[0]
        matrix = self.matrix[: self.size]
        if self.size and matrix.shape[1] != len(query):
            return []  # another embedder's vectors: nothing of this user matches the query
        allowed = None if kinds is None else np.isin(np.asarray(self.kinds, dtype=object), list(kinds))
        return [(self.ids[n], score) for n, score in cosine_top(matrix, query, k, allowed)]


@dataclass
class _Load:
    stale: bool = False


class CachedVectorIndex:
    """A VectorIndex answering reads from the vectors of the users read last (see the module)."""

    def __init__(self, inner: VectorIndex, *, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.inner = inner
        self.max_bytes = max_bytes
        self._users: OrderedDict[str, _UserVectors] = OrderedDict()
        self._bytes = 0
        self._loads: dict[str, list[_Load]] = {}
        self._lock = threading.Lock()

    # -- reads --------------------------------------------------------------------------

    def query(self, user_id: str, embedding: np.ndarray, k: int,
              kinds: Sequence[str] | None = None) -> list[tuple[str, float]]:
        if k <= 0 or (kinds is not None and not kinds):
            return []
        with self._lock:
            held = self._held(user_id)
            if held is not None:
                return held.query(embedding, k, kinds)
        loaded = self._load(user_id)
        if loaded is None:  # a write landed during the load: the index answers this once
            return self.inner.query(user_id, embedding, k, kinds)
        with self._lock:
            return loaded.query(embedding, k, kinds)

    def vectors(self, user_id: str, item_ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not item_ids:
            return {}
        with self._lock:
            held = self._held(user_id)
            if held is not None:
                return _rows_of(held, item_ids)
        loaded = self._load(user_id)
        if loaded is None:
            return self.inner.vectors(user_id, item_ids)
        with self._lock:
            return _rows_of(loaded, item_ids)

    def _held(self, user_id: str) -> _UserVectors | None:
        """The user's cached vectors, marked as used last (under the lock)."""
        held = self._users.get(user_id)
        if held is not None:
            self._users.move_to_end(user_id)
        return held

    def _load(self, user_id: str) -> _UserVectors | None:
        """Read the user's vectors from the index and keep them; None if a write to the user
        landed meanwhile (what was read may lack it). Too big to keep: used once, not kept."""
        load = _Load()
        with self._lock:
            self._loads.setdefault(user_id, []).append(load)
        try:
            ids, matrix, kinds = self.inner.user_vectors(user_id)
        finally:
            with self._lock:
                pending = self._loads[user_id]
                pending.remove(load)
                if not pending:
                    del self._loads[user_id]
        loaded = _UserVectors(list(ids), list(kinds), unit_rows(matrix, len(ids)) if len(ids) else
                              np.zeros((0, 0), dtype=np.float32))
        with self._lock:
            if load.stale:
                return None
            held = self._users.get(user_id)
            if held is not None:  # another reader's load got there first
                return held
            if loaded.nbytes <= self.max_bytes:  # else used for this call only
                self._keep(user_id, loaded)
        return loaded

    def _keep(self, user_id: str, loaded: _UserVectors) -> None:
        self._users[user_id] = loaded
        self._bytes += loaded.nbytes
        self._evict_over_budget()

    def _evict_over_budget(self) -> None:
        while self._bytes > self.max_bytes and self._users:
            _, evicted = self._users.popitem(last=False)  # the least recently read first
            self._bytes -= evicted.nbytes

    # -- writes: the index first, then the users held ------------------------------------

    def upsert(self, items: Sequence[ArchiveItem], embeddings: np.ndarray) -> None:
        users = rows_by_user(items)
        with self._forgotten_unless_done(list(users)):
            self.inner.upsert(items, embeddings)
        matrix = unit_rows(embedding_matrix(items, embeddings), len(items))
        with self._lock:
            for user_id, positions in users.items():
                self._mark_stale(user_id)
                held = self._users.get(user_id)
                if held is None:
                    continue
                before = held.nbytes
                for position in positions:
                    held.put(items[position].item_id, items[position].kind, matrix[position])
                self._bytes += held.nbytes - before
            self._evict_over_budget()

    def delete(self, item_ids: Sequence[str]) -> None:
        with self._forgotten_unless_done(None):
            self.inner.delete(item_ids)
        gone = set(item_ids)
        with self._lock:
            self._mark_stale(None)  # ids do not name their user: every load in flight
            for held in self._users.values():
                if gone.intersection(held.rows):
                    before = held.nbytes
                    held.drop(gone)
                    self._bytes += held.nbytes - before

    @contextmanager
    def _forgotten_unless_done(self, user_ids: list[str] | None) -> Iterator[None]:
        """A write the index did not finish may have changed part of what it was asked to
        (one user's collection of several): those users (None: all) are read again."""
        done = False
        try:
            yield
            done = True
        finally:
            if not done:
                with self._lock:
                    for user_id in list(self._users) if user_ids is None else user_ids:
                        self._mark_stale(user_id)
                        held = self._users.pop(user_id, None)
                        self._bytes -= 0 if held is None else held.nbytes

    def reset(self) -> None:
        self.inner.reset()
        self._forget_all()

    def purge_log(self) -> None:
        purge = getattr(self.inner, "purge_log", None)
        if purge is not None:
            purge()

    def _forget_all(self) -> None:
        with self._lock:
            self._mark_stale(None)
            self._users.clear()
            self._bytes = 0

    def _mark_stale(self, user_id: str | None) -> None:
        for uid, loads in self._loads.items():
            if user_id is None or uid == user_id:
                for load in loads:
                    load.stale = True

    # -- the rest is the index's ---------------------------------------------------------

    def ids(self, user_id: str | None = None) -> set[str]:
        return self.inner.ids(user_id)

    def count(self) -> int:
        return self.inner.count()

    def user_vectors(self, user_id: str) -> tuple[list[str], np.ndarray, list[str]]:
        return self.inner.user_vectors(user_id)

    @property
    def cached_bytes(self) -> int:
        with self._lock:
            return self._bytes

    def close(self) -> None:
        self._forget_all()
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.inner, name)


def _rows_of(held: _UserVectors, item_ids: Sequence[str]) -> dict[str, np.ndarray]:
    return {i: held.matrix[held.rows[i]].copy() for i in dict.fromkeys(item_ids) if i in held.rows}
