"""memfold reliability benchmark: the full counts behind tests/reliability.

    .venv/bin/python benchmarks/reliability.py                 # full run (tens of minutes)
    .venv/bin/python benchmarks/reliability.py --quick         # a smoke run with small counts

Crash properties run real ``kill -9`` against worker processes forked from a zygote that
imported memfold once (tests/reliability/rel_harness.py); the other properties run in
this process on real store directories (DuckDB + Chroma). Every figure, the date, the
git commit and the machine go to benchmarks/results/reliability.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "reliability"))

import rel_badinput  # noqa: E402
import rel_concurrency  # noqa: E402
import rel_erasure  # noqa: E402
import rel_isolation  # noqa: E402
import rel_poisoning  # noqa: E402
from rel_harness import Zygote  # noqa: E402

from memfold.bench.report import run_metadata, write_json  # noqa: E402

FULL = {"kills": 50, "writer_tries": 20, "thread_iterations": 25, "isolation_ops": 10_000,
        "erasure_sizes": (100, 500, 2000), "minilm": True}
QUICK = {"kills": 3, "writer_tries": 4, "thread_iterations": 2, "isolation_ops": 200,
         "erasure_sizes": (30,), "minilm": False}


def _timed(name: str, work: Any, results: dict[str, Any], out: Path) -> None:
    started = time.perf_counter()
    print(f"[reliability] {name} ...", flush=True)
    results[name] = work()
    results[name]["wall_seconds"] = round(time.perf_counter() - started, 1)
    print(f"[reliability] {name}: {json.dumps(results[name])[:400]}", flush=True)
    write_json(out, results)  # partial results survive an interrupted run


def _crash(counts: dict[str, Any], results: dict[str, Any], out: Path, tmp: Path) -> None:
    zygote = Zygote()
    try:
        _timed("1_kill_during_ingest", lambda: zygote.run(
            "kill_ingest", runs=counts["kills"], seed=1, root=str(tmp / "k1"), max_delay=3.0),
            results, out)
        _timed("2_kill_between_commit_and_index", lambda: zygote.run(
            "kill_after_commit", runs=counts["kills"], seed=2, root=str(tmp / "k2")), results, out)
        _timed("3_kill_during_fold", lambda: zygote.run(
            "kill_fold", runs=counts["kills"], seed=3, root=str(tmp / "k3"), max_delay=3.0),
            results, out)
        _timed("4_second_writer", lambda: zygote.run(
            "second_writer", tries=counts["writer_tries"], root=str(tmp / "k4")), results, out)
    finally:
        zygote.close()


def _in_process(counts: dict[str, Any], results: dict[str, Any], out: Path, tmp: Path) -> None:
    _timed("5_sixteen_threads", lambda: rel_concurrency.threads(
        str(tmp / "t5"), 16, counts["thread_iterations"]), results, out)
    _timed("6_tenant_isolation", lambda: rel_isolation.isolation(
        str(tmp / "t6"), operations=counts["isolation_ops"], seed=6), results, out)
    _timed("7_erasure", lambda: rel_erasure.erasure(
        str(tmp / "t7"), sizes=counts["erasure_sizes"]), results, out)
    _timed("8_poisoning", lambda: rel_poisoning.poisoning(str(tmp / "t8")), results, out)
    if counts["minilm"]:
        _timed("8_poisoning_minilm", lambda: rel_poisoning.poisoning(
            str(tmp / "t8m"), embedder="minilm"), results, out)
        _timed("6_tenant_isolation_minilm", lambda: rel_isolation.isolation(
            str(tmp / "t6m"), operations=1000, seed=66, embedder="minilm"), results, out)
    _timed("9_bad_input", lambda: rel_badinput.bad_input(str(tmp / "t9")), results, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts (smoke run)")
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks" / "results" / "reliability.json")
    parser.add_argument("--only", choices=["crash", "inprocess"], default=None)
    args = parser.parse_args()
    counts = QUICK if args.quick else FULL
    command = "python benchmarks/reliability.py" + (" --quick" if args.quick else "")
    results: dict[str, Any] = {**run_metadata(), "command": command,
                               "counts": {k: list(v) if isinstance(v, tuple) else v
                                          for k, v in counts.items()}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memfold-reliability-") as tmp:
        if args.only in (None, "crash"):
            _crash(counts, results, args.out, Path(tmp))
        if args.only in (None, "inprocess"):
            _in_process(counts, results, args.out, Path(tmp))
    results["total_seconds"] = round(time.perf_counter() - started, 1)
    write_json(args.out, results)
    print(f"[reliability] wrote {args.out} in {results['total_seconds']} s")


if __name__ == "__main__":
    main()
