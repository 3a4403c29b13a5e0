"""Recall and context latency for one user with many stored messages, on the real stores.

    .venv/bin/python benchmarks/recall_latency.py --messages 100000 --store /tmp/lat100k   # facade
    .venv/bin/python benchmarks/recall_latency.py --build direct --messages 100000        # old path

``--build facade`` (the default) builds the store the way a user does: the synthetic
transcript of ``memfold.bench.synthetic`` (facts, dated events, documents, assistant replies,
small talk; short messages) through ``Memory.ingest_many`` with the configured embedder
(the real model by default), the offline router, folds, profile facts and events; then
times ``Memory.recall`` and ``Memory.context`` (budget 1,000 tokens) through the facade,
query embedding included, each query text new to the embedder's cache. Building 100,000
messages this way takes a while (the ingest rate is reported); ``--store DIR`` keeps the
store for reruns.

``--build direct`` is the earlier, faster setup, kept for comparison:

With ``--index memory`` the dense side is exact numpy search (no Chroma), which
separates Chroma's cost (its ``where user_id`` filter dominates) from the rest.
Archive vectors come from the hashing embedder (latency does not depend on vector
quality, and embedding 100,000 texts with MiniLM would take ~20 minutes on 2 cores);
queries are embedded with the real model, as in production (``--embedder``: the default
int8 ONNX MiniLM, or fp32). ``--store DIR`` keeps the populated store for reruns;
``--profile`` prints where the time goes. Prints p50/p95 of
``Retriever.recall`` (query embedding included) after one warm-up query (the lazy BM25
build, reported separately) and writes benchmarks/results/recall_latency.json.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from memfold.embed import HashingEmbedder
from memfold.models import Message, RouteDecision
from memfold.retrieval.indexing import archive_items
from memfold.retrieval.recall import Retriever
from memfold.stores import open_stores
from memfold.stores.memory import InMemoryVectorIndex

WORDS = ("trip hotel flight dinner pasta garden piano lesson doctor appointment budget report meeting "
         "project deadline sister brother birthday gift concert movie book hiking running marathon "
         "coffee tea recipe soup painting photo camera laptop phone car bike train bus rain sun beach "
         "mountain lake river dog cat school class exam job interview salary rent apartment move city").split()
QUERIES = ["When did I book the hotel for the trip?", "What gift did I get for my sister's birthday?",
           "Where do I live now?", "What did the doctor say at the appointment?", "What book am I reading?",
           "Which concert did we go to?", "What happened at the job interview last week?",
           "Tell me about the marathon training", "What recipe did I cook with pasta?", "Do I have a dog?"]


def populate(stores, user_id: str, count: int, batch: int = 2000) -> float:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    hashing = HashingEmbedder()
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    began = time.perf_counter()
    for offset in range(0, count, batch):
        messages = [Message(msg_id=f"m{n}", user_id=user_id, speaker=rng.choice(["user", "assistant"]),
                            text=" ".join(rng.choices(WORDS, k=rng.randint(6, 20))),
                            ts=start + timedelta(minutes=n)) for n in range(offset, min(count, offset + batch))]
        items = archive_items(messages, [RouteDecision(msg_id=m.msg_id, kind="NONE") for m in messages])
        with stores.db.transaction():
            stores.log.append(messages)
            stores.archive.add(items)
        stores.index.upsert(items, hashing.embed([i.key_text for i in items]))
        stores.archive.mark_indexed([i.item_id for i in items])
    return time.perf_counter() - began


def query_embedder(name: str):  # type: ignore[no-untyped-def]
    """The query-side embedder, built the way ``config.build_embedder`` builds it."""
    from memfold.config import Settings, build_embedder

    return build_embedder(Settings(embedder=name))


def open_populated(path: Path | None, tmp: str, count: int, index: str):  # type: ignore[no-untyped-def]
    """Stores holding ``count`` messages: ``path`` is reused when it already holds them."""
    reuse = path is not None and (path / "memfold.duckdb").exists()
    stores = open_stores(path or Path(tmp) / "store")
    if index == "memory":
        stores.index = InMemoryVectorIndex()
        reuse = False  # the in-memory index is not persisted
    populate_s = 0.0 if reuse else populate(stores, "u1", count)
    return stores, populate_s


def timed_queries(retriever: Retriever, repeats: int) -> list[float]:
    times = []
    for repeat in range(repeats):
        for query in QUERIES:
            text = f"{query} ({repeat})"  # defeat the embedder's query cache
            began = time.perf_counter()
            retriever.recall(text, "u1", k=10)
            times.append((time.perf_counter() - began) * 1000)
    return times


def profiled(run, enabled: bool, lines: int = 40):  # type: ignore[no-untyped-def]
    """``run()``, under cProfile when ``enabled`` (prints the top functions by cumulative time)."""
    if not enabled:
        return run()
    profiler = cProfile.Profile()
    result = profiler.runcall(run)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(lines)
    return result


FACADE_USER = "perf-user"
FACADE_START = datetime(2015, 1, 1, 9, tzinfo=timezone.utc)


def build_through_facade(path: Path, count: int, embedder: str, batch: int = 500) -> tuple[object, float]:
    """Open (or reuse) a store of ``count`` synthetic messages ingested via the facade."""
    from memfold import Memory
    from memfold.bench.synthetic import synthetic_messages
    from memfold.config import Settings

    memory = Memory.open(path, Settings.from_env(backend="offline", embedder=embedder))
    have = memory.stores.log.count(FACADE_USER) if FACADE_USER in memory.users() else 0
    began = time.perf_counter()
    pending = []
    # sessions a day or two apart: 100,000 messages span ~10 years, all of them in the past
    for message in synthetic_messages(count, user_id=FACADE_USER, start=FACADE_START):
        if int(message.msg_id[1:]) < have:
            continue  # resume a partly built store
        pending.append(message)
        if len(pending) == batch:
            memory.ingest_many(pending)
            pending = []
            print(f"  ingested {int(message.msg_id[1:]) + 1}/{count}", flush=True)
    if pending:
        memory.ingest_many(pending)
    return memory, time.perf_counter() - began


def facade_latencies(memory, repeats: int) -> dict[str, list[float]]:  # type: ignore[no-untyped-def]
    from memfold.bench.synthetic import synthetic_queries

    queries = synthetic_queries(10 * repeats, seed=5)
    times: dict[str, list[float]] = {"recall": [], "context": []}
    for number, query in enumerate(queries):
        for name, call in (("recall", lambda q: memory.recall(q, FACADE_USER, k=10)),
                           ("context", lambda q: memory.context(q, FACADE_USER, budget_tokens=1000))):
            text = f"{query} ({name} {number})"  # defeat the embedder's query cache
            began = time.perf_counter()
            call(text)
            times[name].append((time.perf_counter() - began) * 1000)
    return times


def _percentiles(times: list[float]) -> dict[str, float]:
    return {"p50_ms": round(float(np.percentile(times, 50)), 1),
            "p95_ms": round(float(np.percentile(times, 95)), 1),
            "p99_ms": round(float(np.percentile(times, 99)), 1), "max_ms": round(max(times), 1)}


def run_facade(args: argparse.Namespace, tmp: str) -> dict[str, object]:
    path = args.store or Path(tmp) / "store"
    memory, build_s = build_through_facade(path, args.messages, args.embedder)
    try:
        stats = memory.stats()["users"].get(FACADE_USER, {})
        began = time.perf_counter()
        memory.recall("warm up", FACADE_USER, k=10)  # builds BM25 for the user
        first_s = time.perf_counter() - began
        times = profiled(lambda: facade_latencies(memory, args.repeats), args.profile)
    finally:
        memory.close()
    if stats.get("messages") != args.messages:
        raise SystemExit(f"the store holds {stats.get('messages')} messages, not {args.messages}")
    return {"build": "facade", "messages": args.messages, "store_counts": stats,
            "embedder": args.embedder, "ingest_s_this_run": round(build_s, 1),
            "first_recall_s (BM25 build)": round(first_s, 2), "queries": len(times["recall"]),
            "recall": _percentiles(times["recall"]), "context_1000": _percentiles(times["context"]),
            "load_avg_1m": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", choices=["facade", "direct"], default="facade")
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--index", choices=["chroma", "memory"], default="chroma",
                        help="memory: exact numpy search instead of Chroma (isolates the retrieval layer)")
    parser.add_argument("--embedder", choices=["minilm-q8", "minilm-int8", "minilm"], default=None,
                        help="embedder (default: the library default)")
    parser.add_argument("--store", type=Path, help="keep the populated store here and reuse it next time")
    parser.add_argument("--profile", action="store_true", help="print the top functions by cumulative time")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.embedder is None:
        from memfold.config import Settings

        args.embedder = Settings.from_env().embedder
    if args.build == "facade":
        with tempfile.TemporaryDirectory() as tmp:
            report = run_facade(args, tmp)
        print(json.dumps(report, indent=1))
        out = args.out or Path(__file__).parent / "results" / "recall_latency_facade.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n")
        return
    with tempfile.TemporaryDirectory() as tmp:
        stores, populate_s = open_populated(args.store, tmp, args.messages, args.index)
        try:
            embedder = query_embedder(args.embedder)
            embedder.embed(["warm up the model"])
            retriever = Retriever(stores, embedder)
            began = time.perf_counter()
            retriever.recall("warm up", "u1", k=10)
            build_s = time.perf_counter() - began
            times = profiled(lambda: timed_queries(retriever, args.repeats), args.profile)
        finally:
            stores.close()
    report = {"messages": args.messages, "index": args.index, "embedder": embedder.name,
              "queries": len(times), "populate_s": round(populate_s, 1),
              "first_recall_s (BM25 build)": round(build_s, 2),
              "p50_ms": round(float(np.percentile(times, 50)), 1), "p95_ms": round(float(np.percentile(times, 95)), 1),
              "max_ms": round(max(times), 1), "load_avg_1m": round(os.getloadavg()[0], 2)}
    print(json.dumps(report, indent=1))
    out = args.out or Path(__file__).parent / "results" / f"recall_latency_{args.index}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
