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
import rel_hardening  # noqa: E402
import rel_isolation  # noqa: E402
import rel_poisoning  # noqa: E402
from rel_harness import Zygote  # noqa: E402

from memfold.bench.report import run_metadata, write_json  # noqa: E402

FULL = {"kills": 50, "writer_tries": 20, "thread_iterations": 25, "isolation_ops": 10_000,
        "erasure_sizes": (100, 500, 2000), "minilm": True, "identity_ops": 2_000,
        "erasure_after_use_runs": 10, "bad_value_batches": 500}
QUICK = {"kills": 3, "writer_tries": 4, "thread_iterations": 2, "isolation_ops": 200,
         "erasure_sizes": (30,), "minilm": False, "identity_ops": 100,
         "erasure_after_use_runs": 1, "bad_value_batches": 20}


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
    _hardening(counts, results, out, tmp)


def _hardening(counts: dict[str, Any], results: dict[str, Any], out: Path, tmp: Path) -> None:
    """Rows 10-17: the issue 17 properties (payload lists shared with their tests)."""
    from test_prompt_fields import PAYLOADS as FIELD_PAYLOADS
    from test_reference_content import PAYLOADS as REFERENCE_PAYLOADS
    from test_reference_content import USER_TURNS
    from test_secrets import SECRET_TURNS

    _timed("10_identity", lambda: rel_hardening.identity(counts["identity_ops"]), results, out)
    _timed("11_prompt_fields", lambda: rel_hardening.prompt_fields(FIELD_PAYLOADS), results, out)
    _timed("12_reference_content", lambda: rel_hardening.reference_content(
        REFERENCE_PAYLOADS, USER_TURNS), results, out)
    _timed("13_secrets", lambda: rel_hardening.secrets(SECRET_TURNS), results, out)
    _timed("14_sql_limits", lambda: rel_hardening.sql_limits(str(tmp / "t14")), results, out)
    _timed("15_erasure_after_use", lambda: rel_hardening.erasure_after_use(
        str(tmp / "t15"), counts["erasure_after_use_runs"]), results, out)
    _timed("16_corrupt_stores", lambda: rel_hardening.corrupt_stores(str(tmp / "t16")), results, out)
    _timed("17_bad_values", lambda: rel_hardening.bad_values(counts["bad_value_batches"]), results, out)
    _timed("18_terminal", lambda: rel_hardening.terminal(str(tmp / "t18")), results, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts (smoke run)")
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks" / "results" / "reliability.json")
    parser.add_argument("--only", choices=["crash", "inprocess", "hardening"], default=None)
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
        if args.only == "hardening":
            _hardening(counts, results, args.out, Path(tmp))
    results["total_seconds"] = round(time.perf_counter() - started, 1)
    write_json(args.out, results)
    print(f"[reliability] wrote {args.out} in {results['total_seconds']} s")


if __name__ == "__main__":
    main()
