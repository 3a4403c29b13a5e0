"""``memfold bench``: the benchmark commands (mounted by memfold.cli as a typer sub-app).

    memfold bench locomo FILE [--k 5,10,25] [--budget 1000] [--out DIR] [--conversations N]
    memfold bench longmemeval FILE [--per-type N] [--limit N] [--types T,..] [--out DIR]
    memfold --store DIR bench questions QUESTIONS.jsonl [--messages MESSAGES.jsonl]

Progress bars go to stderr; ``--json`` prints the results JSON on stdout.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from memfold.bench.report import markdown
from memfold.bench.systems import ALL_SYSTEMS
from memfold.errors import ConfigError

app = typer.Typer(help="Benchmarks: LoCoMo and LongMemEval evidence recall, and recall on your own transcripts.",
                  no_args_is_help=True)
_stderr = Console(stderr=True)
_stdout = Console()

KOpt = Annotated[str, typer.Option("--k", help="Comma-separated cut-offs, e.g. 5,10,25.")]
BudgetOpt = Annotated[int, typer.Option("--budget", help="Token budget of the recalled context.")]
SystemsOpt = Annotated[str, typer.Option("--systems", help="Comma-separated systems to measure.")]
DepthOpt = Annotated[Optional[int], typer.Option(
    "--depth", help="Items recalled per question (default max(max k, 50)).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the results JSON on stdout.")]
DetailsFlag = Annotated[bool, typer.Option(
    "--details", help="Also write details.jsonl: per question and system, recall and missed ids.")]


def parse_ks(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise ConfigError(f"--k takes comma-separated integers, got {text!r}") from exc
    if not ks:
        raise ConfigError("--k needs at least one value")
    return ks


def parse_systems(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _global(ctx: typer.Context, name: str) -> Any:
    """A global option of the root `memfold` command (--store, --embedder, --backend), if any."""
    return ctx.find_root().params.get(name)


def _run_settings(ctx: typer.Context) -> tuple[Any, Any]:
    """memfold's settings and the baselines' embedder, following the global --embedder/--backend."""
    from memfold.bench.api import default_memfold_settings

    embedder_name = _global(ctx, "embedder")
    settings = default_memfold_settings(embedder=embedder_name, backend=_global(ctx, "backend"))
    if settings.embedder == "hashing":
        from memfold.embed import HashingEmbedder

        return settings, HashingEmbedder()
    return settings, None


@contextmanager
def progress_bars() -> Iterator[Any]:
    """A progress callback: rich bars on a terminal, else a line per milestone (logs, CI)."""
    if not _stderr.is_terminal:
        yield _log_lines
        return
    columns = (TextColumn("{task.description:<18}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=_stderr, transient=False) as bars:
        tasks: dict[str, Any] = {}

        def report(task: str, done: int, total: int) -> None:
            if task not in tasks:
                tasks[task] = bars.add_task(task, total=total)
            bars.update(tasks[task], completed=done, total=total)

        yield report


def _log_lines(task: str, done: int, total: int) -> None:
    if done == total or done % 100 == 0 or task.endswith("ingest"):
        _stderr.print(f"{time.strftime('%H:%M:%S')} {task}: {done}/{total}", highlight=False)


def _finish(results: dict[str, Any], as_json: bool) -> None:
    results = {key: value for key, value in results.items() if key != "details"}
    if as_json:
        typer.echo(json.dumps(results, indent=2))
        return
    _stdout.print(markdown(results), markup=False, highlight=False)
    for kind, path in results.get("outputs", {}).items():
        _stderr.print(f"wrote {kind}: {path}")


@app.command("locomo")
def locomo_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="LoCoMo JSON (e.g. locomo10.json); read, never copied.")],
    k: KOpt = "5,10,25",
    budget: BudgetOpt = 1000,
    out: Annotated[Path, typer.Option("--out", help="Directory for results.json/.md/.png.")] = Path(
        "bench-results/locomo"),
    conversations: Annotated[Optional[int], typer.Option(
        "--conversations", min=1, help="Only the first N conversations.")] = None,
    systems: SystemsOpt = ",".join(ALL_SYSTEMS),
    depth: DepthOpt = None,
    details: DetailsFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """LoCoMo evidence recall of memfold vs BM25/dense/hybrid/recency (fresh store per conversation)."""
    from memfold.bench.api import run_locomo

    settings, embedder = _run_settings(ctx)
    with progress_bars() as progress:
        results = run_locomo(file, ks=parse_ks(k), budget=budget, out=out,
                             conversations=conversations, systems=parse_systems(systems),
                             embedder=embedder, memfold_settings=settings, depth=depth,
                             progress=progress, details=details)
    _finish(results, as_json)


@app.command("longmemeval")
def longmemeval_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="LongMemEval_S JSON or JSON.gz; read, never copied.")],
    k: KOpt = "5,10,25,50",
    budget: BudgetOpt = 1000,
    out: Annotated[Path, typer.Option("--out", help="Directory for results.json/.md/.png.")] = Path(
        "bench-results/longmemeval"),
    per_type: Annotated[Optional[int], typer.Option(
        "--per-type", min=1, help="Only the first N questions of each type (file order).")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="Only the first N questions.")] = None,
    types: Annotated[Optional[str], typer.Option(
        "--types", help="Comma-separated question types, e.g. knowledge-update.")] = None,
    systems: SystemsOpt = "memfold,bm25,dense,hybrid",
    depth: DepthOpt = None,
    details: DetailsFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """LongMemEval_S: session recall_any/all@k, turn recall@k and context@B per question type."""
    from memfold.bench.api import run_longmemeval

    settings, embedder = _run_settings(ctx)
    with progress_bars() as progress:
        results = run_longmemeval(file, ks=parse_ks(k), budget=budget, out=out, per_type=per_type,
                                  limit=limit, types=parse_systems(types) if types else None,
                                  systems=parse_systems(systems), embedder=embedder,
                                  memfold_settings=settings, depth=depth, progress=progress,
                                  details=details)
    _finish(results, as_json)


@app.command("questions")
def questions_command(
    ctx: typer.Context,
    questions: Annotated[Path, typer.Argument(help="Questions JSONL: question, evidence, user_id, ...")],
    messages: Annotated[Optional[Path], typer.Option(
        "--messages", help="Messages JSONL to ingest into fresh stores (else: ask the --store).")] = None,
    store: Annotated[Optional[Path], typer.Option(
        "--store", help="Existing store to ask (default: the global --store).")] = None,
    k: KOpt = "5,10,25",
    budget: BudgetOpt = 1000,
    out: Annotated[Optional[Path], typer.Option("--out", help="Directory for the outputs.")] = None,
    systems: Annotated[Optional[str], typer.Option(
        "--systems", help="Systems to measure (default: all with --messages, else memfold).")] = None,
    depth: DepthOpt = None,
    details: DetailsFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Evidence recall on your own transcript: fresh ingest (--messages) or an existing store."""
    from memfold.bench.api import run_questions

    settings, embedder = _run_settings(ctx)
    with progress_bars() as progress:
        results = run_questions(questions, messages=messages, store=store or _global(ctx, "store"),
                                ks=parse_ks(k), budget=budget, out=out,
                                systems=parse_systems(systems) if systems else None,
                                embedder=embedder, memfold_settings=settings, depth=depth,
                                progress=progress, details=details)
    _finish(results, as_json)
