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
