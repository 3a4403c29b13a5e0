"""Query-intent accuracy on the labelled set in benchmarks/data/queries.jsonl.

    PYTHONPATH=src .venv/bin/python benchmarks/intent.py [--now 2024-06-15T12:00:00Z]

Prints overall and per-label accuracy (the primary intent must equal the label) and the
confusions, and writes benchmarks/results/intent.json. Relative time expressions
resolve against ``--now`` (fixed by default, so the run is reproducible).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

from memfold.retrieval.intent import HeuristicIntentClassifier

HERE = Path(__file__).parent


def main() -> None:
    parser = argparse.ArgumentParser(description="query intent accuracy")
    parser.add_argument("--data", type=Path, default=HERE / "data" / "queries.jsonl")
    parser.add_argument("--now", default="2024-06-15T12:00:00+00:00")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "intent.json")
    args = parser.parse_args()
    now = datetime.fromisoformat(args.now)
    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    classifier = HeuristicIntentClassifier()
    started = time.perf_counter()
    predictions = [classifier.classify(row["query"], now) for row in rows]
    elapsed_ms = (time.perf_counter() - started) * 1000 / max(1, len(rows))
    hits = Counter()
    totals = Counter(row["label"] for row in rows)
    confusions = Counter()
    misses = []
    for row, intent in zip(rows, predictions):
        if intent.primary == row["label"]:
            hits[row["label"]] += 1
        else:
            confusions[f"{row['label']}->{intent.primary}"] += 1
            misses.append({"query": row["query"], "label": row["label"], "predicted": intent.primary,
                           "weights": intent.weights})
    accuracy = sum(hits.values()) / len(rows)
    report = {"classifier": classifier.name, "queries": len(rows), "accuracy": round(accuracy, 4),
              "per_label": {label: round(hits[label] / n, 4) for label, n in sorted(totals.items())},
              "confusions": dict(confusions.most_common()), "ms_per_query": round(elapsed_ms, 3),
              "now": args.now, "misses": misses}
    print(f"intent accuracy {accuracy:.3f} on {len(rows)} queries ({elapsed_ms:.2f} ms/query)")
    for label, value in report["per_label"].items():
        print(f"  {label:9s} {value:.3f}")
    for miss in misses:
        print(f"  miss: [{miss['label']} -> {miss['predicted']}] {miss['query']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
