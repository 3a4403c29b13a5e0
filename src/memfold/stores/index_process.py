"""The Chroma directory served by a child process, for the long-running service.

Chroma's Rust bindings hold the GIL for the whole of a call: a one-vector upsert keeps
it ~20-30 ms (measured with a spinning thread: it stalled for 497 of the 567 ms that 30
upserts took), and under the service's load (`benchmarks/load_http.py`) the upserts were
34% of the samples in which the server held the GIL (py-spy ``--gil``). Every other
request waited for them. In a child process the same calls run on the other core, and
the service's interpreter only pickles ids and vectors through a pipe.

The child owns the directory (nothing else opens it) and lives as long as the parent: it
exits when the pipe closes, so a ``kill -9`` of the service takes it down too. A child that
dies is started again by the next call; the rows whose upsert it lost stay unindexed in
DuckDB and the next sync indexes them.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memfold import errors
from memfold.errors import MemfoldError, StoreClosedError, VectorIndexError
from memfold.stores._common import embedding_matrix, rows_by_user

if TYPE_CHECKING:
    import numpy as np

    from memfold.models import ArchiveItem

# The VectorIndex methods (and the extras the facade uses) a child answers.
_METHODS = frozenset({"upsert", "query", "vectors", "user_vectors", "delete", "ids", "count", "reset",
                      "purge_log"})
START_TIMEOUT_S = 120.0  # a cold chromadb import under load takes several seconds


def _serve(conn: Connection, directory: str, cleanup: bool) -> None:
    """The child's loop: one call at a time, until the parent closes the pipe."""
    from memfold.stores.chroma import ChromaVectorIndex

    try:
        index = ChromaVectorIndex(directory, cleanup=cleanup)
    except MemfoldError as exc:
        conn.send(("error", _portable(exc)))
        return
    conn.send(("ready", None))
    try:
        while True:
            try:
                method, args = conn.recv()
            except EOFError:  # the parent closed the pipe, or died
                return
            if method not in _METHODS:
                conn.send(("error", ("VectorIndexError", f"no index method {method!r}", "")))
                continue
            try:
                conn.send(("ok", getattr(index, method)(*args)))
            except MemfoldError as exc:
                conn.send(("error", _portable(exc)))
    finally:
        index.close()


def _portable(exc: MemfoldError) -> tuple[str, str, str]:
    """An error as plain strings: its class name, message and hint (every class pickles)."""
    return type(exc).__name__, str(exc.args[0]) if exc.args else "", exc.hint


def _rebuilt(name: str, message: str, hint: str) -> MemfoldError:
    cls = getattr(errors, name, None)
    if isinstance(cls, type) and issubclass(cls, MemfoldError):
        try:
            return cls(message, hint=hint or None)
        except TypeError:  # a class with its own constructor: keep the text, not the type
            pass
    return VectorIndexError(message, hint=hint or None)


def _exited(what: str) -> VectorIndexError:
    return VectorIndexError(f"the vector index process exited during {what}",
                            hint="the next call starts it again; `memfold reindex` rebuilds "
                                 "the index from the database")


class ProcessVectorIndex:
    """A VectorIndex whose Chroma directory lives in a child process (see the module)."""

    def __init__(self, directory: str | Path, *, cleanup: bool = True) -> None:
        self.path = Path(directory)
        self._cleanup = cleanup
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._process: Any = None
        self._closed = False
        self._start()

    def _start(self) -> None:
        # A fresh interpreter (`python -m`), not multiprocessing: no fork of a threaded
        # parent, and no re-run of the caller's main script (spawn's requirement of a
        # `__main__` guard would break scripts that open a store at top level).
        parent, child = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        with child:
            process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(child.fileno()), str(self.path),
                 "1" if self._cleanup else "0"],
                pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                env=env)
        # the child's end is closed here: the pipe ends when either process does
        self._conn, self._process = Connection(parent.detach()), process
        self._cleanup = False  # leftovers are removed once, by the first child
        status, payload = self._receive("start", START_TIMEOUT_S)
        if status == "error":
            self._stop()
            raise _rebuilt(*payload)

    def _receive(self, what: str, timeout: float | None = None) -> tuple[str, Any]:
        assert self._conn is not None
        try:
            if timeout is not None and not self._conn.poll(timeout):
                raise VectorIndexError(f"the vector index process did not {what} in {timeout:g} s")
            return self._conn.recv()
        except (EOFError, OSError) as exc:
            self._stop()
            raise _exited(what) from exc

    def _call(self, method: str, *args: Any) -> Any:
        with self._lock:
            if self._closed:
                raise StoreClosedError(f"the vector index {self.path} was used after close()")
            if self._conn is None:  # the last child died: start another
                self._start()
            assert self._conn is not None
            try:
                self._conn.send((method, args))
            except OSError as exc:
                self._stop()
                raise _exited(method) from exc
            status, payload = self._receive(method)
        if status == "error":
            raise _rebuilt(*payload)
        return payload

    def upsert(self, items: Sequence[ArchiveItem], embeddings: np.ndarray) -> None:
        # One call per user (one collection each): a query waits for one collection's
        # upsert at most, not for a whole batch of users.
        matrix = embedding_matrix(items, embeddings)
        for positions in rows_by_user(items).values():
            self._call("upsert", [items[p] for p in positions], matrix[positions])

    def query(self, user_id: str, embedding: np.ndarray, k: int,
              kinds: Sequence[str] | None = None) -> list[tuple[str, float]]:
        return self._call("query", user_id, embedding, k, None if kinds is None else list(kinds))

    def vectors(self, user_id: str, item_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return self._call("vectors", user_id, list(item_ids))

    def user_vectors(self, user_id: str) -> tuple[list[str], np.ndarray, list[str]]:
        return self._call("user_vectors", user_id)

    def delete(self, item_ids: Sequence[str]) -> None:
        self._call("delete", list(item_ids))

    def ids(self, user_id: str | None = None) -> set[str]:
        return self._call("ids", user_id)

    def count(self) -> int:
        return self._call("count")

    def reset(self) -> None:
        self._call("reset")

    def purge_log(self) -> None:
        self._call("purge_log")

    def _stop(self) -> None:
        """Close the pipe (the child exits on EOF) and reap the child."""
        conn, process, self._conn, self._process = self._conn, self._process, None, None
        if conn is not None:
            conn.close()
        if process is not None:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def close(self) -> None:
        """Stop the child, which closes Chroma's files; idempotent."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._stop()


if __name__ == "__main__":  # the child: python -m memfold.stores.index_process FD DIR CLEANUP
    _serve(Connection(int(sys.argv[1])), sys.argv[2], sys.argv[3] == "1")
