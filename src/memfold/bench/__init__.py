"""Benchmarks: LoCoMo and generic evidence recall of memfold against raw-turn baselines.

Public API::

    run_locomo(path, ks=(5, 10, 25), budget=1000, out=None, conversations=None, ...) -> dict
    run_questions(questions, store=None, messages=None, ks=..., budget=..., out=None, ...) -> dict
    run_longmemeval(path, ks=(5, 10, 25, 50), budget=1000, per_type=None, limit=None, ...) -> dict

The CLI sub-app is :data:`memfold.bench.cli.app` (``memfold bench locomo|longmemeval|questions``).
"""

from memfold.bench.api import run_dataset, run_locomo, run_longmemeval, run_questions
from memfold.bench.dataset import BenchConversation, BenchDataset, BenchQuestion
from memfold.bench.systems import (
    BM25Baseline,
    DenseBaseline,
    HybridBaseline,
    MemfoldSystem,
    RecallSystem,
    RecencyBaseline,
)

__all__ = [
    "BM25Baseline", "BenchConversation", "BenchDataset", "BenchQuestion", "DenseBaseline",
    "HybridBaseline", "MemfoldSystem", "RecallSystem", "RecencyBaseline", "run_dataset",
    "run_locomo", "run_longmemeval", "run_questions",
]
