"""`memfold bench locomo` on the PostgreSQL + Chroma-server deployment against the embedded
one, same code, same run (issue 19: recall within 0.005).

    .venv/bin/python benchmarks/locomo_postgres.py [--locomo PATH]

Starts a throwaway PostgreSQL cluster and a Chroma server (tests/pg_cluster.py), runs
`memfold bench locomo FILE --systems memfold` twice (store directory, then with
MEMFOLD_DATABASE_URL / MEMFOLD_CHROMA_URL set) and writes both headline figures and their
differences to benchmarks/results/locomo_postgres.json. LoCoMo is read from its path,
never copied into the repo.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from pg_cluster import ChromaServer, PostgresCluster  # noqa: E402

from memfold.bench.report import run_metadata, write_json  # noqa: E402

DEFAULT_LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"


def bench(locomo: Path, out: Path, env: dict[str, str]) -> dict[str, float]:
    command = [sys.executable, "-m", "memfold", "bench", "locomo", str(locomo), "--systems",
               "memfold", "--out", str(out)]
    subprocess.run(command, check=True, env=env, cwd=ROOT)
    return headline(json.loads((out / "results.json").read_text()))


def headline(results: dict) -> dict[str, float]:
    """memfold's figures over all questions and over categories 1-4 (the report's headline)."""
    system = results["systems"]["memfold"]
    found: dict[str, float] = {}
    for scope, figures in (("all", system), ("categories_1_4", system["overall_1_4"])):
        for metric in ("context_at", "recall_at"):
            for k, value in figures[metric].items():
                found[f"{scope}/{metric}@{k}"] = float(value)
        found[f"{scope}/recall_at_budget"] = float(figures["recall_at_budget"])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "locomo_postgres.json")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFOLD_")}
    cluster, chroma = PostgresCluster.start(), ChromaServer.start()
    try:
        with tempfile.TemporaryDirectory(prefix="memfold-locomo-pg-") as tmp:
            embedded = bench(args.locomo, Path(tmp) / "embedded", env)
            served = {**env, "MEMFOLD_DATABASE_URL": cluster.url(), "MEMFOLD_CHROMA_URL": chroma.url}
            postgres = bench(args.locomo, Path(tmp) / "postgres", served)
    finally:
        chroma.stop()
        cluster.stop()
    shared = sorted(set(embedded) & set(postgres))
    diffs = {key: round(postgres[key] - embedded[key], 4) for key in shared}
    result = {**run_metadata(), "command": "python benchmarks/locomo_postgres.py",
              "load_avg_end": os.getloadavg(), "embedded": embedded, "postgres": postgres,
              "difference": diffs, "max_abs_difference": max((abs(v) for v in diffs.values()), default=None)}
    write_json(args.out, result)
    print(json.dumps({"max_abs_difference": result["max_abs_difference"], "figures": len(shared)}))


if __name__ == "__main__":
    main()
