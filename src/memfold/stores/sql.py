"""Read-only SQL over a store's DuckDB file, for ``memfold sql`` (debugging).

``read_only=True`` alone still lets a query read any file the process can read
(``read_csv('/etc/passwd')``) and write files with ``COPY ... TO`` (measured), so the
connection also disables external access and then locks its configuration, which
blocks file readers and writers, ATTACH, and any SET that would undo the hardening.

Three more limits (measured gaps before they existed):

* DuckDB still lets a query read *its own* database and WAL files
  (``read_blob('STORE/memfold.duckdb')`` returned the raw file, deleted bytes included),
  so a query that calls any table function outside :data:`SAFE_TABLE_FUNCTIONS` is
  refused before it runs (the check walks DuckDB's own parse tree of the query);
* exactly one statement, and only a query (SELECT, SHOW, DESCRIBE, SUMMARIZE, EXPLAIN);
* a time limit (the connection is interrupted) and a memory cap with no spilling to disk.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from memfold.errors import InvalidInputError, StoreError
from memfold.stores.duckdb import translate

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MEMORY_LIMIT = "512MB"
QUERY_TYPES = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})
# Table functions that read only the catalog or generate values; every other one (read_*,
# glob, parquet_*, sniff_csv, ...) may read a file, the store's own files included.
SAFE_TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest", "json_each", "json_tree",
                                  "summary", "repeat"})
SAFE_PREFIXES = ("duckdb_", "pragma_")

HARDENED_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "max_temp_directory_size": "0KiB",  # a big sort must fail, not fill the disk
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "lock_configuration": True,  # last: nothing above can be SET back by a query
}


@contextmanager
def readonly_connection(db_file: str | Path, *,
                        memory_limit: str = DEFAULT_MEMORY_LIMIT) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection that cannot touch any file but ``db_file``."""
    path = Path(db_file)
    if not path.is_file():
        raise StoreError(f"no memfold database at {path}")
    config = {"memory_limit": memory_limit, **HARDENED_CONFIG}  # lock_configuration stays last
    try:
        conn = duckdb.connect(str(path), read_only=True, config=config)
    except duckdb.ParserException as exc:  # the only setting a caller passes: the memory cap
        raise InvalidInputError(f"memory limit {memory_limit!r}: {exc}",
                                hint="a DuckDB size such as 512MB or 2GB") from exc
    except duckdb.Error as exc:
        raise translate(exc, str(path)) from exc
    try:
        yield conn
    finally:
        conn.close()


def run_readonly_sql(db_file: str | Path, query: str, limit: int = 1000, *,
                     timeout_s: float = DEFAULT_TIMEOUT_S,
                     memory_limit: str = DEFAULT_MEMORY_LIMIT) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run one query on a hardened read-only connection; at most ``limit`` rows come back.

    Any SQL error (syntax, a write, a blocked file access, the time or memory limit)
    raises InvalidInputError.
    """
    if limit < 0:
        raise InvalidInputError("limit must be >= 0")
    if timeout_s <= 0:
        raise InvalidInputError("timeout must be > 0 seconds")
    with readonly_connection(db_file, memory_limit=memory_limit) as conn:
        _check_one_query(conn, query)
        timer = threading.Timer(timeout_s, conn.interrupt)  # stops the query where it is
        timer.start()
        try:
            return _fetch(conn, query, limit)
        except duckdb.InterruptException as exc:
            raise InvalidInputError(f"the query ran longer than {timeout_s:g} s and was stopped",
                                    hint="narrow it, or raise --timeout") from exc
        except duckdb.OutOfMemoryException as exc:
            raise InvalidInputError(f"the query needed more than {memory_limit} of memory",
                                    hint="narrow it, or raise --memory-limit") from exc
        except duckdb.Error as exc:
            raise InvalidInputError(f"SQL error: {exc}") from exc
        finally:
            timer.cancel()


def _fetch(conn: duckdb.DuckDBPyConnection, query: str,
           limit: int) -> tuple[list[str], list[tuple[Any, ...]]]:
    result = conn.execute(query)
    if result is None or result.description is None:  # only a comment, or no result set
        return [], []
    columns = [col[0] for col in result.description]
    return columns, result.fetchmany(limit)


def _check_one_query(conn: duckdb.DuckDBPyConnection, query: str) -> None:
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise InvalidInputError(f"SQL error: {exc}") from exc
    if len(statements) != 1:
        raise InvalidInputError(f"one query at a time ({len(statements)} statements given)")
    if statements[0].type not in QUERY_TYPES:
        raise InvalidInputError(f"only queries run here, not {statements[0].type.name}",
                                hint="SELECT, SHOW, DESCRIBE, SUMMARIZE or EXPLAIN")
    refused = sorted(_table_functions(conn, query) - SAFE_TABLE_FUNCTIONS)
    refused = [name for name in refused if not name.startswith(SAFE_PREFIXES)]
    if refused:
        raise InvalidInputError(f"table function(s) not allowed here: {', '.join(refused)}",
                                hint="they can read files, the store's own raw files included")


def _table_functions(conn: duckdb.DuckDBPyConnection, query: str) -> set[str]:
    """Names of the table functions anywhere in ``query`` (DuckDB's parse tree, walked)."""
    statement = query if duckdb.extract_statements(query)[0].type != duckdb.StatementType.EXPLAIN \
        else query.strip()[len("explain"):].lstrip().removeprefix("ANALYZE").removeprefix("analyze")
    try:
        row = conn.execute("SELECT json_serialize_sql(?::VARCHAR)", [statement]).fetchone()
    except duckdb.Error as exc:
        raise InvalidInputError(f"SQL error: {exc}") from exc
    tree = json.loads(row[0]) if row else {}
    if tree.get("error"):  # a query DuckDB can run but not serialise (SHOW, DESCRIBE, ...)
        return _functions_in_text(query)
    found: set[str] = set()
    _walk(tree, found)
    return found


def _walk(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        if node.get("type") == "TABLE_FUNCTION":
            function = node.get("function") or {}
            found.add(str(function.get("function_name", "")).lower())
        for value in node.values():
            _walk(value, found)
    elif isinstance(node, list):
        for value in node:
            _walk(value, found)


def _functions_in_text(query: str) -> set[str]:
    """For the statements without a parse tree: any ``name(`` in them counts (strict)."""
    import re

    return {name.lower() for name in re.findall(r"([A-Za-z_][\w]*)\s*\(", query)}
