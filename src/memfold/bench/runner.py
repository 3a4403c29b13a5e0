"""Run a benchmark: each conversation into fresh systems, every question recalled and scored.

The same code measures memfold and the baselines: each system is built by a factory in a
fresh temporary directory per conversation, ingests the conversation's messages (timed),
then recalls every question once at ``depth`` items (timed); recall at each k and within
the token budget are cut from that one ranking (the secondary, ranked-list figures).

The headline is ``context@B``: for each budget B of ``context_budgets`` the system builds
the prompt an agent would receive (memfold: ``Memory.context``; a baseline: its ranking
rendered the same way) and the evidence found in that prompt is scored
(:func:`memfold.bench.metrics.prompt_recall`).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memfold.bench.dataset import (
    CORE_CATEGORIES,
    BenchConversation,
    BenchDataset,
    missing_evidence,
    ordered_categories,
)
from memfold.bench.dataset import BenchQuestion
from memfold.bench.metrics import (
    evidence_recall,
    mean,
    percentile,
    prompt_recall,
    prompt_text,
    ranked_sessions,
    recall_at_k,
    session_recall,
    sources_of,
    within_budget,
)
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
    context_at: dict[int, float] = field(default_factory=dict)  # evidence recall of the prompt
    context_tokens_at: dict[int, int] = field(default_factory=dict)
    context_missed: tuple[str, ...] = ()  # evidence ids not in the prompt at the main budget
    context_ms: float = 0.0  # building the prompt at the main budget
    session_any_at: dict[int, float] = field(default_factory=dict)  # only with answer sessions
    session_all_at: dict[int, float] = field(default_factory=dict)
    update_in_context: float | None = None  # knowledge updates: newest value's turn in the prompt
    update_ranked_first: float | None = None  # ... and ranked above every value it replaced


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
    context_budgets: tuple[int, ...] = (500, 1000, 2000)
    session_ks: tuple[int, ...] = (1, 5, 10)

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


@dataclass(frozen=True)
class _Transcript:
    """What scoring needs of a conversation: each turn's text and session."""

    texts: dict[str, str]
    sessions: dict[str, str]

    @classmethod
    def of(cls, conversation: BenchConversation) -> _Transcript:
        messages = conversation.messages
        return cls({m.msg_id: m.text for m in messages},
                   {m.msg_id: m.session_id for m in messages if m.session_id})


def _score_contexts(system: RecallSystem, question: BenchQuestion, outcome: QuestionOutcome,
                    transcript: _Transcript, options: RunOptions) -> QuestionOutcome:
    """The prompt at each budget: evidence recall, tokens, and what the main budget missed."""
    at: dict[int, float] = {}
    tokens: dict[int, int] = {}
    missed: list[str] = []
    context_ms = 0.0
    update_in: float | None = None
    for budget in options.context_budgets:
        started = time.perf_counter()
        context = system.context(question.question, question.user_id, question.now, budget)
        elapsed = (time.perf_counter() - started) * 1000.0
        prompt = prompt_text(context)
        at[budget], budget_missed = prompt_recall(question.evidence, transcript.texts, prompt)
        tokens[budget] = context.tokens
        if budget == options.budget_tokens:
            missed, context_ms = budget_missed, elapsed
            if question.newest_evidence:
                update_in = prompt_recall([question.newest_evidence], transcript.texts, prompt)[0]
    return replace(outcome, context_at=at, context_tokens_at=tokens, context_missed=tuple(missed),
                   context_ms=context_ms, update_in_context=update_in)


def _score_sessions(question: BenchQuestion, items: Sequence[Any], outcome: QuestionOutcome,
                    transcript: _Transcript, options: RunOptions) -> QuestionOutcome:
    ranked_first: float | None = None
    if question.newest_evidence:
        ranked_first = float(_ranks_above(items, question.newest_evidence, question.replaced_evidence))
    if not question.evidence_sessions:
        return replace(outcome, update_ranked_first=ranked_first)
    ranked = ranked_sessions(items, transcript.sessions)
    pairs = {k: session_recall(question.evidence_sessions, ranked, k) for k in options.session_ks}
    return replace(outcome, session_any_at={k: v[0] for k, v in pairs.items()},
                   session_all_at={k: v[1] for k, v in pairs.items()}, update_ranked_first=ranked_first)


def _ranks_above(items: Sequence[Any], newest: str, replaced: Sequence[str]) -> bool:
    """The newest value's turn is recalled, and before every replaced value's turn that is."""
    rank = {}
    for position, item in enumerate(items):
        for source in item.sources:
            rank.setdefault(source, position)
    if newest not in rank:
        return False
    return all(rank[newest] < rank[old] for old in replaced if old in rank and old != newest)


def _ingest(system: RecallSystem, conversation: BenchConversation, run: SystemRun) -> None:
    started = time.perf_counter()
    accepted = system.ingest(conversation.messages) if conversation.messages else 0
    run.ingest_seconds += time.perf_counter() - started
    run.messages += accepted
    run.rejected += len(conversation.messages) - accepted


def _ask_all(system: RecallSystem, conversation: BenchConversation, run: SystemRun,
             options: RunOptions, counter: TokenCounter, progress: Progress | None,
             total: int) -> None:
    transcript = _Transcript.of(conversation)
    for index, question in enumerate(conversation.questions):
        started = time.perf_counter()
        items = system.recall(question.question, question.user_id, question.now, options.recall_depth)
        latency_ms = (time.perf_counter() - started) * 1000.0
        outcome = _score(f"{conversation.user_id}#{index}", question.evidence,
                         question.category, items, latency_ms, options, counter)
        outcome = _score_sessions(question, items, outcome, transcript, options)
        run.outcomes.append(_score_contexts(system, question, outcome, transcript, options))
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
    block: dict[str, Any] = {
        "n": len(outcomes),
        "context_at": _means(outcomes, lambda o: o.context_at),
        "recall_at": {str(k): round(mean(o.recall_at[k] for o in outcomes), 4) for k in ks},
        "recall_at_budget": round(mean(o.recall_at_budget for o in outcomes), 4)}
    sessions = [o for o in outcomes if o.session_any_at]
    if sessions:
        block["session_recall_any_at"] = _means(sessions, lambda o: o.session_any_at)
        block["session_recall_all_at"] = _means(sessions, lambda o: o.session_all_at)
    updates = [o for o in outcomes if o.update_in_context is not None]
    if updates:
        block["updates"] = {"n": len(updates),
                            "newest_in_context": round(mean(o.update_in_context or 0.0 for o in updates), 4),
                            "newest_ranked_first": round(mean(o.update_ranked_first or 0.0 for o in updates), 4)}
    return block


def _means(outcomes: Sequence[QuestionOutcome],
           values: Callable[[QuestionOutcome], dict[int, float]]) -> dict[str, float]:
    keys = sorted({k for o in outcomes for k in values(o)})
    return {str(k): round(mean(values(o)[k] for o in outcomes if k in values(o)), 4) for k in keys}


def summarise_system(run: SystemRun, options: RunOptions) -> dict[str, Any]:
    outcomes = run.outcomes
    categories = ordered_categories(o.category for o in outcomes)
    latencies = [o.latency_ms for o in outcomes]
    overall = _recall_block(outcomes, options.ks)
    context_ms = [o.context_ms for o in outcomes]
    return {
        **overall,
        "budget_tokens": options.budget_tokens,
        "mean_prompt_tokens": _means(outcomes, lambda o: {k: float(v) for k, v in o.context_tokens_at.items()}),
        "context_latency_ms": {"p50": round(percentile(context_ms, 50), 2),
                               "p95": round(percentile(context_ms, 95), 2)},
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
             "context_at": {str(k): v for k, v in o.context_at.items()},
             "missed_in_context": list(o.context_missed),
             **({"session_recall_any_at": {str(k): v for k, v in o.session_any_at.items()}}
                if o.session_any_at else {}),
             **({"update_in_context": o.update_in_context, "update_ranked_first": o.update_ranked_first}
                if o.update_in_context is not None else {}),
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
        "skipped": list(dataset.skipped),
        "ingest": ingest_block(primary),
        "systems": systems,
        "missing_evidence": sum(missing_evidence(c) for c in dataset.conversations if c.messages),
        "full_context_tokens": round(mean(full)) if full else 0,
        "full_context_tokens_total": sum(full),
        "k": list(options.ks),
        "recall_depth": options.recall_depth,
        "budget_tokens": options.budget_tokens,
        "context_budgets": list(options.context_budgets),
        "token_counter": getattr(counter, "name", type(counter).__name__),
        "elapsed_s": round(time.perf_counter() - started, 1),
        # CPU seconds of this process: far below elapsed x cores means other load shared the cores
        "cpu_s": round(time.process_time() - cpu_started, 1),
        **({"details": details(runs)} if keep_details else {}),
    }
