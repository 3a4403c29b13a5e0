"""The official LoCoMo evidence-recall metric, token budgets and latency percentiles.

Per question, recall is the share of its evidence ids covered by the ``sources`` of the
recalled items (LoCoMo's ``task_eval/evaluation.py``: ``sum(ev in context) / len(evidence)``;
a question without evidence counts as 1). It is reported at each k (the first k items) and
within a token budget (items taken in rank order while they fit; the first item that does
not fit ends the context).

The headline is evidence recall *in the prompt* (``prompt_recall``): what the agent actually
receives from ``Memory.context()`` (or a baseline's ranked turns rendered the same way). An
evidence turn counts when its id is in the prompt text as a whole id, or when its text is
(whitespace-normalised, raw or JSON-quoted; only texts of at least four words, so "Yes!" is
not found everywhere). Session metrics follow LongMemEval: sessions are ranked by their
first item, recall_any@k is 1 when any answer session is in the first k, recall_all@k when
all are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

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


def prompt_text(context: Any) -> str:
    """Everything the agent receives: the system text and every message's content."""
    return "\n".join([context.system, *(m.get("content", "") for m in context.messages)])


_MIN_TEXT_WORDS = 4


def _normalised(text: str) -> str:
    return " ".join(text.split())


def prompt_recall(evidence: Sequence[str], texts: Mapping[str, str], prompt: str) -> tuple[float, list[str]]:
    """(share of ``evidence`` in ``prompt``, the ids missed); see the module docstring."""
    if not evidence:
        return 1.0, []
    flat = _normalised(prompt)
    missed = [ev for ev in evidence if not _in_prompt(ev, texts.get(ev, ""), prompt, flat)]
    return (len(evidence) - len(missed)) / len(evidence), missed


def _in_prompt(msg_id: str, text: str, prompt: str, flat: str) -> bool:
    # an id is whole when no id character touches it: "D1:3" is not inside "D1:30"
    if re.search(rf"(?<![\w:#]){re.escape(msg_id)}(?![\w:#])", prompt):
        return True
    text = _normalised(text)
    if len(text.split()) < _MIN_TEXT_WORDS:
        return False
    return text in flat or json.dumps(text, ensure_ascii=False)[1:-1] in flat


def ranked_sessions(items: Sequence[SourcedItem], session_of: Mapping[str, str]) -> list[str]:
    """Sessions in the order their first item ranks."""
    order: dict[str, None] = {}
    for item in items:
        for source in item.sources:
            session = session_of.get(source)
            if session is not None:
                order.setdefault(session, None)
    return list(order)


def session_recall(answer_sessions: Sequence[str], ranked: Sequence[str], k: int) -> tuple[float, float]:
    """(recall_any@k, recall_all@k) of the answer sessions among the first k ranked sessions."""
    top = set(ranked[:k])
    hits = [s in top for s in answer_sessions]
    return float(any(hits)), float(all(hits)) if hits else 1.0


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if len(values) else 0.0


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return float(sum(values) / len(values)) if values else 0.0
