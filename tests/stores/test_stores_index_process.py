"""The Chroma directory in a child process (what `memfold serve` uses): the child is
started again after it dies, errors keep their class, and it does not outlive its parent.
The VectorIndex contract itself runs on it through the ``index`` fixture (conftest)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from stores_helpers import item

from memfold.errors import StoreClosedError, VectorIndexError
from memfold.stores.index_process import ProcessVectorIndex


def _vector(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(1, 8)).astype(np.float32)
    return v / np.linalg.norm(v)


def test_a_dead_child_is_replaced_and_the_vectors_are_still_there(tmp_path: Path) -> None:
    index = ProcessVectorIndex(tmp_path / "chroma")
    try:
        index.upsert([item("a", user="u1")], _vector(1))
        os.kill(index._process.pid, signal.SIGKILL)
        index._process.wait()
        with pytest.raises(VectorIndexError, match="exited"):
            index.count()
        # the next call starts a new child on the same directory
        assert index.ids("u1") == {"a"}
        assert index.query("u1", _vector(1)[0], k=1)[0][0] == "a"
    finally:
        index.close()


def test_use_after_close_is_refused(tmp_path: Path) -> None:
    index = ProcessVectorIndex(tmp_path / "chroma")
    index.close()
    index.close()  # idempotent
    with pytest.raises(StoreClosedError):
        index.count()


def test_the_child_exits_when_its_parent_is_killed(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import sys, time
        from memfold.stores.index_process import ProcessVectorIndex
        index = ProcessVectorIndex({str(tmp_path / "chroma")!r})
        print(index._process.pid, flush=True)
        time.sleep(600)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child_pid = int(parent.stdout.readline())
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _alive(child_pid):
            time.sleep(0.1)
        assert not _alive(child_pid), "the index process outlived the killed parent"
    finally:
        parent.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False
