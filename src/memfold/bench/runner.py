"""Run a benchmark: each conversation into fresh systems, every question recalled and scored.

The same code measures memfold and the baselines: each system is built by a factory in a
fresh temporary directory per conversation, ingests the conversation's messages (timed),
then recalls every question once at ``depth`` items (timed); recall at each k and within
the token budget are cut from that one ranking.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfold.bench.dataset import (
    CORE_CATEGORIES,
    BenchConversation,
    BenchDataset,
    missing_evidence,
    ordered_categories,
)
from memfold.bench.metrics import evidence_recall, mean, percentile, recall_at_k, sources_of, within_budget
from memfold.bench.systems import RecallSystem, SystemFactory, turn_text
from memfold.tokens import TokenCounter, default_counter

# progress(task, done, total), counted over the whole dataset: ("memfold recall", 12, 1020).
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class QuestionOutcome:
    question_id: str  # "<user_id>#<index>": no question text, so details never copy a dataset
    category: str
    recall_at: dict[int, float]
    recall_at_budget: float
    context_tokens: int
    latency_ms: float
    budget_filled: bool  # False when the ranking ran out before the budget did
    missed: tuple[str, ...] = ()  # evidence ids not among the sources within the budget


@dataclass
class SystemRun:
    name: str
    messages: int = 0
    ingest_seconds: float = 0.0
    rejected: int = 0
    outcomes: list[QuestionOutcome] = field(default_factory=list)


@dataclass(frozen=True)
class RunOptions:
    ks: tuple[int, ...] = (5, 10, 25)
    budget_tokens: int = 1000
    depth: int | None = None  # items recalled per question; default max(max(ks), 50)

    @property
    def recall_depth(self) -> int:
        return self.depth if self.depth is not None else max(max(self.ks), 50)


def _score(question_id: str, question_evidence: Sequence[str], category: str, items: Sequence[Any],
           latency_ms: float, options: RunOptions, counter: TokenCounter) -> QuestionOutcome:
    taken, tokens = within_budget(items, options.budget_tokens, counter)
    covered = sources_of(taken)
    return QuestionOutcome(
        question_id=question_id, category=category,
        missed=tuple(ev for ev in question_evidence if ev not in covered),
        recall_at={k: recall_at_k(question_evidence, items, k) for k in options.ks},
        recall_at_budget=evidence_recall(question_evidence, sources_of(taken)),
        context_tokens=tokens, latency_ms=latency_ms, budget_filled=len(taken) < len(items))


def _ingest(system: RecallSystem, conversation: BenchConversation, run: SystemRun) -> None:
    started = time.perf_counter()
    accepted = system.ingest(conversation.messages) if conversation.messages else 0
    run.ingest_seconds += time.perf_counter() - started
    run.messages += accepted
    run.rejected += len(conversation.messages) - accepted


def _ask_all(system: RecallSystem, conversation: BenchConversation, run: SystemRun,
             options: RunOptions, counter: TokenCounter, progress: Progress | None,
             total: int) -> None:
    for index, question in enumerate(conversation.questions):
        started = time.perf_counter()
        items = system.recall(question.question, question.user_id, question.now, options.recall_depth)
        latency_ms = (time.perf_counter() - started) * 1000.0
        run.outcomes.append(_score(f"{conversation.user_id}#{index}", question.evidence,
                                   question.category, items, latency_ms, options, counter))
        if progress:
            progress(f"{run.name} recall", len(run.outcomes), total)


def run_conversation(conversation: BenchConversation, factories: Mapping[str, SystemFactory],
                     runs: dict[str, SystemRun], options: RunOptions, counter: TokenCounter,
                     progress: Progress | None = None, totals: tuple[int, int] = (0, 0)) -> None:
    """Every system on one conversation; ``totals`` = (messages, questions) of the dataset."""
    for name, factory in factories.items():
        run = runs.setdefault(name, SystemRun(name))
        with tempfile.TemporaryDirectory(prefix=f"memfold-bench-{name}-") as workdir:
            system = factory(Path(workdir))
            try:
                _ingest(system, conversation, run)
                if progress:
                    progress(f"{name} ingest", run.messages + run.rejected, totals[0])
                _ask_all(system, conversation, run, options, counter, progress, totals[1])
            finally:
                system.close()


def _recall_block(outcomes: Sequence[QuestionOutcome], ks: Sequence[int]) -> dict[str, Any]:
    return {"n": len(outcomes),
            "recall_at": {str(k): round(mean(o.recall_at[k] for o in outcomes), 4) for k in ks},
            "recall_at_budget": round(mean(o.recall_at_budget for o in outcomes), 4)}


def summarise_system(run: SystemRun, options: RunOptions) -> dict[str, Any]:
    outcomes = run.outcomes
    categories = ordered_categories(o.category for o in outcomes)
    latencies = [o.latency_ms for o in outcomes]
    overall = _recall_block(outcomes, options.ks)
    return {
        "n": overall["n"], "recall_at": overall["recall_at"],
        "recall_at_budget": overall["recall_at_budget"],
        "budget_tokens": options.budget_tokens,
        "mean_context_tokens": round(mean(o.context_tokens for o in outcomes), 1),
        "budget_filled_share": round(mean(float(o.budget_filled) for o in outcomes), 4),
        "latency_ms": {"p50": round(percentile(latencies, 50), 2),
                       "p95": round(percentile(latencies, 95), 2)},
        "by_category": {c: _recall_block([o for o in outcomes if o.category == c], options.ks)
                        for c in categories},
        "overall_1_4": _recall_block([o for o in outcomes if o.category in CORE_CATEGORIES],
                                     options.ks),
        "ingest": ingest_block(run),
    }


def ingest_block(run: SystemRun) -> dict[str, Any]:
    rate = run.messages / run.ingest_seconds if run.ingest_seconds > 0 else 0.0
    return {"messages": run.messages, "seconds": round(run.ingest_seconds, 3),
            "messages_per_s": round(rate, 1), "rejected": run.rejected}


def full_context_tokens(conversation: BenchConversation, counter: TokenCounter) -> int:
    """Tokens of the whole transcript as "Speaker: text" lines: the no-retrieval alternative."""
    return counter.count("\n".join(turn_text(m) for m in conversation.messages))


def details(runs: Mapping[str, SystemRun]) -> list[dict[str, Any]]:
    """One row per question and system: ids, category, recall, misses (for error analysis)."""
    return [{"system": name, "question_id": o.question_id, "category": o.category,
             "recall_at": {str(k): v for k, v in o.recall_at.items()},
             "recall_at_budget": o.recall_at_budget, "missed_within_budget": list(o.missed),
             "context_tokens": o.context_tokens, "latency_ms": round(o.latency_ms, 2)}
            for name, run in runs.items() for o in run.outcomes]


def run_benchmark(dataset: BenchDataset, factories: Mapping[str, SystemFactory], *,
                  options: RunOptions | None = None, counter: TokenCounter | None = None,
                  progress: Progress | None = None,
                  keep_details: bool = False) -> dict[str, Any]:
    """Measure every system on every conversation; returns the results dict (see report.py).

    ``keep_details`` adds per-question rows under "details" (report.py writes them apart)."""
    options = options or RunOptions()
    counter = counter or default_counter()
    runs: dict[str, SystemRun] = {}
    started, cpu_started = time.perf_counter(), time.process_time()
    for conversation in dataset.conversations:
        run_conversation(conversation, factories, runs, options, counter, progress,
                         (dataset.message_count, dataset.question_count))
    full = [full_context_tokens(c, counter) for c in dataset.conversations if c.messages]
    systems = {name: summarise_system(run, options) for name, run in runs.items()}
    primary = runs.get("memfold") or next(iter(runs.values()), SystemRun("none"))
    return {
        "dataset": dataset.name,
        "conversations": len(dataset.conversations),
        "questions": dataset.question_count,
        "ingest": ingest_block(primary),
        "systems": systems,
        "missing_evidence": sum(missing_evidence(c) for c in dataset.conversations if c.messages),
        "full_context_tokens": round(mean(full)) if full else 0,
        "full_context_tokens_total": sum(full),
        "k": list(options.ks),
        "recall_depth": options.recall_depth,
        "budget_tokens": options.budget_tokens,
        "token_counter": getattr(counter, "name", type(counter).__name__),
        "elapsed_s": round(time.perf_counter() - started, 1),
        # CPU seconds of this process: far below elapsed x cores means other load shared the cores
        "cpu_s": round(time.process_time() - cpu_started, 1),
        **({"details": details(runs)} if keep_details else {}),
    }
