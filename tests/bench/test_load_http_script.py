"""benchmarks/load_http.py end to end on a tiny store with the hashing embedder: a real
`memfold serve` subprocess, real HTTP, a real kill -9 and restart (subprocesses: slow; 25-31 s
on the shared 2-core machine at load 3-4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

PLACES = ["Lisbon", "Porto", "Madrid", "Oslo", "Kyoto", "Lima"]
HOBBIES = ["pottery", "running", "the cello", "chess", "climbing", "painting"]


def _turn(session: int, index: int, speaker: str) -> dict[str, Any]:
    place, hobby = PLACES[index % len(PLACES)], HOBBIES[(index + session) % len(HOBBIES)]
    return {"speaker": speaker, "dia_id": f"D{session}:{index + 1}",
            "text": f"Last week I went to {place} and spent the evenings on {hobby} ({index})."}


def synthetic_locomo(path: Path, conversations: int = 2, turns: int = 80) -> Path:
    """LoCoMo-shaped conversations with varied turns (the real data is never used in tests)."""
    samples = []
    for number in range(conversations):
        conversation: dict[str, Any] = {"speaker_a": "Ana", "speaker_b": "Ben"}
        for session in (1, 2):
            conversation[f"session_{session}_date_time"] = f"1:56 pm on {session} May, 2023"
            conversation[f"session_{session}"] = [_turn(session, i, "Ana" if i % 2 else "Ben")
                                                  for i in range(turns)]
        qa = [{"question": f"Where did Ana go for {hobby}?", "answer": "x", "evidence": ["D1:1"],
               "category": 1} for hobby in HOBBIES]
        samples.append({"sample_id": f"conv-{number}", "conversation": conversation, "qa": qa})
    path.write_text(json.dumps(samples))
    return path


def test_load_http_quick_run_loses_no_acknowledged_write(tmp_path: Path) -> None:
    out = tmp_path / "load_http.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    argv = [sys.executable, str(ROOT / "benchmarks" / "load_http.py"), "--quick",
            "--embedder", "hashing", "--locomo", str(synthetic_locomo(tmp_path / "locomo.json")),
            "--messages", "200", "--clients", "4", "--rate", "10", "--seconds", "2",
            "--flat-seconds", "2", "--kill-after", "2", "--store-cache", str(tmp_path / "cache"),
            "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-2000:]
    results = json.loads(out.read_text())
    assert {"commit", "load_avg_before", "load_avg_after", "machine_busy", "config", "store",
            "goal"} <= set(results)
    assert results["store_at_start"]["messages"] == 200
    for phase in ("open_loop", "open_loop_reads_only", "flat_out", "flat_out_reads_only"):
        overall = results[phase]["latency"]["all"]
        assert overall["errors"] == 0, results[phase]["first_errors"]
        assert 0 < overall["p50_ms"] <= overall["p95_ms"] <= overall["p99_ms"]
    assert results["flat_out"]["throughput_per_s"] > 0
    assert results["flat_out"]["saturation_limit"]
    writes = results["writes_after_load"]
    assert writes["acked"] > 0 and writes["lost"] == 0 and writes["duplicated"] == 0
    crash = results["crash"]
    assert crash["errors_before_kill"] == 0 and crash["acked_lost"] == 0
    assert crash["duplicated_after_restart"] == 0
    final = results["writes_after_restart_and_retry"]
    assert final["lost"] == 0 and final["duplicated"] == 0
    assert results["graceful_stop"] == {**results["graceful_stop"], "exit_code": 0,
                                        "server_json_removed": True}
    assert "goal recall p95" in done.stdout
