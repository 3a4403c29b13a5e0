"""benchmarks/replicas.py end to end in quick mode with the hashing embedder on synthetic
LoCoMo-shaped data: the embedded server, then 1 and 2 replicas on a throwaway PostgreSQL +
Chroma server (subprocesses: slow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .test_load_http_script import synthetic_locomo

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_replicas_quick_run_stores_every_message_in_each_deployment(tmp_path: Path) -> None:
    out = tmp_path / "replicas.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    argv = [sys.executable, str(ROOT / "benchmarks" / "replicas.py"), "--quick",
            "--embedder", "hashing", "--locomo", str(synthetic_locomo(tmp_path / "locomo.json")),
            "--messages", "120", "--users", "4", "--batch", "10", "--clients", "4",
            "--recall-seconds", "1", "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-2000:]
    results = json.loads(out.read_text())
    assert {"commit", "machine", "config", "note"} <= set(results)
    assert results["machine"]["load_avg_before"] and results["machine"]["load_avg_after"]
    assert set(results["deployments"]) == {"embedded", "postgres-1", "postgres-2"}
    for name, row in results["deployments"].items():
        assert row["all_messages_stored"], (name, row["stored_after_ingest"])
        assert row["ingest"]["errors"] == 0 and row["recall"]["errors"] == 0, row
        assert row["recall"]["requests"] > 0 and row["recall"]["p95_ms"] > 0
    assert results["deployments"]["postgres-2"]["replicas"] == 2
