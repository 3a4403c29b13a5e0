"""memfold performance suite: ingest throughput, recall latency, memory and disk vs store size.

    .venv/bin/python benchmarks/perf.py                       # sizes 1k,10k (int8 MiniLM, offline)
    .venv/bin/python benchmarks/perf.py --embedder minilm     # the same with the fp32 MiniLM
    .venv/bin/python benchmarks/perf.py --sizes 1000,10000,100000 --out benchmarks/results/perf

Each size runs in its own subprocess (so peak RSS is that size's own) on a fresh store in a
temporary directory: a deterministic synthetic transcript for one user
(memfold.bench.synthetic) is ingested with ``Memory.ingest_many``, the store is closed and
reopened (timed), then recall latency is measured over synthetic queries after a warm-up.
Writes perf.json, perf.md and perf_scaling.png with the date, the commit and the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memfold.bench.metrics import percentile
from memfold.bench.report import run_metadata, write_json
from memfold.bench.synthetic import synthetic_messages, synthetic_queries

USER = "perf-user"


def directory_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _settings(embedder: str, backend: str) -> Any:
    from memfold.config import Settings

    return Settings.from_env(embedder=embedder, backend=backend)


def _ingest(memory: Any, size: int, batch: int) -> tuple[float, int]:
    accepted = 0
    pending = []
    started = time.perf_counter()
    for message in synthetic_messages(size, user_id=USER):
        pending.append(message)
        if len(pending) == batch:
            accepted += memory.ingest_many(pending).accepted
            pending = []
    if pending:
        accepted += memory.ingest_many(pending).accepted
    return time.perf_counter() - started, accepted


def _latencies(memory: Any, queries: list[str], k: int) -> list[float]:
    for query in queries[:5]:  # warm-up: model load, caches, first-query planning
        memory.recall(query, USER, k=k)
    timings = []
    for query in queries:
        started = time.perf_counter()
        memory.recall(query, USER, k=k)
        timings.append((time.perf_counter() - started) * 1000.0)
    return timings


def measure_size(size: int, *, queries: int, k: int, batch: int, embedder: str,
                 backend: str) -> dict[str, Any]:
    """One size, in this process: ingest, reopen, recall latency, RSS, disk."""
    from memfold.memory import Memory

    settings = _settings(embedder, backend)
    with tempfile.TemporaryDirectory(prefix="memfold-perf-") as workdir:
        store = Path(workdir) / "store"
        memory = Memory.open(store, settings)
        seconds, accepted = _ingest(memory, size, batch)
        memory.close()
        started = time.perf_counter()
        memory = Memory.open(store, settings)
        reopen_s = time.perf_counter() - started
        timings = _latencies(memory, synthetic_queries(queries), k)
        memory.close()
        disk = directory_bytes(store)
    return {
        "messages": size, "accepted": accepted, "ingest_seconds": round(seconds, 2),
        "ingest_messages_per_s": round(accepted / seconds, 1) if seconds else 0.0,
        "reopen_seconds": round(reopen_s, 3), "queries": len(timings), "k": k,
        "recall_ms": {q: round(percentile(timings, int(q[1:])), 2) for q in ("p50", "p95", "p99")},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "store_bytes": disk, "store_mb": round(disk / 2**20, 2),
        "bytes_per_message": round(disk / max(accepted, 1), 1),
    }


def run_child(size: int, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", str(size), "--queries", str(args.queries),
               "--k", str(args.k), "--batch", str(args.batch), "--embedder", args.embedder,
               "--backend", args.backend]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"size {size} failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


def markdown(results: dict[str, Any]) -> str:
    machine = results["machine"]
    lines = [f"# memfold performance ({results['embedder']} embedder, {results['backend']} backend)", "",
             f"date {results['date']}, commit {str(results['git_commit'])[:12]}, "
             f"{machine['cores']} cores / {machine['ram_gb']} GB RAM (load average {machine.get('load_avg_1m')} "
             f"at the start), one user, k={results['k']}.", "",
             "| messages | ingest msg/s | ingest s | reopen s | recall p50 ms | p95 ms | p99 ms "
             "| peak RSS MB | store MB | bytes/msg |", "|---" * 10 + "|"]
    for row in results["sizes"]:
        ms = row["recall_ms"]
        lines.append(f"| {row['messages']} | {row['ingest_messages_per_s']} | {row['ingest_seconds']} "
                     f"| {row['reopen_seconds']} | {ms['p50']} | {ms['p95']} | {ms['p99']} "
                     f"| {row['peak_rss_mb']} | {row['store_mb']} | {row['bytes_per_message']} |")
    return "\n".join(lines) + "\n"


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = results["sizes"]
    sizes = [row["messages"] for row in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for q in ("p50", "p95", "p99"):
        left.plot(sizes, [row["recall_ms"][q] for row in rows], marker="o", label=q)
    left.set(xscale="log", xlabel="messages in store (one user)", ylabel="recall latency (ms)",
             title="recall latency")
    left.legend()
    right.plot(sizes, [row["ingest_messages_per_s"] for row in rows], marker="o", color="tab:green")
    right.set(xscale="log", xlabel="messages ingested", ylabel="messages / s", title="ingest throughput")
    fig.suptitle(f"memfold {results['date'][:10]} {str(results['git_commit'])[:8]}, "
                 f"{results['machine']['cores']} cores")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated store sizes")
    parser.add_argument("--queries", type=int, default=200, help="recall queries per size")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--batch", type=int, default=500, help="messages per ingest_many call")
    parser.add_argument("--embedder", default="minilm-int8", choices=["minilm-int8", "minilm", "hashing"],
                        help="minilm-int8 (memfold's default), minilm (fp32) or hashing")
    parser.add_argument("--backend", default="offline", choices=["offline", "anthropic", "auto"])
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/perf"))
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child is not None:
        row = measure_size(args.child, queries=args.queries, k=args.k, batch=args.batch,
                           embedder=args.embedder, backend=args.backend)
        print(json.dumps(row))
        return
    sizes = [int(part) for part in args.sizes.split(",") if part.strip()]
    results = {"suite": "perf", "embedder": args.embedder, "backend": args.backend, "k": args.k,
               "batch": args.batch, **run_metadata(), "sizes": []}
    for size in sizes:
        print(f"size {size}: running ...", file=sys.stderr, flush=True)
        results["sizes"].append(run_child(size, args))
        print(f"  {json.dumps(results['sizes'][-1])}", file=sys.stderr, flush=True)
        write_outputs(results, args.out)  # after every size: a long run keeps what it measured
    print(markdown(results))


def write_outputs(results: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "perf.json", results)
    (out / "perf.md").write_text(markdown(results), encoding="utf-8")
    plot(results, out / "perf_scaling.png")


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
