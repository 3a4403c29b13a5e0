"""The single-writer lock of a store directory.

DuckDB allows one read-write process per file, and two processes writing one Chroma
directory silently lose documents (measured), so a store directory has exactly one
writer. :class:`WriterLock` takes ``fcntl.flock(LOCK_EX | LOCK_NB)`` on
``DIR/writer.lock`` and writes its PID into the file: a second process fails at once
with StoreLockedError naming the holder. The OS drops the lock when the holder exits,
even on ``kill -9``, so a stale file never blocks anyone.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from pathlib import Path

from memfold.errors import StoreError, StoreLockedError

LOCK_FILE = "writer.lock"
_BUSY = (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES)
# A read-only probe holds a shared lock for microseconds; a writer retries across that window.
_ATTEMPTS = 5
_PAUSE_S = 0.02


def lock_path(directory: str | Path) -> Path:
    return Path(directory) / LOCK_FILE


def _read_pid(path: Path) -> int | None:
    for _ in range(_ATTEMPTS):  # the holder may be between flock() and writing its PID
        try:
            text = path.read_text().strip()
        except OSError:
            return None
        if text.isdigit():
            return int(text)
        time.sleep(_PAUSE_S)
    return None


class WriterLock:
    """Exclusive, non-blocking writer lock on ``DIR/writer.lock`` (PID inside)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.path = lock_path(directory)
        self._fd: int | None = None
        self._acquire()

    def _acquire(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"cannot open the lock file {self.path}: {exc}") from exc
        for attempt in range(_ATTEMPTS):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in _BUSY or attempt == _ATTEMPTS - 1:
                    os.close(fd)
                    raise StoreLockedError(str(self.directory), _read_pid(self.path)) from exc
                time.sleep(_PAUSE_S)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        os.fsync(fd)
        self._fd = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def close(self) -> None:
        """Release the lock (the file stays; an unlocked file means no writer)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def holder_pid(directory: str | Path) -> int | None:
    """PID of the live writer of ``directory`` (0: held, PID unknown); None if free.

    Never blocks: read-only tools use it to report "held by PID n".
    """
    path = lock_path(directory)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot open the lock file {path}: {exc}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in _BUSY:
            raise StoreError(f"cannot probe the lock file {path}: {exc}") from exc
        return _read_pid(path) or 0  # held, PID not yet written
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
