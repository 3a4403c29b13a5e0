"""`memfold serve` as a real process: other `memfold` commands on the same store find it
(STORE/server.json) and send their work to it, so reads and writes no longer fail on the
store lock; SIGTERM shuts it down cleanly and every acknowledged write is on disk."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from memfold.client import wait_until_ready
from memfold.config import Settings
from memfold.memory import Memory
from memfold.service.server import discover

from .conftest import message, transcript_lines, write_jsonl

FAST_ENV = {**os.environ, "MEMFOLD_EMBEDDER": "hashing", "MEMFOLD_BACKEND": "offline"}


def memfold(store: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memfold", "--store", str(store), *args],
                          capture_output=True, text=True, timeout=120, env=env or FAST_ENV)


def wait_for_server(store: Path, process: subprocess.Popen) -> str:
    deadline = time.monotonic() + 60
    while (url := discover(store)) is None:  # the server announces itself in the store
        if process.poll() is not None:
            raise AssertionError(f"serve exited: {process.stderr.read() if process.stderr else ''}")
        if time.monotonic() > deadline:
            raise AssertionError("memfold serve wrote no server.json")
        time.sleep(0.1)
    wait_until_ready(url, timeout=max(1.0, deadline - time.monotonic()),
                     alive=lambda: process.poll() is None)
    return url


@pytest.fixture
def served_store(tmp_path):
    store = tmp_path / "store"
    with Memory.open(settings=Settings(store=store, embedder="hashing", backend="offline")) as memory:
        memory.ingest_many(transcript_lines())
    process = subprocess.Popen([sys.executable, "-m", "memfold", "--store", str(store), "serve",
                                "--port", "0"], env=FAST_ENV, stderr=subprocess.PIPE, text=True)
    try:
        yield store, wait_for_server(store, process), process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


def test_commands_go_to_the_server_that_owns_the_store(served_store, tmp_path):
    store, url, process = served_store
    stats = memfold(store, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["users"]["ana"]["messages"] == 10
    more = write_jsonl(tmp_path / "more.jsonl", [message("a11", "I bought a green bicycle today.", "ana", 90)])
    ingested = memfold(store, "ingest", str(more), "--json")
    assert ingested.returncode == 0, ingested.stderr
    recalled = memfold(store, "recall", "what bicycle did I buy?", "--user", "ana", "--json")
    assert recalled.returncode == 0, recalled.stderr
    assert "a11" in recalled.stdout
    profile = memfold(store, "profile", "show", "--user", "ana", "--json")
    assert profile.returncode == 0, profile.stderr


def test_sigterm_shuts_down_cleanly_and_keeps_acknowledged_writes(served_store, tmp_path):
    store, url, process = served_store
    acknowledged = []
    for n in range(20):
        answer = httpx.post(f"{url}/v1/messages", json=message(f"z{n}", f"Note number {n}.", "ana", 100 + n))
        if answer.status_code == 200:
            acknowledged.append(f"z{n}")
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0
    assert not (store / "server.json").exists()
    with Memory.open(settings=Settings(store=store, embedder="hashing", backend="offline")) as memory:
        stored = {r["data"]["msg_id"] for r in memory.export("ana") if r["type"] == "message"}
    assert len(acknowledged) == 20 and set(acknowledged) <= stored


def test_reindex_is_refused_while_a_server_owns_the_store(served_store):
    store, _, _ = served_store
    result = memfold(store, "reindex")
    assert result.returncode == 1 and "held for writing" in result.stderr
