"""memfold ingest cost as history grows: one long personal-assistant chat through the facade.

    .venv/bin/python benchmarks/long_history.py                              # 10,000 turns
    .venv/bin/python benchmarks/long_history.py --embedder minilm-q8 --batch 100
    .venv/bin/python benchmarks/long_history.py --turns 300 --embedder hashing   # a smoke run

The turns come from memfold.bench.synthetic.long_conversation (deterministic, one user,
one session a day; user turns ~170 characters, assistant replies ~1,600, 5% pasted
documents of 600-2,500 words). They are ingested with ``Memory.ingest_many`` in batches
of --batch into a fresh store in a temporary directory (real DuckDB file and Chroma
directory, offline router, folds as configured), opened with
``Memory.open(store, Settings.from_env(backend="offline", embedder=...))``; every batch is
timed with time.perf_counter.

Two windows of history: "1k" = turns 1000-1999 (for N < 3,000: 10%-20% of N, which keeps
the first batch and its one-off costs out) and "end" = the last 1,000 turns (last 10% for
N < 3,000). A window is the batches starting inside it (at least the batch holding its
first turn). For each: ms per message and ms per 1,000 characters, and one batch (the
middle one) run under cProfile: the top functions by cumulative time and a split of its
time into embedding (memfold/embed), compaction (memfold/compaction), router
(memfold/router, memfold/llm), stores (memfold/stores, duckdb, chromadb), lexical index
(memfold/retrieval) and other; a function's own time goes to the nearest of those above it
in the call graph (shared callees split by their callers' cumulative time). Profiled
batches are left out of every rate unless a window has no other batch
("timing_includes_profiler").

cost_ratio_end_vs_1k = ms per message at the end / at 1k; the goal is <= 1.2 (ingest should
not slow down as history grows). The same ratio per 1,000 characters is reported too, and
each window's mean characters per message: the windows' length mix differs a little.

JSON (--out): turns, batch, embedder, backend, messages, characters, accepted, duplicates,
rejected, routed, folds, ingest_seconds, messages_per_s, chars_per_s, windows.{1k,end}
(turns, batches_timed, messages, characters, chars_per_message, seconds, ms_per_message,
ms_per_1k_chars,
timing_includes_profiler, profile{first_turn, messages, seconds, top_cumulative[{function,
cumulative_s}], time_split_s}), cost_ratio_end_vs_1k, cost_ratio_end_vs_1k_per_1k_chars,
goal_cost_ratio, store_bytes, store_mb, peak_rss_mb, date, git_commit, uncommitted_sources,
cpu_count, load_avg_start, load_avg_end, batches[{first_turn, messages, chars, seconds,
profiled}].
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memfold.bench.report import uncommitted_sources, write_json
from memfold.bench.synthetic import long_conversation

ROOT = Path(__file__).resolve().parents[1]
USER = "long-user"
GOAL_COST_RATIO = 1.2
TOP_FUNCTIONS = 15
CATEGORIES = (("embedding", ("memfold/embed/",)), ("compaction", ("memfold/compaction/",)),
              ("router", ("memfold/router/", "memfold/llm/")), ("lexical_index", ("memfold/retrieval/",)),
              ("stores", ("memfold/stores/", "duckdb", "chromadb")))
SPLIT_NAMES = [name for name, _ in CATEGORIES] + ["other"]

FunctionKey = tuple[str, int, str]


# -- windows and batches ------------------------------------------------------------------

def window_turns(turns: int) -> dict[str, tuple[int, int]]:
    """[start, stop) of the "1k" and "end" windows."""
    if turns >= 3000:
        return {"1k": (1000, 2000), "end": (turns - 1000, turns)}
    tenth = max(turns // 10, 1)
    return {"1k": (turns // 10, turns // 10 + tenth), "end": (turns - tenth, turns)}


def window_batches(span: tuple[int, int], turns: int, batch: int) -> list[int]:
    """Indices of the batches starting inside ``span``, else the batch holding its first turn."""
    starts = range(0, turns, batch)
    inside = [start // batch for start in starts if span[0] <= start < span[1]]
    return inside or [span[0] // batch]


def plan_windows(turns: int, batch: int) -> dict[str, dict[str, Any]]:
    plans = {}
    for name, span in window_turns(turns).items():
        indices = window_batches(span, turns, batch)
        plans[name] = {"turns": list(span), "batches": indices, "profiled": indices[len(indices) // 2]}
    return plans


def batched(turns: int, batch: int) -> Iterator[list[Any]]:
    pending: list[Any] = []
    for message in long_conversation(turns, user_id=USER):
        pending.append(message)
        if len(pending) == batch:
            yield pending
            pending = []
    if pending:
        yield pending


# -- ingest ---------------------------------------------------------------------------------

def ingest_batch(memory: Any, batch: list[Any], profile: bool) -> tuple[Any, float, cProfile.Profile | None]:
    profiler = cProfile.Profile() if profile else None
    started = time.perf_counter()
    if profiler:
        profiler.enable()
    report = memory.ingest_many(batch)
    if profiler:
        profiler.disable()
    return report, time.perf_counter() - started, profiler


def add_report(totals: dict[str, Any], report: Any) -> None:
    totals["accepted"] += report.accepted
    totals["duplicates"] += report.duplicates
    totals["rejected"] += len(report.rejected)
    totals["folds"] += report.folds
    for kind, count in report.routed.items():
        totals["routed"][kind] = totals["routed"].get(kind, 0) + count


def ingest_all(memory: Any, turns: int, batch: int,
               profiled: set[int]) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any]], dict[str, Any]]:
    """Every batch timed; the ``profiled`` ones under cProfile. (rows, profiles by batch, totals)."""
    rows, profiles = [], {}
    totals: dict[str, Any] = {"accepted": 0, "duplicates": 0, "rejected": 0, "folds": 0, "routed": {}}
    for index, messages in enumerate(batched(turns, batch)):
        report, seconds, profiler = ingest_batch(memory, messages, index in profiled)
        add_report(totals, report)
        rows.append({"first_turn": index * batch, "messages": len(messages),
                     "chars": sum(len(m.text) for m in messages), "seconds": round(seconds, 4),
                     "profiled": profiler is not None})
        if profiler:
            profiles[index] = summarise_profile(profiler, rows[-1])
        if (index + 1) % max(1, turns // batch // 10) == 0:
            print(f"  {rows[-1]['first_turn'] + len(messages)} turns, last batch {seconds:.2f} s",
                  file=sys.stderr, flush=True)
    return rows, profiles, totals


# -- profiles -------------------------------------------------------------------------------

def function_label(key: FunctionKey) -> str:
    filename, line, name = key
    if filename == "~":
        return name
    for marker in ("site-packages/", "/src/", "/lib/python"):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
            break
    return f"{filename}:{line}({name})"


def category_of(key: FunctionKey) -> str | None:
    where = key[2] if key[0] == "~" else key[0].replace(os.sep, "/")
    for name, markers in CATEGORIES:
        if any(marker in where for marker in markers):
            return name
    return None


def category_shares(key: FunctionKey, raw: dict[FunctionKey, Any],
                    memo: dict[FunctionKey, dict[str, float]]) -> dict[str, float]:
    """Share of ``key``'s own time per category: its own, else its callers' (by cumulative time)."""
    if key in memo:
        return memo[key]
    own = category_of(key)
    memo[key] = {own or "other": 1.0}  # also cuts cycles in recursive call graphs
    callers = raw[key][4]
    if own or not callers:
        return memo[key]
    weights = {caller: values[3] for caller, values in callers.items() if caller in raw}
    total = sum(weights.values())
    shares: dict[str, float] = {}
    for caller, weight in weights.items():
        share = weight / total if total else 1 / len(weights)
        for name, part in category_shares(caller, raw, memo).items():
            shares[name] = shares.get(name, 0.0) + share * part
    memo[key] = shares or memo[key]
    return memo[key]


def time_split(raw: dict[FunctionKey, Any]) -> dict[str, float]:
    """Every function's own time given to a category; sums to the profiled total."""
    split = dict.fromkeys(SPLIT_NAMES, 0.0)
    memo: dict[FunctionKey, dict[str, float]] = {}
    for key, values in raw.items():
        for name, share in category_shares(key, raw, memo).items():
            split[name] += values[2] * share
    return {name: round(seconds, 4) for name, seconds in split.items()}


def summarise_profile(profiler: cProfile.Profile, row: dict[str, Any]) -> dict[str, Any]:
    raw = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    top = sorted(raw.items(), key=lambda item: item[1][3], reverse=True)[:TOP_FUNCTIONS]
    return {"first_turn": row["first_turn"], "messages": row["messages"], "seconds": row["seconds"],
            "top_cumulative": [{"function": function_label(key), "cumulative_s": round(values[3], 4)}
                               for key, values in top],
            "time_split_s": time_split(raw)}


# -- results --------------------------------------------------------------------------------

def rate_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The batches that count for rates: the unprofiled ones, or all if every batch was profiled."""
    return [row for row in rows if not row["profiled"]] or rows


def window_cost(plan: dict[str, Any], rows: list[dict[str, Any]], profile: dict[str, Any]) -> dict[str, Any]:
    timed = [rows[i] for i in plan["batches"] if not rows[i]["profiled"]]
    includes_profiler = not timed
    timed = timed or [rows[i] for i in plan["batches"]]
    messages, chars = sum(r["messages"] for r in timed), sum(r["chars"] for r in timed)
    seconds = sum(r["seconds"] for r in timed)
    return {"turns": plan["turns"], "batches_timed": len(timed), "messages": messages, "characters": chars,
            "chars_per_message": round(chars / messages, 1),
            "seconds": round(seconds, 3), "ms_per_message": round(1000 * seconds / messages, 3),
            "ms_per_1k_chars": round(1e6 * seconds / chars, 3),
            "timing_includes_profiler": includes_profiler, "profile": profile}


def ratio(windows: dict[str, dict[str, Any]], field: str) -> float:
    return round(windows["end"][field] / windows["1k"][field], 3) if windows["1k"][field] else 0.0


def throughput(rows: list[dict[str, Any]]) -> dict[str, Any]:
    counted = rate_rows(rows)
    seconds = sum(r["seconds"] for r in counted)
    return {"ingest_seconds": round(sum(r["seconds"] for r in rows), 2),
            "messages_per_s": round(sum(r["messages"] for r in counted) / seconds, 1),
            "chars_per_s": round(sum(r["chars"] for r in counted) / seconds, 1)}


def short_commit() -> str | None:
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def run_metadata() -> dict[str, Any]:
    return {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "git_commit": short_commit(),
            "uncommitted_sources": uncommitted_sources(ROOT), "cpu_count": os.cpu_count(),
            "load_avg_start": [round(value, 2) for value in os.getloadavg()]}


def directory_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# -- the run --------------------------------------------------------------------------------

def measure(args: argparse.Namespace) -> dict[str, Any]:
    from memfold import Memory
    from memfold.config import Settings

    settings = Settings.from_env(backend="offline", embedder=args.embedder)
    plans = plan_windows(args.turns, args.batch)
    results = {"suite": "long_history", "turns": args.turns, "batch": args.batch,
               "embedder": settings.embedder, "backend": settings.backend, **run_metadata()}
    with tempfile.TemporaryDirectory(prefix="memfold-long-") as workdir:
        store = Path(workdir) / "store"
        with Memory.open(store, settings) as memory:
            rows, profiles, totals = ingest_all(memory, args.turns, args.batch,
                                                {plan["profiled"] for plan in plans.values()})
        store_bytes = directory_bytes(store)
    windows = {name: window_cost(plan, rows, profiles[plan["profiled"]]) for name, plan in plans.items()}
    results.update({"messages": sum(r["messages"] for r in rows),
                    "characters": sum(r["chars"] for r in rows), **totals, **throughput(rows),
                    "windows": windows, "cost_ratio_end_vs_1k": ratio(windows, "ms_per_message"),
                    "cost_ratio_end_vs_1k_per_1k_chars": ratio(windows, "ms_per_1k_chars"),
                    "goal_cost_ratio": GOAL_COST_RATIO, "store_bytes": store_bytes,
                    "store_mb": round(store_bytes / 2**20, 2),
                    "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                    "load_avg_end": [round(value, 2) for value in os.getloadavg()], "batches": rows})
    return results


def window_row(name: str, window: dict[str, Any]) -> str:
    profile = window["profile"]
    cells = [name, f"{window['turns'][0]}-{window['turns'][1] - 1}", window["chars_per_message"],
             window["ms_per_message"], window["ms_per_1k_chars"], f"{profile['seconds']:.2f}",
             *(f"{profile['time_split_s'][part]:.2f}" for part in SPLIT_NAMES)]
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def markdown(results: dict[str, Any]) -> str:
    r = results
    lines = [f"# memfold ingest cost vs history ({r['turns']} turns, batch {r['batch']}, "
             f"{r['embedder']} embedder)", "",
             f"{r['messages_per_s']} messages/s, {r['chars_per_s']:.0f} characters/s; "
             f"store {r['store_mb']} MB, peak RSS {r['peak_rss_mb']} MB; commit {r['git_commit']}, "
             f"{r['date']}, {r['cpu_count']} cores, "
             f"load {r['load_avg_start'][0]} -> {r['load_avg_end'][0]}.", "",
             "| window | turns | chars/msg | ms/message | ms/1k chars | profiled batch s | "
             + " | ".join(SPLIT_NAMES) + " |", "|---" * (6 + len(SPLIT_NAMES)) + "|",
             *(window_row(name, window) for name, window in r["windows"].items()), "",
             f"cost_ratio_end_vs_1k = {r['cost_ratio_end_vs_1k']} (ms per message; per 1k characters "
             f"{r['cost_ratio_end_vs_1k_per_1k_chars']}), goal <= {r['goal_cost_ratio']}. The split columns "
             "are seconds of the profiled batch."]
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--turns", type=int, default=10000, help="messages of long_conversation to ingest")
    parser.add_argument("--batch", type=int, default=50, help="messages per ingest_many call")
    parser.add_argument("--embedder", default=None, choices=["minilm-q8", "minilm-int8", "minilm", "hashing"],
                        help="default: the settings' default (MEMFOLD_EMBEDDER, else Settings.embedder)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/long_history.json"))
    args = parser.parse_args(argv)
    if args.turns < 2 or args.batch < 1:
        parser.error("--turns must be at least 2 and --batch at least 1")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    results = measure(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.out, results)
    print(markdown(results))


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
