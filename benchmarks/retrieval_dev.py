"""Retrieval-only evaluation on LoCoMo (development aid of the retrieval engineer).

Ingests each conversation into in-memory stores through the indexing policy (with the
router's decisions when ``--router`` is given, raw rows only otherwise), then asks every
question through ``Retriever.recall`` and reports the official evidence recall at k and
within a recalled-context token budget, per category. The full benchmark (baselines,
facade, report) lives in ``memfold bench``; this script isolates the retrieval layer.

    PYTHONPATH=src .venv/bin/python benchmarks/retrieval_dev.py \
        /work/shared/data/locomo/locomo-dev.json --out benchmarks/results/retrieval_dev.json

Embeddings are cached under ``--cache`` (keyed by text) so that reruns cost seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memfold.bench.locomo import load_locomo
from memfold.bench.metrics import recall_at_k, within_budget
from memfold.config import Settings, build_embedder
from memfold.embed import Embedder
from memfold.models import Message, RouteDecision
from memfold.retrieval.indexing import archive_items
from memfold.retrieval.recall import RecallSettings, Retriever
from memfold.stores import Stores
from memfold.tokens import default_counter


class CachedEmbedder:
    """An embedder with a text-keyed .npz cache on disk (benchmark reruns only)."""

    def __init__(self, base: Embedder, path: Path) -> None:
        self.base, self.path, self.name, self.dim = base, path, base.name, base.dim
        self.cache: dict[str, np.ndarray] = {}
        if path.exists():
            data = np.load(path)
            self.cache = {key: data[key] for key in data.files}
        self.dirty = False

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if self._key(t) not in self.cache]
        if missing:
            for text, vector in zip(missing, self.base.embed(missing)):
                self.cache[self._key(text)] = vector
            self.dirty = True
        return np.stack([self.cache[self._key(t)] for t in texts]) if texts else np.zeros((0, self.dim))

    def save(self) -> None:
        if self.dirty:
            np.savez(self.path, **self.cache)


def decide(messages: list[Message], use_router: bool, embedder: CachedEmbedder) -> list[RouteDecision]:
    if not use_router:
        return [RouteDecision(msg_id=m.msg_id, kind="NONE") for m in messages]
    from memfold.llm.base import RouteContext
    from memfold.llm.offline import OfflineBackend
    from memfold.router import Router

    router = Router(OfflineBackend(embedder=embedder))
    vectors = embedder.embed([m.indexed_text() for m in messages])
    return router.route_many(messages, [RouteContext(embedding=v) for v in vectors])


def ingest(stores: Stores, retriever: Retriever, embedder: CachedEmbedder, messages: list[Message],
           decisions: list[RouteDecision], extractions: bool = True) -> int:
    items = archive_items(messages, decisions, previous=None, extractions=extractions)
    stores.log.append(messages)
    if any(d.kind != "NONE" for d in decisions):
        from memfold.router import apply_decision

        for message, decision in zip(messages, decisions):
            apply_decision(stores, message, decision)
    stores.archive.add(items)
    stores.index.upsert(items, embedder.embed([i.key_text for i in items]))
    stores.archive.mark_indexed([i.item_id for i in items])
    retriever.archived(items)
    return len(items)


def evaluate(path: str, *, use_router: bool, cache: Path, settings: RecallSettings,
             budget: int, extractions: bool = True,
             embedder_name: str = "minilm-int8") -> dict[str, object]:
    dataset = load_locomo(path)
    embedder = CachedEmbedder(build_embedder(Settings(embedder=embedder_name)),
                              cache.with_name(f"{cache.stem}.{embedder_name}{cache.suffix}"))
    counter = default_counter()
    scores: dict[str, list[float]] = defaultdict(list)
    latencies: list[float] = []
    rows = 0
    for conversation in dataset.conversations:
        stores = Stores.in_memory()
        retriever = Retriever(stores, embedder, settings=settings)
        decisions = decide(conversation.messages, use_router, embedder)
        rows += ingest(stores, retriever, embedder, conversation.messages, decisions, extractions)
        for question in conversation.questions:
            started = time.perf_counter()
            result = retriever.recall(question.question, question.user_id, now=question.now, k=50)
            latencies.append((time.perf_counter() - started) * 1000)
            taken, _ = within_budget(result.items, budget, counter)
            for name, value in [(f"R@{k}", recall_at_k(question.evidence, result.items, k)) for k in (5, 10, 25)] + [
                    (f"R@{budget}tok", recall_at_k(question.evidence, taken, len(taken)))]:
                scores[name].append(value)
                scores[f"{name}|{question.category}"].append(value)
    embedder.save()
    summary = {name: round(float(np.mean(values)), 4) for name, values in sorted(scores.items())}
    return {"dataset": path, "embedder": embedder.name, "router": use_router, "extraction_rows": extractions, "archive_rows": rows, "questions": len(scores["R@10"]),
            "settings": settings.model_dump(), "recall": summary,
            "latency_ms_p50": round(float(np.percentile(latencies, 50)), 2),
            "latency_ms_p95": round(float(np.percentile(latencies, 95)), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--router", action="store_true", help="route messages (offline backend) and apply them")
    parser.add_argument("--no-extractions", action="store_true", help="archive raw rows only")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/memfold-retrieval-embeddings.npz"),
                        help="embedding cache; the embedder's name is added to the file name")
    parser.add_argument("--embedder", choices=["minilm-int8", "minilm"], default="minilm-int8")
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--set", action="append", default=[], help="RecallSettings override, name=value")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    overrides = dict(item.split("=", 1) for item in args.set)
    settings = RecallSettings(**overrides)
    report = evaluate(args.path, use_router=args.router, cache=args.cache, settings=settings, budget=args.budget,
                      extractions=not args.no_extractions, embedder_name=args.embedder)
    recall = report["recall"]
    assert isinstance(recall, dict)
    for name in sorted(k for k in recall if "|" not in k):
        cats = " ".join(f"{k.split('|')[1]}={v:.3f}" for k, v in recall.items() if k.startswith(name + "|"))
        print(f"{name:10s} {recall[name]:.3f}   {cats}")
    print(f"latency p50 {report['latency_ms_p50']} ms, p95 {report['latency_ms_p95']} ms")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
