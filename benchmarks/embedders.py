"""Embedders compared: the q8 and int8 ONNX MiniLMs against the fp32 sentence-transformers MiniLM.

    .venv/bin/python benchmarks/embedders.py [--data /work/shared/data/locomo/locomo-dev.json]

Fidelity, on real chat text (LoCoMo turns, read from --data, never copied here):

* cosine between the two models' vectors of the same sentence (``--sentences`` distinct
  turns, sampled with a fixed seed), mean / min / 1st percentile;
* top-10 neighbour agreement: for ``--queries`` LoCoMo questions, the share of the fp32
  model's 10 nearest sentences that the int8 model also puts in its 10 nearest
  (mean, min), and how often the nearest one is the same.

``q8`` (the default, int8 matrix products) and ``int8`` (int8 weights, fp32 products) are
each compared with ``fp32``. With ``--long-data`` (the LongMemEval dev file), batch throughput
is also measured on long assistant-transcript texts: the chunks ingest embeds for the first
``--long-texts`` turns (``retrieval.indexing.row_texts``), at each embedder's ingest batch
size (16) with its ingest session, and their fidelity to fp32.

Speed, all with their defaults (one intra-op thread), run alternately so machine load
hits both alike: single-text ``embed`` latency (distinct questions, so the LRU cache never
answers; p50 / p95 after a warm-up), and batch throughput (sentences/s embedding the
sample at batch 64, ``--batch-size``). Cold start (import memfold, build the embedder, embed one text) and
whether torch got imported are measured in a fresh subprocess per embedder.

Prints the figures and writes benchmarks/results/embedders.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from memfold.bench.report import run_metadata, write_json
from memfold.embed import MiniLMEmbedder, MiniLMInt8Embedder, MiniLMQ8Embedder

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path("/work/shared/data/locomo/locomo-dev.json")


def locomo_texts(path: Path) -> tuple[list[str], list[str]]:
    """Distinct turn texts and distinct questions of a LoCoMo file, in file order."""
    turns: dict[str, None] = {}
    questions: dict[str, None] = {}
    for sample in json.loads(path.read_text()):
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns.update((turn["text"], None) for turn in session if turn.get("text"))
        questions.update((qa["question"], None) for qa in sample["qa"] if qa.get("question"))
    return list(turns), list(questions)


def fidelity(fp32: np.ndarray, int8: np.ndarray, q32: np.ndarray, q8: np.ndarray,
             k: int = 10) -> dict[str, Any]:
    cosines = (fp32 * int8).sum(axis=1)
    top32 = np.argsort(-(q32 @ fp32.T), axis=1)[:, :k]
    top8 = np.argsort(-(q8 @ int8.T), axis=1)[:, :k]
    overlap = np.array([len(set(a) & set(b)) / k for a, b in zip(top32, top8)])
    return {"sentences": len(fp32), "cosine_mean": round(float(cosines.mean()), 5),
            "cosine_min": round(float(cosines.min()), 5),
            "cosine_p1": round(float(np.percentile(cosines, 1)), 5),
            "query_cosine_mean": round(float((q32 * q8).sum(axis=1).mean()), 5),
            "queries": len(q32), f"top{k}_agreement_mean": round(float(overlap.mean()), 4),
            f"top{k}_agreement_min": round(float(overlap.min()), 4),
            "top1_same": round(float((top32[:, 0] == top8[:, 0]).mean()), 4)}


def single_latency(embedders: dict[str, Any], texts: list[str], warmup: int = 5) -> dict[str, Any]:
    times: dict[str, list[float]] = {name: [] for name in embedders}
    for text in texts[:warmup]:
        for embedder in embedders.values():
            embedder.embed([f"warm-up {text}"])
    for text in texts:
        for name, embedder in embedders.items():  # alternate: load changes hit both
            began = time.perf_counter()
            embedder.embed([text])
            times[name].append((time.perf_counter() - began) * 1000)
    return {name: {"p50_ms": round(float(np.percentile(t, 50)), 2),
                   "p95_ms": round(float(np.percentile(t, 95)), 2), "n": len(t)}
            for name, t in times.items()}


def batch_throughput(embedders: dict[str, Any], texts: list[str],
                     repeats: int) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    seconds: dict[str, list[float]] = {name: [] for name in embedders}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(repeats):
        for name, embedder in embedders.items():
            began = time.perf_counter()
            vectors[name] = embedder.embed(texts)
            seconds[name].append(time.perf_counter() - began)
    return ({name: {"sentences_per_s": round(len(texts) / float(np.median(s)), 1),
                    "seconds_median": round(float(np.median(s)), 2), "repeats": repeats}
             for name, s in seconds.items()}, vectors)


COLD = """
import json, sys, time
began = time.perf_counter()
from memfold.config import Settings, build_embedder
embedder = build_embedder(Settings(embedder={choice!r}))
embedder.embed(["How long does the first embedding take?"])
print(json.dumps({{"cold_start_s": round(time.perf_counter() - began, 2),
        "torch_imported": "torch" in sys.modules,
        "sentence_transformers_imported": "sentence_transformers" in sys.modules,
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across exec
        "peak_rss_mb": round(int(next(line.split()[1] for line in open("/proc/self/status")
                                      if line.startswith("VmHWM:"))) / 1024)}}))
"""


def cold_start(choice: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", COLD.format(choice=choice)], capture_output=True,
                          text=True, timeout=300, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def long_texts(path: Path, turns: int) -> list[str]:
    """The chunk texts ingest embeds for the first ``turns`` turns of the LongMemEval file."""
    import gzip

    from memfold.models import Message
    from memfold.retrieval.indexing import row_texts

    with gzip.open(path, "rt") as handle:
        contents = [turn["content"] for record in json.load(handle)
                    for session in record["haystack_sessions"] for turn in session
                    if turn["content"].strip()][:turns]
    return [chunk for content in contents for chunk in row_texts(
        Message(msg_id="x", user_id="x", text=content, ts="2024-01-01T00:00:00Z"))]


def long_text_throughput(path: Path, turns: int, repeats: int) -> dict[str, Any]:
    """Ingest-like batches (each embedder's defaults) over long texts, and fidelity to fp32."""
    texts = long_texts(path, turns)
    embedders = {"fp32": MiniLMEmbedder(), "int8": MiniLMInt8Embedder(), "q8": MiniLMQ8Embedder()}
    for embedder in embedders.values():
        embedder.embed(["load the model", "and warm it up"])
    throughput, vectors = batch_throughput(embedders, texts, repeats)
    cosines = {name: (vectors["fp32"] * vectors[name]).sum(axis=1) for name in ("int8", "q8")}
    return {"texts": len(texts), "turns": turns, "mean_chars": round(float(np.mean([len(t) for t in texts]))),
            "throughput": throughput,
            "cosine_to_fp32": {name: {"mean": round(float(c.mean()), 5), "min": round(float(c.min()), 5)}
                               for name, c in cosines.items()}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--single", type=int, default=200, help="single-text embeds per embedder")
    parser.add_argument("--repeats", type=int, default=3, help="batch runs per embedder")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--long-data", type=Path, default=None, help="LongMemEval .json.gz")
    parser.add_argument("--long-texts", type=int, default=600)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "embedders.json")
    args = parser.parse_args()
    metadata = run_metadata()
    turns, questions = locomo_texts(args.data)
    rng = random.Random(0)
    sample = rng.sample(turns, min(args.sentences, len(turns)))
    asked = rng.sample(questions, min(args.queries + args.single, len(questions)))
    queries, singles = asked[:args.queries], asked[args.queries:]
    embedders = {"fp32": MiniLMEmbedder(batch_size=args.batch_size),
                 "int8": MiniLMInt8Embedder(batch_size=args.batch_size),
                 "q8": MiniLMQ8Embedder(batch_size=args.batch_size)}
    names = {key: embedder.name for key, embedder in embedders.items()}
    for embedder in embedders.values():
        embedder.embed(["load the model", "and warm it up"])
    throughput, vectors = batch_throughput(embedders, sample, args.repeats)
    query_vectors = {key: embedder.embed(queries) for key, embedder in embedders.items()}
    report = {"embedders": names, "data": str(args.data), **metadata,
              "fidelity": {name: fidelity(vectors["fp32"], vectors[name], query_vectors["fp32"],
                                          query_vectors[name]) for name in ("int8", "q8")},
              "single_text": single_latency(embedders, singles), f"batch_{args.batch_size}": throughput,
              "cold_start": {key: cold_start(choice) for key, choice in
                             (("fp32", "minilm"), ("int8", "minilm-int8"), ("q8", "minilm-q8"))}}
    if args.long_data is not None:
        report["long_texts"] = long_text_throughput(args.long_data, args.long_texts, args.repeats)
    report["machine"]["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.out, report)


if __name__ == "__main__":
    main()
