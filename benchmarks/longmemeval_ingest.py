"""LongMemEval_S haystacks through the public facade: ingest speed and session recall.

    .venv/bin/python benchmarks/longmemeval_ingest.py                    # 3 questions per type
    .venv/bin/python benchmarks/longmemeval_ingest.py --per-type 0       # all 150 dev questions
    .venv/bin/python benchmarks/longmemeval_ingest.py --profile 1        # cProfile one haystack

Every question has its own haystack (~50 sessions, ~490 turns, ~1,000 characters per turn,
long assistant replies). Each haystack is ingested into a fresh store in a temporary
directory with ``Memory.ingest_many`` (real DuckDB file, Chroma directory, the configured
embedder, the offline router, folds), then the question is recalled with ``Memory.recall``
at the question's date. Only the public API of ``memfold.Memory`` is used, so the same
script measures older commits (the before/after figures of the speed issue).

Reported per haystack and overall: messages/s and characters/s of ``ingest_many``, and
LongMemEval's retrieval metrics on the ranked items: session recall_any@k / recall_all@k
(sessions in the order their first item ranks) and turn recall@k (``has_answer`` turns).
Abstention questions (``_abs``) are left out, as the paper does. The data file is read
from its path and never copied.
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import io
import json
import os
import pstats
import statistics
import subprocess
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/data/longmemeval/longmemeval-s-dev.json.gz"
KS = (1, 5, 10)
TURN_KS = (10, 50)


def parse_date(text: str) -> datetime:
    """"2023/05/30 (Tue) 23:42" -> an aware datetime (UTC: the data has no zone)."""
    day, _, clock = text.partition(" (")
    clock = clock.split(") ", 1)[-1]
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M").replace(tzinfo=timezone.utc)


def haystack_messages(record: dict[str, Any], user_id: str) -> list[dict[str, Any]]:
    """One message per turn; msg_id "<session>#<turn>", a minute apart within a session."""
    messages = []
    for session_id, date, turns in zip(record["haystack_session_ids"], record["haystack_dates"],
                                       record["haystack_sessions"]):
        start = parse_date(date)
        for index, turn in enumerate(turns):
            if not turn["content"].strip():
                continue
            messages.append({"msg_id": f"{session_id}#{index}", "user_id": user_id,
                             "session_id": session_id, "role": turn["role"],
                             "speaker": "User" if turn["role"] == "user" else "Assistant",
                             "text": turn["content"], "ts": start + timedelta(minutes=index)})
    return messages


def evidence_turns(record: dict[str, Any]) -> list[str]:
    return [f"{sid}#{i}" for sid, turns in zip(record["haystack_session_ids"], record["haystack_sessions"])
            for i, turn in enumerate(turns) if turn.get("has_answer")]


def select(records: list[dict[str, Any]], per_type: int) -> list[dict[str, Any]]:
    """Non-abstention questions; ``per_type`` > 0 keeps the first N of each type (file order)."""
    kept = [r for r in records if not r["question_id"].endswith("_abs")]
    if per_type <= 0:
        return kept
    counts: dict[str, int] = {}
    chosen = []
    for record in kept:
        kind = record["question_type"]
        if counts.get(kind, 0) < per_type:
            counts[kind] = counts.get(kind, 0) + 1
            chosen.append(record)
    return chosen


def ranked_sessions(items: list[Any]) -> list[str]:
    sessions: dict[str, None] = {}
    for item in items:
        for source in item.sources:
            sessions.setdefault(source.rsplit("#", 1)[0], None)
    return list(sessions)


def score(record: dict[str, Any], items: list[Any]) -> dict[str, Any]:
    answer = set(record["answer_session_ids"])
    sessions = ranked_sessions(items)
    turns = evidence_turns(record)
    row: dict[str, Any] = {"question_id": record["question_id"], "type": record["question_type"]}
    for k in KS:
        top = set(sessions[:k])
        row[f"session_any@{k}"] = float(bool(answer & top))
        row[f"session_all@{k}"] = float(answer <= top)
    for k in TURN_KS:
        seen = {s for item in items[:k] for s in item.sources}
        row[f"turn@{k}"] = sum(t in seen for t in turns) / len(turns) if turns else 1.0
    return row


def run_one(record: dict[str, Any], settings: Any, depth: int, profile: bool,
            embedder: Any = None) -> dict[str, Any]:
    from memfold import Memory
    from memfold.models import Message

    user_id = "lme-" + record["question_id"]
    messages = [Message(**m) for m in haystack_messages(record, user_id)]
    chars = sum(len(m.text) for m in messages)
    with tempfile.TemporaryDirectory(prefix="memfold-lme-") as workdir:
        memory = Memory.open(Path(workdir) / "store", settings, **({"embedder": embedder} if embedder else {}))
        try:
            profiler = cProfile.Profile() if profile else None
            started = time.perf_counter()
            if profiler:
                profiler.enable()
            report = memory.ingest_many(messages)
            if profiler:
                profiler.disable()
            seconds = time.perf_counter() - started
            now = parse_date(record["question_date"])
            began = time.perf_counter()
            result = memory.recall(record["question"], user_id, now=now, k=depth)
            recall_ms = (time.perf_counter() - began) * 1000
        finally:
            memory.close()
    row = score(record, list(result.items))
    row.update({"messages": len(messages), "accepted": report.accepted, "chars": chars,
                "ingest_s": round(seconds, 2), "messages_per_s": round(len(messages) / seconds, 1),
                "chars_per_s": round(chars / seconds), "recall_ms": round(recall_ms, 1)})
    if profiler:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(40)
        row["profile"] = text.getvalue()
    return row


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    metrics = [key for key in rows[0] if "@" in key]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_type.setdefault(row["type"], []).append(row)
    block = lambda rs: {m: round(statistics.fmean(r[m] for r in rs), 4) for m in metrics}  # noqa: E731
    rates = [r["messages_per_s"] for r in rows]
    return {"questions": len(rows), "overall": block(rows),
            "by_type": {t: {"n": len(rs), **block(rs)} for t, rs in sorted(by_type.items())},
            "ingest": {"median_messages_per_s": round(statistics.median(rates), 1),
                       "min_messages_per_s": min(rates), "max_messages_per_s": max(rates),
                       "median_chars_per_s": round(statistics.median(r["chars_per_s"] for r in rows)),
                       "messages": sum(r["messages"] for r in rows),
                       "seconds": round(sum(r["ingest_s"] for r in rows), 1)},
            "recall_ms_p50": round(statistics.median(r["recall_ms"] for r in rows), 1)}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--per-type", type=int, default=3, help="questions per type (0: all)")
    parser.add_argument("--limit", type=int, default=0, help="stop after N haystacks (0: all)")
    parser.add_argument("--depth", type=int, default=50, help="items recalled per question")
    parser.add_argument("--embedder", default=None, help="memfold embedder (default: the settings')")
    parser.add_argument("--max-word-pieces", type=int, default=0,
                        help="experiment: a q8 embedder truncating at N word pieces (0: the settings')")
    parser.add_argument("--batch", type=int, default=0, help="Settings.ingest_batch_size (0: default)")
    parser.add_argument("--profile", type=int, default=0, help="cProfile the first N haystacks")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/longmemeval_ingest.json"))
    args = parser.parse_args()

    from memfold.config import Settings

    overrides = {"backend": "offline", **({"embedder": args.embedder} if args.embedder else {}),
                 **({"ingest_batch_size": args.batch} if args.batch else {})}
    settings = Settings.from_env(**overrides)
    with gzip.open(args.data, "rt") as handle:
        records = select(json.load(handle), args.per_type)
    records = records[:args.limit] if args.limit > 0 else records
    embedder = None
    if args.max_word_pieces:
        from memfold.embed import MiniLMQ8Embedder

        embedder = MiniLMQ8Embedder(max_word_pieces=args.max_word_pieces)
    rows = []
    started = time.perf_counter()
    for number, record in enumerate(records):
        row = run_one(record, settings, args.depth, profile=number < args.profile, embedder=embedder)
        print(f"[{number + 1}/{len(records)}] {row['question_id']} {row['type']}: {row['messages']} msgs "
              f"{row['messages_per_s']} msg/s {row['chars_per_s']} chars/s any@5={row['session_any@5']} "
              f"turn@10={row['turn@10']:.2f}", flush=True)
        if "profile" in row:
            print(row.pop("profile"))
        rows.append(row)
    summary = summarise(rows)
    summary.update({"commit": _commit(), "embedder": settings.embedder, "per_type": args.per_type,
                    "max_word_pieces": args.max_word_pieces or None,
                    "ingest_batch_size": settings.ingest_batch_size,
                    "depth": args.depth, "elapsed_s": round(time.perf_counter() - started, 1),
                    "load_avg_1m_end": round(os.getloadavg()[0], 2), "cores": os.cpu_count(),
                    "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "rows": rows})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps({k: v for k, v in summary.items() if k != "rows"}, indent=2))


if __name__ == "__main__":
    main()
