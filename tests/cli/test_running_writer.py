"""A store held by a running agent (a writer in another process).

Read commands must refuse at once, naming the writer's PID and what to do, without
blocking it; the writer's later writes must still succeed. DuckDB lets no other process
open a file a writer holds, even read-only, so refusing is the only non-blocking answer.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from .conftest import ANA, assert_clean_failure

WRITER = textwrap.dedent("""
    import sys
    from memfold.config import Settings
    from memfold.memory import Memory

    settings = Settings(store=sys.argv[1], embedder="hashing", backend="offline")
    memory = Memory.open(settings=settings)
    print("ready", flush=True)
    sys.stdin.readline()  # the test runs its read commands meanwhile
    memory.ingest({"msg_id": "late1", "user_id": "ana", "text": "I bought a red bicycle.",
                   "ts": "2026-03-20T10:00:00+00:00"})
    memory.set_fact("ana", "bike", "red", sources=["late1"])
    print("wrote", flush=True)
    memory.close()
""")

READS = [["stats"], ["profile", "show", "--user", "ana"], ["profile", "history", "--user", "ana"],
         ["events", "--user", "ana", "--since", "7d"],
         ["recall", "Where does Ana live?", "--user", "ana"], ["search", "Lisbon", "--user", "ana"],
         ["context", "diet", "--user", "ana"], ["episodes", "--user", "ana"],
         ["semantic", "--user", "ana"], ["sql", "SELECT count(*) FROM messages"], ["export"],
         ["route", "I moved to Faro."]]
WRITES = [["profile", "set", "k", "v", "--user", "ana", "--source", "a1"],
          ["fold", "--user", "ana"], ["forget", "--user", "ana", "--yes"], ["reindex"]]
MEMFOLD = [sys.executable, "-m", "memfold", "--embedder", "hashing"]


@pytest.fixture
def writer(cli):
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(cli.store)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "ready", process.stderr.read()
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=60)


@pytest.mark.slow
def test_reads_refuse_at_once_naming_the_writer_and_its_writes_still_succeed(cli, writer):
    for args in READS:
        line = assert_clean_failure(cli(*args))
        assert f"process {writer.pid}" in line and f"kill {writer.pid}" in line, line
        assert "not even to read" in line
    for args in WRITES:
        line = assert_clean_failure(cli(*args))
        assert f"process {writer.pid}" in line and "one writer per store" in line, line
    # the real entry point, in its own process: it must return (never wait for the writer)
    started = time.perf_counter()
    command = [*MEMFOLD, "--store", str(cli.store), "profile", "show", "--user", "ana"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    seconds = time.perf_counter() - started
    print(f"python -m memfold refused in {seconds:.2f}s (including interpreter start)")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: ") and f"process {writer.pid}" in result.stderr
    writer.stdin.write("go\n")
    writer.stdin.flush()
    assert writer.stdout.readline().strip() == "wrote", writer.stderr.read()
    assert writer.wait(timeout=60) == 0
    with cli.memory() as memory:
        assert memory.stores.log.count("ana") == len(ANA) + 1
        assert {(f.key, f.value) for f in memory.profile("ana")} >= {("bike", "red")}
    assert "bike" in cli.ok("profile", "show", "--user", "ana").stdout


@pytest.mark.slow
def test_python_dash_m_memfold_runs_the_cli(cli):
    result = subprocess.run([*MEMFOLD, "--store", str(cli.store), "stats", "--json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert '"ana"' in result.stdout
