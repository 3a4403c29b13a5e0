"""DuckDB on a real file: persistence across reopen, schema version, erasure rewrite,
another process holding the file, and the translation of DuckDB errors."""

from __future__ import annotations

import subprocess
import threading
import time
import sys
import textwrap
import uuid
from pathlib import Path

import duckdb
import pytest
from stores_helpers import T0, chunk, event, fact, item, message, scratch

from memfold.errors import StoreCorruptError, StoreError, StoreLockedError, WriteConflictError
from memfold.models import FoldState, SemanticMemory
from memfold.stores import Stores, duckdb_stores
from memfold.stores.duckdb import DuckDBDatabase, translate
from memfold.stores.memory import InMemoryVectorIndex


def _open(path: Path) -> Stores:
    return duckdb_stores(DuckDBDatabase(path), InMemoryVectorIndex())


def test_every_store_persists_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "memfold.duckdb"
    state = FoldState(user_id="ana", folds=3, semantic=SemanticMemory(user_id="ana"))
    with _open(path) as first:
        with first.db.transaction():
            first.log.append([message("m1", "I live in Austin"), message("m2", minutes=1)])
            first.profile.upsert(fact("city", "Austin", "m1"))
            first.events.append([event("e1")])
            first.documents.add([chunk("c1")])
            first.archive.add([item("a1"), item("a2")])
            first.folds.save(state)
            first.scratchpad.put(scratch("t1", "k", [1, 2]))
        first.archive.mark_indexed(["a1"])
        first.profile.touch("ana", "user", "city", T0)
    with _open(path) as again:
        assert [m.msg_id for m in again.log.list("ana")] == ["m1", "m2"]
        assert again.profile.get("ana", "user", "city") == fact("city", "Austin", "m1")
        assert [c.action for c in again.profile.history("ana")] == ["add"]
        assert again.profile.last_accessed("ana") == {("user", "city"): T0}
        assert again.events.range("ana") == [event("e1")]
        assert again.documents.list("ana") == [chunk("c1")]
        assert [i.item_id for i in again.archive.unindexed()] == ["a2"]
        assert again.folds.load("ana") == state
        assert [i.value for i in again.scratchpad.items("ana", "t1")] == [[1, 2]]
        # insertion numbers continue after a reopen, so turn order survives it
        again.log.append([message("m3", minutes=1)])
        assert [m.msg_id for m in again.log.list("ana")] == ["m1", "m2", "m3"]


def test_schema_version_row(tmp_path: Path) -> None:
    path = tmp_path / "memfold.duckdb"
    db = DuckDBDatabase(path)
    assert db.schema_version() == 1
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.close()
    with pytest.raises(StoreCorruptError, match="schema version 99"):
        DuckDBDatabase(path)


def test_read_only_database_reads_but_cannot_write(tmp_path: Path) -> None:
    path = tmp_path / "memfold.duckdb"
    with _open(path) as writer:
        writer.log.append([message("m1")])
        writer.profile.upsert(fact("city", "Austin", "m1"))
    reader = duckdb_stores(DuckDBDatabase(path, read_only=True), InMemoryVectorIndex())
    assert reader.log.count() == 1
    with pytest.raises(StoreError):
        reader.log.append([message("m2")])
    reader.profile.touch("ana", "user", "city", T0)  # a read must not fail on a reader
    assert reader.profile.last_accessed("ana") == {("user", "city"): None}
    reader.close()
    with pytest.raises(StoreError, match="no memfold database"):
        DuckDBDatabase(tmp_path / "absent.duckdb", read_only=True)


def _all_bytes_contain(directory: Path, needle: bytes) -> list[str]:
    return [str(p) for p in directory.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_rewrite_file_removes_deleted_bytes(tmp_path: Path) -> None:
    path = tmp_path / "memfold.duckdb"
    canary = f"CANARY-{uuid.uuid4().hex}"
    stores = _open(path)
    with stores.db.transaction():
        stores.log.append([message(f"b{n}", f"{canary} secret {n}", user="bob") for n in range(30)])
        stores.log.append([message(f"a{n}", f"ana line {n}") for n in range(30)])
        stores.profile.upsert(fact("secret", canary, "b1", user="bob"))
        stores.archive.add([item("bob-1", canary, user="bob")])
    stores.db.checkpoint()  # type: ignore[attr-defined]
    with stores.db.transaction():
        stores.log.delete_user("bob")
        stores.profile.delete_user("bob")
        stores.archive.delete_user("bob")
    stores.db.checkpoint()  # type: ignore[attr-defined]
    stores.db.execute("VACUUM")  # type: ignore[attr-defined]
    # the measured fact this guards against: DELETE + CHECKPOINT + VACUUM leaves the bytes
    assert _all_bytes_contain(tmp_path, canary.encode())
    stores.db.rewrite_file()  # type: ignore[attr-defined]
    assert _all_bytes_contain(tmp_path, canary.encode()) == []
    # the same objects keep working on the fresh file, and the data is all there
    assert stores.log.count("ana") == 30 and stores.log.count("bob") == 0
    stores.log.append([message("a99", minutes=5)])
    stores.close()
    with _open(path) as again:
        assert again.log.count("ana") == 31
        assert sorted(p.name for p in tmp_path.iterdir()) == ["memfold.duckdb"]


def test_rewrite_refused_inside_a_transaction(tmp_path: Path) -> None:
    db = DuckDBDatabase(tmp_path / "memfold.duckdb")
    with pytest.raises(StoreError, match="inside a transaction"), db.transaction():
        db.rewrite_file()
    db.close()


HOLDER = textwrap.dedent("""
    import sys, time, duckdb
    conn = duckdb.connect(sys.argv[1])
    print("ready", flush=True)
    time.sleep(30)
""")


def test_file_held_by_another_process_names_its_pid(tmp_path: Path) -> None:
    path = tmp_path / "memfold.duckdb"
    DuckDBDatabase(path).close()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError) as caught:
            DuckDBDatabase(path)
        assert caught.value.pid == holder.pid and str(holder.pid) in str(caught.value)
        with pytest.raises(StoreLockedError):
            DuckDBDatabase(path, read_only=True)  # DuckDB refuses readers too
    finally:
        holder.kill()
        holder.wait()


def test_translate_maps_duckdb_errors() -> None:
    conflict = translate(
        duckdb.TransactionException("TransactionContext Error: Conflict on update!"), "x.duckdb")
    assert isinstance(conflict, WriteConflictError)
    locked = translate(duckdb.IOException(
        'IO Error: Could not set lock on file "x.duckdb": Conflicting lock is held in '
        "/usr/bin/python3 (PID 4242) by user root."), "x.duckdb")
    assert isinstance(locked, StoreLockedError) and locked.pid == 4242
    other = translate(duckdb.CatalogException("Table with name nope does not exist!"), "x.duckdb")
    assert type(other) is StoreError and "nope" in str(other)


def test_sql_errors_surface_as_store_errors_with_cause() -> None:
    db = DuckDBDatabase()
    with pytest.raises(StoreError) as caught:
        db.execute("SELECT * FROM no_such_table")
    assert isinstance(caught.value.__cause__, duckdb.Error)
    db.close()


def test_run_replays_work_after_a_conflict() -> None:
    db = DuckDBDatabase()
    attempts: list[int] = []

    def work() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise WriteConflictError("simulated conflict")
        db.execute("INSERT INTO meta VALUES ('k', 'v')")
        return "done"

    assert db.run(work) == "done" and len(attempts) == 3
    assert db.fetchall("SELECT value FROM meta WHERE key = 'k'") == [("v",)]
    with pytest.raises(WriteConflictError):
        db.run(lambda: (_ for _ in ()).throw(WriteConflictError("always")), retries=1)
    db.close()


def test_a_real_write_conflict_is_retried_then_reported() -> None:
    db = DuckDBDatabase()
    db.execute("INSERT INTO meta VALUES ('k', 'v0')")
    other = db._conn.cursor()  # noqa: SLF001  (a second connection to the same database)
    other.execute("BEGIN")
    other.execute("UPDATE meta SET value = 'other' WHERE key = 'k'")
    with pytest.raises(WriteConflictError) as caught:
        db.execute("UPDATE meta SET value = 'mine' WHERE key = 'k'")
    assert isinstance(caught.value.__cause__, duckdb.TransactionException)
    # the other writer commits while we are retrying: a later attempt goes through
    db.retry_pause_s = 0.1  # retries span 1 s; the commit lands after 0.05 s
    timer = threading.Timer(0.05, lambda: other.execute("COMMIT"))
    timer.start()
    started = time.monotonic()
    db.execute("UPDATE meta SET value = 'mine' WHERE key = 'k'")
    assert time.monotonic() - started >= 0.05  # the first attempt conflicted
    timer.join()
    assert db.fetchall("SELECT value FROM meta WHERE key = 'k'") == [("mine",)]
    db.close()


def test_sixteen_threads_share_one_file_store(tmp_path: Path) -> None:
    stores = _open(tmp_path / "memfold.duckdb")
    errors: list[Exception] = []

    def work(n: int) -> None:
        try:
            for w in range(8):
                with stores.db.transaction():
                    stores.log.append([message(f"m{n}-{w}", f"turn {n} {w}", minutes=w)])
                    stores.archive.add([item(f"ana:{n}-{w}", sources=(f"m{n}-{w}",))])
                    stores.profile.upsert(fact("counter", f"{n}-{w}", f"m{n}-{w}"))
                stores.log.list("ana", limit=5)
        except StoreError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert stores.log.count("ana") == 128 and stores.archive.count("ana") == 128
    assert len(stores.profile.history("ana", "user", "counter")) == 128
    stores.close()


def test_a_store_from_before_the_scratchpad_and_knowledge_tables(tmp_path: Path) -> None:
    """An older file lacks task_items and the kb tables: a reader sees them as empty (it
    cannot create them), the next writer creates them and keeps every record."""
    path = tmp_path / "memfold.duckdb"
    with _open(path) as first:
        first.log.append([message("m1")])
    conn = duckdb.connect(str(path))
    for table in ("task_items", "kb_documents", "kb_chunks"):
        conn.execute(f"DROP TABLE {table}")
    conn.close()
    reader = duckdb_stores(DuckDBDatabase(path, read_only=True), InMemoryVectorIndex())
    try:
        assert reader.db.users() == ["ana"]
        assert reader.scratchpad.tasks() == [] and reader.scratchpad.items("ana", "t") == []
        assert reader.knowledge.documents() == [] and reader.knowledge.vectors("manual")[0] == []
    finally:
        reader.close()
    with _open(path) as writer:
        writer.scratchpad.put(scratch("t1", "k", 1))
        assert [m.msg_id for m in writer.log.list("ana")] == ["m1"]
        assert [t.task_id for t in writer.scratchpad.tasks()] == ["t1"]
