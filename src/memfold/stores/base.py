"""One small protocol per memory layer.

Each protocol has an in-memory reference implementation (``stores/memory.py``) and a
real one (DuckDB for the system of record in ``stores/duckdb.py``, Chroma for the vector
index in ``stores/chroma.py``). The same contract tests run against both.

Every read takes a ``user_id``: there is no read path that spans users, except the
explicit ``export_all`` used by ``memfold export`` with no ``--user``.

Writes that must land together (a message, the fact and event it produced, the archive
rows to index) run inside one ``Database.transaction()``: either all of them are
committed or none is.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from memfold.models import (
    ArchiveItem,
    DocumentChunk,
    Event,
    FoldState,
    Message,
    ProfileChange,
    KnowledgeChunk,
    KnowledgeDoc,
    ProfileFact,
    ScratchItem,
    TaskInfo,
)

if TYPE_CHECKING:  # annotations only: a store opened for `memfold stats` never loads numpy
    import numpy as np


@runtime_checkable
class Database(Protocol):
    """The system of record: owns the connection and the transaction boundary."""

    def transaction(self) -> AbstractContextManager[None]:
        """All store writes inside the block commit together or not at all (re-entrant)."""
        ...

    def users(self) -> list[str]: ...

    def get_meta(self, key: str) -> str | None:
        """A store-level setting (schema version, the embedder the vectors were built with)."""
        ...

    def set_meta(self, key: str, value: str) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class ConversationLog(Protocol):
    """Every raw message, append-only. Nothing said is ever silently lost."""

    def append(self, messages: Sequence[Message]) -> None:
        """Store messages; a msg_id already stored for that user raises DuplicateMessageError."""
        ...

    def get(self, user_id: str, msg_ids: Sequence[str]) -> list[Message]: ...

    def exists(self, user_id: str, msg_ids: Sequence[str]) -> set[str]: ...

    def list(self, user_id: str, *, since: datetime | None = None, until: datetime | None = None,
             session_id: str | None = None, limit: int | None = None,
             newest_first: bool = False) -> list[Message]: ...

    def count(self, user_id: str | None = None) -> int: ...

    def delete(self, user_id: str, msg_ids: Sequence[str]) -> int: ...

    def delete_user(self, user_id: str) -> int: ...


@runtime_checkable
class ProfileStore(Protocol):
    """Profile key-value store keyed by (user_id, subject, key), with a changelog."""

    def upsert(self, fact: ProfileFact, *, reason: str = "", actor: str = "router") -> ProfileChange | None:
        """Add or overwrite; returns the changelog row, or None if the value is unchanged.

        Raises EvidenceRequiredError when ``fact.sources`` is empty.
        """
        ...

    def get(self, user_id: str, subject: str, key: str) -> ProfileFact | None: ...

    def list(self, user_id: str, subject: str | None = None) -> list[ProfileFact]: ...

    def delete(self, user_id: str, subject: str, key: str, *, sources: Sequence[str] = (),
               reason: str = "", actor: str = "user", action: str = "delete",
               at: datetime | None = None) -> ProfileChange | None:
        """Remove the key; the changelog row is stamped ``at`` (default: now)."""
        ...

    def history(self, user_id: str, subject: str | None = None,
                key: str | None = None) -> list[ProfileChange]: ...

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> int:
        """Remove facts and changelog rows that cite any of these messages (source removal)."""
        ...

    def restore(self, facts: Sequence[ProfileFact], changes: Sequence[ProfileChange]) -> None:
        """Write exported facts and changelog rows exactly as given (import; no new rows)."""
        ...

    def touch(self, user_id: str, subject: str, key: str, at: datetime) -> None:
        """Record a read (for least-recently-used eviction)."""
        ...

    def last_accessed(self, user_id: str) -> dict[tuple[str, str], datetime | None]:
        """(subject, key) -> time of the last ``touch`` (None if never read)."""
        ...

    def delete_user(self, user_id: str) -> int: ...


@runtime_checkable
class EventLog(Protocol):
    """Append-only episodic log indexed by (user_id, occurred_at)."""

    def append(self, events: Sequence[Event]) -> None: ...

    def range(self, user_id: str, *, start: datetime | None = None, end: datetime | None = None,
              subject: str | None = None, limit: int | None = None) -> list[Event]:
        """Events with start <= occurred_at < end, oldest first."""
        ...

    def count(self, user_id: str | None = None) -> int: ...

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> int: ...

    def delete_user(self, user_id: str) -> int: ...


@runtime_checkable
class DocumentStore(Protocol):
    """Document chunks (the text of the vector archive's DOCUMENT entries)."""

    def add(self, chunks: Sequence[DocumentChunk]) -> None: ...

    def get(self, user_id: str, doc_id: str) -> list[DocumentChunk]: ...

    def by_sources(self, user_id: str, msg_ids: Sequence[str], *,
                   min_layer: int = 1) -> list[DocumentChunk]:
        """Chunks citing any of ``msg_ids`` at ``layer >= min_layer``, in (doc_id, layer,
        index) order: what context() reads for the documents it recalled, without listing
        all of the user's chunks."""
        ...

    def list(self, user_id: str) -> list[DocumentChunk]: ...

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> int: ...

    def delete_user(self, user_id: str) -> int: ...


@runtime_checkable
class ArchiveLog(Protocol):
    """The archive rows in the system of record, and which of them the index holds."""

    def add(self, items: Sequence[ArchiveItem]) -> None:
        """Idempotent on item_id: re-adding replaces the row and marks it unindexed."""
        ...

    def get(self, user_id: str, item_ids: Sequence[str]) -> list[ArchiveItem]: ...

    def texts(self, user_id: str, item_ids: Sequence[str]) -> dict[str, str]:
        """item_id -> text for those of ``item_ids`` that are this user's rows. The recall
        path reads only this: the other fields are known from the lexical index, and the
        list columns (sources, flags) cost most of a full read at 100,000 rows."""
        ...

    def list(self, user_id: str, kinds: Sequence[str] | None = None) -> list[ArchiveItem]: ...

    def unindexed(self, limit: int = 1000) -> list[ArchiveItem]: ...

    def count_unindexed(self) -> int: ...

    def mark_indexed(self, item_ids: Sequence[str]) -> None: ...

    def mark_all_unindexed(self) -> None: ...

    def mark_unindexed(self, item_ids: Sequence[str]) -> None:
        """Queue these rows for indexing again (their vectors were lost)."""
        ...

    def all_ids(self) -> set[str]: ...

    def count(self, user_id: str | None = None) -> int: ...

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> list[str]:
        """Delete every item carrying one of these sources; returns the deleted item ids."""
        ...

    def delete_user(self, user_id: str) -> list[str]: ...


@runtime_checkable
class VectorIndex(Protocol):
    """Derived dense index over ArchiveItem.key_text (Chroma in production).

    Holds ids, embeddings and filter metadata only (never the text: DuckDB is the system
    of record, and text kept out of Chroma cannot linger in its write log after erasure).
    """

    def upsert(self, items: Sequence[ArchiveItem], embeddings: np.ndarray) -> None: ...

    def query(self, user_id: str, embedding: np.ndarray, k: int,
              kinds: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """(item_id, cosine similarity), best first; only that user's items."""
        ...

    def vectors(self, user_id: str, item_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored unit vectors of those of ``item_ids`` that are this user's rows (a
        recall compares its items with each other without embedding them again)."""
        ...

    def user_vectors(self, user_id: str) -> tuple[list[str], np.ndarray, list[str]]:
        """Every vector of one user: (ids, one row each, kinds) (an in-process cache of the
        user's vectors is filled with one call: stores/vector_cache.py)."""
        ...

    def delete(self, item_ids: Sequence[str]) -> None: ...

    def ids(self, user_id: str | None = None) -> set[str]: ...

    def count(self) -> int: ...

    def reset(self) -> None: ...


@runtime_checkable
class FoldStore(Protocol):
    """Fold state per user; saved in the same transaction as the fold that produced it."""

    def load(self, user_id: str) -> FoldState | None: ...

    def save(self, state: FoldState) -> None: ...

    def delete_user(self, user_id: str) -> int: ...


@runtime_checkable
class Scratchpad(Protocol):
    """Per-task working notes of one user's task ("burn after reading").

    Keyed by (user_id, task_id, key); an overwrite keeps the item's place in write order.
    Nothing here is ever copied into another store: ``clear`` at the end of the task,
    ``expire`` for tasks left open and ``delete_user`` remove every row."""

    def put(self, item: ScratchItem) -> None:
        """Add or overwrite; a value that is not JSON raises InvalidInputError."""
        ...

    def items(self, user_id: str, task_id: str) -> list[ScratchItem]: ...

    def tasks(self, user_id: str | None = None) -> list[TaskInfo]:
        """Open tasks (of one user, or of all), ordered by (user_id, task_id)."""
        ...

    def clear(self, user_id: str, task_id: str) -> int: ...

    def expire(self, before: datetime) -> list[TaskInfo]:
        """Delete every task whose last write is before ``before``; returns them."""
        ...

    def delete_user(self, user_id: str) -> int: ...


@runtime_checkable
class KnowledgeStore(Protocol):
    """Knowledge-base namespaces: documents that belong to no user, with their chunks and
    the chunks' vectors, all in the system of record. Keeping the vectors next to the rows
    makes a version's replacement one transaction: no derived index can serve an old one.

    No method takes a user id: which namespaces a user reads is the deployment's grant,
    decided above the stores."""

    def replace(self, doc: KnowledgeDoc, chunks: Sequence[KnowledgeChunk],
                vectors: np.ndarray) -> int:
        """Store ``doc`` and its chunks (one vector row each), dropping any other version of
        it, in one transaction; returns the number of chunks dropped."""
        ...

    def document(self, namespace: str, doc_id: str) -> KnowledgeDoc | None: ...

    def documents(self, namespace: str | None = None) -> list[KnowledgeDoc]:
        """Ordered by (namespace, doc_id)."""
        ...

    def chunks(self, namespace: str, doc_id: str | None = None) -> list[KnowledgeChunk]:
        """Ordered by (doc_id, index)."""
        ...

    def vectors(self, namespace: str) -> tuple[list[KnowledgeChunk], np.ndarray]:
        """Every chunk of the namespace and its vector (row i belongs to chunk i)."""
        ...

    def remove(self, namespace: str, doc_id: str | None = None) -> tuple[list[str], int]:
        """Delete one document (or the whole namespace) and every chunk and vector of it;
        returns the removed doc ids and the number of chunks."""
        ...
