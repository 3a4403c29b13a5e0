"""Issue 17 item 2: after ``forget(U)``, more indexing in the same process and a close, and
after a ``kill -9`` during ``forget`` and the recovery open, no file under the store holds
U's id or canary. (Before ``stores/heap.py``, HNSW wrote stale heap bytes holding U's
metadata into ``data_level0.bin`` in 3 of 3 runs of the first scenario.)"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import rel_harness as h
from rel_erasure import FOLD, _messages

from memfold.memory import Memory

HERE = Path(__file__).resolve().parent


def _tenants(seed: int) -> dict[str, str]:
    rng = random.Random(seed)
    return {f"user-{uuid.UUID(int=rng.getrandbits(128)).hex[:12]}":
            f"cnry{uuid.UUID(int=rng.getrandbits(128)).hex[:16]}" for _ in range(3)}


def _leaks(store: Path, user: str, canary: str) -> dict[str, int]:
    found = {**h.store_bytes_with(store, user.encode()), **h.store_bytes_with(store, canary.encode())}
    return {name: count for name, count in found.items() if count}


def _more_use(memory: Memory, tenants: dict[str, str], rng: random.Random) -> None:
    for user, word in list(tenants.items())[1:]:
        batch = _messages(user, word + "x", 60, rng)
        memory.ingest_many([{**m, "msg_id": "n" + m["msg_id"]} for m in batch])


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow),
                                  pytest.param(3, marks=pytest.mark.slow)])
def test_forget_then_more_indexing_leaves_no_byte(tmp_path, seed):
    tenants, rng = _tenants(seed), random.Random(seed)
    victim, canary = next(iter(tenants.items()))
    store = tmp_path / "store"
    memory = Memory.open(store, h.settings(store, **FOLD))
    for user, word in tenants.items():
        memory.ingest_many(_messages(user, word, 100, rng))
    memory.forget(victim)
    _more_use(memory, tenants, rng)
    memory.close()
    assert _leaks(store, victim, canary) == {}


_WORKER = """
import sys, random
sys.path.insert(0, {here!r})
import rel_harness as h
from rel_erasure import FOLD, _messages
from memfold.memory import Memory
store, seed = sys.argv[1], int(sys.argv[2])
tenants = {tenants!r}
rng = random.Random(seed)
memory = Memory.open(store, h.settings(store, **FOLD))
for user, word in tenants.items():
    memory.ingest_many(_messages(user, word, 100, rng))
print("ready", flush=True)
sys.stdin.readline()
memory.forget(next(iter(tenants)))
"""


def test_kill_during_forget_then_recovery_leaves_no_byte(tmp_path):
    seed = 11
    tenants, rng = _tenants(seed), random.Random(seed + 1)
    victim, canary = next(iter(tenants.items()))
    store = tmp_path / "store"
    worker = subprocess.Popen([sys.executable, "-c", _WORKER.format(here=str(HERE), tenants=tenants),
                               str(store), str(seed)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
    worker.stdin.write("go\n")  # type: ignore[union-attr]
    worker.stdin.flush()  # type: ignore[union-attr]
    marker = store / "forget-pending.json"
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)
    assert marker.exists(), "the kill came too late to test recovery"
    memory = Memory.open(store, h.settings(store, **FOLD))  # finishes the erasure
    assert victim not in memory.users()
    _more_use(memory, tenants, rng)
    memory.close()
    assert _leaks(store, victim, canary) == {}
