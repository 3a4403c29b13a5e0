"""What only the PostgreSQL store has: versioned migrations (also when two processes start
at once), errors translated at the boundary, races between two processes ("replicas"),
and erasure of deleted rows from the data files.

The shared contracts (tests/stores/test_stores_*.py) run against PostgreSQL through the
``stores`` fixture; these tests use the session's throwaway cluster directly."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from pg_cluster import PostgresCluster
from stores_helpers import fact, item, message

from memfold.errors import (
    DuplicateMessageError,
    InvalidInputError,
    StoreCorruptError,
    StoreError,
    WriteConflictError,
)
from memfold.stores import Stores
from memfold.stores.memory import InMemoryVectorIndex
from memfold.stores.postgres import (
    SCHEMA_VERSION,
    PostgresDatabase,
    connect,
    postgres_stores,
    translate,
)


@pytest.fixture
def schema(pg_cluster: PostgresCluster) -> str:
    return pg_cluster.new_schema()


def _open(cluster: PostgresCluster, schema: str, **options: object) -> Stores:
    db = connect(cluster.conninfo(schema), **options)  # type: ignore[arg-type]
    return postgres_stores(db, InMemoryVectorIndex())


# -- migrations --------------------------------------------------------------------------


def test_migrations_run_once_and_are_recorded(pg_cluster: PostgresCluster, schema: str) -> None:
    with _open(pg_cluster, schema) as first:
        db = first.db
        assert isinstance(db, PostgresDatabase)
        assert db.schema_version() == SCHEMA_VERSION
        assert db.migrate() == []  # applying again is a no-op
        rows = db.fetchall("SELECT version FROM schema_migrations ORDER BY 1")
        assert rows == [(v,) for v in range(1, SCHEMA_VERSION + 1)]
    with _open(pg_cluster, schema) as second:  # a later start finds everything applied
        assert second.db.migrate() == []  # type: ignore[attr-defined]


_START_SCRIPT = """
import sys, time
from memfold.stores.postgres import PostgresDatabase, connect
original = PostgresDatabase.migrate
applied = []
def recording(self):
    applied.extend(original(self))
    return applied
PostgresDatabase.migrate = recording
go = float(sys.argv[2])
time.sleep(max(0.0, go - time.time()))
connect(sys.argv[1]).close()
print(applied)
"""


def test_two_processes_starting_at_once_migrate_once(pg_cluster: PostgresCluster,
                                                     schema: str) -> None:
    go = time.time() + 3.0  # both are past their imports by then, and connect together
    starts = [subprocess.Popen([sys.executable, "-c", _START_SCRIPT, pg_cluster.conninfo(schema),
                                str(go)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in starts]
    assert [p.returncode for p in starts] == [0, 0], [err for _, err in outputs]
    every = str(list(range(1, SCHEMA_VERSION + 1)))
    assert sorted(out.strip() for out, _ in outputs) == [every, "[]"]
    with psycopg.connect(pg_cluster.conninfo(schema)) as conn:
        assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone() == (SCHEMA_VERSION,)


def test_read_only_open_reads_refuses_writes_and_needs_the_schema(pg_cluster: PostgresCluster,
                                                                   schema: str) -> None:
    with pytest.raises(StoreCorruptError, match="schema version None"):
        connect(pg_cluster.conninfo(schema), read_only=True)
    with _open(pg_cluster, schema) as writer:
        writer.log.append([message("m1")])
    with _open(pg_cluster, schema, read_only=True) as reader:
        assert reader.read_only and reader.log.count("ana") == 1
        with pytest.raises(StoreError, match="read-only"):
            reader.log.append([message("m2")])
        reader.profile.touch("ana", "user", "city", message("m1").ts)  # a reader never writes


# -- errors -------------------------------------------------------------------------------


def test_an_unreachable_server_fails_at_once_without_the_password(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(StoreError) as failure:
        connect(f"postgresql://memfold:s3cretpw@/memfold?host={tmp_path}&port=5999", timeout=5)
    assert time.monotonic() - started < 5
    assert "s3cretpw" not in str(failure.value) and "MEMFOLD_DATABASE_URL" in str(failure.value)
    assert isinstance(failure.value.__cause__, psycopg.OperationalError)


def test_sql_errors_are_translated_with_their_cause(pg_cluster: PostgresCluster,
                                                    schema: str) -> None:
    with _open(pg_cluster, schema) as stores:
        with pytest.raises(StoreError) as failure:
            stores.db.fetchall("SELECT * FROM no_such_table")  # type: ignore[attr-defined]
        assert isinstance(failure.value, StoreCorruptError)
        assert isinstance(failure.value.__cause__, psycopg.errors.UndefinedTable)
        with pytest.raises(InvalidInputError, match="NUL"):  # PostgreSQL text cannot hold NUL
            stores.profile.upsert(fact("nick", "a\x00b", "m1"))
        assert stores.profile.list("ana") == [] and stores.profile.history("ana") == []


def test_a_deadlock_between_two_transactions_is_a_write_conflict(pg_cluster: PostgresCluster,
                                                                 schema: str) -> None:
    stores = _open(pg_cluster, schema)
    db = stores.db
    both_hold_one = threading.Barrier(2)
    outcomes: list[BaseException | None] = []

    def lock_in_order(first: str, second: str) -> None:
        try:
            with db.transaction():
                db.advisory_lock(first)  # type: ignore[attr-defined]
                both_hold_one.wait()
                db.advisory_lock(second)  # type: ignore[attr-defined]
            outcomes.append(None)
        except WriteConflictError as exc:
            outcomes.append(exc)

    workers = [threading.Thread(target=lock_in_order, args=keys)
               for keys in (("a", "b"), ("b", "a"))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    stores.close()
    assert sorted(o is None for o in outcomes) == [False, True]  # one aborted, one committed
    conflict = next(o for o in outcomes if o is not None)
    assert isinstance(conflict.__cause__, psycopg.errors.DeadlockDetected)
    assert "retry" in str(conflict)


def test_translate_maps_serialization_failures_and_pool_errors() -> None:
    from psycopg_pool import PoolClosed, PoolTimeout

    from memfold.errors import StoreClosedError

    assert isinstance(translate(psycopg.errors.SerializationFailure("x"), "db"), WriteConflictError)
    assert isinstance(translate(PoolClosed("x"), "db"), StoreClosedError)
    timeout = translate(PoolTimeout("x"), "db")
    assert type(timeout) is StoreError and "pool size" in str(timeout)


# -- two processes on one database ------------------------------------------------------------


def _hold_then_commit(stores: Stores, write: object, holding: threading.Event) -> threading.Thread:
    """Run ``write`` in a transaction that stays open 0.3 s after it, in another thread."""
    def run() -> None:
        with stores.db.transaction():
            write()  # type: ignore[operator]
            holding.set()
            time.sleep(0.3)
    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_conflicting_message_stored_meanwhile_by_another_replica_is_refused(
        pg_cluster: PostgresCluster, schema: str) -> None:
    with _open(pg_cluster, schema) as one, _open(pg_cluster, schema) as two:
        holding = threading.Event()
        writer = _hold_then_commit(one, lambda: one.log.append([message("m1", "first")]), holding)
        holding.wait(10)  # `two` cannot see m1 yet: its insert waits for `one` to commit
        with pytest.raises(DuplicateMessageError):
            two.log.append([message("m1", "second"), message("m2")])
        writer.join()
        holding.clear()
        writer = _hold_then_commit(one, lambda: one.log.append([message("m3")]), holding)
        holding.wait(10)
        two.log.append([message("m3")])  # the identical message: a no-op, not an error
        writer.join()
        assert [m.msg_id for m in two.log.list("ana")] == ["m1", "m3"]
        assert two.log.get("ana", ["m1"])[0].text == "first"


def test_an_archive_id_taken_meanwhile_by_another_users_replica_is_refused(
        pg_cluster: PostgresCluster, schema: str) -> None:
    with _open(pg_cluster, schema) as one, _open(pg_cluster, schema) as two:
        holding = threading.Event()
        writer = _hold_then_commit(one, lambda: one.archive.add([item("x", "ana's")]), holding)
        holding.wait(10)
        with pytest.raises(InvalidInputError, match="another user"):
            two.archive.add([item("x", "bob's", user="bob")])
        writer.join()
        assert two.archive.get("ana", ["x"])[0].key_text == "ana's"
        assert two.archive.count("bob") == 0


def test_two_replicas_writing_one_key_keep_one_changelog_chain(pg_cluster: PostgresCluster,
                                                               schema: str) -> None:
    replicas = [_open(pg_cluster, schema, max_size=4) for _ in range(2)]
    barrier = threading.Barrier(8)

    def writer(n: int) -> None:
        barrier.wait()
        for w in range(10):
            replicas[n % 2].profile.upsert(fact("city", f"c{n}-{w}", f"m{n}-{w}"))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    history = replicas[0].profile.history("ana")
    for replica in replicas:
        replica.close()
    assert len(history) == 80 and history[0].action == "add"
    assert all(b.old_value == a.new_value for a, b in zip(history, history[1:]))


# -- erasure ------------------------------------------------------------------------------------


def _data_files_with(cluster: PostgresCluster, needle: bytes, under: str = "base") -> list[str]:
    root = cluster.data / under
    return [str(p.relative_to(cluster.data)) for p in root.rglob("*")
            if p.is_file() and needle in p.read_bytes()]


def test_rewrite_after_a_delete_leaves_no_deleted_row_in_the_table_files(
        pg_cluster: PostgresCluster, schema: str) -> None:
    canary = f"zq{uuid.uuid4().hex[:16]}"
    with _open(pg_cluster, schema) as stores:
        with stores.db.transaction():
            for user in (canary, "ana"):
                stores.log.append([message(f"m{n}", f"{user} said {n}", user=user, minutes=n)
                                   for n in range(30)])
                stores.profile.upsert(fact("nick", f"{user} nick", "m1", user=user))
                stores.archive.add([item(f"{user}:{n}", f"{user} key {n}", user=user)
                                    for n in range(30)])
        pg_cluster.admin("CHECKPOINT")  # flush the pages, so the files hold the rows
        assert _data_files_with(pg_cluster, canary.encode())
        with stores.db.transaction():
            for store in (stores.log, stores.profile, stores.archive):
                store.delete_user(canary)
        with pytest.raises(StoreError, match="inside a transaction"), stores.db.transaction():
            stores.db.rewrite_file()  # type: ignore[attr-defined]
        stores.db.rewrite_file()  # type: ignore[attr-defined]
        pg_cluster.admin("CHECKPOINT")
        assert _data_files_with(pg_cluster, canary.encode()) == []
        assert stores.log.count("ana") == 30 and stores.archive.count("ana") == 30
        assert [i for i, _ in stores.lexical.search("ana", "ana key 7", 1).own] == ["ana:7"]



def test_a_version_1_database_migrates_to_the_lexicon_scratchpads_and_the_knowledge_base(
        pg_cluster: PostgresCluster, schema: str) -> None:
    """A database made by the first schema (tsvector lexemes, user-less scratchpad, no
    knowledge base) gets the postings and the new tables on its next start, keeps its
    records and finds them in lexical search."""
    from memfold.stores.postgres import MIGRATIONS

    with psycopg.connect(pg_cluster.conninfo(schema), autocommit=True) as conn:
        conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                     "applied_at TIMESTAMPTZ NOT NULL)")
        conn.execute(MIGRATIONS[1])
        conn.execute("INSERT INTO schema_migrations VALUES (1, now())")
        conn.execute("INSERT INTO messages (user_id, msg_id, session_id, speaker, role, ts, text, meta) "
                     "VALUES ('ana', 'm1', 's', 'Ana', 'user', now(), 'kept', '{}')")
    with _open(pg_cluster, schema) as stores:
        assert stores.db.schema_version() == SCHEMA_VERSION  # type: ignore[attr-defined]
        assert [m.text for m in stores.log.list("ana")] == ["kept"]
        assert stores.scratchpad.tasks() == [] and stores.knowledge.documents() == []
