"""The official LoCoMo evidence-recall metric, token budgets and latency percentiles.

Per question, recall is the share of its evidence ids covered by the ``sources`` of the
recalled items (LoCoMo's ``task_eval/evaluation.py``: ``sum(ev in context) / len(evidence)``;
a question without evidence counts as 1). It is reported at each k (the first k items) and
within a token budget (items taken in rank order while they fit; the first item that does
not fit ends the context).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np

from memfold.tokens import TokenCounter


class SourcedItem(Protocol):
    """What the metric needs of a recalled item (RecallItem satisfies it)."""

    @property
    def text(self) -> str: ...

    @property
    def sources(self) -> list[str]: ...


def evidence_recall(evidence: Sequence[str], sources: Iterable[str]) -> float:
    if not evidence:
        return 1.0
    covered = set(sources)
    return sum(1 for ev in evidence if ev in covered) / len(evidence)


def sources_of(items: Iterable[SourcedItem]) -> set[str]:
    return {source for item in items for source in item.sources}


def recall_at_k(evidence: Sequence[str], items: Sequence[SourcedItem], k: int) -> float:
    return evidence_recall(evidence, sources_of(items[:k]))


def within_budget(items: Sequence[SourcedItem], budget_tokens: int,
                  counter: TokenCounter) -> tuple[list[SourcedItem], int]:
    """The rank-order prefix of ``items`` whose token total fits ``budget_tokens``."""
    taken: list[SourcedItem] = []
    used = 0
    for item in items:
        cost = counter.count(item.text)
        if used + cost > budget_tokens:
            break
        taken.append(item)
        used += cost
    return taken, used


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if len(values) else 0.0


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return float(sum(values) / len(values)) if values else 0.0
