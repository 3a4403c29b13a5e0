"""Lexical search in PostgreSQL (``PostgresArchiveLog.search_text``: BM25 in SQL over a
GIN-indexed tsvector) against the in-process BM25 (``memfold.retrieval.lexical``) on LoCoMo.

Each conversation's raw message rows go into both; every question is asked of both, and
the official evidence recall of the ranked rows is reported at k, for the in-process
index's two rankings (``own``: the row's key; ``window``: the row plus its neighbours) and
for PostgreSQL's (the row's key). Timing is per search. A throwaway cluster is started
(tests/pg_cluster.py).

    .venv/bin/python benchmarks/lexical_postgres.py /work/shared/data/locomo/locomo-dev.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test servers

from pg_cluster import PostgresCluster  # noqa: E402

from memfold.bench.locomo import load_locomo  # noqa: E402
from memfold.bench.metrics import evidence_recall  # noqa: E402
from memfold.models import RouteDecision  # noqa: E402
from memfold.retrieval.indexing import archive_items  # noqa: E402
from memfold.retrieval.lexical import SKIP_KINDS, LexicalIndex  # noqa: E402
from memfold.stores import Stores  # noqa: E402
from memfold.stores.memory import InMemoryVectorIndex  # noqa: E402
from memfold.stores.postgres import connect, postgres_stores  # noqa: E402

KS = (5, 10, 25)


def recall_at(evidence: list[str], ranked: list[str], sources: dict[str, list[str]],
              k: int) -> float:
    return evidence_recall(evidence, {s for item_id in ranked[:k] for s in sources[item_id]})


def run(path: str) -> None:
    cluster = PostgresCluster.start()
    scores: dict[str, list[float]] = defaultdict(list)
    timings: dict[str, list[float]] = defaultdict(list)
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
            kinds = sorted({i.kind for i in items} - SKIP_KINDS)
            for question in conversation.questions:
                started = time.perf_counter()
                hits = lexical.search(question.user_id, question.question, max(KS))
                timings["in-process"].append(time.perf_counter() - started)
                started = time.perf_counter()
                found = pg.archive.search_text(  # type: ignore[attr-defined]
                    question.user_id, question.question, max(KS), kinds=kinds)
                timings["postgres"].append(time.perf_counter() - started)
                for name, ranked in (("own", [i for i, _ in hits.own]),
                                     ("window", [i for i, _ in hits.window]),
                                     ("postgres", [i for i, _ in found])):
                    for k in KS:
                        scores[f"{name} R@{k}"].append(
                            recall_at(question.evidence, ranked, sources, k))
            pg.close()
    finally:
        cluster.stop()
    for name, values in scores.items():
        print(f"{name:<16} {statistics.fmean(values):.3f}  ({len(values)} questions)")
    for name, values in timings.items():
        values.sort()
        print(f"{name:<11} search p50 {1000 * values[len(values) // 2]:.1f} ms, "
              f"p95 {1000 * values[int(len(values) * 0.95)]:.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    run(parser.parse_args().path)
