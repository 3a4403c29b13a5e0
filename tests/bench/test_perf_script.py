"""benchmarks/perf.py end to end on a tiny size with the hashing embedder (subprocesses: slow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_perf_writes_json_markdown_and_plot(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "perf.py"), "--sizes", "60,120",
                           "--embedder", "hashing", "--queries", "10", "--out", str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((tmp_path / "perf.json").read_text())
    assert [row["messages"] for row in results["sizes"]] == [60, 120]
    for row in results["sizes"]:
        assert row["accepted"] == row["messages"]
        assert row["ingest_messages_per_s"] > 0 and row["store_bytes"] > 0
        assert row["recall_ms"]["p50"] <= row["recall_ms"]["p95"] <= row["recall_ms"]["p99"]
        assert row["peak_rss_mb"] > 0
    assert {"date", "git_commit", "machine"} <= set(results)
    assert (tmp_path / "perf_scaling.png").stat().st_size > 0
    assert "| 120 |" in (tmp_path / "perf.md").read_text()
