"""DuckDB: the system of record (messages, profile + changelog, events, documents,
archive rows, fold state, task scratchpads, knowledge-base namespaces) in one file.

One :class:`DuckDBDatabase` owns ONE connection; every statement runs under its
re-entrant lock, so many threads can share one store. ``transaction()`` is
re-entrant: a nested block joins the outer transaction, and the lock is held for the
whole outer block, so read-modify-write sequences (a profile upsert and its changelog
row) never interleave. User input only ever travels as bound parameters.

Every ``duckdb.Error`` is translated into the memfold error tree at this boundary
(``raise ... from exc``): a file held by another process becomes StoreLockedError
naming its PID, a write conflict that outlives its retries becomes WriteConflictError.

Timestamps are stored as TIMESTAMPTZ with the session time zone pinned to UTC.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from memfold.errors import (
    DuplicateMessageError,
    StoreClosedError,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    WriteConflictError,
)
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
)
from memfold.stores._common import (
    fsync_path,
    FactWrite,
    as_utc,
    new_change,
    plan_upsert,
    refuse_foreign_ids,
    require_evidence,
    scratch_value,
    vector_blobs,
)
from memfold.stores._sql_layers import SqlKnowledgeReads, SqlScratchpadReads

SCHEMA_VERSION = 1
_SESSION_TIMEZONE = "SET TimeZone = 'UTC'"
CONFLICT_RETRIES = 4
T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    user_id VARCHAR NOT NULL, msg_id VARCHAR NOT NULL, seq BIGINT NOT NULL,
    session_id VARCHAR NOT NULL, speaker VARCHAR NOT NULL, role VARCHAR NOT NULL,
    ts TIMESTAMPTZ NOT NULL, text VARCHAR NOT NULL, meta JSON NOT NULL,
    PRIMARY KEY (user_id, msg_id));
CREATE TABLE IF NOT EXISTS profile (
    user_id VARCHAR NOT NULL, subject VARCHAR NOT NULL, key VARCHAR NOT NULL,
    value VARCHAR NOT NULL, sources VARCHAR[] NOT NULL, category VARCHAR,
    created_at TIMESTAMPTZ NOT NULL, updated_at TIMESTAMPTZ NOT NULL,
    last_accessed_at TIMESTAMPTZ, PRIMARY KEY (user_id, subject, key));
CREATE TABLE IF NOT EXISTS profile_changes (
    change_id VARCHAR PRIMARY KEY, seq BIGINT NOT NULL, user_id VARCHAR NOT NULL,
    subject VARCHAR NOT NULL, key VARCHAR NOT NULL, action VARCHAR NOT NULL,
    old_value VARCHAR, new_value VARCHAR, sources VARCHAR[] NOT NULL,
    reason VARCHAR NOT NULL, actor VARCHAR NOT NULL, changed_at TIMESTAMPTZ NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    user_id VARCHAR NOT NULL, event_id VARCHAR NOT NULL, seq BIGINT NOT NULL,
    subject VARCHAR NOT NULL, text VARCHAR NOT NULL, occurred_at TIMESTAMPTZ NOT NULL,
    granularity VARCHAR NOT NULL, recorded_at TIMESTAMPTZ NOT NULL, sources VARCHAR[] NOT NULL,
    PRIMARY KEY (user_id, event_id));
CREATE INDEX IF NOT EXISTS events_user_time ON events (user_id, occurred_at);
CREATE TABLE IF NOT EXISTS documents (
    user_id VARCHAR NOT NULL, chunk_id VARCHAR NOT NULL, doc_id VARCHAR NOT NULL,
    idx INTEGER NOT NULL, text VARCHAR NOT NULL, sources VARCHAR[] NOT NULL,
    ts TIMESTAMPTZ NOT NULL, flags VARCHAR[] NOT NULL, layer INTEGER NOT NULL,
    PRIMARY KEY (user_id, chunk_id));
CREATE TABLE IF NOT EXISTS archive (
    item_id VARCHAR PRIMARY KEY, seq BIGINT NOT NULL, user_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL, text VARCHAR NOT NULL, key_text VARCHAR NOT NULL,
    sources VARCHAR[] NOT NULL, subject VARCHAR, occurred_at TIMESTAMPTZ,
    flags VARCHAR[] NOT NULL, indexed BOOLEAN NOT NULL DEFAULT false);
CREATE TABLE IF NOT EXISTS fold_state (
    user_id VARCHAR PRIMARY KEY, state JSON NOT NULL, updated_at TIMESTAMPTZ NOT NULL);
CREATE TABLE IF NOT EXISTS task_items (
    user_id VARCHAR NOT NULL, task_id VARCHAR NOT NULL, key VARCHAR NOT NULL, seq BIGINT NOT NULL,
    kind VARCHAR NOT NULL, value JSON NOT NULL, written_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, task_id, key));
CREATE TABLE IF NOT EXISTS kb_documents (
    namespace VARCHAR NOT NULL, doc_id VARCHAR NOT NULL, version INTEGER NOT NULL,
    digest VARCHAR NOT NULL, title VARCHAR NOT NULL, chunks INTEGER NOT NULL,
    added_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (namespace, doc_id));
CREATE TABLE IF NOT EXISTS kb_chunks (
    namespace VARCHAR NOT NULL, doc_id VARCHAR NOT NULL, version INTEGER NOT NULL,
    idx INTEGER NOT NULL, text VARCHAR NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (namespace, doc_id, idx));
"""

_USER_TABLES = ("messages", "profile", "events", "documents", "archive", "fold_state",
                "task_items")
_LAYER_TABLES = ("task_items", "kb_documents", "kb_chunks")
_SEQ_TABLES = ("messages", "profile_changes", "events", "archive", "task_items")
_LOCK_PID = re.compile(r"PID (\d+)")
# "col IN (list parameter)": a hash join, 4x faster than list_contains for 5,000 ids
_IN = "IN (SELECT unnest(?::VARCHAR[]))"
# For the few hundred ids a recall asks for, list_contains is ~7x faster than the semi-join
# above (2.6 ms vs 17.6 ms over 100,000 rows, 150 ids); the semi-join wins for thousands.
SMALL_ID_LIST = 500


def _ids_clause(column: str, ids: Sequence[str]) -> str:
    """A filter on ``column`` for a bound list parameter, shaped for the list's size."""
    if len(ids) <= SMALL_ID_LIST:
        return f"list_contains(?::VARCHAR[], {column})"
    return f"{column} {_IN}"


def translate(exc: duckdb.Error, path: str) -> StoreError:
    """Map a DuckDB exception onto the memfold error tree (caller raises it ``from exc``)."""
    text = str(exc)
    if isinstance(exc, duckdb.IOException) and "Could not set lock" in text:
        match = _LOCK_PID.search(text)
        return StoreLockedError(path, int(match.group(1)) if match else None)
    if isinstance(exc, duckdb.TransactionException) and "Conflict" in text:
        return WriteConflictError(f"write conflict on {path}: {text}",
                                  hint="retry the operation")
    if isinstance(exc, duckdb.ConnectionException) and "closed" in text.lower():
        return StoreClosedError(f"the store {path} was used after close()")
    if isinstance(exc, duckdb.SerializationException | duckdb.FatalException) or (
            isinstance(exc, duckdb.IOException) and "not a valid DuckDB database" in text) or (
            "Corrupt database file" in text or "checksum" in text.lower()):
        return StoreCorruptError(f"cannot read {path}: {text}", hint=RECOVERY_HINT)
    return StoreError(f"DuckDB failed on {path}: {text}")


RECOVERY_HINT = ("the DuckDB file is damaged: copy out what still reads with `memfold export "
                 "--out dump.jsonl` and `memfold --store NEW import dump.jsonl`, or restore a "
                 "backup; writes stay refused until corrupt.json in the store is removed")
CORRUPT_MARKER = "corrupt.json"


def _is_conflict(exc: duckdb.Error) -> bool:
    return isinstance(exc, duckdb.TransactionException) and "Conflict" in str(exc)


class DuckDBDatabase:
    """One DuckDB file (or ``":memory:"``) behind one connection and one re-entrant lock.

    Writes, transactions and reads by a thread that holds the lock use that connection.
    Other reads run on cursors of it (DuckDB's connections to the same database, each
    reading the last committed state), so a reader never waits for a writer's transaction:
    under the service's load, every recall used to queue behind the ingest in progress.
    """

    def __init__(self, path: str | Path = ":memory:", *, read_only: bool = False) -> None:
        self.path = str(path)
        self.read_only = read_only
        self.lock = threading.RLock()
        self.conflict_retries = CONFLICT_RETRIES
        self.retry_pause_s = 0.005  # grows linearly per attempt
        self._depth = 0
        self.corrupt: StoreCorruptError | None = None
        self._seq: dict[str, int] = {}
        self._conn: duckdb.DuckDBPyConnection | None = None
        self._readers = _CursorPool()
        self._at_end: list[Callable[[bool], None]] = []  # at_transaction_end
        if self.in_memory and read_only:
            raise StoreError("a :memory: database cannot be opened read-only")
        if read_only and not Path(self.path).is_file():
            raise StoreError(f"no memfold database at {self.path}")
        if not read_only:  # a rewrite cut short by a crash leaves its copy behind
            _remove_db_files(Path(self.path + ".rewrite"))
            self._refuse_if_marked_corrupt()
        self._conn = self._connect()
        if not read_only:
            self._create_schema()
        self._check_schema()
        self.missing_tables = self._missing_tables()

    def _missing_tables(self) -> frozenset[str]:
        """Tables a store written by an earlier memfold lacks (the task scratchpad and the
        knowledge base came later). A writer creates them; a reader, which cannot, reads
        them as empty instead of failing."""
        found = {r[0] for r in self.fetchall("SELECT table_name FROM duckdb_tables()")}
        return frozenset(set(_LAYER_TABLES) - found)

    @property
    def in_memory(self) -> bool:
        return self.path == ":memory:"

    # -- integrity: a damaged file acknowledges no write ---------------------------

    def _marker(self) -> Path | None:
        return None if self.in_memory else Path(self.path).parent / CORRUPT_MARKER

    def _refuse_if_marked_corrupt(self) -> None:
        marker = self._marker()
        if marker is not None and marker.exists():
            raise StoreCorruptError(f"{self.path} failed an integrity check earlier "
                                    f"({marker.read_text(errors='replace')[:300]}); writes are refused",
                                    hint=RECOVERY_HINT)

    def _latched(self, error: StoreError) -> StoreError:
        """The first corrupt read of a writer marks the store (durably) so that neither this
        process nor a later one acknowledges a write the file may not be able to give back."""
        if isinstance(error, StoreCorruptError) and not self.read_only:
            self.corrupt = error
            marker = self._marker()
            if marker is not None and not marker.exists():
                try:
                    marker.write_text(json.dumps({"error": str(error.args[0])[:2000]}))
                except OSError:
                    pass  # the in-process latch still holds; the next open re-detects it
        return error

    def _connect(self) -> duckdb.DuckDBPyConnection:
        try:
            conn = duckdb.connect(self.path, read_only=self.read_only)
            conn.execute(_SESSION_TIMEZONE)
            return conn
        except duckdb.Error as exc:
            raise translate(exc, self.path) from exc

    def _create_schema(self) -> None:
        with self.transaction():
            for statement in filter(str.strip, _SCHEMA.split(";")):
                self.execute(statement)
            self.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                         [str(SCHEMA_VERSION)])

    def _check_schema(self) -> None:
        rows = self.fetchall("SELECT value FROM meta WHERE key = 'schema_version'")
        found = int(rows[0][0]) if rows else None
        if found != SCHEMA_VERSION:
            raise StoreCorruptError(
                f"{self.path} has schema version {found}, this memfold expects {SCHEMA_VERSION}")

    def schema_version(self) -> int:
        return int(self.fetchall("SELECT value FROM meta WHERE key = 'schema_version'")[0][0])

    # -- statements ---------------------------------------------------------------

    def _connection(self) -> duckdb.DuckDBPyConnection:
        if self._conn is None:
            raise StoreClosedError(f"the store {self.path} was used after close()")
        return self._conn

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> duckdb.DuckDBPyConnection:
        """Run one statement; outside a transaction a write conflict is retried.

        Use :meth:`fetchall` to read results: it fetches under the lock, so another
        thread's statement cannot replace the result in between.
        """
        with self.lock:
            for attempt in range(self.conflict_retries + 1):
                try:
                    return self._connection().execute(sql, params)
                except duckdb.Error as exc:
                    if self._depth or not _is_conflict(exc) or attempt == self.conflict_retries:
                        raise self._latched(translate(exc, self.path)) from exc
                time.sleep(self.retry_pause_s * (attempt + 1))
        raise AssertionError("unreachable")  # pragma: no cover

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        with self.lock:
            try:
                self._connection().executemany(sql, rows)
            except duckdb.Error as exc:
                raise self._latched(translate(exc, self.path)) from exc

    def bulk_insert(self, table: str, columns: Sequence[tuple[str, str]],
                    rows: Sequence[Sequence[Any]], *, verb: str = "INSERT",
                    suffix: str = "") -> list[tuple[Any, ...]]:
        """Insert many rows in ONE statement: each column travels as one list parameter and
        is unnested (about 200x faster than executemany for a 2,000-row batch).

        ``table``, ``columns`` and ``suffix`` are constants of this module, never user input.
        A ``suffix`` with RETURNING returns its rows.
        """
        if not rows:
            return []
        names = ", ".join(name for name, _ in columns)
        values = ", ".join(f"unnest(?::{sql_type}[])" for _, sql_type in columns)
        params = [list(column) for column in zip(*rows)]
        statement = f"{verb} INTO {table} ({names}) SELECT {values} {suffix}"
        with self.lock:  # the result is fetched before another statement can replace it
            result = self.execute(statement, params)
            try:
                return result.fetchall() if "RETURNING" in suffix else []
            except duckdb.Error as exc:
                raise self._latched(translate(exc, self.path)) from exc

    def fetchall(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        cursor = None if self.lock._is_owned() else self._readers.take(self._conn)
        if cursor is None:  # this thread's own transaction (or lock), or the store is closing
            with self.lock:
                try:
                    return self.execute(sql, params).fetchall()
                except duckdb.Error as exc:
                    raise self._latched(translate(exc, self.path)) from exc
        try:
            return cursor.execute(sql, params).fetchall()
        except duckdb.Error as exc:
            raise self._latched(translate(exc, self.path)) from exc
        finally:
            self._readers.give_back(cursor)

    def next_seq(self, table: str, n: int = 1) -> int:
        """First of ``n`` fresh insertion numbers for ``table`` (gaps after rollback are fine)."""
        if table not in _SEQ_TABLES:
            raise ValueError(f"no sequence for table {table}")
        with self.lock:
            if table not in self._seq:
                self._seq[table] = self.fetchall(f"SELECT coalesce(max(seq), 0) FROM {table}")[0][0]
            first = self._seq[table] + 1
            self._seq[table] += n
            return first

    # -- transactions ----------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN/COMMIT around the block, ROLLBACK if it raises; nested blocks join."""
        with self.lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            if self.corrupt is not None:
                raise StoreCorruptError(f"{self.path} failed an integrity check; writes are refused "
                                        f"({self.corrupt.args[0]})", hint=RECOVERY_HINT)
            self.execute("BEGIN TRANSACTION")
            self._depth = 1
            committed = False
            try:
                yield
                self._depth = 0
                self._commit()
                committed = True
            except BaseException:
                if self._depth:
                    self._depth = 0
                    self._rollback()
                raise
            finally:
                self._run_transaction_end(committed)

    @property
    def in_transaction(self) -> bool:
        """True in the thread whose transaction is open."""
        return self._depth > 0 and self.lock._is_owned()

    def at_transaction_end(self, callback: Callable[[bool], None]) -> None:
        """Call ``callback(committed)`` when the open transaction ends; outside a
        transaction, at once (the statement before it committed on its own)."""
        if not self.in_transaction:
            callback(True)
            return
        self._at_end.append(callback)

    def _run_transaction_end(self, committed: bool) -> None:
        callbacks, self._at_end = self._at_end, []
        for callback in callbacks:
            callback(committed)

    def _commit(self) -> None:
        try:
            self._connection().execute("COMMIT")
        except duckdb.Error as exc:
            self._rollback()
            raise translate(exc, self.path) from exc

    def _rollback(self) -> None:
        try:
            self._connection().execute("ROLLBACK")
        except (duckdb.TransactionException, duckdb.FatalException):
            pass  # DuckDB already ended (or, on a fatal error, invalidated) the transaction

    def run(self, work: Callable[[], T], retries: int | None = None) -> T:
        """Run ``work`` in a transaction, replaying it when a write conflict aborts it."""
        retries = self.conflict_retries if retries is None else retries
        for attempt in range(retries + 1):
            try:
                with self.transaction():
                    return work()
            except WriteConflictError:
                if self._depth or attempt == retries:
                    raise
                time.sleep(self.retry_pause_s * (attempt + 1))
        raise AssertionError("unreachable")  # pragma: no cover

    # -- database-wide -----------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self.fetchall("SELECT value FROM meta WHERE key = ?", [key])
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, value])

    def users(self) -> list[str]:
        tables = [t for t in _USER_TABLES if t not in self.missing_tables]
        union = " UNION ".join(f"SELECT DISTINCT user_id FROM {t}" for t in tables)
        return [row[0] for row in self.fetchall(f"SELECT user_id FROM ({union}) ORDER BY 1")]

    def checkpoint(self) -> None:
        self.execute("CHECKPOINT")

    def close(self) -> None:
        with self.lock:
            if self._conn is None:
                return
            self._readers.drain()  # no read is left running on a cursor of the connection
            try:
                self._conn.close()
            except duckdb.Error as exc:
                raise translate(exc, self.path) from exc
            finally:
                self._conn = None

    @property
    def closed(self) -> bool:
        return self._conn is None

    def rewrite_file(self) -> None:
        """Copy every table into a fresh file and swap it in (erasure).

        DELETE + CHECKPOINT + VACUUM leaves deleted bytes in the DuckDB file (measured);
        a copy holds only live rows. The swap is atomic (``os.replace``), and this object
        stays usable: it reconnects to the new file.
        """
        if self.in_memory or self.read_only:
            return
        with self.lock:
            if self._depth:
                raise StoreError("rewrite_file() cannot run inside a transaction")
            fresh = Path(self.path + ".rewrite")
            _remove_db_files(fresh)
            try:
                self._copy_into(fresh)
            except StoreError:
                _remove_db_files(fresh)
                raise
            self.close()
            try:
                fsync_path(fresh)
                os.replace(fresh, self.path)
                _remove_db_files(Path(self.path), keep_main=True)
                fsync_path(Path(self.path).parent)
            finally:
                self._conn = self._connect()
                self._readers.resume()

    def _copy_into(self, fresh: Path) -> None:
        name = self.fetchall("SELECT current_database()")[0][0]
        self.execute("CHECKPOINT")
        # ATTACH takes no bound parameter; the path is ours (never user input), quoted anyway.
        quoted = str(fresh).replace("'", "''")
        self.execute(f"ATTACH '{quoted}' AS memfold_rewrite")
        try:
            self.execute(f'COPY FROM DATABASE "{name}" TO memfold_rewrite')
        finally:
            self.execute("DETACH memfold_rewrite")


def _utc_cursor(conn: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    cursor = conn.cursor()
    cursor.execute(_SESSION_TIMEZONE)  # a session setting: a cursor does not inherit it
    return cursor


class _CursorPool:
    """Idle read cursors of one connection, and a count of the reads running on others.
    ``drain`` (before the connection closes) waits for those reads and closes the cursors;
    until ``resume``, ``take`` answers None and reads go through the locked connection."""

    def __init__(self) -> None:
        self._idle: list[duckdb.DuckDBPyConnection] = []
        self._busy = 0
        self._draining = False
        self._changed = threading.Condition()

    def take(self, conn: duckdb.DuckDBPyConnection | None) -> duckdb.DuckDBPyConnection | None:
        with self._changed:
            if self._draining or conn is None:
                return None
            cursor = self._idle.pop() if self._idle else _utc_cursor(conn)
            self._busy += 1
            return cursor

    def give_back(self, cursor: duckdb.DuckDBPyConnection) -> None:
        with self._changed:
            self._busy -= 1
            if self._draining:
                cursor.close()
            else:
                self._idle.append(cursor)
            self._changed.notify_all()

    def drain(self) -> None:
        with self._changed:
            self._draining = True
            self._changed.wait_for(lambda: self._busy == 0)
            for cursor in self._idle:
                cursor.close()
            self._idle.clear()

    def resume(self) -> None:
        with self._changed:
            self._draining = False


class _UserCache:
    """What a read of one user's rows last returned, reused until a write touches the user.

    An embedded store has one writer process, this one, so every write to the rows behind
    the cache goes through the store object that owns it, and that write calls ``touch``.
    Each user has a version: ``touch`` raises it when the write runs and again when its
    transaction ends. A value read at version V is reused only while the version is
    still V. The writer's own transaction may reuse a value but never keeps one, because
    what it reads may not be committed yet. A committed write may keep the value it wrote.
    It saves one statement per read: 1.5-3 ms each under the service's load.
    """

    USERS = 512

    def __init__(self, db: DuckDBDatabase) -> None:
        self.db = db
        self._versions: dict[str, int] = {}
        self._values: OrderedDict[str, tuple[int, Any]] = OrderedDict()
        self._open: dict[str, int] = {}  # users with writes in a transaction not ended yet
        self._lock = threading.Lock()

    def read(self, user_id: str, load: Callable[[], T]) -> T:
        with self._lock:
            version = self._versions.get(user_id, 0)
            hit = None if user_id in self._open else self._values.get(user_id)
        if hit is not None and hit[0] == version:
            return hit[1]  # type: ignore[no-any-return]
        value = load()
        if not self.db.in_transaction:
            self._keep(user_id, version, value)
        return value

    def peek(self, user_id: str) -> Any | None:
        """The value kept for the user, if still good; never reads the database."""
        with self._lock:
            hit = None if user_id in self._open else self._values.get(user_id)
            return hit[1] if hit is not None and hit[0] == self._versions.get(user_id, 0) else None

    def touch(self, user_id: str, written: Callable[[], Any] | None = None) -> None:
        """Call inside the write's transaction. ``written``, if given, returns what a read
        of the user's rows gives once the write is committed."""
        with self._lock:  # until its transaction ends, nobody reuses or keeps a value
            self._open[user_id] = self._open.get(user_id, 0) + 1
            self._bump(user_id)

        def ended(committed: bool) -> None:
            with self._lock:
                self._open[user_id] -= 1
                if not self._open[user_id]:
                    del self._open[user_id]
                version = self._bump(user_id)
            if committed and written is not None:
                self._keep(user_id, version, written())

        self.db.at_transaction_end(ended)

    def _bump(self, user_id: str) -> int:
        version = self._versions[user_id] = self._versions.get(user_id, 0) + 1
        self._values.pop(user_id, None)
        return version

    def _keep(self, user_id: str, version: int, value: Any) -> None:
        with self._lock:
            if self._versions.get(user_id, 0) != version or user_id in self._open:
                return  # a write came in between: the value may be older than it
            self._values[user_id] = (version, value)
            self._values.move_to_end(user_id)
            while len(self._values) > self.USERS:
                self._values.popitem(last=False)


def _remove_db_files(path: Path, *, keep_main: bool = False) -> None:
    targets = [Path(str(path) + ".wal")] + ([] if keep_main else [path])
    for target in targets:
        target.unlink(missing_ok=True)


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else as_utc(value)


# -- conversation log -------------------------------------------------------------------

_MSG_COLS = "msg_id, user_id, session_id, speaker, role, text, ts, meta"
_MSG_TYPES = [("msg_id", "VARCHAR"), ("user_id", "VARCHAR"), ("session_id", "VARCHAR"),
              ("speaker", "VARCHAR"), ("role", "VARCHAR"), ("text", "VARCHAR"),
              ("ts", "TIMESTAMPTZ"), ("meta", "VARCHAR"), ("seq", "BIGINT")]


def _message(row: tuple[Any, ...]) -> Message:
    msg_id, user_id, session_id, speaker, role, text, ts, meta = row
    return Message(msg_id=msg_id, user_id=user_id, session_id=session_id, speaker=speaker,
                   role=role, text=text, ts=as_utc(ts), meta=json.loads(meta))


class DuckDBConversationLog:
    """Raw messages, PK (user_id, msg_id), with an insertion number to keep turn order.

    Idempotent re-ingest: appending a message identical to the stored one is a no-op;
    the same (user_id, msg_id) with different content raises DuplicateMessageError and
    nothing of that batch is stored.
    """

    def __init__(self, db: DuckDBDatabase) -> None:
        self.db = db
        self._newest = _UserCache(db)  # each user's newest message: the ingest reads it

    def append(self, messages: Sequence[Message]) -> None:
        if not messages:
            return
        with self.db.transaction():
            unique = _unique_messages(messages)
            first = self.db.next_seq("messages", len(unique))
            # the primary key finds what is stored already (no SELECT first: a statement
            # is 1.5-3 ms under load); only those few are read back and compared
            inserted = {(r[0], r[1]) for r in self.db.bulk_insert("messages", _MSG_TYPES, [
                [m.msg_id, m.user_id, m.session_id, m.speaker, m.role, m.text, m.ts,
                 json.dumps(m.meta, sort_keys=True), first + n] for n, m in enumerate(unique)],
                suffix="ON CONFLICT DO NOTHING RETURNING user_id, msg_id")}
            self._refuse_conflicts([m for m in unique if (m.user_id, m.msg_id) not in inserted])
            self._touch_newest([m for m in unique if (m.user_id, m.msg_id) in inserted])

    def _refuse_conflicts(self, known: Sequence[Message]) -> None:
        """Messages whose id was stored: the same message again is a no-op, other content raises."""
        for user_id in {m.user_id for m in known}:
            batch = [m for m in known if m.user_id == user_id]
            stored = {m.msg_id: m for m in self.get(user_id, [m.msg_id for m in batch])}
            for message in batch:
                if stored.get(message.msg_id) != message:
                    raise DuplicateMessageError(
                        f"msg_id {message.msg_id!r} is already stored for user {user_id!r} "
                        "with different content")

    def get(self, user_id: str, msg_ids: Sequence[str]) -> list[Message]:
        if not msg_ids:
            return []
        ids = list(msg_ids)
        rows = self.db.fetchall(
            f"SELECT {_MSG_COLS} FROM messages WHERE user_id = ? AND {_ids_clause('msg_id', ids)} "
            "ORDER BY ts, seq", [user_id, ids])
        return [_message(r) for r in rows]

    def exists(self, user_id: str, msg_ids: Sequence[str]) -> set[str]:
        if not msg_ids:
            return set()
        rows = self.db.fetchall(
            f"SELECT msg_id FROM messages WHERE user_id = ? AND msg_id {_IN}",
            [user_id, list(msg_ids)])
        return {r[0] for r in rows}

    def _touch_newest(self, fresh: Sequence[Message]) -> None:
        """After the commit, a user's newest message is the newest of the one before and
        the ones appended (a tie on ts goes to the later insert, as in ``list``)."""
        for user_id in {m.user_id for m in fresh}:
            before = self._newest.peek(user_id)
            if before is None:  # not known: the next read selects it
                self._newest.touch(user_id)
                continue
            candidates = [*before, *(m for m in fresh if m.user_id == user_id)]
            _, newest = max(enumerate(candidates), key=lambda pair: (pair[1].ts, pair[0]))
            self._newest.touch(user_id, written=lambda newest=newest: [newest])

    def list(self, user_id: str, *, since: datetime | None = None, until: datetime | None = None,
             session_id: str | None = None, limit: int | None = None,
             newest_first: bool = False) -> list[Message]:
        if newest_first and limit == 1 and since is None and until is None and session_id is None:
            return self._newest.read(user_id, lambda: self._list_newest(user_id))
        return self._list(user_id, since=since, until=until, session_id=session_id, limit=limit,
                          newest_first=newest_first)

    def _list_newest(self, user_id: str) -> list[Message]:
        return self._list(user_id, since=None, until=None, session_id=None, limit=1,
                          newest_first=True)

    def _list(self, user_id: str, *, since: datetime | None, until: datetime | None,
              session_id: str | None, limit: int | None, newest_first: bool) -> list[Message]:
        order = "DESC" if newest_first else "ASC"
        rows = self.db.fetchall(
            f"SELECT {_MSG_COLS} FROM messages WHERE user_id = ? "
            "AND (?::TIMESTAMPTZ IS NULL OR ts >= ?) AND (?::TIMESTAMPTZ IS NULL OR ts < ?) "
            "AND (?::VARCHAR IS NULL OR session_id = ?) "
            f"ORDER BY ts {order}, seq {order} LIMIT ?",
            [user_id, since, since, until, until, session_id, session_id, _limit(limit)])
        return [_message(r) for r in rows]

    def count(self, user_id: str | None = None) -> int:
        return _count(self.db, "messages", user_id)

    def delete(self, user_id: str, msg_ids: Sequence[str]) -> int:
        if not msg_ids:
            return 0
        with self.db.transaction():
            self._newest.touch(user_id)
            rows = self.db.fetchall(
                f"DELETE FROM messages WHERE user_id = ? AND msg_id {_IN} RETURNING msg_id",
                [user_id, list(msg_ids)])
        return len(rows)

    def delete_user(self, user_id: str) -> int:
        with self.db.transaction():
            self._newest.touch(user_id, written=list)
            return _delete_user(self.db, "messages", user_id)


def _unique_messages(messages: Sequence[Message]) -> list[Message]:
    """One of each (user, msg_id); the same id twice in a batch with other content raises."""
    unique: dict[tuple[str, str], Message] = {}
    for message in messages:
        key = (message.user_id, message.msg_id)
        known = unique.setdefault(key, message)
        if known != message:
            raise DuplicateMessageError(
                f"msg_id {message.msg_id!r} appears twice for user {message.user_id!r} "
                "with different content")
    return list(unique.values())


def _limit(limit: int | None) -> int:
    return (1 << 62) if limit is None else max(0, limit)


def _count(db: DuckDBDatabase, table: str, user_id: str | None) -> int:
    if user_id is None:
        return int(db.fetchall(f"SELECT count(*) FROM {table}")[0][0])
    return int(db.fetchall(f"SELECT count(*) FROM {table} WHERE user_id = ?", [user_id])[0][0])


def _delete_user(db: DuckDBDatabase, table: str, user_id: str) -> int:
    return len(db.fetchall(f"DELETE FROM {table} WHERE user_id = ? RETURNING 1", [user_id]))


# -- profile ------------------------------------------------------------------------------

_FACT_COLS = "user_id, subject, key, value, sources, updated_at, category"
_FACT_TYPES = [("user_id", "VARCHAR"), ("subject", "VARCHAR"), ("key", "VARCHAR"),
               ("value", "VARCHAR"), ("sources", "VARCHAR[]"), ("updated_at", "TIMESTAMPTZ"),
               ("category", "VARCHAR"), ("created_at", "TIMESTAMPTZ")]
_CHANGE_COLS = ("change_id, user_id, subject, key, action, old_value, new_value, sources, "
                "reason, actor, changed_at")


def _fact(row: tuple[Any, ...]) -> ProfileFact:
    user_id, subject, key, value, sources, updated_at, category = row
    return ProfileFact(user_id=user_id, subject=subject, key=key, value=value,
                       sources=list(sources), updated_at=as_utc(updated_at), category=category)


def _change(row: tuple[Any, ...]) -> ProfileChange:
    cols = [c.strip() for c in _CHANGE_COLS.split(",")]
    data = dict(zip(cols, row))
    data["sources"] = list(data["sources"])
    data["changed_at"] = as_utc(data["changed_at"])
    return ProfileChange(**data)


class DuckDBProfileStore:
    """Profile facts with a changelog row for every add, overwrite and delete.

    An overwrite with the same value only merges the sources (no changelog row).
    """

    def __init__(self, db: DuckDBDatabase) -> None:
        self.db = db
        self._facts = _UserCache(db)  # each user's facts: every ingest, recall and context reads them

    def upsert(self, fact: ProfileFact, *, reason: str = "",
               actor: str = "router") -> ProfileChange | None:
        require_evidence(fact)
        with self.db.transaction():
            plan = plan_upsert(self.get(fact.user_id, fact.subject, fact.key), fact,
                               reason=reason, actor=actor)
            self._write(plan)
            return None if plan.change is None else self._log(plan.change)

    def _write(self, plan: FactWrite) -> None:
        f = plan.fact
        self._facts.touch(f.user_id)  # upsert's transaction
        if plan.kind == "insert":
            self.db.execute(f"INSERT INTO profile ({_FACT_COLS}, created_at) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            [f.user_id, f.subject, f.key, f.value, f.sources, f.updated_at,
                             f.category, f.updated_at])
            return
        self.db.execute(
            "UPDATE profile SET value = ?, sources = ?, updated_at = ?, category = ? "
            "WHERE user_id = ? AND subject = ? AND key = ?",
            [f.value, f.sources, f.updated_at, f.category, f.user_id, f.subject, f.key])

    def _log(self, change: ProfileChange) -> ProfileChange:
        self.db.execute(
            f"INSERT INTO profile_changes ({_CHANGE_COLS}, seq) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [change.change_id, change.user_id, change.subject, change.key, change.action,
             change.old_value, change.new_value, change.sources, change.reason, change.actor,
             change.changed_at, self.db.next_seq("profile_changes")])
        return change

    def get(self, user_id: str, subject: str, key: str) -> ProfileFact | None:
        rows = self.db.fetchall(
            f"SELECT {_FACT_COLS} FROM profile WHERE user_id = ? AND subject = ? AND key = ?",
            [user_id, subject, key])
        return _fact(rows[0]) if rows else None

    def list(self, user_id: str, subject: str | None = None) -> list[ProfileFact]:
        facts = self._facts.read(user_id, lambda: self._list(user_id))
        return [f for f in facts if subject is None or f.subject == subject]

    def _list(self, user_id: str) -> list[ProfileFact]:
        rows = self.db.fetchall(
            f"SELECT {_FACT_COLS} FROM profile WHERE user_id = ? ORDER BY subject, key", [user_id])
        return [_fact(r) for r in rows]

    def delete(self, user_id: str, subject: str, key: str, *, sources: Sequence[str] = (),
               reason: str = "", actor: str = "user", action: str = "delete",
               at: datetime | None = None) -> ProfileChange | None:
        with self.db.transaction():
            old = self.get(user_id, subject, key)
            if old is None:
                return None
            self._facts.touch(user_id)
            self.db.execute("DELETE FROM profile WHERE user_id = ? AND subject = ? AND key = ?",
                            [user_id, subject, key])
            return self._log(new_change((user_id, subject, key), action,  # type: ignore[arg-type]
                                        old_value=old.value, new_value=None, sources=sources,
                                        reason=reason, actor=actor, at=at))

    def history(self, user_id: str, subject: str | None = None,
                key: str | None = None) -> list[ProfileChange]:
        rows = self.db.fetchall(
            f"SELECT {_CHANGE_COLS} FROM profile_changes WHERE user_id = ? "
            "AND (?::VARCHAR IS NULL OR subject = ?) AND (?::VARCHAR IS NULL OR key = ?) "
            "ORDER BY seq", [user_id, subject, subject, key, key])
        return [_change(r) for r in rows]

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> int:
        """Delete facts and changelog rows citing any of ``msg_ids`` (source removal).

        A later changelog row whose ``old_value`` is a value only those rows stated loses
        that old value too, so the removed message's words do not survive in the log.
        """
        if not msg_ids:
            return 0
        with self.db.transaction():
            self._facts.touch(user_id)
            facts = _delete_by_source(self.db, "profile", "key", user_id, msg_ids)
            stated = self.db.fetchall(
                "DELETE FROM profile_changes WHERE user_id = ? "
                "AND list_has_any(sources, ?::VARCHAR[]) RETURNING subject, key, new_value",
                [user_id, list(msg_ids)])
            self.db.executemany(
                "UPDATE profile_changes SET old_value = NULL WHERE user_id = ? AND subject = ? "
                "AND key = ? AND old_value = ?",
                [[user_id, subject, key, value] for subject, key, value in set(stated)
                 if value is not None])
            return len(facts)

    def restore(self, facts: Sequence[ProfileFact], changes: Sequence[ProfileChange]) -> None:
        """Write exported facts and changelog rows as given (import: no new changelog rows)."""
        for fact in facts:
            require_evidence(fact)
        with self.db.transaction():
            unique = {(f.user_id, f.subject, f.key): f for f in facts}.values()
            for user_id in {f.user_id for f in unique}:
                self._facts.touch(user_id)
            self.db.bulk_insert("profile", _FACT_TYPES, [
                [f.user_id, f.subject, f.key, f.value, f.sources, f.updated_at, f.category,
                 f.updated_at] for f in unique], verb="INSERT OR REPLACE")
            known = {r[0] for r in self.db.fetchall(
                f"SELECT change_id FROM profile_changes WHERE change_id {_IN}",
                [[c.change_id for c in changes]])} if changes else set()
            for change in changes:
                if change.change_id not in known:
                    self._log(change)
                    known.add(change.change_id)

    def touch(self, user_id: str, subject: str, key: str, at: datetime) -> None:
        if self.db.read_only:  # a reader (CLI, benchmark) must not write; LRU is the writer's
            return
        self.db.execute(
            "UPDATE profile SET last_accessed_at = ? WHERE user_id = ? AND subject = ? AND key = ?",
            [at, user_id, subject, key])

    def last_accessed(self, user_id: str) -> dict[tuple[str, str], datetime | None]:
        """(subject, key) -> last read time (None if never read), for LRU eviction."""
        rows = self.db.fetchall(
            "SELECT subject, key, last_accessed_at FROM profile WHERE user_id = ?", [user_id])
        return {(s, k): _utc(at) for s, k, at in rows}

    def delete_user(self, user_id: str) -> int:
        with self.db.transaction():
            self._facts.touch(user_id, written=list)
            _delete_user(self.db, "profile_changes", user_id)
            return _delete_user(self.db, "profile", user_id)


# -- events -------------------------------------------------------------------------------

_EVENT_COLS = "event_id, user_id, subject, text, occurred_at, granularity, recorded_at, sources"
_EVENT_TYPES = [("event_id", "VARCHAR"), ("user_id", "VARCHAR"), ("subject", "VARCHAR"),
                ("text", "VARCHAR"), ("occurred_at", "TIMESTAMPTZ"), ("granularity", "VARCHAR"),
                ("recorded_at", "TIMESTAMPTZ"), ("sources", "VARCHAR[]"), ("seq", "BIGINT")]
# a re-appended event keeps its insertion number (its place among same-time events)
_EVENT_UPSERT = ("ON CONFLICT (user_id, event_id) DO UPDATE SET subject = excluded.subject, "
                 "text = excluded.text, occurred_at = excluded.occurred_at, "
                 "granularity = excluded.granularity, recorded_at = excluded.recorded_at, "
                 "sources = excluded.sources")


def _event(row: tuple[Any, ...]) -> Event:
    event_id, user_id, subject, text, occurred_at, granularity, recorded_at, sources = row
    return Event(event_id=event_id, user_id=user_id, subject=subject, text=text,
                 occurred_at=as_utc(occurred_at), granularity=granularity,
                 recorded_at=as_utc(recorded_at), sources=list(sources))


class DuckDBEventLog:
    """Events, PK (user_id, event_id), indexed on (user_id, occurred_at); re-append replaces."""

    def __init__(self, db: DuckDBDatabase) -> None:
        self.db = db

    def append(self, events: Sequence[Event]) -> None:
        if not events:
            return
        unique = list({(e.user_id, e.event_id): e for e in events}.values())  # last one wins
        with self.db.transaction():
            first = self.db.next_seq("events", len(unique))
            self.db.bulk_insert("events", _EVENT_TYPES, [
                [e.event_id, e.user_id, e.subject, e.text, e.occurred_at, e.granularity,
                 e.recorded_at, e.sources, first + n] for n, e in enumerate(unique)],
                suffix=_EVENT_UPSERT)

    def range(self, user_id: str, *, start: datetime | None = None, end: datetime | None = None,
              subject: str | None = None, limit: int | None = None) -> list[Event]:
        rows = self.db.fetchall(
            f"SELECT {_EVENT_COLS} FROM events WHERE user_id = ? "
            "AND (?::TIMESTAMPTZ IS NULL OR occurred_at >= ?) "
            "AND (?::TIMESTAMPTZ IS NULL OR occurred_at < ?) "
            "AND (?::VARCHAR IS NULL OR subject = ?) ORDER BY occurred_at, seq LIMIT ?",
            [user_id, start, start, end, end, subject, subject, _limit(limit)])
        return [_event(r) for r in rows]

    def count(self, user_id: str | None = None) -> int:
        return _count(self.db, "events", user_id)

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> int:
        return len(_delete_by_source(self.db, "events", "event_id", user_id, msg_ids))

    def delete_user(self, user_id: str) -> int:
        return _delete_user(self.db, "events", user_id)


def _delete_by_source(db: DuckDBDatabase, table: str, id_col: str, user_id: str,
                      msg_ids: Sequence[str]) -> list[str]:
    if not msg_ids:
        return []
    rows = db.fetchall(
        f"DELETE FROM {table} WHERE user_id = ? AND list_has_any(sources, ?::VARCHAR[]) "
        f"RETURNING {id_col}", [user_id, list(msg_ids)])
    return [r[0] for r in rows]


# -- documents ------------------------------------------------------------------------------

_CHUNK_COLS = "chunk_id, user_id, doc_id, idx, text, sources, ts, flags, layer"
_CHUNK_TYPES = [("chunk_id", "VARCHAR"), ("user_id", "VARCHAR"), ("doc_id", "VARCHAR"),
                ("idx", "INTEGER"), ("text", "VARCHAR"), ("sources", "VARCHAR[]"),
                ("ts", "TIMESTAMPTZ"), ("flags", "VARCHAR[]"), ("layer", "INTEGER")]


def _chunk(row: tuple[Any, ...]) -> DocumentChunk:
    chunk_id, user_id, doc_id, idx, text, sources, ts, flags, layer = row
    return DocumentChunk(chunk_id=chunk_id, user_id=user_id, doc_id=doc_id, index=idx, text=text,
                         sources=list(sources), ts=as_utc(ts), flags=list(flags), layer=layer)


class DuckDBDocumentStore:
    """Document chunks, PK (user_id, chunk_id); re-adding a chunk id replaces it."""

    def __init__(self, db: DuckDBDatabase) -> None:
        self.db = db

    def add(self, chunks: Sequence[DocumentChunk]) -> None:
        unique = {(c.user_id, c.chunk_id): c for c in chunks}.values()  # last one wins
        self.db.bulk_insert("documents", _CHUNK_TYPES, [
            [c.chunk_id, c.user_id, c.doc_id, c.index, c.text, c.sources, c.ts, c.flags, c.layer]
            for c in unique], verb="INSERT OR REPLACE")

    def get(self, user_id: str, doc_id: str) -> list[DocumentChunk]:
        rows = self.db.fetchall(
            f"SELECT {_CHUNK_COLS} FROM documents WHERE user_id = ? AND doc_id = ? "
            "ORDER BY layer, idx, chunk_id", [user_id, doc_id])
        return [_chunk(r) for r in rows]

    def by_sources(self, user_id: str, msg_ids: Sequence[str], *,
                   min_layer: int = 1) -> list[DocumentChunk]:
        if not msg_ids:
            return []
        rows = self.db.fetchall(
            f"SELECT {_CHUNK_COLS} FROM documents WHERE user_id = ? AND layer >= ? "
            "AND list_has_any(sources, ?::VARCHAR[]) ORDER BY doc_id, layer, idx, chunk_id",
            [user_id, min_layer, list(dict.fromkeys(msg_ids))])
        return [_chunk(r) for r in rows]

    def list(self, user_id: str) -> list[DocumentChunk]:
        rows = self.db.fetchall(
            f"SELECT {_CHUNK_COLS} FROM documents WHERE user_id = ? "
            "ORDER BY doc_id, layer, idx, chunk_id", [user_id])
        return [_chunk(r) for r in rows]

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> int:
        return len(_delete_by_source(self.db, "documents", "chunk_id", user_id, msg_ids))

    def delete_user(self, user_id: str) -> int:
        return _delete_user(self.db, "documents", user_id)


# -- archive --------------------------------------------------------------------------------

_ITEM_COLS = "item_id, user_id, kind, text, key_text, sources, subject, occurred_at, flags"
_ITEM_TYPES = [("item_id", "VARCHAR"), ("user_id", "VARCHAR"), ("kind", "VARCHAR"),
               ("text", "VARCHAR"), ("key_text", "VARCHAR"), ("sources", "VARCHAR[]"),
               ("subject", "VARCHAR"), ("occurred_at", "TIMESTAMPTZ"), ("flags", "VARCHAR[]"),
               ("seq", "BIGINT"), ("indexed", "BOOLEAN")]


def _item(row: tuple[Any, ...]) -> ArchiveItem:
    item_id, user_id, kind, text, key_text, sources, subject, occurred_at, flags = row
    return ArchiveItem(item_id=item_id, user_id=user_id, kind=kind, text=text, key_text=key_text,
                       sources=list(sources), subject=subject, occurred_at=_utc(occurred_at),
                       flags=list(flags))


class DuckDBArchiveLog:
    """Archive rows (PK item_id, the vector id) with an ``indexed`` flag for index sync."""

    def __init__(self, db: DuckDBDatabase) -> None:
        self.db = db
        self._counts = _UserCache(db)  # rows per user: BM25 checks it before every search

    def add(self, items: Sequence[ArchiveItem]) -> None:
        if not items:
            return
        with self.db.transaction():
            owners = self.db.fetchall(
                f"SELECT item_id, user_id FROM archive WHERE item_id {_IN}",
                [[i.item_id for i in items]])
            refuse_foreign_ids(items, dict(owners))
            unique = list({i.item_id: i for i in items}.values())  # last one wins
            self._touch_counts(unique, {item_id for item_id, _ in owners})
            first = self.db.next_seq("archive", len(unique))
            self.db.bulk_insert("archive", _ITEM_TYPES, [
                [i.item_id, i.user_id, i.kind, i.text, i.key_text, i.sources, i.subject,
                 i.occurred_at, i.flags, first + n, False] for n, i in enumerate(unique)],
                # OR REPLACE only when a row is re-added: it cost 6.2 ms against 2.4 ms
                # for a plain insert of one row (10,000-message store)
                verb="INSERT OR REPLACE" if owners else "INSERT")

    def _select(self, where: str, params: list[Any], limit: int | None = None) -> list[ArchiveItem]:
        rows = self.db.fetchall(
            f"SELECT {_ITEM_COLS} FROM archive WHERE {where} ORDER BY seq LIMIT ?",
            [*params, _limit(limit)])
        return [_item(r) for r in rows]

    def get(self, user_id: str, item_ids: Sequence[str]) -> list[ArchiveItem]:
        if not item_ids:
            return []
        ids = list(item_ids)
        return self._select(f"user_id = ? AND {_ids_clause('item_id', ids)}", [user_id, ids])

    def texts(self, user_id: str, item_ids: Sequence[str]) -> dict[str, str]:
        if not item_ids:
            return {}
        ids = list(item_ids)
        rows = self.db.fetchall(
            f"SELECT item_id, text FROM archive WHERE user_id = ? AND {_ids_clause('item_id', ids)}",
            [user_id, ids])
        return dict(rows)

    def list(self, user_id: str, kinds: Sequence[str] | None = None) -> list[ArchiveItem]:
        if kinds is None:
            return self._select("user_id = ?", [user_id])
        return self._select(f"user_id = ? AND kind {_IN}",
                            [user_id, list(kinds)])

    def unindexed(self, limit: int = 1000) -> list[ArchiveItem]:
        return self._select("NOT indexed", [], limit)

    def count_unindexed(self) -> int:
        return int(self.db.fetchall("SELECT count(*) FROM archive WHERE NOT indexed")[0][0])

    def mark_indexed(self, item_ids: Sequence[str]) -> None:
        if item_ids:
            self.db.execute(f"UPDATE archive SET indexed = true WHERE item_id {_IN}",
                            [list(item_ids)])

    def mark_unindexed(self, item_ids: Sequence[str]) -> None:
        if item_ids:
            self.db.execute(f"UPDATE archive SET indexed = false WHERE item_id {_IN}",
                            [list(item_ids)])

    def mark_all_unindexed(self) -> None:
        self.db.execute("UPDATE archive SET indexed = false WHERE indexed")

    def all_ids(self) -> set[str]:
        return {r[0] for r in self.db.fetchall("SELECT item_id FROM archive")}

    def count(self, user_id: str | None = None) -> int:
        if user_id is None:
            return _count(self.db, "archive", None)
        return self._counts.read(user_id, lambda: _count(self.db, "archive", user_id))

    def _touch_counts(self, unique: Sequence[ArchiveItem], stored: set[str]) -> None:
        """After the commit each user has the rows before plus the new item ids."""
        for user_id in {i.user_id for i in unique}:
            before = self._counts.peek(user_id)
            added = sum(1 for i in unique if i.user_id == user_id and i.item_id not in stored)
            self._counts.touch(user_id, written=None if before is None else (lambda n=before + added: n))

    def delete_by_source(self, user_id: str, msg_ids: Sequence[str]) -> list[str]:
        with self.db.transaction():
            self._counts.touch(user_id)
            return _delete_by_source(self.db, "archive", "item_id", user_id, msg_ids)

    def delete_user(self, user_id: str) -> list[str]:
        with self.db.transaction():
            self._counts.touch(user_id, written=lambda: 0)
            rows = self.db.fetchall(
                "DELETE FROM archive WHERE user_id = ? RETURNING item_id", [user_id])
        return [r[0] for r in rows]


# -- fold state and scratchpad ------------------------------------------------------------------


class DuckDBFoldStore:
    """One FoldState per user, as JSON.

    Every recall and context() reads the user's state, and parsing it (episodes, L3
    notes) costs several milliseconds, so the last parsed state per user is kept with the
    JSON it came from and reused while the stored JSON is the same text (what a rolled
    back transaction or another process wrote is still read: the text is compared).
    States are treated as immutable everywhere (the manager returns new ones)."""

    CACHE_USERS = 64

    def __init__(self, db: DuckDBDatabase) -> None:
        self.db = db
        self._parsed: OrderedDict[str, tuple[str, FoldState]] = OrderedDict()
        self._lock = threading.Lock()
        self._states = _UserCache(db)  # skips the SELECT while no write touched the user

    def load(self, user_id: str) -> FoldState | None:
        return self._states.read(user_id, lambda: self._load(user_id))

    def _load(self, user_id: str) -> FoldState | None:
        rows = self.db.fetchall("SELECT state FROM fold_state WHERE user_id = ?", [user_id])
        if not rows:
            return None
        text = rows[0][0]
        with self._lock:
            cached = self._parsed.get(user_id)
        if cached is not None and cached[0] == text:
            return cached[1]
        state = FoldState.model_validate_json(text)
        self._remember(user_id, text, state)
        return state

    def _remember(self, user_id: str, text: str, state: FoldState) -> None:
        with self._lock:
            self._parsed[user_id] = (text, state)
            self._parsed.move_to_end(user_id)
            while len(self._parsed) > self.CACHE_USERS:
                self._parsed.popitem(last=False)

    def save(self, state: FoldState) -> None:
        text = state.model_dump_json()
        with self.db.transaction():
            self._states.touch(state.user_id, written=lambda: state)
            self.db.execute(
                "INSERT OR REPLACE INTO fold_state (user_id, state, updated_at) VALUES (?, ?, now())",
                [state.user_id, text])

    def delete_user(self, user_id: str) -> int:
        with self.db.transaction():
            self._states.touch(user_id, written=lambda: None)
            return _delete_user(self.db, "fold_state", user_id)


class DuckDBScratchpad(SqlScratchpadReads):
    """Task notes keyed by (user_id, task_id, key), as JSON text, in write order."""

    def put(self, item: ScratchItem) -> None:
        encoded = scratch_value(item)
        with self.db.transaction():
            self.db.execute(
                "INSERT INTO task_items (user_id, task_id, key, seq, kind, value, written_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, task_id, key) DO UPDATE SET "
                "kind = excluded.kind, value = excluded.value, written_at = excluded.written_at",
                [item.user_id, item.task_id, item.key, self.db.next_seq("task_items"), item.kind,
                 encoded, item.written_at])


_KB_CHUNK_TYPES = [("namespace", "VARCHAR"), ("doc_id", "VARCHAR"), ("version", "INTEGER"),
                   ("idx", "INTEGER"), ("text", "VARCHAR"), ("vector", "BLOB")]


class DuckDBKnowledgeStore(SqlKnowledgeReads):
    """Knowledge-base documents and their chunks; each chunk row holds its vector (float32
    bytes), so a version's rows and vectors are replaced in one transaction."""

    def replace(self, doc: KnowledgeDoc, chunks: Sequence[KnowledgeChunk], vectors: Any) -> int:
        blobs = vector_blobs(vectors, len(chunks))
        with self.db.transaction():
            dropped = self._drop(doc)
            self._insert_doc(doc)
            self.db.bulk_insert("kb_chunks", _KB_CHUNK_TYPES,
                                [[c.namespace, c.doc_id, c.version, c.index, c.text, blob]
                                 for c, blob in zip(chunks, blobs)])
        return dropped
