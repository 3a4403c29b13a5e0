"""In-memory reference implementations of every protocol in ``stores/base.py``.

They define the contract the DuckDB and Chroma stores are tested against, and back
``Memory.in_memory()``. Every store of one bundle keeps its rows in the tables of one
:class:`InMemoryDatabase`; every write runs inside ``transaction()``, which journals
the previous value of each key written and replays the journal backwards if the block
raises, so a failed batch leaves nothing partial. Records are immutable pydantic models,
so the journal holds references, never copies.

Thread safety: one re-entrant lock per database. A transaction holds it for the whole
block, so transactions are serialised (the same guarantee DuckDB gives with one
connection behind a lock). The vector index, like Chroma, is outside the transaction.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np

from memfold.errors import DuplicateMessageError, InvalidInputError, StoreClosedError
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
from memfold.stores._common import (
    as_utc,
    cosine_top,
    expire_stale,
    in_window,
    new_change,
    plan_upsert,
    overlaps,
    refuse_foreign_ids,
    require_evidence,
    scratch_value,
    task_infos,
    unit_rows,
)

_TABLES = ("messages", "profile", "changes", "events", "documents", "archive", "folds", "scratch",
           "kb_docs", "kb_chunks")


_MISSING = object()


class _Table(dict):  # type: ignore[type-arg]
    """A dict whose writes inside a transaction are journaled, so they can be undone."""

    def __init__(self, name: str, journal: list[tuple[_Table, Any, Any]]) -> None:
        super().__init__()
        self.name = name
        self._journal = journal
        self.journaling = False

    def _remember(self, key: Any) -> None:
        if self.journaling:
            self._journal.append((self, key, dict.get(self, key, _MISSING)))

    def __setitem__(self, key: Any, value: Any) -> None:
        self._remember(key)
        super().__setitem__(key, value)

    def __delitem__(self, key: Any) -> None:
        self._remember(key)
        super().__delitem__(key)

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            self._remember(key)
        return super().pop(key, *default)


class InMemoryDatabase:
    """Owns the tables and the transaction boundary of one in-memory bundle.

    A transaction journals the previous value of every key it writes and replays the
    journal backwards on rollback: its cost is the number of writes, not the table size.
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._journal: list[tuple[_Table, Any, Any]] = []
        self.tables: dict[str, _Table] = {name: _Table(name, self._journal) for name in _TABLES}
        self._depth = 0
        self._seq = itertools.count(1)
        self._closed = False
        self._meta: dict[str, str] = {}

    def next_seq(self) -> int:
        """Monotonic insertion number (keeps turn order among equal timestamps)."""
        return next(self._seq)

    def get_meta(self, key: str) -> str | None:
        return self._meta.get(key)

    def set_meta(self, key: str, value: str) -> None:
        self._meta[key] = value

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.lock:
            self.check_open()
            if self._depth:  # nested block: joins the outer transaction
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._begin()
            try:
                yield
            except BaseException:
                self._undo()
                raise
            finally:
                self._end()

    def _begin(self) -> None:
        self._depth = 1
        self._journal.clear()
        for table in self.tables.values():
            table.journaling = True

    def _undo(self) -> None:
        for table in self.tables.values():
            table.journaling = False
        for table, key, old in reversed(self._journal):
            if old is _MISSING:
                dict.pop(table, key, None)
            else:
                dict.__setitem__(table, key, old)

    def _end(self) -> None:
        for table in self.tables.values():
            table.journaling = False
        self._journal.clear()
        self._depth = 0

    def table(self, name: str) -> dict[Any, Any]:
        """The live table; write to it only inside ``transaction()``."""
        self.check_open()
        return self.tables[name]

    def users(self) -> list[str]:
        with self.lock:
            found: set[str] = set()
            for name in ("messages", "profile", "events", "documents", "archive", "folds", "scratch"):
                for row in self.table(name).values():
                    found.add(_user_of(row))
            return sorted(found)

    def check_open(self) -> None:
        if self._closed:
            raise StoreClosedError("the in-memory store was used after close()")

    def close(self) -> None:
        with self.lock:
            self._closed = True


def _user_of(row: Any) -> str:
    record = row[1] if isinstance(row, tuple) else row
    record = getattr(record, "fact", record)
    return record.user_id


class InMemoryConversationLog:
    """Raw messages keyed by (user_id, msg_id).

    Re-appending a message identical to the stored one is a no-op, so re-ingesting a
    file is idempotent; the same id with different content raises DuplicateMessageError.
    """

    def __init__(self, db: InMemoryDatabase) -> None:
        self.db = db

    def append(self, messages: Sequence[Message]) -> None:
        with self.db.transaction():
            rows = self.db.table("messages")
            for message in messages:
                key = (message.user_id, message.msg_id)
                stored = rows.get(key)
                if stored is None:
                    rows[key] = (self.db.next_seq(), message)
                elif stored[1] != message:
                    raise DuplicateMessageError(
                        f"msg_id {message.msg_id!r} is already stored for user "
                        f"{message.user_id!r} with different content")

    def _rows(self, user_id: str) -> list[tuple[int, Message]]:
        with self.db.lock:
            return [row for (uid, _), row in self.db.table("messages").items() if uid == user_id]

    def get(self, user_id: str, msg_ids: Sequence[str]) -> list[Message]:
        wanted = set(msg_ids)
        rows = [r for r in self._rows(user_id) if r[1].msg_id in wanted]
        return [m for _, m in sorted(rows, key=lambda r: (r[1].ts, r[0]))]

    def exists(self, user_id: str, msg_ids: Sequence[str]) -> set[str]:
        with self.db.lock:
            rows = self.db.table("messages")
            return {mid for mid in msg_ids if (user_id, mid) in rows}

    def list(self, user_id: str, *, since: datetime | None = None, until: datetime | None = None,
             session_id: str | None = None, limit: int | None = None,
             newest_first: bool = False) -> list[Message]:
        rows = [r for r in self._rows(user_id) if in_window(r[1].ts, since, until)
                and (session_id is None or r[1].session_id == session_id)]
        rows.sort(key=lambda r: (r[1].ts, r[0]), reverse=newest_first)
        if limit is not None:
            rows = rows[:limit]
        return [m for _, m in rows]

    def count(self, user_id: str | None = None) -> int:
        with self.db.lock:
            rows = self.db.table("messages")
            return len(rows) if user_id is None else sum(1 for uid, _ in rows if uid == user_id)

    def delete(self, user_id: str, msg_ids: Sequence[str]) -> int:
        with self.db.transaction():
            rows = self.db.table("messages")
            return sum(1 for mid in set(msg_ids) if rows.pop((user_id, mid), None) is not None)

    def delete_user(self, user_id: str) -> int:
        with self.db.transaction():
            rows = self.db.table("messages")
            doomed = [key for key in rows if key[0] == user_id]
            for key in doomed:
                del rows[key]
            return len(doomed)


@dataclass(frozen=True)
class _ProfileRow:
    fact: ProfileFact
    created_at: datetime
    last_accessed_at: datetime | None = None


class InMemoryProfileStore:
    """Profile facts keyed by (user_id, subject, key) plus an append-only changelog."""

    def __init__(self, db: InMemoryDatabase) -> None:
        self.db = db

    def upsert(self, fact: ProfileFact, *, reason: str = "",
               actor: str = "router") -> ProfileChange | None:
        require_evidence(fact)
        with self.db.transaction():
            rows = self.db.table("profile")
            key = (fact.user_id, fact.subject, fact.key)
            row = rows.get(key)
            plan = plan_upsert(None if row is None else row.fact, fact, reason=reason, actor=actor)
            rows[key] = (_ProfileRow(plan.fact, created_at=fact.updated_at) if row is None
                         else replace(row, fact=plan.fact))
            return None if plan.change is None else self._log(plan.change)

    def _log(self, change: ProfileChange) -> ProfileChange:
        self.db.table("changes")[(self.db.next_seq(), change.change_id)] = change
        return change

    def get(self, user_id: str, subject: str, key: str) -> ProfileFact | None:
        with self.db.lock:
            row = self.db.table("profile").get((user_id, subject, key))
            return row.fact if row else None

    def list(self, user_id: str, subject: str | None = None) -> list[ProfileFact]:
        with self.db.lock:
            items = [(k, row.fact) for k, row in self.db.table("profile").items()
                     if k[0] == user_id and (subject is None or k[1] == subject)]
        return [fact for _, fact in sorted(items, key=lambda kv: kv[0])]

    def delete(self, user_id: str, subject: str, key: str, *, sources: Sequence[str] = (),
               reason: str = "", actor: str = "user", action: str = "delete",
               at: datetime | None = None) -> ProfileChange | None:
        with self.db.transaction():
            row = self.db.table("profile").pop((user_id, subject, key), None)
            if row is None:
                return None
            return self._log(new_change((user_id, subject, key), action,  # type: ignore[arg-type]
                                        old_value=row.fact.value, new_value=None,
                                        sources=sources, reason=reason, actor=actor, at=at))

    def history(self, user_id: str, subject: str | None = None,
                key: str | None = None) -> list[ProfileChange]:
        with self.db.lock:
            rows = sorted(self.db.table("changes").items())
        return [c for _, c in rows if c.user_id == user_id
                and (subject is None or c.subject == subject) and (key is None or c.key == key)]

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> int:
        """Delete facts and changelog rows citing any of ``msg_ids`` (source removal).

        A later changelog row whose ``old_value`` is a value only those rows stated loses
        that old value too, so the removed message's words do not survive in the log.
        """
        with self.db.transaction():
            profile, changes = self.db.table("profile"), self.db.table("changes")
            facts = [k for k, row in profile.items()
                     if k[0] == user_id and overlaps(row.fact.sources, msg_ids)]
            for k in facts:
                del profile[k]
            doomed = {k: c for k, c in changes.items()
                      if c.user_id == user_id and overlaps(c.sources, msg_ids)}
            for k in doomed:
                del changes[k]
            stated = {(c.subject, c.key, c.new_value) for c in doomed.values()}
            for k, c in list(changes.items()):
                if c.user_id == user_id and (c.subject, c.key, c.old_value) in stated:
                    changes[k] = c.model_copy(update={"old_value": None})
            return len(facts)

    def restore(self, facts: Sequence[ProfileFact], changes: Sequence[ProfileChange]) -> None:
        """Write exported facts and changelog rows as given (import: no new changelog rows)."""
        for fact in facts:
            require_evidence(fact)
        with self.db.transaction():
            profile, log = self.db.table("profile"), self.db.table("changes")
            for fact in facts:
                profile[(fact.user_id, fact.subject, fact.key)] = _ProfileRow(
                    fact, created_at=fact.updated_at)
            known = {c.change_id for c in log.values()}
            for change in changes:
                if change.change_id not in known:
                    log[(self.db.next_seq(), change.change_id)] = change
                    known.add(change.change_id)

    def touch(self, user_id: str, subject: str, key: str, at: datetime) -> None:
        with self.db.transaction():
            rows = self.db.table("profile")
            row = rows.get((user_id, subject, key))
            if row is not None:
                rows[(user_id, subject, key)] = replace(row, last_accessed_at=as_utc(at))

    def last_accessed(self, user_id: str) -> dict[tuple[str, str], datetime | None]:
        """(subject, key) -> last read time (None if never read), for LRU eviction."""
        with self.db.lock:
            return {(k[1], k[2]): row.last_accessed_at
                    for k, row in self.db.table("profile").items() if k[0] == user_id}

    def delete_user(self, user_id: str) -> int:
        with self.db.transaction():
            profile, changes = self.db.table("profile"), self.db.table("changes")
            doomed = [k for k in profile if k[0] == user_id]
            for k in doomed:
                del profile[k]
            for k in [k for k, c in changes.items() if c.user_id == user_id]:
                del changes[k]
            return len(doomed)


class InMemoryEventLog:
    """Events keyed by (user_id, event_id); re-appending an id replaces the row."""

    def __init__(self, db: InMemoryDatabase) -> None:
        self.db = db

    def append(self, events: Sequence[Event]) -> None:
        with self.db.transaction():
            rows = self.db.table("events")
            for event in events:
                key = (event.user_id, event.event_id)
                seq = rows[key][0] if key in rows else self.db.next_seq()
                rows[key] = (seq, event)

    def range(self, user_id: str, *, start: datetime | None = None, end: datetime | None = None,
              subject: str | None = None, limit: int | None = None) -> list[Event]:
        with self.db.lock:
            rows = [r for (uid, _), r in self.db.table("events").items() if uid == user_id]
        rows = [r for r in rows if in_window(r[1].occurred_at, start, end)
                and (subject is None or r[1].subject == subject)]
        rows.sort(key=lambda r: (r[1].occurred_at, r[0]))
        if limit is not None:
            rows = rows[:limit]
        return [e for _, e in rows]

    def count(self, user_id: str | None = None) -> int:
        with self.db.lock:
            rows = self.db.table("events")
            return len(rows) if user_id is None else sum(1 for uid, _ in rows if uid == user_id)

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> int:
        return _delete_where(self.db, "events",
                             lambda k, r: k[0] == user_id and overlaps(r[1].sources, msg_ids))

    def delete_user(self, user_id: str) -> int:
        return _delete_where(self.db, "events", lambda k, r: k[0] == user_id)


def _delete_where(db: InMemoryDatabase, table: str, doomed: Any) -> int:
    with db.transaction():
        rows = db.table(table)
        keys = [k for k, r in rows.items() if doomed(k, r)]
        for k in keys:
            del rows[k]
        return len(keys)


class InMemoryDocumentStore:
    """Document chunks keyed by (user_id, chunk_id); re-adding an id replaces the row."""

    def __init__(self, db: InMemoryDatabase) -> None:
        self.db = db

    def add(self, chunks: Sequence[DocumentChunk]) -> None:
        with self.db.transaction():
            rows = self.db.table("documents")
            for chunk in chunks:
                rows[(chunk.user_id, chunk.chunk_id)] = chunk

    def _sorted(self, user_id: str, keep: Callable[[DocumentChunk], bool]) -> list[DocumentChunk]:
        with self.db.lock:
            chunks = [c for (uid, _), c in self.db.table("documents").items()
                      if uid == user_id and keep(c)]
        return sorted(chunks, key=lambda c: (c.doc_id, c.layer, c.index, c.chunk_id))

    def get(self, user_id: str, doc_id: str) -> list[DocumentChunk]:
        return self._sorted(user_id, lambda c: c.doc_id == doc_id)

    def by_sources(self, user_id: str, msg_ids: Sequence[str], *,
                   min_layer: int = 1) -> list[DocumentChunk]:
        return self._sorted(user_id, lambda c: c.layer >= min_layer and overlaps(c.sources, msg_ids))

    def list(self, user_id: str) -> list[DocumentChunk]:
        return self._sorted(user_id, lambda c: True)

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> int:
        return _delete_where(self.db, "documents",
                             lambda k, c: k[0] == user_id and overlaps(c.sources, msg_ids))

    def delete_user(self, user_id: str) -> int:
        return _delete_where(self.db, "documents", lambda k, c: k[0] == user_id)


class InMemoryArchiveLog:
    """Archive rows keyed by item_id (the vector index id), each with an ``indexed`` flag."""

    def __init__(self, db: InMemoryDatabase) -> None:
        self.db = db

    def add(self, items: Sequence[ArchiveItem]) -> None:
        with self.db.transaction():
            rows = self.db.table("archive")
            refuse_foreign_ids(items, {i.item_id: rows[i.item_id][1].user_id
                                       for i in items if i.item_id in rows})
            for item in items:
                rows[item.item_id] = (self.db.next_seq(), item, False)

    def _items(self, keep: Any) -> list[ArchiveItem]:
        with self.db.lock:
            rows = sorted(r for r in self.db.table("archive").values() if keep(r))
        return [item for _, item, _ in rows]

    def get(self, user_id: str, item_ids: Sequence[str]) -> list[ArchiveItem]:
        wanted = set(item_ids)
        return self._items(lambda r: r[1].user_id == user_id and r[1].item_id in wanted)

    def texts(self, user_id: str, item_ids: Sequence[str]) -> dict[str, str]:
        with self.db.lock:
            rows = self.db.table("archive")
            found = (rows[i][1] for i in set(item_ids) if i in rows)
            return {item.item_id: item.text for item in found if item.user_id == user_id}

    def list(self, user_id: str, kinds: Sequence[str] | None = None) -> list[ArchiveItem]:
        return self._items(
            lambda r: r[1].user_id == user_id and (kinds is None or r[1].kind in kinds))

    def unindexed(self, limit: int = 1000) -> list[ArchiveItem]:
        return self._items(lambda r: not r[2])[:limit]

    def count_unindexed(self) -> int:
        with self.db.lock:
            return sum(1 for r in self.db.table("archive").values() if not r[2])

    def mark_indexed(self, item_ids: Sequence[str]) -> None:
        with self.db.transaction():
            rows = self.db.table("archive")
            for item_id in item_ids:
                if item_id in rows:
                    seq, item, _ = rows[item_id]
                    rows[item_id] = (seq, item, True)

    def mark_unindexed(self, item_ids: Sequence[str]) -> None:
        with self.db.transaction():
            rows = self.db.table("archive")
            for item_id in item_ids:
                if item_id in rows:
                    seq, item, _ = rows[item_id]
                    rows[item_id] = (seq, item, False)

    def mark_all_unindexed(self) -> None:
        with self.db.transaction():
            rows = self.db.table("archive")
            for item_id, (seq, item, _) in list(rows.items()):
                rows[item_id] = (seq, item, False)

    def all_ids(self) -> set[str]:
        with self.db.lock:
            return set(self.db.table("archive"))

    def count(self, user_id: str | None = None) -> int:
        with self.db.lock:
            rows = self.db.table("archive").values()
            return sum(1 for r in rows if user_id is None or r[1].user_id == user_id)

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> list[str]:
        return self._delete(lambda r: r[1].user_id == user_id and overlaps(r[1].sources, msg_ids))

    def delete_user(self, user_id: str) -> list[str]:
        return self._delete(lambda r: r[1].user_id == user_id)

    def _delete(self, doomed: Any) -> list[str]:
        with self.db.transaction():
            rows = self.db.table("archive")
            doomed_rows = sorted((r[0], k) for k, r in rows.items() if doomed(r))
            ids = [item_id for _, item_id in doomed_rows]
            for item_id in ids:
                del rows[item_id]
            return ids


class InMemoryVectorIndex:
    """Exact cosine search with numpy; the reference for ChromaVectorIndex.

    Like Chroma it is a derived index outside the database transaction. Each user's
    vectors are stacked into one matrix on the first query after a change, so repeated
    queries cost one matrix-vector product.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._vectors: dict[str, np.ndarray] = {}
        self._meta: dict[str, tuple[str, str]] = {}  # item_id -> (user_id, kind)
        self._stacked: dict[str, tuple[list[str], np.ndarray, np.ndarray]] = {}

    def upsert(self, items: Sequence[ArchiveItem], embeddings: np.ndarray) -> None:
        vectors = unit_rows(embeddings, len(items))
        with self._lock:
            for item, vector in zip(items, vectors):
                self.delete([item.item_id])  # the id may move between users
                self._vectors[item.item_id] = vector
                self._meta[item.item_id] = (item.user_id, item.kind)
                self._stacked.pop(item.user_id, None)

    def _user_matrix(self, user_id: str) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(ids, kinds, unit vectors) of one user, rebuilt only after a change."""
        if user_id not in self._stacked:
            ids = sorted(i for i, (uid, _) in self._meta.items() if uid == user_id)
            kinds = np.array([self._meta[i][1] for i in ids], dtype=object)
            matrix = (np.stack([self._vectors[i] for i in ids]) if ids
                      else np.zeros((0, 1), dtype=np.float32))
            self._stacked[user_id] = (ids, kinds, matrix)
        return self._stacked[user_id]

    def query(self, user_id: str, embedding: np.ndarray, k: int,
              kinds: Sequence[str] | None = None) -> list[tuple[str, float]]:
        if k <= 0:
            return []
        query = unit_rows(np.asarray(embedding).reshape(1, -1), 1)[0]
        with self._lock:
            ids, item_kinds, matrix = self._user_matrix(user_id)
        allowed = None if kinds is None else np.isin(item_kinds, list(kinds))
        return [(ids[n], score) for n, score in cosine_top(matrix, query, k, allowed)]  # ties by id

    def user_vectors(self, user_id: str) -> tuple[list[str], np.ndarray, list[str]]:
        with self._lock:
            ids, kinds, matrix = self._user_matrix(user_id)
            return list(ids), matrix.copy(), [str(kind) for kind in kinds]

    def delete(self, item_ids: Sequence[str]) -> None:
        with self._lock:
            for item_id in item_ids:
                self._vectors.pop(item_id, None)
                meta = self._meta.pop(item_id, None)
                if meta is not None:
                    self._stacked.pop(meta[0], None)

    def vectors(self, user_id: str, item_ids: Sequence[str]) -> dict[str, np.ndarray]:
        with self._lock:
            return {i: self._vectors[i] for i in item_ids if self._meta.get(i, ("",))[0] == user_id}

    def ids(self, user_id: str | None = None) -> set[str]:
        with self._lock:
            return {i for i, (uid, _) in self._meta.items() if user_id is None or uid == user_id}

    def count(self) -> int:
        with self._lock:
            return len(self._vectors)

    def reset(self) -> None:
        with self._lock:
            self._vectors.clear()
            self._meta.clear()
            self._stacked.clear()


class InMemoryFoldStore:
    def __init__(self, db: InMemoryDatabase) -> None:
        self.db = db

    def load(self, user_id: str) -> FoldState | None:
        with self.db.lock:
            return self.db.table("folds").get(user_id)

    def save(self, state: FoldState) -> None:
        with self.db.transaction():
            self.db.table("folds")[state.user_id] = state

    def delete_user(self, user_id: str) -> int:
        with self.db.transaction():
            return 1 if self.db.table("folds").pop(user_id, None) is not None else 0


class InMemoryScratchpad:
    """Task notes keyed by (user_id, task_id, key). Values go through JSON, as in DuckDB,
    so both return equal copies; an overwrite keeps its place in write order."""

    def __init__(self, db: InMemoryDatabase) -> None:
        self.db = db

    def put(self, item: ScratchItem) -> None:
        stored = item.model_copy(update={"value": json.loads(scratch_value(item))})
        with self.db.transaction():
            rows = self.db.table("scratch")
            key = (item.user_id, item.task_id, item.key)
            seq = rows[key][0] if key in rows else self.db.next_seq()
            rows[key] = (seq, stored)

    def items(self, user_id: str, task_id: str) -> list[ScratchItem]:
        with self.db.lock:
            rows = sorted(((seq, item) for key, (seq, item) in self.db.table("scratch").items()
                           if key[:2] == (user_id, task_id)), key=lambda r: r[0])
        return [item for _, item in rows]

    def tasks(self, user_id: str | None = None) -> list[TaskInfo]:
        with self.db.lock:
            rows = [item for _, item in self.db.table("scratch").values()
                    if user_id is None or item.user_id == user_id]
        return task_infos(rows)

    def clear(self, user_id: str, task_id: str) -> int:
        return _delete_where(self.db, "scratch", lambda k, r: k[:2] == (user_id, task_id))

    def expire(self, before: datetime) -> list[TaskInfo]:
        return expire_stale(self, before)

    def delete_user(self, user_id: str) -> int:
        return _delete_where(self.db, "scratch", lambda k, r: k[0] == user_id)


class InMemoryKnowledgeStore:
    """Namespaces' documents keyed by (namespace, doc_id); a document's chunks and their
    vectors are one row, so replacing a version swaps them in one write."""

    def __init__(self, db: InMemoryDatabase) -> None:
        self.db = db

    def replace(self, doc: KnowledgeDoc, chunks: Sequence[KnowledgeChunk], vectors: np.ndarray) -> int:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(chunks):
            raise InvalidInputError(f"expected {len(chunks)} vectors as a 2-d array, got shape {matrix.shape}")
        key = (doc.namespace, doc.doc_id)
        with self.db.transaction():
            old = self.db.table("kb_chunks").get(key)
            self.db.table("kb_docs")[key] = doc
            self.db.table("kb_chunks")[key] = (list(chunks), matrix.copy())
        return 0 if old is None else len(old[0])

    def document(self, namespace: str, doc_id: str) -> KnowledgeDoc | None:
        with self.db.lock:
            return self.db.table("kb_docs").get((namespace, doc_id))

    def documents(self, namespace: str | None = None) -> list[KnowledgeDoc]:
        with self.db.lock:
            docs = self.db.table("kb_docs")
            return [docs[k] for k in sorted(docs) if namespace is None or k[0] == namespace]

    def chunks(self, namespace: str, doc_id: str | None = None) -> list[KnowledgeChunk]:
        with self.db.lock:
            rows = self.db.table("kb_chunks")
            return [c for k in sorted(rows) if k[0] == namespace and doc_id in (None, k[1])
                    for c in rows[k][0]]

    def vectors(self, namespace: str) -> tuple[list[KnowledgeChunk], np.ndarray]:
        with self.db.lock:
            rows = self.db.table("kb_chunks")
            chosen = [rows[k] for k in sorted(rows) if k[0] == namespace]
        chunks = [c for found, _ in chosen for c in found]
        if not chunks:
            return [], np.zeros((0, 0), dtype=np.float32)
        return chunks, np.concatenate([m for _, m in chosen])

    def remove(self, namespace: str, doc_id: str | None = None) -> tuple[list[str], int]:
        with self.db.transaction():
            docs, rows = self.db.table("kb_docs"), self.db.table("kb_chunks")
            keys = [k for k in docs if k[0] == namespace and doc_id in (None, k[1])]
            chunks = sum(len(rows.pop(k, ([], None))[0]) for k in keys)
            for key in keys:
                del docs[key]
        return sorted(k[1] for k in keys), chunks
