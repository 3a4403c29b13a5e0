"""Replicas benchmark (issue 19): `memfold serve` on the embedded store directory, then
1 and 2 replicas on one PostgreSQL database + one Chroma server, in the same run on the
same machine; 16 clients over HTTP; 10,000 LoCoMo turns across 100 users.

Per deployment: an ingest phase (every message sent once, ``--batch`` turns of one user per
request, clients spread over the replicas round-robin), then a recall phase (flat out for
``--recall-seconds``: a random user asks one of its conversation's questions). Throughput
and p50/p95 per phase; every stored message counted afterwards (nothing lost or doubled).

PostgreSQL and Chroma are throwaway servers (tests/pg_cluster.py: ``initdb`` in a
temporary directory on a Unix socket, ``chroma run`` on loopback). The LoCoMo file is read
from ``--locomo`` and never copied into the repo.

    .venv/bin/python benchmarks/replicas.py            # full: ~20+ min on 2 busy cores
    .venv/bin/python benchmarks/replicas.py --quick    # 1,000 messages, 20 users, 10 s recall
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "facade")]

from pg_cluster import ChromaServer, PostgresCluster  # noqa: E402  (test servers, reused)
from replicas import Replica, server_env  # noqa: E402

from load_http import as_user  # noqa: E402  (the same LoCoMo-to-messages mapping)

from memfold.bench.locomo import load_locomo  # noqa: E402
from memfold.client import MemoryClient  # noqa: E402
from memfold.errors import MemfoldError  # noqa: E402

DEFAULT_LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "replicas.json"
RECALL_K = 10
NOTE = ("Every process (the replicas, PostgreSQL, the Chroma server, the 16 client threads) shares "
        "this machine's cores, and ingest is bound by the embedder's CPU: a second replica on the "
        "same cores adds no CPU, so the comparison shows what the shared database costs and that "
        "nothing is lost or doubled, not how replicas scale across machines. The machine is shared "
        "with other work: compare rows only with their load averages.")


@dataclass
class Corpus:
    batches: list[list[dict[str, Any]]]  # ingest requests, one user's consecutive turns each
    questions: dict[str, list[str]]
    messages: int


def build_corpus(locomo: Path, messages: int, users: int, batch: int) -> Corpus:
    """``users`` user ids over the LoCoMo conversations (each under several ids), the first
    ``messages / users`` turns of its conversation each; batches interleave the users."""
    dataset = load_locomo(locomo)
    convs = dataset.conversations
    per_user = messages // users
    batches_of: list[list[list[dict[str, Any]]]] = []
    questions: dict[str, list[str]] = {}
    for n in range(users):
        conv = convs[n % len(convs)]
        user = f"{conv.user_id}.{n // len(convs)}"
        turns = [as_user(m, user) for m in conv.messages[:per_user]]
        batches_of.append([turns[i:i + batch] for i in range(0, len(turns), batch)])
        questions[user] = [q.question for q in conv.questions] or ["what happened?"]
    interleaved = [b[i] for i in range(max(map(len, batches_of))) for b in batches_of if i < len(b)]
    return Corpus(interleaved, questions, sum(len(b) for b in interleaved))


@dataclass
class Timings:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, seconds: float, error: str | None) -> None:
        with self.lock:
            self.latencies.append(seconds)
            if error:
                self.errors.append(error)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_clients(urls: list[str], clients: int, work: Callable[[MemoryClient, int], bool]) -> float:
    """``clients`` threads, client n on ``urls[n % len(urls)]``, each calling ``work`` until
    it returns False; the wall seconds."""
    def loop(n: int) -> None:
        with MemoryClient(urls[n % len(urls)], timeout=600) as remote:
            while work(remote, n):
                pass

    started = time.perf_counter()
    threads = [threading.Thread(target=loop, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started


def _timed(timings: Timings, call: Callable[[], Any]) -> None:
    started = time.perf_counter()
    error = None
    try:
        call()
    except MemfoldError as exc:
        error = f"{type(exc).__name__}: {str(exc)[:160]}"
    timings.add(time.perf_counter() - started, error)


def ingest_phase(urls: list[str], corpus: Corpus, clients: int) -> dict[str, Any]:
    queue = list(reversed(corpus.batches))
    lock = threading.Lock()
    timings = Timings()

    def work(remote: MemoryClient, _: int) -> bool:
        with lock:
            if not queue:
                return False
            batch = queue.pop()
        _timed(timings, lambda: remote.ingest_many(batch))
        return True

    wall = run_clients(urls, clients, work)
    return {"requests": len(timings.latencies), "messages": corpus.messages,
            "errors": len(timings.errors), "first_errors": timings.errors[:3],
            "seconds": round(wall, 1), "messages_per_s": round(corpus.messages / wall, 1),
            **_latency(timings.latencies, "request")}


def recall_phase(urls: list[str], corpus: Corpus, clients: int, seconds: float,
                 seed: int) -> dict[str, Any]:
    users = sorted(corpus.questions)
    timings = Timings()
    deadline = time.perf_counter() + seconds
    rngs = [random.Random(seed + n) for n in range(clients)]

    def work(remote: MemoryClient, n: int) -> bool:
        user = rngs[n].choice(users)
        question = rngs[n].choice(corpus.questions[user])
        _timed(timings, lambda: remote.recall(question, user, k=RECALL_K))
        return time.perf_counter() < deadline

    wall = run_clients(urls, clients, work)
    return {"requests": len(timings.latencies), "errors": len(timings.errors),
            "first_errors": timings.errors[:3], "seconds": round(wall, 1),
            "per_s": round(len(timings.latencies) / wall, 2), **_latency(timings.latencies, "")}


def _latency(values: list[float], prefix: str) -> dict[str, Any]:
    name = f"{prefix}_" if prefix else ""
    def ms(value: float | None) -> float | None:
        return None if value is None else round(1000 * value, 1)
    return {f"{name}p50_ms": ms(statistics.median(values) if values else None),
            f"{name}p95_ms": ms(percentile(values, 0.95)), f"{name}max_ms": ms(max(values, default=None))}


def stored_counts(url: str) -> dict[str, Any]:
    with MemoryClient(url, timeout=600) as remote:
        stats = remote.stats()
    users = stats.get("users", {})
    return {"users": len(users), "messages": sum(u.get("messages", 0) for u in users.values()),
            "archive_items": sum(u.get("archive", 0) for u in users.values()),
            "vectors": stats.get("vectors")}


def warm_up(urls: list[str], corpus: Corpus) -> None:
    """One recall per user through each replica (the first query of a user builds its
    lexical index), as a long-running server would have done long before."""
    for url in urls:
        with MemoryClient(url, timeout=600) as remote:
            for user, questions in sorted(corpus.questions.items()):
                remote.recall(questions[0], user, k=RECALL_K)


def measure(name: str, replicas: list[Replica], corpus: Corpus,
            args: argparse.Namespace) -> dict[str, Any]:
    load_before = load_average()
    print(f"[replicas] {name}: starting {len(replicas)} server(s) ...", flush=True)
    start_s = [round(r.start(), 1) for r in replicas]
    urls = [r.url for r in replicas]
    try:
        print(f"[replicas] {name}: ingest {corpus.messages} messages ...", flush=True)
        ingest = ingest_phase(urls, corpus, args.clients)
        stored = stored_counts(urls[-1])
        warm_up(urls, corpus)
        print(f"[replicas] {name}: recall for {args.recall_seconds:g} s ...", flush=True)
        recall = recall_phase(urls, corpus, args.clients, args.recall_seconds, args.seed)
    finally:
        for replica in replicas:
            replica.stop()
    row = {"replicas": len(replicas), "start_to_ready_s": start_s, "ingest": ingest,
           "recall": recall, "stored_after_ingest": stored,
           "all_messages_stored": stored["messages"] == corpus.messages,
           "load_avg_before": load_before, "load_avg_after": load_average()}
    print(f"[replicas] {name}: {json.dumps({k: row[k] for k in ('ingest', 'recall')})}", flush=True)
    return row


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def git_commit() -> dict[str, Any]:
    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    return {"commit": git("rev-parse", "HEAD"),
            "uncommitted_sources": git("status", "--porcelain", "--", "src").splitlines()}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 1,000 messages, 20 users, 10 s of recall")
    parser.add_argument("--messages", type=int, help="messages ingested (default 10,000)")
    parser.add_argument("--users", type=int, help="users they are spread over (default 100)")
    parser.add_argument("--recall-seconds", type=float, help="recall phase length (default 60)")
    parser.add_argument("--batch", type=int, default=20, help="messages per ingest request")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--embedder", help="MEMFOLD_EMBEDDER (default: memfold's, minilm-q8)")
    parser.add_argument("--only", choices=("embedded", "postgres-1", "postgres-2"),
                        action="append", help="run only these deployments")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--out", type=Path, help=f"JSON results (default {DEFAULT_OUT}; "
                        "--quick: replicas_quick.json beside it)")
    args = parser.parse_args(argv)
    defaults = (1000, 20, 10.0) if args.quick else (10_000, 100, 60.0)
    for name, value in zip(("messages", "users", "recall_seconds"), defaults):
        if getattr(args, name) is None:
            setattr(args, name, value)
    args.out = args.out or (DEFAULT_OUT.with_name("replicas_quick.json") if args.quick else DEFAULT_OUT)
    return args


def deployments(args: argparse.Namespace, work: Path, pg: PostgresCluster,
                chroma: ChromaServer) -> dict[str, Callable[[], list[Replica]]]:
    def embedded() -> list[Replica]:
        env = server_env(None, None, embedder=args.embedder)
        return [Replica(work / "embedded", env, store=work / "embedded" / "store")]

    def on_postgres(count: int) -> Callable[[], list[Replica]]:
        def build() -> list[Replica]:
            _reset_chroma(chroma)
            env = server_env(pg.url(pg.new_schema()), chroma.url, embedder=args.embedder)
            return [Replica(work / f"pg{count}-{n}", env) for n in range(count)]
        return build

    return {"embedded": embedded, "postgres-1": on_postgres(1), "postgres-2": on_postgres(2)}


def _reset_chroma(chroma: ChromaServer) -> None:
    """Each PostgreSQL deployment starts on an empty Chroma server."""
    client = chroma.client()
    for collection in client.list_collections():  # type: ignore[attr-defined]
        client.delete_collection(collection.name)  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    corpus = build_corpus(args.locomo, args.messages, args.users, args.batch)
    results: dict[str, Any] = {
        "benchmark": "replicas", **git_commit(), "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": " ".join(["python", "benchmarks/replicas.py", *(argv or sys.argv[1:])]),
        "machine": {"cores": os.cpu_count(), "load_avg_before": load_average()},
        "config": {"messages": corpus.messages, "users": len(corpus.questions),
                   "batch": args.batch, "clients": args.clients, "recall_k": RECALL_K,
                   "recall_seconds": args.recall_seconds, "quick": args.quick,
                   "embedder": args.embedder or "default (minilm-q8)",
                   "data": "LoCoMo dev turns, each conversation under several user ids "
                           "(read from --locomo, not copied)",
                   "servers": "throwaway PostgreSQL (Unix socket, fsync off) and chroma run "
                              "(loopback), from tests/pg_cluster.py, on this machine"},
        "deployments": {}}
    work = Path(tempfile.mkdtemp(prefix="memfold-replicas-"))
    pg, chroma = PostgresCluster.start(), ChromaServer.start()
    try:
        for name, build in deployments(args, work, pg, chroma).items():
            if args.only is None or name in args.only:
                results["deployments"][name] = measure(name, build(), corpus, args)
    finally:
        pg.stop()
        chroma.stop()
        shutil.rmtree(work, ignore_errors=True)
    results["machine"]["load_avg_after"] = load_average()
    results["note"] = NOTE
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"[replicas] wrote {args.out}")


if __name__ == "__main__":
    main()
