"""Read-only SQL over a store's DuckDB file, for ``memfold sql`` (debugging).

``read_only=True`` alone still lets a query read any file the process can read
(``read_csv('/etc/passwd')``) and write files with ``COPY ... TO`` (measured), so the
connection also disables external access and then locks its configuration, which
blocks file readers and writers, ATTACH, and any SET that would undo the hardening.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from memfold.errors import InvalidInputError, StoreError
from memfold.stores.duckdb import translate

HARDENED_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "lock_configuration": True,  # last: nothing above can be SET back by a query
}


@contextmanager
def readonly_connection(db_file: str | Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection that cannot touch any file but ``db_file``."""
    path = Path(db_file)
    if not path.is_file():
        raise StoreError(f"no memfold database at {path}")
    try:
        conn = duckdb.connect(str(path), read_only=True, config=dict(HARDENED_CONFIG))
    except duckdb.Error as exc:
        raise translate(exc, str(path)) from exc
    try:
        yield conn
    finally:
        conn.close()


def run_readonly_sql(db_file: str | Path, query: str,
                     limit: int = 1000) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run one query on a hardened read-only connection; at most ``limit`` rows come back.

    Any SQL error (syntax, a write, a blocked file access) raises InvalidInputError.
    """
    if limit < 0:
        raise InvalidInputError("limit must be >= 0")
    with readonly_connection(db_file) as conn:
        try:
            result = conn.execute(query)
            if result is None or result.description is None:  # only a comment, or no result set
                return [], []
            columns = [col[0] for col in result.description]
            return columns, result.fetchmany(limit)
        except duckdb.Error as exc:
            raise InvalidInputError(f"SQL error: {exc}") from exc
