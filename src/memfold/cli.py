"""The ``memfold`` command line: each command opens a Memory, calls one public method, prints.

Reads print rich tables, or JSON with ``--json``. Errors are one line on stderr with what
to do, and a non-zero exit; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from memfold.errors import InvalidInputError, MemfoldError

app = typer.Typer(
    name="memfold",
    help="memfold: long-term memory for LLM agents (profile KV, event log, vector archive, folded compaction).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
profile_app = typer.Typer(help="Show, explain, set and delete profile facts.", no_args_is_help=True)
app.add_typer(profile_app, name="profile")

console = Console()
err_console = Console(stderr=True)


class _State:
    store: Path = Path("memfold-store")
    debug: bool = False
    embedder: str | None = None
    backend: str | None = None


STATE = _State()

UserOpt = Annotated[str, typer.Option("--user", "-u", help="User id whose memories to use (required).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


@app.callback()
def _global(
    store: Annotated[Path, typer.Option("--store", envvar="MEMFOLD_STORE",
                                        help="Store directory (env MEMFOLD_STORE).")] = Path("memfold-store"),
    embedder: Annotated[Optional[str], typer.Option(help="minilm (default) or hashing (tests only).")] = None,
    backend: Annotated[Optional[str], typer.Option(help="auto (default), offline or anthropic.")] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
) -> None:
    """Global options shared by every command."""
    STATE.store, STATE.debug, STATE.embedder, STATE.backend = store, debug, embedder, backend


def _settings() -> Any:
    from memfold.config import Settings

    return Settings.from_env(store=STATE.store, embedder=STATE.embedder, backend=STATE.backend)


@contextmanager
def _open(*, read_only: bool = False) -> Iterator[Any]:
    from memfold.memory import Memory

    settings = _settings()
    if read_only and not Path(settings.store).exists():
        raise InvalidInputError(f"no store at {settings.store}",
                                hint="ingest something first, or pass --store DIR")
    memory = Memory.open(settings=settings, read_only=read_only)
    try:
        yield memory
    finally:
        memory.close()


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=_json_default, ensure_ascii=False) + "\n")


def _json_default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (set, tuple)):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _dump(records: Any) -> Any:
    if isinstance(records, list):
        return [_dump(r) for r in records]
    return records.model_dump(mode="json") if hasattr(records, "model_dump") else records


def _table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    table = Table(title=title, show_lines=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*[_cell(v) for v in row])
    console.print(table)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def parse_when(value: str | None, *, now: datetime | None = None) -> datetime | None:
    """ISO date/time, '7d'/'12h'/'2w' (ago), or a phrase such as 'last week' (its start)."""
    if value is None:
        return None
    from datetime import timedelta

    now = now or datetime.now(timezone.utc)
    text = value.strip().lower()
    units = {"h": "hours", "d": "days", "w": "weeks"}
    if len(text) >= 2 and text[:-1].isdigit() and text[-1] in units:
        return now - timedelta(**{units[text[-1]]: int(text[:-1])})
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is not None:
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    from memfold.timeexpr import resolve_query_range

    span = resolve_query_range(value, now)
    if span is None:
        raise InvalidInputError(f"cannot read {value!r} as a time",
                                hint="use an ISO date (2023-05-08), '7d', or a phrase like 'last week'")
    return span[0]


# -- ingest and route -----------------------------------------------------------------


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(help="JSONL of messages (one object a line) or LoCoMo JSON.")],
    user: Annotated[Optional[str], typer.Option("--user", "-u", help="Store every message under this user id.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Ingest a transcript: route every message, store it, report routed counts and rejected lines."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = ("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
               TimeRemainingColumn())
    with _open() as memory, Progress(*columns, console=err_console, disable=json_out) as bar:
        task = bar.add_task(f"ingesting {file.name}", total=None)
        report = memory.ingest_file(file, user_id=user,
                                    progress=lambda n: bar.advance(task, n),
                                    on_total=lambda n: bar.update(task, total=n))
    if json_out:
        _print_json(report)
        return
    console.print(f"[bold]{report.accepted}[/] messages stored, {report.duplicates} already present, "
                  f"{len(report.rejected)} rejected, {report.folds} folds, {report.seconds:.1f}s")
    _table("Routed", ["kind", "messages"], [[k, n] for k, n in sorted(report.routed.items())])
    if report.rejected:
        _table("Rejected", ["line", "msg_id", "field", "error"],
               [[r.position, r.msg_id, r.field, r.error] for r in report.rejected[:50]])


@app.command()
def route(
    text: Annotated[str, typer.Argument(help="The utterance to classify.")],
    role: Annotated[str, typer.Option(help="user, assistant, tool or document.")] = "user",
    user: Annotated[str, typer.Option("--user", "-u", help="User id (for the current profile).")] = "user",
    speaker: Annotated[str, typer.Option(help="Who says it.")] = "user",
    ts: Annotated[Optional[str], typer.Option(help="When it was said (ISO); default now.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Show how an utterance would be routed (FACT/EVENT/DOCUMENT/NONE) without storing it."""
    when = parse_when(ts) or datetime.now(timezone.utc)
    message = {"msg_id": "cli-route", "user_id": user, "speaker": speaker, "role": role,
               "text": text, "ts": when}
    with _open() as memory:
        decision = memory.route(message)
    if json_out:
        _print_json(decision)
        return
    console.print(f"[bold]{decision.kind}[/] (confidence {decision.confidence:.2f}, {decision.backend})")
    for fact in decision.facts:
        console.print(f"  fact: {fact.subject}.{fact.key} = {fact.value!r} ({fact.action})")
    if decision.event:
        console.print(f"  event: {decision.event.occurred_at:%Y-%m-%d} {decision.event.text!r}")
    for reason in decision.reasons:
        console.print(f"  because: {reason}")
    if decision.flags:
        console.print(f"  flags: {', '.join(decision.flags)}")


# -- recall ---------------------------------------------------------------------------


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="The question.")],
    user: UserOpt,
    now: Annotated[Optional[str], typer.Option(help="Reference time for 'last week' etc. (ISO).")] = None,
    k: Annotated[int, typer.Option("--k", "-k", help="How many items.")] = 10,
    json_out: JsonOpt = False,
) -> None:
    """Recall memories for a question; the question chooses the store."""
    with _open(read_only=True) as memory:
        result = memory.recall(query, user, now=parse_when(now), k=k)
    if json_out:
        _print_json(result)
        return
    intents = ", ".join(f"{k}={v:.2f}" for k, v in result.intents.items())
    console.print(f"intent: {intents}  ({result.elapsed_ms:.0f} ms)")
    _items_table(result.items)


def _items_table(items: list[Any]) -> None:
    _table("Recalled", ["#", "store", "score", "when", "text", "sources"],
           [[i + 1, it.store, it.score, it.occurred_at, it.text, it.sources] for i, it in enumerate(items)])


@app.command()
def context(
    query: Annotated[str, typer.Argument(help="The question the context is for.")],
    user: UserOpt,
    budget: Annotated[int, typer.Option(help="Token budget for the whole context.")] = 2000,
    now: Annotated[Optional[str], typer.Option(help="Reference time (ISO).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Assemble the prompt context (L3 + profile, L2 digest, recalled items, L1) under a budget."""
    with _open(read_only=True) as memory:
        ctx = memory.context(query, user, budget_tokens=budget, now=parse_when(now))
    if json_out:
        _print_json(ctx)
        return
    console.print(ctx.system, markup=False, highlight=False)
    for message in ctx.messages:
        console.print(f"[{message['role']}] {message['content']}", markup=False, highlight=False)
    console.print(f"\n{ctx.tokens}/{ctx.budget_tokens} tokens: "
                  + ", ".join(f"{s.name} {s.tokens}" for s in ctx.sections))


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Text to search the vector archive for.")],
    user: UserOpt,
    k: Annotated[int, typer.Option("--k", "-k", help="How many items.")] = 10,
    json_out: JsonOpt = False,
) -> None:
    """Raw dense search of the vector archive (no intent routing, no fusion)."""
    with _open(read_only=True) as memory:
        items = memory.search(query, user, k=k)
    if json_out:
        _print_json(_dump(items))
        return
    _items_table(items)


# -- profile --------------------------------------------------------------------------


@profile_app.command("show")
def profile_show(user: UserOpt,
                 subject: Annotated[Optional[str], typer.Option(help="Only facts about this subject.")] = None,
                 json_out: JsonOpt = False) -> None:
    """List the current profile facts of a user."""
    with _open(read_only=True) as memory:
        facts = memory.profile(user, subject)
    if json_out:
        _print_json(_dump(facts))
        return
    _table(f"Profile of {user}", ["subject", "key", "value", "updated", "sources"],
           [[f.subject, f.key, f.value, f.updated_at, f.sources] for f in facts])


@profile_app.command("history")
def profile_history(user: UserOpt,
                    key: Annotated[Optional[str], typer.Option(help="Only this key.")] = None,
                    subject: Annotated[Optional[str], typer.Option(help="Only this subject.")] = None,
                    json_out: JsonOpt = False) -> None:
    """Show the profile changelog: who changed what, when, from what to what, on what evidence."""
    with _open(read_only=True) as memory:
        changes = memory.profile_history(user, subject, key)
    if json_out:
        _print_json(_dump(changes))
        return
    _table(f"Profile changes of {user}", ["when", "action", "subject", "key", "old", "new", "by", "sources"],
           [[c.changed_at, c.action, c.subject, c.key, c.old_value, c.new_value, c.actor, c.sources]
            for c in changes])


@profile_app.command("why")
def profile_why(key: Annotated[str, typer.Argument(help="The profile key, e.g. diet.")],
                user: UserOpt,
                subject: Annotated[str, typer.Option(help="Who the fact is about.")] = "user",
                json_out: JsonOpt = False) -> None:
    """Explain a fact: its value, every change, and the source messages quoted."""
    with _open(read_only=True) as memory:
        explanation = memory.explain(user, subject, key)
    if json_out:
        _print_json(explanation)
        return
    console.print(explanation.render(), markup=False, highlight=False)


@profile_app.command("set")
def profile_set(key: Annotated[str, typer.Argument(help="The profile key.")],
                value: Annotated[str, typer.Argument(help="The new value.")],
                user: UserOpt,
                source: Annotated[list[str], typer.Option("--source", "-s",
                                                          help="msg_id of the evidence (repeatable, required).")],
                subject: Annotated[str, typer.Option(help="Who the fact is about.")] = "user") -> None:
    """Set a profile fact by hand; evidence (a stored msg_id) is required."""
    with _open() as memory:
        change = memory.set_fact(user, key, value, sources=source, subject=subject)
    console.print("unchanged" if change is None else f"{change.action}: {subject}.{key} = {value!r}")


@profile_app.command("delete")
def profile_delete(key: Annotated[str, typer.Argument(help="The profile key.")],
                   user: UserOpt,
                   subject: Annotated[str, typer.Option(help="Who the fact is about.")] = "user") -> None:
    """Delete a profile fact (the changelog keeps a row)."""
    with _open() as memory:
        change = memory.delete_fact(user, key, subject=subject)
    console.print("no such fact" if change is None else f"deleted {subject}.{key}")


# -- events, compaction ---------------------------------------------------------------


@app.command()
def events(
    user: UserOpt,
    since: Annotated[Optional[str], typer.Option(help="ISO date, '7d', or 'last week'.")] = None,
    until: Annotated[Optional[str], typer.Option(help="ISO date, '7d', or a phrase.")] = None,
    about: Annotated[Optional[str], typer.Option(help="Only events about this subject.")] = None,
    limit: Annotated[Optional[int], typer.Option(help="At most this many.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """List events from the episodic log, oldest first."""
    with _open(read_only=True) as memory:
        rows = memory.events(user, since=parse_when(since), until=parse_when(until), about=about, limit=limit)
    if json_out:
        _print_json(_dump(rows))
        return
    _table(f"Events of {user}", ["when", "subject", "text", "sources"],
           [[e.occurred_at, e.subject, e.text, e.sources] for e in rows])


@app.command()
def episodes(user: UserOpt, json_out: JsonOpt = False) -> None:
    """List the L2 episodes (folded working memory) of a user."""
    with _open(read_only=True) as memory:
        rows = memory.episodes(user)
    if json_out:
        _print_json(_dump(rows))
        return
    _table(f"Episodes of {user}", ["id", "turns", "summary", "sources"],
           [[e.episode_id, f"{e.turn_range[0]}-{e.turn_range[1]}", e.summary, e.sources] for e in rows])


@app.command()
def semantic(user: UserOpt, json_out: JsonOpt = False) -> None:
    """Show the L3 semantic memory (durable facts, decisions, ruled-out approaches, patterns)."""
    with _open(read_only=True) as memory:
        sem = memory.semantic(user)
    if json_out:
        _print_json(sem)
        return
    rows = [["fact", n.text, n.importance, n.sources] for n in sem.facts]
    rows += [["decision", f"{d.decision} (because {d.reason})" if d.reason else d.decision, "", d.sources]
             for d in sem.decisions]
    rows += [["ruled out", f"{e.approach}: {e.why}", "", e.sources] for e in sem.eliminated_approaches]
    rows += [["pattern", n.text, n.importance, n.sources] for n in sem.patterns]
    _table(f"Semantic memory of {user}", ["kind", "text", "importance", "sources"], rows)


@app.command()
def fold(user: UserOpt, json_out: JsonOpt = False) -> None:
    """Fold the user's working memory into an episode now."""
    with _open() as memory:
        state = memory.fold(user)
    if json_out:
        _print_json(state)
        return
    console.print(f"{state.folds} folds; {len(state.working)} working turns, {len(state.episodes)} episodes, "
                  f"{len(state.semantic.facts)} semantic facts")


# -- store maintenance ----------------------------------------------------------------


@app.command()
def stats(json_out: JsonOpt = False) -> None:
    """Counts per store and user, and disk sizes."""
    with _open(read_only=True) as memory:
        data = memory.stats()
    if json_out:
        _print_json(data)
        return
    _table("Users", ["user", "messages", "facts", "events", "archive"],
           [[u, c["messages"], c["facts"], c["events"], c["archive"]] for u, c in data["users"].items()])
    _table("Disk", ["path", "bytes"], [[p, n] for p, n in data["disk"].items()])


@app.command()
def sql(query: Annotated[str, typer.Argument(help="A read-only SQL query over the DuckDB file.")],
        limit: Annotated[int, typer.Option(help="At most this many rows.")] = 1000,
        json_out: JsonOpt = False) -> None:
    """Run read-only SQL on the store (no writes, no file access outside it, no settings changes)."""
    from memfold.memory import Memory

    columns, rows = Memory.sql_readonly(_settings().store, query, limit=limit)
    if json_out:
        _print_json([dict(zip(columns, row)) for row in rows])
        return
    _table("", columns, [list(r) for r in rows])


@app.command()
def reindex(json_out: JsonOpt = False) -> None:
    """Rebuild the vector index from DuckDB (the system of record)."""
    with _open() as memory:
        report = memory.reindex()
    if json_out:
        _print_json(report)
        return
    console.print(f"reindexed: {report}")


@app.command("export")
def export_cmd(out: Annotated[Optional[Path], typer.Option("--out", "-o", help="File to write (default stdout).")] = None,
               user: Annotated[Optional[str], typer.Option("--user", "-u", help="Only this user.")] = None) -> None:
    """Export every record (of one user or all) as JSONL that `import` reads back exactly."""
    with _open(read_only=True) as memory:
        records = memory.export(user)
        handle = out.open("w", encoding="utf-8") if out else sys.stdout
        count = 0
        try:
            for record in records:
                handle.write(json.dumps(record, default=_json_default, ensure_ascii=False) + "\n")
                count += 1
        finally:
            if out:
                handle.close()
    if out:
        err_console.print(f"exported {count} records to {out}")


@app.command("import")
def import_cmd(file: Annotated[Path, typer.Argument(help="A JSONL file written by `memfold export`.")],
               json_out: JsonOpt = False) -> None:
    """Import records written by `memfold export` (exact round trip)."""
    with _open() as memory:
        counts = memory.import_file(file)
    if json_out:
        _print_json(counts)
        return
    _table("Imported", ["kind", "records"], [[k, n] for k, n in sorted(counts.items())])


@app.command()
def forget(user: UserOpt,
           yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
           json_out: JsonOpt = False) -> None:
    """Erase every trace of a user: DuckDB rows (file rewritten), vectors, fold state."""
    if not yes and not typer.confirm(f"Erase every memory of user {user!r}?"):
        raise typer.Exit(1)
    with _open() as memory:
        report = memory.forget(user)
    if json_out:
        _print_json(report)
        return
    console.print(f"forgot {user}: {report}")


@app.command()
def demo(store: Annotated[Optional[Path], typer.Option(help="Where to keep the demo store (default: a temporary directory).")] = None) -> None:
    """Ingest the shipped demo transcript and show routing, profile, events and recall."""
    from memfold.demo import run_demo

    run_demo(store)


def _mount_bench() -> None:
    try:
        from memfold.bench.cli import app as bench_app
    except ImportError:  # the benchmark extras are optional at import time
        return
    app.add_typer(bench_app, name="bench", help="Benchmarks: LoCoMo recall, your own transcripts.")


_mount_bench()


def main() -> None:
    """Entry point: usage errors are reported by typer; memfold errors become one line + exit 1."""
    try:
        app()  # standalone mode: typer prints usage errors itself and exits
    except MemfoldError as exc:
        if STATE.debug:
            raise
        err_console.print(f"[red]error:[/] {exc}", highlight=False)
        sys.exit(1)
