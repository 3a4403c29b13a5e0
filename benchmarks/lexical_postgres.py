"""Lexical search computed by PostgreSQL (``memfold.stores.postgres_lexical``: memfold's
postings and windows, BM25 in SQL) against the in-process BM25 (``memfold.retrieval.lexical``)
on LoCoMo.

Each conversation's raw message rows go into both; every question is asked of both, and
the official evidence recall of the ranked rows is reported at k for both rankings
(``own``: the row's key; ``window``: the row plus its neighbours), with how often the two
indexes return the same rows in the same order, the largest score difference, and the
time per search (PostgreSQL: one statement for both rankings, plus the subjects read).
A throwaway cluster is started (tests/pg_cluster.py).

    .venv/bin/python benchmarks/lexical_postgres.py /work/shared/data/locomo/locomo-dev.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test servers

from pg_cluster import PostgresCluster  # noqa: E402

from memfold.bench.locomo import load_locomo  # noqa: E402
from memfold.bench.metrics import evidence_recall  # noqa: E402
from memfold.bench.report import run_metadata, write_json  # noqa: E402
from memfold.models import RouteDecision  # noqa: E402
from memfold.retrieval.indexing import archive_items  # noqa: E402
from memfold.retrieval.lexical import LexicalIndex  # noqa: E402
from memfold.stores import Stores  # noqa: E402
from memfold.stores.memory import InMemoryVectorIndex  # noqa: E402
from memfold.stores.postgres import connect, postgres_stores  # noqa: E402

KS = (5, 10, 25)


def recall_at(evidence: list[str], ranked: list[str], sources: dict[str, list[str]],
              k: int) -> float:
    return evidence_recall(evidence, {s for item_id in ranked[:k] for s in sources[item_id]})


def _agreement(mine: list[tuple[str, float]], theirs: list[tuple[str, float]]) -> tuple[bool, float]:
    """(the same ranking up to ties, the largest score difference place by place). Rows
    with equal scores may come in either order (the in-process index leaves their order to
    numpy's partition), so the lists are compared as runs of equal scores: the same runs,
    each holding the same rows, but the last one (cut at k, it may hold other tied rows)."""
    if len(mine) != len(theirs):
        return False, float("inf")
    diff = max((abs(a - b) for (_, a), (_, b) in zip(mine, theirs)), default=0.0)
    runs = [_runs(hits) for hits in (mine, theirs)]
    return runs[0][:-1] == runs[1][:-1] and diff < 1e-4, diff


def _runs(hits: list[tuple[str, float]]) -> list[frozenset[str]]:
    runs: list[list[str]] = []
    last = None
    for item_id, score in hits:
        if last is None or abs(score - last) > 1e-4:
            runs.append([])
        runs[-1].append(item_id)
        last = score
    return [frozenset(run) for run in runs]


def _ask(question, lexical, pg, sources, scores, timings, agreement) -> None:  # noqa: ANN001
    started = time.perf_counter()
    hits = lexical.search(question.user_id, question.question, max(KS))
    timings["in-process"].append(time.perf_counter() - started)
    started = time.perf_counter()
    found = pg.lexical.search(question.user_id, question.question, max(KS))
    timings["postgres"].append(time.perf_counter() - started)
    for name, mine, theirs in (("own", hits.own, found.own), ("window", hits.window, found.window)):
        same, diff = _agreement(theirs, mine)
        agreement[f"{name} same up to ties"].append(float(same))
        agreement[f"{name} max score diff"].append(diff)
        for system, ranked in (("in-process", mine), ("postgres", theirs)):
            for k in KS:
                scores[f"{system} {name} R@{k}"].append(
                    recall_at(question.evidence, [i for i, _ in ranked], sources, k))


def run(path: str, out: Path) -> None:
    cluster = PostgresCluster.start()
    scores: dict[str, list[float]] = defaultdict(list)
    timings: dict[str, list[float]] = defaultdict(list)
    agreement: dict[str, list[float]] = defaultdict(list)
    try:
        for conversation in load_locomo(path).conversations:
            items = archive_items(conversation.messages, [
                RouteDecision(msg_id=m.msg_id, kind="NONE") for m in conversation.messages])
            sources = {i.item_id: i.sources for i in items}
            memory, pg = Stores.in_memory(), postgres_stores(
                connect(cluster.conninfo(cluster.new_schema())), InMemoryVectorIndex())
            memory.archive.add(items)
            pg.archive.add(items)
            lexical = LexicalIndex(memory.archive)
            for question in conversation.questions:
                _ask(question, lexical, pg, sources, scores, timings, agreement)
            pg.close()
    finally:
        cluster.stop()
    result = {**run_metadata(), "command": "python benchmarks/lexical_postgres.py " + path,
              "questions": len(timings["postgres"]), "load_avg_end": os.getloadavg(),
              "recall": {name: round(statistics.fmean(v), 4) for name, v in scores.items()},
              "agreement": {name: max(v) if "diff" in name else round(statistics.fmean(v), 4)
                            for name, v in agreement.items()},
              "search_ms": {name: _percentiles(v) for name, v in timings.items()}}
    write_json(out, result)
    print(json.dumps(result, indent=1))


def _percentiles(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {"p50": round(1000 * ordered[len(ordered) // 2], 2),
            "p95": round(1000 * ordered[int(len(ordered) * 0.95)], 2)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "lexical_postgres.json")
    args = parser.parse_args()
    run(args.path, args.out)
