"""The hardened read-only SQL connection: reads the store, touches nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from stores_helpers import message

from memfold.errors import InvalidInputError, StoreError
from memfold.stores import duckdb_stores
from memfold.stores.duckdb import DuckDBDatabase
from memfold.stores.memory import InMemoryVectorIndex
from memfold.stores.sql import readonly_connection, run_readonly_sql


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    store, outside = tmp_path / "store", tmp_path / "outside"
    store.mkdir()
    outside.mkdir()
    (outside / "secret.csv").write_text("user,password\nana,hunter2\n")
    stores = duckdb_stores(DuckDBDatabase(store / "memfold.duckdb"), InMemoryVectorIndex())
    stores.log.append([message("m1", "hello"), message("m2", "bye", minutes=1)])
    stores.close()
    return store, outside


def _files(*dirs: Path) -> set[str]:
    return {str(p) for d in dirs for p in d.rglob("*")}


def test_select_returns_columns_and_rows(layout: tuple[Path, Path]) -> None:
    store, _ = layout
    columns, rows = run_readonly_sql(store / "memfold.duckdb",
                                     "SELECT msg_id, text FROM messages ORDER BY seq")
    assert columns == ["msg_id", "text"] and rows == [("m1", "hello"), ("m2", "bye")]
    _, limited = run_readonly_sql(store / "memfold.duckdb", "SELECT msg_id FROM messages", limit=1)
    assert len(limited) == 1


@pytest.mark.parametrize("query", [
    "SELECT * FROM read_csv('{outside}/secret.csv')",
    "SELECT * FROM read_text('{outside}/secret.csv')",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM '{outside}/secret.csv'",
    "SELECT * FROM glob('{outside}/*')",
    "COPY messages TO '{outside}/leak.csv'",
    "COPY (SELECT 1) TO '{store}/inside.csv'",
    "EXPORT DATABASE '{outside}/dump'",
    "ATTACH '{outside}/new.duckdb' AS other",
    "SET enable_external_access = true",
    "SET lock_configuration = false",
    "SET temp_directory = '{outside}/tmp'",
    "PRAGMA enable_profiling",
    "SET profiling_output = '{outside}/profile.json'",
    "INSERT INTO messages SELECT * FROM messages",
    "DELETE FROM messages",
    "UPDATE messages SET text = 'x'",
    "DROP TABLE messages",
    "CREATE TABLE t (a INTEGER)",
    "INSTALL httpfs",
    "LOAD httpfs",
    "this is not sql",
])
def test_everything_but_reading_the_store_fails(layout: tuple[Path, Path], query: str) -> None:
    store, outside = layout
    before = _files(store, outside)
    with pytest.raises(InvalidInputError):
        run_readonly_sql(store / "memfold.duckdb", query.format(store=store, outside=outside))
    assert _files(store, outside) == before  # no file appeared anywhere
    assert run_readonly_sql(store / "memfold.duckdb", "SELECT count(*) FROM messages")[1] == [(2,)]


def test_hardening_is_in_effect(layout: tuple[Path, Path]) -> None:
    store, _ = layout
    with readonly_connection(store / "memfold.duckdb") as conn:
        settings = dict(conn.execute(
            "SELECT name, value FROM duckdb_settings() WHERE name IN "
            "('enable_external_access', 'lock_configuration', 'access_mode')").fetchall())
    assert settings == {"enable_external_access": "false", "lock_configuration": "true",
                        "access_mode": "read_only"}


def test_missing_database_and_bad_limit(tmp_path: Path) -> None:
    with pytest.raises(StoreError):
        run_readonly_sql(tmp_path / "none.duckdb", "SELECT 1")
    with pytest.raises(InvalidInputError):
        run_readonly_sql(tmp_path / "none.duckdb", "SELECT 1", limit=-1)


# -- issue 17 item 7: one statement, no reads of the store's own files, time and memory caps --


@pytest.mark.parametrize("query", [
    "SELECT 1; SELECT 2", "SELECT msg_id FROM messages; DROP TABLE messages",
    "PRAGMA database_size", "SET threads = 1", "ATTACH ':memory:' AS m",
])
def test_only_one_query_runs(layout: tuple[Path, Path], query: str) -> None:
    store, _ = layout
    with pytest.raises(InvalidInputError):
        run_readonly_sql(store / "memfold.duckdb", query)


@pytest.mark.parametrize("template", [
    "SELECT * FROM read_blob('{db}')", "SELECT * FROM read_text('{db}')",
    "SELECT * FROM read_text('{db}.wal')", "WITH x AS (SELECT * FROM read_blob('{db}')) SELECT 1",
    "SELECT (SELECT count(*) FROM read_blob('{db}'))", "EXPLAIN SELECT * FROM read_blob('{db}')",
    "SELECT * FROM read_csv_auto('{db}')", "SELECT * FROM query_table('messages')",
    "SELECT * FROM glob('{db}')", "SELECT * FROM parquet_metadata('{db}')",
])
def test_the_stores_own_raw_files_cannot_be_read(layout: tuple[Path, Path], template: str) -> None:
    store, _ = layout
    db = store / "memfold.duckdb"
    with pytest.raises(InvalidInputError):
        run_readonly_sql(db, template.format(db=db))


def test_catalog_and_generator_functions_still_work(layout: tuple[Path, Path]) -> None:
    store, _ = layout
    db = store / "memfold.duckdb"
    assert run_readonly_sql(db, "SELECT count(*) FROM duckdb_tables()")[1][0][0] > 0
    assert run_readonly_sql(db, "SELECT sum(range) FROM range(10)")[1] == [(45,)]
    assert run_readonly_sql(db, "SHOW TABLES")[1]
    assert run_readonly_sql(db, "DESCRIBE messages")[1]


def test_a_long_query_is_stopped_at_the_timeout(layout: tuple[Path, Path]) -> None:
    store, _ = layout
    with pytest.raises(InvalidInputError, match="longer than"):
        run_readonly_sql(store / "memfold.duckdb", "SELECT sum(range) FROM range(100000000000)",
                         timeout_s=0.5)


def test_a_query_over_the_memory_cap_fails_cleanly(layout: tuple[Path, Path]) -> None:
    store, _ = layout
    with pytest.raises(InvalidInputError, match="memory"):
        run_readonly_sql(store / "memfold.duckdb",
                         "SELECT * FROM range(60000000) ORDER BY random()", memory_limit="64MB")


def test_a_bad_memory_limit_is_invalid_input(layout: tuple[Path, Path]) -> None:
    store, _ = layout
    with pytest.raises(InvalidInputError, match="memory limit"):
        run_readonly_sql(store / "memfold.duckdb", "SELECT 1", memory_limit="lots")


def test_a_writer_blocked_by_a_reader_is_told_it_is_a_reader(layout: tuple[Path, Path]) -> None:
    import subprocess
    import sys
    import time

    from memfold.errors import StoreLockedError
    from memfold.stores import open_stores

    store, _ = layout
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom memfold.stores.sql import readonly_connection\n"
         f"with readonly_connection({str(store / 'memfold.duckdb')!r}):\n"
         "    print('open', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(StoreLockedError) as caught:
            open_stores(store)
        assert caught.value.reader and "open for reading" in str(caught.value)
        assert "held for writing" not in str(caught.value)
    finally:
        holder.kill()
        holder.wait(timeout=30)
    time.sleep(0.1)
    open_stores(store).close()  # and once the reader is gone, the writer gets in
