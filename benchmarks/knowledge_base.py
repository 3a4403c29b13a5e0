"""A shared manual in the knowledge base against the same manual ingested once per user.

    .venv/bin/python benchmarks/knowledge_base.py                  # ~200 pages, 1,000 users
    .venv/bin/python benchmarks/knowledge_base.py --quick          # ~40 pages, 100 users

The manual is generated at run time from the ``pydoc`` text of standard-library modules
installed on this machine (nothing is copied into the repository), until it holds
``--words`` words (100,000 by default: ~200 pages of 500 words). Everything runs through the
public ``Memory`` API on real store directories (DuckDB + Chroma) with the configured
embedder (the default model unless ``MEMFOLD_EMBEDDER`` says otherwise) and the offline router:

1. **Shared**: ``add_knowledge("manual", modules)`` once, then ``--users`` users (one short
   message each) are stored beside it and granted the namespace (``"*"``). The store is
   measured after the manual and after the users (every file under the store directory,
   after close).
2. **Per user**: the same manual ingested as DOCUMENT messages into each user's archive, for
   ``--per-user 1,3,10`` users (cumulative, one store), measured after each step; the bytes
   per user come from a least-squares line through the measured points, and the figure for
   ``--users`` users is that line extended: an extrapolation, labelled so in the output.
3. **Latency**: ``Memory.recall`` (k=10) and ``Memory.context`` (1,000 tokens) for
   ``--warm-users`` users of the shared store drawn at random, in steady state (each one's
   first query, which builds its indexes, is timed apart), with the grant and, on the same
   store, without it (each query text new to the embedder's cache), against the README's
   goals (recall p95 <= 50 ms, context p95 <= 80 ms).

Writes ``benchmarks/results/knowledge_base.json``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pydoc
import random
import shutil
import subprocess
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from memfold.config import Settings
from memfold.memory import Memory

MODULES = ("json", "collections", "itertools", "functools", "pathlib", "datetime", "re", "os",
           "argparse", "logging", "email.message", "http.client", "urllib.request", "asyncio",
           "typing", "subprocess", "threading", "socket", "sqlite3", "csv", "decimal", "statistics")
WORDS_PER_PAGE = 500
PIECE_CHARS = 40_000  # per-user ingest: one DOCUMENT message per piece (under max_text_chars)
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
GOALS_MS = {"recall_p95": 50.0, "context_p95": 80.0}


def manual(words: int) -> list[dict[str, str]]:
    """One document per module, pydoc's plain text, until the manual holds ``words`` words."""
    documents, total = [], 0
    for name in MODULES:
        text = pydoc.render_doc(importlib.import_module(name), renderer=pydoc.plaintext)
        documents.append({"doc_id": name, "text": text, "title": f"{name} (pydoc)"})
        total += len(text.split())
        if total >= words:
            return documents
    raise SystemExit(f"the modules listed hold only {total} words; lower --words")


def store_bytes(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def settings_for(store: Path, grants: dict[str, list[str]] | None = None) -> Settings:
    return Settings.from_env(store=store, backend="offline", knowledge_grants=grants or {})


def shared_run(root: Path, docs: list[dict[str, str]], users: int) -> dict:
    store = root / "shared"
    with Memory.open(settings=settings_for(store)):
        pass
    empty = store_bytes(store)
    started = time.perf_counter()
    with Memory.open(settings=settings_for(store)) as memory:
        report = memory.add_knowledge("manual", docs)
    added_s = time.perf_counter() - started
    with_manual = store_bytes(store)
    started = time.perf_counter()
    with Memory.open(settings=settings_for(store)) as memory:
        memory.ingest_many([_hello(f"user-{n}") for n in range(users)])
        chunks = len(memory.stores.knowledge.chunks("manual"))
    users_s = time.perf_counter() - started
    with_users = store_bytes(store)
    return {"store": str(store), "empty_store_bytes": empty, "after_manual_bytes": with_manual,
            "manual_bytes": with_manual - empty, "after_users_bytes": with_users, "users": users,
            "chunks_stored": chunks, "chunks_added": report.chunks_added,
            "add_knowledge_s": round(added_s, 1), "users_ingest_s": round(users_s, 1)}


def _hello(user: str) -> dict:
    return {"msg_id": "hello", "user_id": user, "speaker": user, "role": "user",
            "text": f"Hi, I'm {user} and I write Python services.", "ts": T0.isoformat()}


def pieces(text: str) -> list[str]:
    """Line-aligned pieces under PIECE_CHARS (a message has a length limit)."""
    out, current, size = [], [], 0
    for line in text.splitlines(keepends=True):
        if size + len(line) > PIECE_CHARS and current:
            out.append("".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line)
    if current:
        out.append("".join(current))
    return [p for p in out if p.strip()]


def per_user_run(root: Path, docs: list[dict[str, str]], steps: list[int]) -> dict:
    store = root / "per-user"
    with Memory.open(settings=settings_for(store)):
        pass
    points, done = [{"users": 0, "bytes": store_bytes(store)}], 0
    for target in steps:
        started = time.perf_counter()
        with Memory.open(settings=settings_for(store)) as memory:
            for n in range(done, target):
                memory.ingest_many(_manual_messages(f"user-{n}", docs))
            archive = memory.stores.archive.count()
        done = target
        points.append({"users": target, "bytes": store_bytes(store), "archive_rows": archive,
                       "ingest_s": round(time.perf_counter() - started, 1)})
        print(f"  per-user: {target} users -> {points[-1]['bytes']:,} bytes", flush=True)
    measured = points[1:]  # the empty store is not on the line (Chroma's first files)
    xs = np.array([p["users"] for p in measured], dtype=float)
    ys = np.array([p["bytes"] for p in measured], dtype=float)
    slope, intercept = np.polyfit(xs, ys, 1)
    residual = float(np.max(np.abs(ys - (slope * xs + intercept)) / ys))
    return {"store": str(store), "points": points, "bytes_per_user": round(float(slope)),
            "intercept_bytes": round(float(intercept)), "max_relative_residual": round(residual, 4)}


def _manual_messages(user: str, docs: list[dict[str, str]]) -> list[dict]:
    messages = []
    for doc in docs:
        for i, piece in enumerate(pieces(doc["text"])):
            messages.append({"msg_id": f"{doc['doc_id']}-{i}", "user_id": user, "speaker": "docs",
                             "role": "document", "text": piece,
                             "ts": (T0 + timedelta(minutes=len(messages))).isoformat()})
    return messages


def queries(docs: list[dict[str, str]], n: int, seed: int = 11) -> list[str]:
    """Questions about names the manual documents, each text distinct (new to the cache)."""
    rng = random.Random(seed)
    names = sorted({f"{d['doc_id']}.{attr}" for d in docs for attr in dir(importlib.import_module(d["doc_id"]))
                    if not attr.startswith("_")})
    forms = ["How do I use {}?", "What does {} return?", "Which arguments does {} take?",
             "When should I call {} and what can go wrong?", "Explain {} with an example"]
    chosen = rng.sample(names, min(n, len(names)))
    return [rng.choice(forms).format(name) for name in chosen]


def latency(store: Path, grants: dict[str, list[str]], texts: list[str], users: int, warm: int) -> dict:
    """Steady state: ``warm`` users drawn at random each get one untimed recall and context
    first (a user's first query builds its BM25 index and opens its vector collection,
    timed apart as ``first_recall``), then the queries go to them in turn."""
    rng = random.Random(5)
    chosen = [f"user-{n}" for n in rng.sample(range(users), min(warm, users))]
    times: dict[str, list[float]] = {"recall": [], "context": [], "first_recall": []}
    hits = 0
    with Memory.open(settings=settings_for(store, grants)) as memory:
        for user in chosen:
            started = time.perf_counter()
            memory.recall(f"warm up {user}", user)
            times["first_recall"].append((time.perf_counter() - started) * 1000)
            memory.context(f"warm up the prompt of {user}", user, budget_tokens=1000)
        for n, text in enumerate(texts):
            user = chosen[n % len(chosen)]
            kind = "recall" if n % 2 == 0 else "context"
            started = time.perf_counter()
            if kind == "recall":
                result = memory.recall(text, user, k=10)
                hits += bool(result.knowledge)
            else:
                memory.context(text, user, budget_tokens=1000)
            times[kind].append((time.perf_counter() - started) * 1000)
    return {"recall": _percentiles(times["recall"]), "context_1000": _percentiles(times["context"]),
            "first_recall_of_a_user": _percentiles(times["first_recall"]), "users_timed": len(chosen),
            "recalls_with_knowledge": hits, "queries": len(texts),
            "load_avg_1m_after": round(os.getloadavg()[0], 2)}


def _percentiles(times: list[float]) -> dict[str, float]:
    return {"n": len(times), "p50_ms": round(float(np.percentile(times, 50)), 1),
            "p95_ms": round(float(np.percentile(times, 95)), 1),
            "p99_ms": round(float(np.percentile(times, 99)), 1), "max_ms": round(max(times), 1)}


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True, cwd=Path(__file__).parent).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, check=True, cwd=Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+uncommitted" if dirty else "")


def report(args: argparse.Namespace, docs: list[dict[str, str]], shared: dict, per_user: dict,
           timed: dict) -> dict:
    words = sum(len(d["text"].split()) for d in docs)
    extrapolated = per_user["intercept_bytes"] + per_user["bytes_per_user"] * args.users
    return {
        "command": "python benchmarks/knowledge_base.py" + (" --quick" if args.quick else ""),
        "commit": _commit(), "embedder": Settings.from_env().embedder,
        "load_avg_1m_end": round(os.getloadavg()[0], 2),
        "manual": {"modules": [d["doc_id"] for d in docs], "words": words,
                   "pages_at_500_words": round(words / WORDS_PER_PAGE), "characters": sum(len(d["text"]) for d in docs)},
        "shared": shared, "per_user": per_user,
        "per_user_extrapolated": {"users": args.users, "bytes": round(extrapolated),
                                  "label": "EXTRAPOLATION of the per-user line, not measured"},
        "ratio_per_user_extrapolated_to_shared": round(extrapolated / shared["after_users_bytes"], 1),
        "latency_with_knowledge": timed["with"], "latency_without_knowledge": timed["without"],
        "goals_ms": GOALS_MS,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--per-user", default="1,3,10")
    parser.add_argument("--queries", type=int, default=400, help="half recall, half context")
    parser.add_argument("--warm-users", type=int, default=20, help="users the timed queries go to")
    parser.add_argument("--root", type=Path, default=None, help="build the stores here and keep them")
    parser.add_argument("--quick", action="store_true", help="20,000 words, 100 users, 1,3 per user")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "knowledge_base.json")
    args = parser.parse_args()
    if args.quick:
        args.words, args.users, args.per_user, args.queries = 20_000, 100, "1,3", 100
    docs = manual(args.words)
    print(f"manual: {len(docs)} modules, {sum(len(d['text'].split()) for d in docs):,} words", flush=True)
    root = args.root or Path(tempfile.mkdtemp(prefix="memfold-kb-bench-"))
    try:
        shared = shared_run(root, docs, args.users)
        print(f"  shared: manual {shared['manual_bytes']:,} bytes; store with {args.users} users "
              f"{shared['after_users_bytes']:,} bytes", flush=True)
        per_user = per_user_run(root, docs, [int(n) for n in args.per_user.split(",")])
        texts = queries(docs, args.queries)
        timed = {"with": latency(root / "shared", {"*": ["manual"]}, texts, args.users, args.warm_users),
                 "without": latency(root / "shared", {}, [t + " (no kb)" for t in texts], args.users,
                                    args.warm_users)}
    finally:
        if args.root is None:
            shutil.rmtree(root, ignore_errors=True)
    result = report(args, docs, shared, per_user, timed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
