"""The single-writer lock and open_stores: a second process is refused at once, by PID."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from stores_helpers import item, message

import memfold
from memfold.embed import HashingEmbedder
from memfold.errors import StoreCorruptError, StoreError, StoreLockedError
from memfold.stores import open_stores
from memfold.stores.lock import WriterLock, holder_pid
from memfold.stores.sync import sync_index

SRC = str(Path(memfold.__file__).resolve().parents[1])

HOLD_LOCK = textwrap.dedent("""
    import sys, time
    from memfold.stores.lock import WriterLock
    lock = WriterLock(sys.argv[1])
    print("ready", flush=True)
    time.sleep(60)
""")

HOLD_STORE = textwrap.dedent("""
    import sys, time
    from memfold.stores import open_stores
    stores = open_stores(sys.argv[1])
    print("ready", flush=True)
    time.sleep(60)
""")

TRY_OPEN = textwrap.dedent("""
    import sys, time
    from memfold.errors import StoreLockedError
    from memfold.stores import open_stores
    started = time.monotonic()
    try:
        open_stores(sys.argv[1], read_only=sys.argv[2] == "ro")
    except StoreLockedError as exc:
        print(f"locked {exc.pid} {time.monotonic() - started:.3f}")
    else:
        print("opened")
""")


@contextmanager
def holder(script: str, directory: Path) -> Iterator[subprocess.Popen[str]]:
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen([sys.executable, "-c", script, str(directory)], stdout=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_lock_writes_pid_and_releases(tmp_path: Path) -> None:
    lock = WriterLock(tmp_path)
    assert (tmp_path / "writer.lock").read_text().strip() == str(os.getpid())
    assert holder_pid(tmp_path) == os.getpid()
    lock.close()
    assert holder_pid(tmp_path) is None
    WriterLock(tmp_path).close()  # free again


def test_holder_pid_of_a_fresh_directory_is_none(tmp_path: Path) -> None:
    assert holder_pid(tmp_path / "nothing-here") is None


def test_second_writer_process_is_refused_at_once_with_pid(tmp_path: Path) -> None:
    with holder(HOLD_LOCK, tmp_path) as proc:
        started = time.monotonic()
        with pytest.raises(StoreLockedError) as caught:
            WriterLock(tmp_path)
        assert time.monotonic() - started < 1.0
        assert caught.value.pid == proc.pid and f"process {proc.pid}" in str(caught.value)
        assert holder_pid(tmp_path) == proc.pid


def test_lock_is_released_when_the_holder_is_killed(tmp_path: Path) -> None:
    with holder(HOLD_LOCK, tmp_path) as proc:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert holder_pid(tmp_path) is None
        WriterLock(tmp_path).close()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["rw", "ro"])
def test_open_stores_in_another_process_is_refused_within_a_second(tmp_path: Path,
                                                                   mode: str) -> None:
    with holder(HOLD_STORE, tmp_path) as proc:
        out = subprocess.run([sys.executable, "-c", TRY_OPEN, str(tmp_path), mode],
                             capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC},
                             timeout=60)
        word, pid, seconds = out.stdout.split()
        assert (word, int(pid)) == ("locked", proc.pid)
        assert float(seconds) < 1.0


def test_open_stores_layout_and_reopen(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    stores = open_stores(directory)
    with pytest.raises(StoreLockedError):
        open_stores(directory, read_only=True)  # our own live writer counts too
    stores.log.append([message("m1")])
    stores.archive.add([item("a1")])
    sync_index(stores, HashingEmbedder())
    stores.close()
    stores.close()  # idempotent
    assert {p.name for p in directory.iterdir()} >= {"memfold.duckdb", "chroma", "writer.lock"}
    reader = open_stores(directory, read_only=True)
    assert reader.lock is None and reader.read_only
    assert reader.log.count() == 1 and reader.index.count() == 1
    reader.close()


def test_read_only_open_of_a_missing_store_fails(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no memfold store"):
        open_stores(tmp_path / "absent", read_only=True)


def test_failed_open_releases_the_lock(tmp_path: Path) -> None:
    (tmp_path / "memfold.duckdb").write_bytes(b"this is not a duckdb file" * 100)
    with pytest.raises(StoreCorruptError):
        open_stores(tmp_path)
    assert holder_pid(tmp_path) is None
