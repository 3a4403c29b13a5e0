"""Cold start of the ``memfold`` command: wall time of fresh processes, imports included.

    .venv/bin/python benchmarks/cold_start.py                    # builds a store in a temp dir
    .venv/bin/python benchmarks/cold_start.py --store /tmp/cold --runs 10
    git archive f5aaad3 src | tar -x -C /tmp/old                 # an older commit, same store
    .venv/bin/python benchmarks/cold_start.py --store /tmp/cold --src /tmp/old/src --out /tmp/old.json

The store is the shipped demo transcript (src/memfold/data/demo_transcript.jsonl, 61
messages, user ``maya``) ingested with the default settings (every ``MEMFOLD_*`` variable
removed from the environment, so the default embedder), and every command opens it as a
user's store: the embedder name recorded in the store is checked on open. Each command
runs once as a warm-up (the OS page cache then holds the files and Python its bytecode,
as for a user running commands one after another), then ``--runs`` times; each run is a
new process, timed from spawn to exit with time.perf_counter, output discarded. Reported:
median, min and max seconds, and the heavy packages the command imports (one more run
under ``python -X importtime``).

``memfold recall`` needs vectors (Chroma and the embedding model): it is the contrast.
The machine is shared, so the 1/5/15-minute load averages are recorded at the start and
the end; medians over 10 runs damp but do not remove other people's load.

JSON (--out, default benchmarks/results/cold_start.json): commit, src, uncommitted_sources,
date, cpu_count, python, load_avg_start, load_avg_end, runs, embedder, store_messages,
commands[{name, argv, median_s, min_s, max_s, seconds[], heavy_imports[]}].
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPT = ROOT / "src" / "memfold" / "data" / "demo_transcript.jsonl"
USER = "maya"
# Packages a command that needs no vectors should never import (each costs 0.1-1 s).
HEAVY = ("chromadb", "onnxruntime", "tokenizers", "torch", "sentence_transformers", "bm25s",
         "scipy", "numpy")


def commands(store: Path) -> list[tuple[str, list[str]]]:
    base = ["--store", str(store)]
    return [("memfold --help", ["--help"]),
            ("memfold stats", [*base, "stats"]),
            ("memfold profile show", [*base, "profile", "show", "--user", USER]),
            ("memfold recall", [*base, "recall", "where does Maya live?", "--user", USER])]


def memfold_argv(src: Path | None) -> list[str]:
    """The installed console script beside this interpreter, as a user runs it; with ``src``
    (another checkout's sources, e.g. an older commit), ``python -m memfold`` from there."""
    script = Path(sys.executable).with_name("memfold")
    if src is None and script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "memfold"]


def clean_env(src: Path | None) -> dict[str, str]:
    """The default settings: no MEMFOLD_* overrides, offline backend (no API key needed).
    Bytecode caching is left on, as in a user's shell: with PYTHONDONTWRITEBYTECODE set,
    every run would compile the changed modules again and time the compiler."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFOLD_")}
    for name in ("ANTHROPIC_API_KEY", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return env


def build_store(store: Path, src: Path | None) -> None:
    done = subprocess.run([*memfold_argv(src), "--store", str(store), "ingest", str(TRANSCRIPT)],
                          env=clean_env(src), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"building the store failed:\n{done.stderr[-2000:]}")


def store_embedder(store: Path) -> str:
    """The embedder name the store records (what every open checks against the settings)."""
    import duckdb

    with duckdb.connect(str(store / "memfold.duckdb"), read_only=True) as db:
        row = db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
    return row[0] if row else "unknown"


def time_once(argv: list[str], src: Path | None) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=clean_env(src), stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    return elapsed


def heavy_imports(args: list[str], src: Path | None) -> list[str]:
    """The HEAVY packages one run of the command imports (from ``-X importtime``)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "memfold", *args],
                          env=clean_env(src), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0]
                for line in done.stderr.splitlines() if line.startswith("import time:")}
    return [name for name in HEAVY if name in imported]


def measure(name: str, args: list[str], runs: int, src: Path | None) -> dict[str, object]:
    argv = [*memfold_argv(src), *args]
    time_once(argv, src)  # warm-up: page cache, the derived model file, .pyc files
    seconds = [time_once(argv, src) for _ in range(runs)]
    return {"name": name, "argv": ["memfold", *args], "median_s": round(statistics.median(seconds), 3),
            "min_s": round(min(seconds), 3), "max_s": round(max(seconds), 3),
            "seconds": [round(s, 3) for s in seconds], "heavy_imports": heavy_imports(args, src)}


def git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def print_table(report: dict[str, object]) -> None:
    print(f"commit {report['commit']}, {report['cpu_count']} cores, load average "
          f"{report['load_avg_start']} at the start, {report['load_avg_end']} at the end "
          "(shared machine)")
    print(f"{'command':<24}{'median s':>10}{'min s':>8}{'max s':>8}  heavy imports")
    for row in report["commands"]:  # type: ignore[attr-defined]
        heavy = ", ".join(row["heavy_imports"]) or "none"
        print(f"{row['name']:<24}{row['median_s']:>10.3f}{row['min_s']:>8.3f}{row['max_s']:>8.3f}  {heavy}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=None,
                        help="an existing store with the demo transcript (default: build one)")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per command")
    parser.add_argument("--src", type=Path, default=None,
                        help="time the memfold package under DIR instead of the installed one "
                             "(e.g. `git archive COMMIT src | tar -x -C /tmp/old`, then /tmp/old/src)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "cold_start.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memfold-cold-") as scratch:
        store = args.store or Path(scratch) / "store"
        if not (store / "memfold.duckdb").is_file():
            build_store(store, args.src)
        embedder = store_embedder(store)
        load_start = [round(v, 2) for v in os.getloadavg()]
        rows = [measure(name, argv, args.runs, args.src) for name, argv in commands(store)]
    dirty = git("status", "--porcelain", "--", "src")
    report = {"commit": git("rev-parse", "--short", "HEAD"), "src": str(args.src or ROOT / "src"),
              "uncommitted_sources": bool(dirty) and dirty != "unknown",
              "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "cpu_count": os.cpu_count(), "python": platform.python_version(),
              "load_avg_start": load_start, "load_avg_end": [round(v, 2) for v in os.getloadavg()],
              "runs": args.runs, "embedder": embedder, "store_messages": 61, "commands": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print_table(report)


if __name__ == "__main__":
    main()
