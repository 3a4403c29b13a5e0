"""The benchmark's public functions: ``run_locomo`` and ``run_questions``.

    from memfold.bench import run_locomo
    results = run_locomo("locomo-dev.json", ks=(5, 10, 25), budget=1000, out="results/")

Both return the results dict (the content of results.json) and, given ``out``, also
write results.json, results.md and a per-category PNG chart there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memfold.bench.dataset import BenchDataset
from memfold.bench.generic import load_generic
from memfold.bench.locomo import load_locomo
from memfold.bench.longmemeval import load_longmemeval
from memfold.bench.report import run_metadata, write_outputs
from memfold.bench.runner import Progress, RunOptions, run_benchmark
from memfold.bench.systems import ALL_SYSTEMS, MemfoldSystem, SystemFactory, default_factories
from memfold.embed.base import Embedder
from memfold.errors import ConfigError
from memfold.tokens import TokenCounter


def _embedder_factory(embedder: Embedder | None,
                      memfold_settings: Any = None) -> Callable[[], Embedder]:
    """The baselines' embedders: the given one, else one real MiniLM per system (weights shared),
    the variant memfold's settings ask for (default: the q8 one), so that the baselines and
    memfold embed with the same model."""
    if embedder is not None:
        return lambda: embedder
    from memfold.embed import MiniLMEmbedder, MiniLMInt8Embedder, MiniLMQ8Embedder

    variant = memfold_settings.embedder if memfold_settings is not None else "minilm-q8"
    return {"minilm": MiniLMEmbedder, "minilm-int8": MiniLMInt8Embedder}.get(variant, MiniLMQ8Embedder)


def default_memfold_settings(**overrides: Any) -> Any:
    """memfold's settings for a benchmark: the environment's, but the offline backend unless
    another is asked for, so that a run is reproducible and needs no network."""
    from memfold.config import Settings

    overrides = {key: value for key, value in overrides.items() if value is not None}
    overrides.setdefault("backend", "offline")
    return Settings.from_env(**overrides)


def run_dataset(dataset: BenchDataset, factories: Mapping[str, SystemFactory], *,
                ks: Sequence[int] = (5, 10, 25), budget: int = 1000, depth: int | None = None,
                out: str | Path | None = None, counter: TokenCounter | None = None,
                progress: Progress | None = None, extra: Mapping[str, Any] | None = None,
                details: bool = False, context_budgets: Sequence[int] = (500, 1000, 2000),
                session_ks: Sequence[int] = (1, 5, 10)) -> dict[str, Any]:
    """Run the given systems on a loaded dataset; writes the outputs when ``out`` is given.

    ``extra`` keys are added to the results before they are written; ``details`` keeps
    per-question rows (question ids, never text) and writes them to details.jsonl."""
    if not ks or any(k <= 0 for k in ks):
        raise ConfigError(f"k values must be positive integers, got {list(ks)}")
    if budget <= 0 or any(b <= 0 for b in context_budgets):
        raise ConfigError(f"token budgets must be positive, got {budget} and {list(context_budgets)}")
    options = RunOptions(ks=tuple(sorted(set(ks))), budget_tokens=budget, depth=depth,
                         context_budgets=tuple(sorted({*context_budgets, budget})),
                         session_ks=tuple(sorted(set(session_ks))))
    metadata = run_metadata()  # at the start: the commit whose code the run imports
    results = run_benchmark(dataset, factories, options=options, counter=counter, progress=progress,
                            keep_details=details)
    metadata["machine"]["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    results.update(metadata)
    results.update(extra or {})
    if out is not None:
        results["outputs"] = {kind: str(path) for kind, path in write_outputs(results, Path(out)).items()}
    return results


def _describe(factories: Mapping[str, SystemFactory], memfold_settings: Any,
              embedder: Embedder | None) -> dict[str, Any]:
    """What was measured with what: recorded in results.json."""
    described: dict[str, Any] = {
        "baseline_embedder": _embedder_factory(embedder, memfold_settings)().name}
    if "memfold" in factories and memfold_settings is not None:
        described["memfold_settings"] = {
            "embedder": memfold_settings.embedder, "backend": memfold_settings.resolved_backend(),
            "recall": memfold_settings.recall, "fold": memfold_settings.fold}
    return described


def run_locomo(path: str | Path, *, ks: Sequence[int] = (5, 10, 25), budget: int = 1000,
               out: str | Path | None = None, conversations: int | None = None,
               systems: Sequence[str] = ALL_SYSTEMS, embedder: Embedder | None = None,
               memfold_settings: Any = None, depth: int | None = None,
               counter: TokenCounter | None = None, progress: Progress | None = None,
               factories: Mapping[str, SystemFactory] | None = None,
               details: bool = False) -> dict[str, Any]:
    """LoCoMo evidence recall of memfold and the baselines; each conversation in a fresh store.

    ``embedder`` is the baselines' (default: the real MiniLM memfold's settings use, int8 by default);
    ``factories`` replaces the named systems entirely (tests pass in-memory ones).
    """
    dataset = load_locomo(path, conversations=conversations)
    if factories is None:
        memfold_settings = memfold_settings or default_memfold_settings()
        factories = default_factories(systems, _embedder_factory(embedder, memfold_settings),
                                      memfold_settings)
    results = run_dataset(dataset, factories, ks=ks, budget=budget, depth=depth, out=out,
                          counter=counter, progress=progress, details=details,
                          extra={"dataset_path": str(Path(path).resolve()),
                                 **_describe(factories, memfold_settings, embedder)})
    return results


LONGMEMEVAL_SYSTEMS = ("memfold", "bm25", "dense", "hybrid")


def run_longmemeval(path: str | Path, *, ks: Sequence[int] = (5, 10, 25, 50), budget: int = 1000,
                    out: str | Path | None = None, per_type: int | None = None, limit: int | None = None,
                    types: Sequence[str] | None = None, systems: Sequence[str] = LONGMEMEVAL_SYSTEMS,
                    embedder: Embedder | None = None, memfold_settings: Any = None,
                    depth: int | None = None, counter: TokenCounter | None = None,
                    progress: Progress | None = None,
                    factories: Mapping[str, SystemFactory] | None = None,
                    details: bool = False) -> dict[str, Any]:
    """LongMemEval_S: session recall_any/all@k, turn recall@k and context@B per question type,
    memfold and the raw-turn baselines, each haystack in a fresh store (abstention left out)."""
    dataset = load_longmemeval(path, per_type=per_type, limit=limit, types=set(types) if types else None)
    if factories is None:
        memfold_settings = memfold_settings or default_memfold_settings()
        factories = default_factories(systems, _embedder_factory(embedder, memfold_settings),
                                      memfold_settings)
    return run_dataset(dataset, factories, ks=ks, budget=budget, depth=depth, out=out,
                       counter=counter, progress=progress, details=details,
                       extra={"dataset_path": str(Path(path).resolve()),
                              "selection": {"per_type": per_type, "limit": limit,
                                            "types": list(types) if types else None},
                              **_describe(factories, memfold_settings, embedder)})


def run_questions(questions: str | Path, store: str | Path | None = None, *,
                  messages: str | Path | None = None, ks: Sequence[int] = (5, 10, 25),
                  budget: int = 1000, out: str | Path | None = None,
                  systems: Sequence[str] | None = None, embedder: Embedder | None = None,
                  memfold_settings: Any = None, depth: int | None = None,
                  counter: TokenCounter | None = None, progress: Progress | None = None,
                  factories: Mapping[str, SystemFactory] | None = None,
                  details: bool = False) -> dict[str, Any]:
    """Evidence recall on the generic format.

    With ``messages`` (ingest JSONL) every user is ingested into fresh stores and the baselines
    run too; without it the questions are asked of the existing ``store`` (opened read-only;
    memfold only, since the baselines need the raw turns).
    """
    dataset = load_generic(questions, messages)
    if factories is None:
        factories = _question_factories(messages, store, systems, embedder, memfold_settings)
    extra = {"mode": "fresh-ingest" if messages is not None else "existing-store",
             "missing_evidence_checked": messages is not None,
             **_describe(factories, memfold_settings, embedder)}
    if messages is None:
        extra["store"] = str(store)
    return run_dataset(dataset, factories, ks=ks, budget=budget, depth=depth, out=out,
                       counter=counter, progress=progress, extra=extra, details=details)


def _question_factories(messages: str | Path | None, store: str | Path | None,
                        systems: Sequence[str] | None, embedder: Embedder | None,
                        memfold_settings: Any) -> Mapping[str, SystemFactory]:
    memfold_settings = memfold_settings or default_memfold_settings()
    if messages is not None:
        return default_factories(systems or ALL_SYSTEMS, _embedder_factory(embedder, memfold_settings),
                                 memfold_settings)
    if store is None:
        raise ConfigError("no messages file and no store to ask",
                          hint="pass --messages FILE.jsonl, or --store DIR holding ingested messages")
    if systems and set(systems) != {"memfold"}:
        raise ConfigError("baselines need the raw messages", hint="pass --messages FILE.jsonl")
    store_path = Path(store)
    if not store_path.exists():
        raise ConfigError(f"store {store_path} does not exist")
    return {"memfold": lambda _workdir: MemfoldSystem.open(store_path, memfold_settings,
                                                           read_only=True)}
