"""The ``memfold`` command line: each command opens a Memory, calls one public method, prints.

Reads print rich tables, or JSON with ``--json`` (the same data the Python call returns).
Errors are one line on stderr saying what to do, with a non-zero exit; ``--debug`` shows
the traceback instead. A store held by a running writer (an agent) is refused at once,
naming its PID, before anything slow is imported: DuckDB lets no other process open the
file while a writer holds it, not even read-only, so waiting would only hang.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import IO, Annotated, Any, Optional
from uuid import UUID

import typer
import typer.main
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

from memfold.errors import ConfigError, InvalidInputError, MemfoldError, StoreLockedError
from memfold.textsafety import for_terminal

DEFAULT_STORE = Path("memfold-store")
DB_FILE = "memfold.duckdb"  # the same name as memfold.stores.DB_FILE (not imported: it is slow)
EMBEDDERS = ("minilm-q8", "minilm-int8", "minilm", "hashing")
BACKENDS = ("auto", "offline", "anthropic")


class _State:
    """Global options of the current invocation (set by the root callback)."""

    store: Path = DEFAULT_STORE
    debug: bool = False
    embedder: str | None = None
    backend: str | None = None
    server: str | None = None
    api_key: str | None = None


STATE = _State()


def _hide_flag_types() -> None:
    """typer 0.29 prints a type column for every option, so a plain flag such as --json
    reads as if it took a value (``--json <bool>``); a flag takes none: show no type."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "_memfold", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> Any:
        return None if self.is_flag else shown(self, ctx)

    display_type_rich._memfold = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_hide_flag_types()
# emoji=False: stored text such as "pet:cat:" must print as typed, not as an emoji
console = Console(emoji=False)
err_console = Console(stderr=True, emoji=False)


class _MemfoldGroup(TyperGroup):
    """The root group: a MemfoldError from any command becomes one line and exit status 1."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_command(_bench_group())  # a placeholder until a bench command is looked up

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except MemfoldError as exc:
            if STATE.debug:
                raise
            _print_error(exc)
            raise typer.Exit(1) from None


app = typer.Typer(
    name="memfold",
    cls=_MemfoldGroup,
    help="memfold: long-term memory for LLM agents "
         "(profile KV, event log, vector archive, folded compaction).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
profile_app = typer.Typer(help="Show, explain, set and delete profile facts.", no_args_is_help=True)
app.add_typer(profile_app, name="profile")

UserOpt = Annotated[str, typer.Option(
    "--user", "-u", help="User id whose memories to use (required).")]
JsonOpt = Annotated[bool, typer.Option(
    "--json", help="Print JSON (the Python API's result) instead of a table.")]
SubjectOpt = Annotated[str, typer.Option("--subject", help="Who the fact is about.")]


def _one_of(choices: tuple[str, ...]) -> Callable[[Optional[str]], Optional[str]]:
    def check(value: Optional[str]) -> Optional[str]:
        if value is not None and value not in choices:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}")
        return value

    return check


@app.callback()
def _global(
    store: Annotated[Path, typer.Option(
        "--store", envvar="MEMFOLD_STORE", show_default=False,
        help="Store directory (default ./memfold-store).")] = DEFAULT_STORE,
    embedder: Annotated[Optional[str], typer.Option(
        callback=_one_of(EMBEDDERS),
        help="minilm-q8 (default: int8 arithmetic), minilm-int8 (int8 weights), minilm (fp32) "
             "or hashing (fast, tests only).")] = None,
    backend: Annotated[Optional[str], typer.Option(
        callback=_one_of(BACKENDS), help="auto (default), offline or anthropic.")] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    server: Annotated[Optional[str], typer.Option(
        "--server", envvar="MEMFOLD_SERVER", show_default=False,
        help="URL of a `memfold serve` to send commands to (default: the server that owns "
             "--store, if one runs).")] = None,
    api_key: Annotated[Optional[str], typer.Option(
        "--api-key", envvar="MEMFOLD_API_KEY", show_default=False,
        help="API key for --server.")] = None,
) -> None:
    """Global options shared by every command."""
    STATE.store, STATE.debug, STATE.embedder, STATE.backend = store, debug, embedder, backend
    STATE.server, STATE.api_key = server, api_key


# -- errors ---------------------------------------------------------------------------


def _print_error(exc: MemfoldError) -> None:
    err_console.print(f"[red]error:[/] {escape(for_terminal(one_line(exc)))}", soft_wrap=True,
                      highlight=False)


def one_line(exc: MemfoldError) -> str:
    """The error as one line: its message up to any echo of the query, then the hint."""
    text = exc.summary or type(exc).__name__
    return f"{text} ({exc.hint})" if exc.hint else text


def _held_hint(pid: int | None, reading: bool) -> str:
    stop = f"stop it (kill {pid})" if pid else "stop it"
    if reading:
        return ("while it runs, DuckDB lets no other process open the store, not even to read: "
                f"query it through that process's Memory, or {stop} and run this again")
    return (f"one writer per store: {stop} and run this again, "
            "or use another --store / MEMFOLD_STORE")


def _refuse_if_held(store: Path, *, reading: bool) -> None:
    """Fail at once if another process holds the store for writing (never blocks, never waits)."""
    from memfold.stores.lock import holder_pid

    pid = holder_pid(store)
    if pid is not None:
        error = StoreLockedError(str(store), pid or None)
        error.hint = _held_hint(pid or None, reading)
        raise error


# -- opening the store ----------------------------------------------------------------


def _settings() -> Any:
    from pydantic import ValidationError

    from memfold.config import Settings

    try:
        return Settings.from_env(store=STATE.store, embedder=STATE.embedder, backend=STATE.backend)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ()))
        raise ConfigError(f"setting {field}: {first.get('msg')}",
                          hint="check the MEMFOLD_* environment variables") from exc


def _require_store(store: Path) -> None:
    if not (store / DB_FILE).is_file():
        raise InvalidInputError(f"no memfold store at {store}",
                                hint="ingest a transcript first (memfold ingest FILE), "
                                     "or pass --store DIR / set MEMFOLD_STORE")


def _server_url(store: Path) -> str | None:
    """--server / MEMFOLD_SERVER, else the live server that announced itself in the store."""
    from memfold.service.server import discover

    return STATE.server or discover(store)


@contextmanager
def _open(*, read_only: bool = False, user: str | None = None, reembed: bool = False,
          remote_ok: bool = True, fresh_index: bool = False,
          index_process: bool = False) -> Iterator[Any]:
    """Open the store for one command; readers take no lock and never disturb a writer.
    When a server owns the store (or --server is given), the command goes to it instead:
    the same MemoryAPI, so reads and writes work while the server runs.
    With ``user``, a user the store has never seen gets a warning (a typo reads as empty)."""
    url = _server_url(STATE.store) if remote_ok else None
    if url is not None:
        from memfold.client import MemoryClient

        with MemoryClient(url, api_key=STATE.api_key) as client:
            if user is not None:
                _warn_if_unknown(client, user)
            yield client
        return
    settings = _settings().model_copy(update={"index_process": index_process})
    store = Path(settings.store)
    _refuse_if_held(store, reading=read_only)
    if read_only:
        _require_store(store)
    from memfold.memory import Memory

    try:
        memory = Memory.open(settings=settings, read_only=read_only, reembed=reembed,
                             fresh_index=fresh_index)
    except StoreLockedError as exc:  # a writer started between the probe and the open
        exc.hint = _held_hint(exc.pid, read_only)
        raise
    try:
        if user is not None:
            _warn_if_unknown(memory, user)
        yield memory
    finally:
        memory.close()


def _warn_if_unknown(memory: Any, user: str) -> None:
    from memfold.models import check_identity

    try:
        check_identity(user)
    except ValueError:
        return  # not a valid id: the command itself fails with the reason, no warning first
    known = memory.users()
    if user not in known:
        listed = ", ".join(repr(u) for u in known[:5]) + (", ..." if len(known) > 5 else "")
        store = escape(str(STATE.server or STATE.store))
        err_console.print(f"warning: no data for user {escape(repr(user))} in {store} "
                          f"(users: {escape(listed) or 'none'})", highlight=False, soft_wrap=True)


# -- output ---------------------------------------------------------------------------


def _print_json(data: Any) -> None:
    # hidden characters (C1 controls such as CSI, bidi overrides) as JSON \u escapes:
    # the same JSON for a parser, nothing a terminal acts on
    text = json.dumps(data, indent=2, default=json_default, ensure_ascii=False)
    sys.stdout.write(for_terminal(text) + "\n")


def json_default(value: Any) -> Any:
    """JSON for pydantic records and the values DuckDB returns (dates, decimals, UUIDs, bytes)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, (Path, Decimal, UUID)):
        return str(value)
    return repr(value)


def _dump(records: Any) -> Any:
    if isinstance(records, list):
        return [_dump(r) for r in records]
    return records.model_dump(mode="json") if hasattr(records, "model_dump") else records


def _table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    table = Table(title=title or None, show_lines=False)
    for column in columns:
        table.add_column(escape(for_terminal(str(column))), overflow="fold")
    for row in rows:
        table.add_row(*[escape(for_terminal(_cell(v))) for v in row])
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


def _say(text: str) -> None:
    """Plain text on stdout: never read as rich markup (it may quote user data)."""
    console.print(for_terminal(text), markup=False, highlight=False, soft_wrap=True)


# -- time options ---------------------------------------------------------------------


_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_when(value: str | None, *, now: datetime | None = None,
               end: bool = False) -> datetime | None:
    """A time option: an ISO date/time, '7d'/'12h'/'2w' (that long ago), or a phrase such as
    'last week' or 'yesterday' (its start; with ``end`` its end, and an ISO date's end of day)."""
    if value is None:
        return None
    now = now or datetime.now(timezone.utc)
    text = value.strip().lower()
    if len(text) >= 2 and text[:-1].isdigit() and text[-1] in _UNITS and len(text) <= 7:
        return now - timedelta(**{_UNITS[text[-1]]: int(text[:-1])})
    parsed = _parse_iso(value.strip())
    if parsed is not None:
        date_only = "t" not in text and ":" not in text
        return parsed + timedelta(days=1) if end and date_only else parsed
    from memfold.timeexpr import resolve_query_range

    span = resolve_query_range(value, now) if len(value) <= 200 else None
    if span is None:
        raise InvalidInputError(f"cannot read {value!r} as a time",
                                hint="use an ISO date (2023-05-08), '7d', "
                                     "or a phrase like 'last week'")
    return span[1] if end else span[0]


def _parse_iso(text: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


# -- ingest and route -----------------------------------------------------------------


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(
        exists=True, dir_okay=False, readable=True,
        help="JSONL of messages (one object a line) or LoCoMo JSON.")],
    user: Annotated[Optional[str], typer.Option(
        "--user", "-u", help="Store every message under this user id.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Ingest a transcript: route and store every message; report routed counts, rejected lines."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from memfold.transcripts import detect_format

    kind = detect_format(file)
    columns = ("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
               TimeRemainingColumn())
    with _open() as memory, Progress(*columns, console=err_console, disable=json_out) as bar:
        task = bar.add_task(f"ingesting {escape(file.name)} ({kind})", total=None)
        report = memory.ingest_file(file, user_id=user,
                                    progress=lambda n: bar.advance(task, n),
                                    on_total=lambda n: bar.update(task, total=n))
    if json_out:
        _print_json(report)
    else:
        _ingest_summary(report)
    if report.rejected and not report.accepted and not report.duplicates:
        raise typer.Exit(1)  # nothing in the file could be stored


def _ingest_summary(report: Any) -> None:
    _say(f"{report.accepted} messages stored, {report.duplicates} already present, "
         f"{len(report.rejected)} rejected, {report.folds} folds, {report.seconds:.1f}s")
    _table("Routed", ["kind", "messages"], [[k, n] for k, n in sorted(report.routed.items())])
    if report.refused:
        # not an input error: the messages are stored, only these profile writes were not
        _say(f"{len(report.refused)} profile writes refused (the messages are stored):")
        _table("Refused profile writes", ["msg_id", "fact", "reason"],
               [[r.msg_id, f"{r.subject}.{r.key}", r.reason] for r in report.refused[:20]])
    if report.rejected:
        shown = report.rejected[:50]
        _table("Rejected", ["line", "msg_id", "field", "error"],
               [[r.position, r.msg_id, r.field, r.error] for r in shown])
        if len(report.rejected) > len(shown):
            _say(f"... and {len(report.rejected) - len(shown)} more (use --json for all)")
        err_console.print("fix the rejected lines and ingest the file again: stored lines are "
                          "skipped as duplicates", highlight=False, soft_wrap=True)


@app.command()
def route(
    text: Annotated[str, typer.Argument(help="The utterance to classify.")],
    role: Annotated[str, typer.Option(help="user, assistant, tool or document.")] = "user",
    user: Annotated[str, typer.Option(
        "--user", "-u", help="User id (for the current profile).")] = "user",
    speaker: Annotated[str, typer.Option(help="Who says it.")] = "user",
    ts: Annotated[Optional[str], typer.Option(help="When it was said (ISO); default now.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Show how an utterance would be routed (FACT/EVENT/DOCUMENT/NONE) without storing it."""
    when = parse_when(ts) or datetime.now(timezone.utc)
    message = {"msg_id": "cli-route", "user_id": user, "speaker": speaker, "role": role,
               "text": text, "ts": when}
    with _route_memory() as memory:
        decision = memory.route(message)
    if json_out:
        _print_json(decision)
        return
    _say(f"{decision.kind} (confidence {decision.confidence:.2f}, {decision.backend})")
    for fact in decision.facts:
        _say(f"  fact: {fact.subject}.{fact.key} = {fact.value!r} ({fact.action})")
    if decision.event:
        _say(f"  event: {decision.event.occurred_at:%Y-%m-%d} {decision.event.text!r}")
    for reason in decision.reasons:
        _say(f"  because: {reason}")
    if decision.flags:
        _say(f"  flags: {', '.join(decision.flags)}")


@contextmanager
def _route_memory() -> Iterator[Any]:
    """The store read-only when there is one (for the user's profile); else an empty memory."""
    settings = _settings()
    if (Path(settings.store) / DB_FILE).is_file():
        with _open(read_only=True) as memory:
            yield memory
        return
    from memfold.memory import Memory

    memory = Memory.in_memory(settings)
    try:
        yield memory
    finally:
        memory.close()


# -- recall ---------------------------------------------------------------------------


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="The question.")],
    user: UserOpt,
    now: Annotated[Optional[str], typer.Option(
        help="Reference time for 'last week' etc. (ISO).")] = None,
    k: Annotated[int, typer.Option("--k", "-k", min=1, max=1000, help="How many items.")] = 10,
    json_out: JsonOpt = False,
) -> None:
    """Recall memories for a question; the question chooses the store."""
    with _open(read_only=True, user=user) as memory:
        result = memory.recall(query, user, now=parse_when(now), k=k)
    if json_out:
        _print_json(result)
        return
    intents = ", ".join(f"{name}={v:.2f}" for name, v in result.intents.items())
    _say(f"intent: {intents}  ({result.elapsed_ms:.0f} ms)")
    _items_table(result.items)


def _items_table(items: list[Any]) -> None:
    _table("Recalled", ["#", "store", "score", "when", "text", "sources"],
           [[i + 1, it.store, it.score, it.occurred_at, it.text, it.sources]
            for i, it in enumerate(items)])


@app.command()
def context(
    query: Annotated[str, typer.Argument(help="The question the context is for.")],
    user: UserOpt,
    budget: Annotated[int, typer.Option(min=1, help="Token budget for the whole context.")] = 2000,
    now: Annotated[Optional[str], typer.Option(help="Reference time (ISO).")] = None,
    task: Annotated[Optional[str], typer.Option(
        "--task", "-t", help="Include this task's scratchpad.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Assemble the prompt context (L3 + profile, L2 digest, knowledge, recalled items, the
    task's scratchpad, L1) under a budget."""
    with _open(read_only=True, user=user) as memory:
        ctx = memory.context(query, user, budget_tokens=budget, now=parse_when(now), task_id=task)
    if json_out:
        _print_json(ctx)
        return
    _say(ctx.system)
    for message in ctx.messages:
        _say(f"[{message['role']}] {message['content']}")
    sections = ", ".join(f"{s.name} {s.tokens}" for s in ctx.sections)
    _say(f"\n{ctx.tokens}/{ctx.budget_tokens} tokens: {sections}")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Text to search the vector archive for.")],
    user: UserOpt,
    k: Annotated[int, typer.Option("--k", "-k", min=1, max=1000, help="How many items.")] = 10,
    json_out: JsonOpt = False,
) -> None:
    """Raw dense search of the vector archive (no intent routing, no fusion)."""
    with _open(read_only=True, user=user) as memory:
        items = memory.search(query, user, k=k)
    if json_out:
        _print_json(_dump(items))
        return
    _items_table(items)


# -- profile --------------------------------------------------------------------------


@profile_app.command("show")
def profile_show(user: UserOpt,
                 subject: Annotated[Optional[str], typer.Option(
                     help="Only facts about this subject.")] = None,
                 json_out: JsonOpt = False) -> None:
    """List the current profile facts of a user."""
    with _open(read_only=True, user=user) as memory:
        facts = memory.profile(user, subject)
    if json_out:
        _print_json(_dump(facts))
        return
    _table(f"Profile of {user}", ["subject", "key", "value", "updated", "sources"],
           [[f.subject, f.key, f.value, f.updated_at, f.sources] for f in facts])


@profile_app.command("history")
def profile_history(user: UserOpt,
                    key: Annotated[Optional[str], typer.Option(help="Only this key.")] = None,
                    subject: Annotated[Optional[str], typer.Option(
                        help="Only this subject.")] = None,
                    json_out: JsonOpt = False) -> None:
    """Show the profile changelog: who changed what, when, from what to what, on what evidence."""
    with _open(read_only=True, user=user) as memory:
        changes = memory.profile_history(user, subject, key)
    if json_out:
        _print_json(_dump(changes))
        return
    _table(f"Profile changes of {user}",
           ["when", "action", "subject", "key", "old", "new", "by", "sources"],
           [[c.changed_at, c.action, c.subject, c.key, c.old_value, c.new_value, c.actor, c.sources]
            for c in changes])


@profile_app.command("why")
def profile_why(key: Annotated[str, typer.Argument(help="The profile key, e.g. diet.")],
                user: UserOpt,
                subject: SubjectOpt = "user",
                json_out: JsonOpt = False) -> None:
    """Explain a fact: its value, every change, and the source messages quoted."""
    with _open(read_only=True, user=user) as memory:
        explanation = memory.explain(user, subject, key)
    if json_out:
        _print_json(explanation)
        return
    _say(explanation.render())


@profile_app.command("set")
def profile_set(key: Annotated[str, typer.Argument(help="The profile key.")],
                value: Annotated[str, typer.Argument(help="The new value.")],
                user: UserOpt,
                source: Annotated[list[str], typer.Option(
                    "--source", "-s", help="msg_id of the evidence (repeatable, required).")],
                subject: SubjectOpt = "user",
                json_out: JsonOpt = False) -> None:
    """Set a profile fact by hand; evidence (a stored msg_id) is required."""
    with _open() as memory:
        change = memory.set_fact(user, key, value, sources=source, subject=subject)
    if json_out:
        _print_json(change)
        return
    _say("unchanged (the fact already has this value)" if change is None
         else f"{change.action}: {subject}.{key} = {value!r}")


@profile_app.command("delete")
def profile_delete(key: Annotated[str, typer.Argument(help="The profile key.")],
                   user: UserOpt,
                   subject: SubjectOpt = "user",
                   json_out: JsonOpt = False) -> None:
    """Delete a profile fact (the changelog keeps a row)."""
    with _open() as memory:
        change = memory.delete_fact(user, key, subject=subject)
    if json_out:
        _print_json(change)
        return
    _say(f"no fact {subject}.{key} for {user}" if change is None else f"deleted {subject}.{key}")


# -- events, compaction ---------------------------------------------------------------


@app.command()
def events(
    user: UserOpt,
    since: Annotated[Optional[str], typer.Option(
        help="From: ISO date, '7d' (ago), or 'last week'.")] = None,
    until: Annotated[Optional[str], typer.Option(
        help="Up to (exclusive; a date includes its day): ISO date, '7d', or a phrase.")] = None,
    about: Annotated[Optional[str], typer.Option(help="Only events about this subject.")] = None,
    limit: Annotated[Optional[int], typer.Option(min=0, help="At most this many.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """List events from the episodic log, oldest first."""
    start, end = parse_when(since), parse_when(until, end=True)
    if start is not None and end is not None and start > end:
        raise InvalidInputError(
            f"--since ({start:%Y-%m-%d %H:%M}) is after --until ({end:%Y-%m-%d %H:%M})",
            hint="swap them")
    with _open(read_only=True, user=user) as memory:
        rows = memory.events(user, since=start, until=end, about=about, limit=limit)
    if json_out:
        _print_json(_dump(rows))
        return
    _table(f"Events of {user}", ["when", "subject", "text", "sources"],
           [[e.occurred_at, e.subject, e.text, e.sources] for e in rows])


@app.command()
def episodes(user: UserOpt, json_out: JsonOpt = False) -> None:
    """List the L2 episodes (folded working memory) of a user."""
    with _open(read_only=True, user=user) as memory:
        rows = memory.episodes(user)
    if json_out:
        _print_json(_dump(rows))
        return
    _table(f"Episodes of {user}", ["id", "turns", "summary", "sources"],
           [[e.episode_id, f"{e.turn_range[0]}-{e.turn_range[1]}", e.summary, e.sources]
            for e in rows])


@app.command()
def semantic(user: UserOpt, json_out: JsonOpt = False) -> None:
    """Show the L3 semantic memory (durable facts, decisions, ruled-out approaches, patterns)."""
    with _open(read_only=True, user=user) as memory:
        sem = memory.semantic(user)
    if json_out:
        _print_json(sem)
        return
    rows = [["fact", n.text, n.importance, n.sources] for n in sem.facts]
    rows += [["decision", f"{d.decision} (because {d.reason})" if d.reason else d.decision, "",
              d.sources] for d in sem.decisions]
    rows += [["ruled out", f"{e.approach}: {e.why}", "", e.sources]
             for e in sem.eliminated_approaches]
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
    _say(f"{state.folds} folds; {len(state.working)} working turns, "
         f"{len(state.episodes)} episodes, {len(state.semantic.facts)} semantic facts")


# -- store maintenance ----------------------------------------------------------------


@app.command()
def stats(json_out: JsonOpt = False) -> None:
    """Counts per store and user, and disk sizes."""
    with _open(read_only=True) as memory:
        data = memory.stats()
    if json_out:
        _print_json(data)
        return
    stores = ["messages", "facts", "events", "archive"]
    rows = [[user, *(counts[s] for s in stores)] for user, counts in data["users"].items()]
    if len(rows) > 1:
        rows.append(["(all users)", *(sum(c[s] for c in data["users"].values()) for s in stores)])
    _table("Users", ["user", *stores], rows)
    _table("Disk", ["path", "bytes"], [[p, n] for p, n in data["disk"].items()])
    _say(f"{data['vectors']} vectors indexed, {data['total_bytes']:,} bytes on disk")


@app.command()
def sql(query: Annotated[str, typer.Argument(
            help="One read-only SQL query over the store's DuckDB file.")],
        limit: Annotated[int, typer.Option(min=0, help="At most this many rows.")] = 1000,
        timeout: Annotated[float, typer.Option(
            min=0.001, help="Stop the query after this many seconds.")] = 10.0,
        memory_limit: Annotated[str, typer.Option(
            help="Memory the query may use (DuckDB size, e.g. 512MB, 2GB); no spilling to disk.")] = "512MB",
        json_out: JsonOpt = False) -> None:
    """Run one read-only query on the store: no writes, no files (not even the store's own
    raw files), no ATTACH, no SET; time and memory are capped."""
    from memfold.memory import Memory

    store = Path(_settings().store)
    _refuse_if_held(store, reading=True)
    _require_store(store)
    try:
        columns, rows = Memory.sql_readonly(store, query, limit=limit, timeout_s=timeout,
                                            memory_limit=memory_limit)
    except InvalidInputError as exc:
        exc.hint = exc.hint or ('one read-only query; list the tables with: '
                                'memfold sql "SHOW TABLES"')
        raise
    if json_out:
        _print_json({"columns": columns, "rows": [list(r) for r in rows]})
        return
    if not columns:
        _say("(the statement returned no result set)")
        return
    _table("", columns, [list(r) for r in rows])
    if limit and len(rows) == limit:
        err_console.print(f"(stopped at --limit {limit} rows)", highlight=False)


@app.command()
def reindex(json_out: JsonOpt = False) -> None:
    """Rebuild the vector index from DuckDB (the system of record), with the chosen --embedder,
    in an empty index directory (so a corrupt index cannot stop it)."""
    with _open(reembed=True, remote_ok=False, fresh_index=True) as memory:
        report = memory.reindex()
    if json_out:
        _print_json(report)
        return
    _say(f"reindexed: {report}")


@app.command("export")
def export_cmd(out: Annotated[Optional[Path], typer.Option(
                   "--out", "-o", dir_okay=False, help="File to write (default stdout).")] = None,
               user: Annotated[Optional[str], typer.Option(
                   "--user", "-u", help="Only this user.")] = None) -> None:
    """Export every record (of one user or all) as JSONL that `import` reads back exactly."""
    with _open(read_only=True) as memory:
        if user is not None and user not in memory.users():
            raise InvalidInputError(f"no user {user!r} in {STATE.server or STATE.store}",
                                    hint="memfold stats lists the users")
        count = _write_records(memory.export(user), out)
    if out:
        err_console.print(f"exported {count} records to {escape(str(out))}", highlight=False)


def _write_records(records: Iterator[dict[str, Any]], out: Path | None) -> int:
    """JSONL to stdout, or to ``out`` through a temporary file (a failure leaves no half file)."""
    if out is None:
        return _write_lines(records, sys.stdout)
    partial = out.with_name(out.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as handle:
            count = _write_lines(records, handle)
        os.replace(partial, out)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise InvalidInputError(f"cannot write {out}: {exc.strerror}", hint="check --out") from exc
    return count


def _write_lines(records: Iterator[dict[str, Any]], handle: IO[str]) -> int:
    count = 0
    for record in records:
        # hidden characters as \u escapes: the same JSON, and inert when it goes to a terminal
        handle.write(for_terminal(json.dumps(record, default=json_default, ensure_ascii=False)) + "\n")
        count += 1
    return count


@app.command("import")
def import_cmd(file: Annotated[Path, typer.Argument(
                   exists=True, dir_okay=False, readable=True,
                   help="A JSONL file written by `memfold export`.")],
               json_out: JsonOpt = False) -> None:
    """Import records written by `memfold export` (exact round trip)."""
    with _open(remote_ok=False) as memory:
        counts = memory.import_file(file)
    if json_out:
        _print_json(counts)
        return
    _table("Imported", ["kind", "records"], [[k, n] for k, n in sorted(counts.items())])


@app.command()
def forget(user: UserOpt,
           yes: Annotated[bool, typer.Option(
               "--yes", "-y", help="Do not ask for confirmation.")] = False,
           json_out: JsonOpt = False) -> None:
    """Erase every trace of a user: DuckDB rows (file rewritten), vectors, fold state."""
    if _server_url(STATE.store) is None:  # a server that owns the store does the work
        _refuse_if_held(Path(_settings().store), reading=False)  # before asking, not after
    if not yes and not typer.confirm(f"Erase every memory of user {user!r}?", err=True):
        err_console.print("nothing erased", highlight=False)
        raise typer.Exit(1)
    with _open() as memory:
        report = memory.forget(user)
    if json_out:
        _print_json(report)
        return
    _say(f"forgot {user}: {report.messages} messages, {report.facts} facts, "
         f"{report.events} events, {report.documents} document chunks, "
         f"{report.archive_items} archive items, "
         f"{report.vectors} vectors ({report.seconds:.1f}s)")


@app.command("remove-message")
def remove_message(msg_id: Annotated[str, typer.Argument(help="The msg_id to remove.")],
                   user: UserOpt, json_out: JsonOpt = False) -> None:
    """Delete one message and everything derived from it (facts, changelog rows, events,
    document chunks, archive rows, vectors, fold notes citing it)."""
    with _open() as memory:
        counts = memory.remove_message(user, msg_id)
    if json_out:
        _print_json(counts)
        return
    if not counts.get("messages"):
        err_console.print(f"no message {escape(repr(msg_id))} for user {escape(repr(user))}",
                          highlight=False)
        raise typer.Exit(1)
    _say("removed " + ", ".join(f"{n} {what.replace('_', ' ')}" for what, n in counts.items()))


@app.command()
def demo(store: Annotated[Optional[Path], typer.Option(
        help="Where to keep the demo store (default: a temporary directory).")] = None) -> None:
    """Ingest the shipped demo transcript and show routing, profile, events and recall."""
    from memfold.demo import run_demo

    with _global_options_in_env():
        run_demo(store)


@contextmanager
def _global_options_in_env() -> Iterator[None]:
    """run_demo builds its Memory from MEMFOLD_* variables: pass --embedder/--backend that way."""
    chosen = {"MEMFOLD_EMBEDDER": STATE.embedder, "MEMFOLD_BACKEND": STATE.backend}
    saved = {name: os.environ.get(name) for name in chosen}
    os.environ.update({name: value for name, value in chosen.items() if value is not None})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class _BenchCommands(MutableMapping[str, Any]):
    """The `memfold bench` subcommands, imported when first looked up (running or listing
    them): the benchmark code pulls in retrieval, numpy, scipy and bm25s (~0.6 s), which
    every other command, `memfold --help` included, would otherwise pay for at start-up."""

    def __init__(self) -> None:
        self._loaded: dict[str, Any] | None = None

    def _commands(self) -> dict[str, Any]:
        if self._loaded is None:
            try:
                from memfold.bench.cli import app as bench_app
            except ImportError as exc:  # the benchmark extras are optional
                raise ConfigError(f"the benchmark commands cannot be imported: {exc}",
                                  hint="pip install 'memfold[bench]'") from exc
            self._loaded = dict(typer.main.get_command(bench_app).commands)  # type: ignore[attr-defined]
        return self._loaded

    def __getitem__(self, name: str) -> Any:
        return self._commands()[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._commands()[name] = command

    def __delitem__(self, name: str) -> None:
        del self._commands()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._commands())

    def __len__(self) -> int:
        return len(self._commands())


def _bench_group() -> TyperGroup:
    return TyperGroup(name="bench", commands=_BenchCommands(), no_args_is_help=True,
                      help="Benchmarks: LoCoMo recall, your own transcripts.")


def _mount_service() -> None:
    from memfold.service.command import mount  # light: the app and uvicorn load when serving

    mount(app)


_mount_service()


def _mount_mcp() -> None:
    from memfold.mcp_server import mount  # the mcp SDK loads only when `memfold mcp` runs

    mount(app)


_mount_mcp()


def _mount_layers() -> None:
    from memfold.cli_layers import mount  # `memfold kb ...` and `memfold task ...`

    mount(app)


_mount_layers()


def main() -> None:
    """Entry point of `memfold` and `python -m memfold`."""
    app(prog_name="memfold")
