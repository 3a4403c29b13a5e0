"""A vector index opened on first use, and Chroma's vector count read without chromadb.

Importing chromadb and opening its client costs ~1 s, which a read-only command that needs
no vectors (``memfold stats``, ``memfold profile show``) should not pay. ``open_stores``
gives readers a :class:`LazyVectorIndex`: Chroma is imported and opened by the first call
that needs it (a query, a listing of ids), and ``count()`` reads Chroma's own SQLite file
directly when that file says every write has been applied (else Chroma is opened, and
its count is the answer, as before).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memfold.errors import StoreClosedError

if TYPE_CHECKING:
    import numpy as np

    from memfold.models import ArchiveItem
    from memfold.stores.base import VectorIndex

COLLECTION = "memfold_archive"  # prefix of the per-user Chroma collection names
SQLITE_FILE = "chroma.sqlite3"
# One row per metadata segment (one per collection): its vectors, the last log entry it
# has applied, and the last log entry written for its collection.
_SEGMENT_COUNTS = """
SELECT c.name,
       (SELECT COUNT(*) FROM embeddings e WHERE e.segment_id = s.id),
       (SELECT m.seq_id FROM max_seq_id m WHERE m.segment_id = s.id),
       (SELECT MAX(q.seq_id) FROM embeddings_queue q WHERE q.topic LIKE '%/' || c.id)
FROM collections c JOIN segments s ON s.collection = c.id AND s.scope = 'METADATA'
"""


def chroma_vector_count(directory: str | Path, prefix: str = COLLECTION) -> int | None:
    """The number of vectors in memfold's collections of the Chroma directory, read from
    ``chroma.sqlite3`` (opened read-only); 0 when there is no index yet. None when the file
    cannot answer for sure: a collection's write log holds entries its metadata segment has
    not applied (a write cut short), or the file is not the schema this reads (another
    Chroma version, a damaged file). The caller then asks Chroma itself."""
    path = Path(directory) / SQLITE_FILE
    if not path.is_file():
        return 0
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as connection:
            rows = connection.execute(_SEGMENT_COUNTS).fetchall()
    except sqlite3.Error:
        return None
    total = 0
    for name, vectors, applied, written in rows:
        if not str(name).startswith(prefix + "-"):
            continue
        if written is not None and (not isinstance(applied, int) or applied < written):
            return None
        total += int(vectors)
    return total


class LazyVectorIndex:
    """A VectorIndex that opens the real one (``open_index()``) on first use.

    ``count_unopened`` answers ``count()`` while the index is still closed (None: it cannot,
    open the index). Attributes it does not define (``purge_log``, ``path`` ...) are the
    real index's. After ``close()`` nothing opens it again: use raises StoreClosedError.
    """

    def __init__(self, open_index: Callable[[], VectorIndex], *,
                 count_unopened: Callable[[], int | None] | None = None) -> None:
        self._open_index = open_index
        self._count_unopened = count_unopened
        self._index: VectorIndex | None = None
        self._lock = threading.Lock()
        self._closed = False

    @property
    def opened(self) -> bool:
        return self._index is not None

    def _real(self) -> VectorIndex:
        with self._lock:
            if self._closed:
                raise StoreClosedError("the vector index was used after close()")
            if self._index is None:
                self._index = self._open_index()
            return self._index

    def upsert(self, items: Sequence[ArchiveItem], embeddings: np.ndarray) -> None:
        self._real().upsert(items, embeddings)

    def query(self, user_id: str, embedding: np.ndarray, k: int,
              kinds: Sequence[str] | None = None) -> list[tuple[str, float]]:
        return self._real().query(user_id, embedding, k, kinds)

    def vectors(self, user_id: str, item_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return self._real().vectors(user_id, item_ids)

    def user_vectors(self, user_id: str) -> tuple[list[str], np.ndarray, list[str]]:
        return self._real().user_vectors(user_id)

    def delete(self, item_ids: Sequence[str]) -> None:
        self._real().delete(item_ids)

    def ids(self, user_id: str | None = None) -> set[str]:
        return self._real().ids(user_id)

    def count(self) -> int:
        if self._index is None and not self._closed and self._count_unopened is not None:
            counted = self._count_unopened()
            if counted is not None:
                return counted
        return self._real().count()

    def reset(self) -> None:
        self._real().reset()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            index, self._index = self._index, None
        close_index = getattr(index, "close", None)
        if close_index is not None:
            close_index()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # never open Chroma for a private or dunder lookup
            raise AttributeError(name)
        return getattr(self._real(), name)
