"""``memfold mcp``: one user's memory as an MCP server (six tools and a profile resource).

Built with the official ``mcp`` SDK (2.x: ``mcp.server.mcpserver.MCPServer``) over any
:class:`memfold.api.MemoryAPI`: the embedded :class:`memfold.memory.Memory`, or a
:class:`memfold.client.MemoryClient` talking to the ``memfold serve`` that owns the store
(the command picks it as every CLI command does). Only the Protocol's methods are called::

    server = build_server(memory, user_id="maya")   # an MCPServer, not yet running
    run_server(server, Transport.stdio)            # or Transport.http, host, port

Identity: a server is pinned to ONE user id, fixed when it starts (``--user`` or
``MEMFOLD_USER``). No tool and no resource takes a user id, so whatever the model is told
(or tricked into by a prompt injection) it cannot read, write or erase another user's
memory through this server. To serve two users, run two servers.

Results are memfold's own records (pydantic models from :mod:`memfold.models`): the SDK
publishes their JSON schema as each tool's ``outputSchema`` and sends
``model_dump(mode="json")`` as ``structuredContent``, plus the same JSON as text for
clients that ignore structured content.

Errors: a :class:`memfold.errors.MemfoldError` becomes a tool error (``isError: true``) whose
text names the error class, says what went wrong and what to do (the hint); a resource read
that fails becomes a JSON-RPC error with the same text. Tracebacks stay in this process.

Import cost: ``memfold.cli`` imports this module to mount the command, so the module imports
only typer, pydantic and memfold's records at the top; the SDK (about 1 s of imports) and the
embedded store are imported when a server is built.
"""

from __future__ import annotations

import functools
import inspect
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, redirect_stdout
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional, ParamSpec, TypeVar

import typer
from pydantic import BaseModel, ConfigDict, Field

from memfold import __version__
from memfold.api import MemoryAPI
from memfold.errors import ConfigError, InvalidInputError, MemfoldError
from memfold.models import (
    Context,
    Explanation,
    ForgetReport,
    ProfileFact,
    RecallResult,
    Role,
    RouteDecision,
    utcnow,
)

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["PROFILE_URI", "PinnedMemoryTools", "Transport", "build_server", "mcp_command",
           "mount", "run_server"]

PROFILE_URI = "memfold://profile"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8751
HTTP_PATH = "/mcp"  # the SDK's default streamable-HTTP endpoint
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}

_PINNED = ("\n\nActs only on the one user this server is pinned to (set when the server "
           "started); there is no user_id argument and no way to reach another user's memory.")

_P = ParamSpec("_P")
_R = TypeVar("_R")


class Transport(str, Enum):
    stdio = "stdio"
    http = "http"


# -- result records that memfold's API does not already have ------------------------------


class Remembered(BaseModel):
    """What ``remember`` stored: the id to cite later, and where the router sent the message."""

    model_config = ConfigDict(frozen=True)

    msg_id: str = Field(description="The id the message is stored under; recall cites it in `sources`.")
    user_id: str = Field(description="The user this server is pinned to.")
    ts: datetime = Field(description="The message's time (UTC).")
    decision: RouteDecision = Field(
        description="The router's decision: kind FACT / EVENT / DOCUMENT / NONE, the profile facts "
                    "or the dated event it extracted, and why.")


class ProfileView(BaseModel):
    """The current profile facts of the pinned user, each with the msg ids that state it."""

    model_config = ConfigDict(frozen=True)

    user_id: str
    subject: Optional[str] = Field(description="The subject asked for; null means every subject.")
    facts: list[ProfileFact]


# -- errors -------------------------------------------------------------------------------


def error_text(exc: MemfoldError) -> str:
    """One line for the model: the kind of error, what happened, and what to do about it.
    The message stops before DuckDB's echo of the statement (a line starting ``LINE ``)."""
    text = f"{type(exc).__name__}: {exc.summary or 'failed'}"
    return f"{text} (hint: {exc.hint})" if exc.hint else text


def _tool(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Make a method an MCP tool body. A MemfoldError becomes an anticipated tool error (the
    SDK sends its text as an ``isError`` result and logs one line; anything else stays a crash
    with a generic message). The description gets the pinned-user rule, which the model must
    read in every tool."""

    @functools.wraps(fn)
    def translated(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except MemfoldError as exc:
            from mcp.server.mcpserver.exceptions import ToolError

            raise ToolError(error_text(exc)) from exc

    translated.__doc__ = _reflow(fn.__doc__ or "") + _PINNED
    return translated


def _reflow(doc: str) -> str:
    """A docstring as the model should read it: paragraphs, not source-code line breaks."""
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


# -- the tools ------------------------------------------------------------------------------


class PinnedMemoryTools:
    """The MCP tools over one MemoryAPI, pinned to one user id. Each ``@_tool`` method is a
    tool: its docstring is the description the model reads, its Field descriptions the input
    schema; ``read_profile`` backs the profile resource."""

    def __init__(self, memory: MemoryAPI, user_id: str, *,
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.memory = memory
        self.user_id = pinned_user(user_id)
        self.clock = clock
        # MemoryAPI's contract: a server runs write methods one at a time (reads need no lock)
        self._write_lock = threading.Lock()

    @_tool
    def remember(
        self,
        text: Annotated[str, Field(min_length=1, description="The message's words, verbatim.")],
        role: Annotated[Role, Field(
            description="Who produced it: user (the person), assistant (you), tool (a tool's "
                        "output) or document (reference material to keep).")] = "user",
        speaker: Annotated[Optional[str], Field(
            description="Display name of the speaker, e.g. 'Maya'. Default: the role.")] = None,
        ts: Annotated[Optional[datetime], Field(
            description="When it was said, ISO-8601 (e.g. 2026-03-20T08:05:00Z). Default: now. "
                        "A time without a zone is read as UTC. Dates like 'yesterday' in the "
                        "text are resolved against this time.")] = None,
        msg_id: Annotated[Optional[str], Field(
            description="A unique id for the message. Default: a fresh random id. Sending the "
                        "same id with the same text again is a no-op.")] = None,
    ) -> Remembered:
        """Store one message in long-term memory. The router files it where it can be found:
        a stable fact about the user goes to the profile, something that happened goes to the
        dated event log, reference material to the archive; every message stays searchable.
        Returns the msg_id (recall cites it as a source) and the routing decision."""
        when = _as_utc(ts) if ts is not None else self.clock()
        message = {"msg_id": msg_id or uuid.uuid4().hex, "user_id": self.user_id, "role": role,
                   "speaker": speaker or role, "text": text, "ts": when}
        with self._write_lock:
            decision = self.memory.ingest(message)
        return Remembered(msg_id=decision.msg_id, user_id=self.user_id, ts=when, decision=decision)

    @_tool
    def recall(
        self,
        query: Annotated[str, Field(min_length=1, description=(
            "A question or topic in natural language, e.g. 'where does the user live?' or "
            "'what did we decide about the trip last week?'."))],
        k: Annotated[int, Field(ge=1, le=100, description="How many items at most.")] = 10,
    ) -> RecallResult:
        """Recall memories that answer a question, best first. The question chooses the store:
        fact questions read the profile, 'when / last week' questions the event log, open
        questions search every message. Each item has its text, a score and its `sources`
        (the msg_ids of the messages it comes from)."""
        return self.memory.recall(query, self.user_id, k=k)

    @_tool
    def context(
        self,
        query: Annotated[str, Field(min_length=1, description=(
            "What the next answer is about; chooses which memories fill the budget."))],
        budget_tokens: Annotated[int, Field(ge=1, le=200_000, description=(
            "Token budget for the whole assembled context."))] = 2000,
    ) -> Context:
        """Assemble a ready-to-use prompt context under a token budget: `system` (durable
        knowledge, the profile, a digest of earlier episodes, recalled memories with their
        sources) and `messages` (the recent turns), plus how the budget was spent."""
        return self.memory.context(query, self.user_id, budget_tokens=budget_tokens)

    @_tool
    def profile(
        self,
        subject: Annotated[Optional[str], Field(description=(
            "Only facts about this subject: 'user' for the person, or a name such as "
            "'sister'. Default: every subject."))] = None,
    ) -> ProfileView:
        """The user's current profile: stable facts (name, diet, home, job, people...) as
        subject / key / value, each with the msg_ids that state it."""
        facts = self.memory.profile(self.user_id, subject)
        return ProfileView(user_id=self.user_id, subject=subject, facts=facts)

    @_tool
    def explain(
        self,
        key: Annotated[str, Field(min_length=1, description="The profile key, e.g. 'diet'.")],
        subject: Annotated[str, Field(min_length=1, description=(
            "Who the fact is about: 'user' for the person, or a name."))] = "user",
    ) -> Explanation:
        """How memfold knows a profile fact: the current value, every change (when, from what
        to what, by whom) and the quoted messages that are its evidence."""
        return self.memory.explain(self.user_id, subject, key)

    @_tool
    def forget(
        self,
        confirm: Annotated[bool, Field(strict=True, description=(
            "Must be true to erase. Set it only when the user has explicitly asked to delete "
            "all of their memory."))],
    ) -> ForgetReport:
        """Erase EVERY memory of the user (messages, profile, events, archive, vectors):
        irreversible. Refused unless confirm is true. Returns what was erased."""
        if confirm is not True:
            raise InvalidInputError("forget refused: nothing was erased",
                                    hint="call forget with confirm=true, only if the user asked "
                                         "to delete all of their memory")
        with self._write_lock:
            return self.memory.forget(self.user_id)

    def read_profile(self) -> str:
        """The profile resource: the same JSON as the `profile` tool with no subject."""
        try:
            facts = self.memory.profile(self.user_id)
        except MemfoldError as exc:
            from mcp.server.mcpserver.exceptions import ResourceError

            raise ResourceError(error_text(exc)) from exc
        return ProfileView(user_id=self.user_id, subject=None, facts=facts).model_dump_json(indent=2)


def pinned_user(user_id: str | None) -> str:
    """The one user id a server serves; refuse to start without one."""
    from memfold.models import check_identity

    if user_id is None or not user_id.strip():
        raise ConfigError("memfold mcp serves exactly one user, and none was given",
                          hint="pass --user USER_ID or set MEMFOLD_USER")
    try:  # exact, as everywhere: "alice " is not alice, and is not silently made alice
        return check_identity(user_id)
    except ValueError as exc:
        raise ConfigError(f"--user: {exc}") from exc


def _as_utc(ts: datetime) -> datetime:
    if ts.tzinfo is None or ts.utcoffset() is None:
        return ts.replace(tzinfo=timezone.utc)
    return ts.astimezone(timezone.utc)


# -- the server -------------------------------------------------------------------------------

def build_server(memory: MemoryAPI, user_id: str, *, name: str = "memfold") -> MCPServer:
    """An MCP server (not yet running) whose tools and resource act on ``user_id`` only.
    The caller owns ``memory`` and closes it after the server stops."""
    from mcp.server.mcpserver import MCPServer

    tools = PinnedMemoryTools(memory, user_id)
    # WARNING, not the SDK's INFO: at INFO it logs every failed call with its text, which
    # quotes the user's memories, into the client's log files.
    server: MCPServer = MCPServer(name, title="memfold memory", version=__version__,
                                  instructions=_instructions(tools.user_id), log_level="WARNING")
    for tool_name, hints in _tool_annotations().items():
        server.add_tool(getattr(tools, tool_name), annotations=hints)
    _add_profile_resource(server, tools)
    return server


def _instructions(user_id: str) -> str:
    return (f"Long-term memory of user {user_id!r} (memfold). Call `remember` with what the user "
            "tells you that is worth keeping, `recall` or `context` before answering from memory, "
            "and cite `sources` (msg ids) when asked how you know. This server serves only "
            f"{user_id!r}: no tool takes a user id.")


def _tool_annotations() -> dict[str, Any]:
    """Hints a client uses to decide what needs the user's approval (forget: destructive)."""
    from mcp_types import ToolAnnotations

    def hints(title: str, *, read_only: bool, destructive: bool = False,
              idempotent: bool = True) -> ToolAnnotations:
        return ToolAnnotations(title=title, read_only_hint=read_only, destructive_hint=destructive,
                               idempotent_hint=idempotent, open_world_hint=False)

    return {
        "remember": hints("Remember a message", read_only=False, idempotent=False),
        "recall": hints("Recall memories", read_only=True),
        "context": hints("Assemble a prompt context", read_only=True),
        "profile": hints("Show the profile", read_only=True),
        "explain": hints("Explain a profile fact", read_only=True),
        "forget": hints("Erase all of this user's memory", read_only=False, destructive=True),
    }


def _add_profile_resource(server: MCPServer, tools: PinnedMemoryTools) -> None:
    """The profile as ONE static resource, ``memfold://profile``, rather than a template such
    as ``memfold://users/{user_id}/profile``: the server serves one user, so a ``user_id``
    variable could take one valid value and would invite the model to try others; and a
    static resource appears in ``resources/list``, so clients can show and attach it, while
    a template must be filled in first."""
    server.resource(PROFILE_URI, name="profile", title=f"Profile of {tools.user_id}",
                    description="The current profile facts (subject, key, value, sources) of "
                                f"user {tools.user_id!r}, the one user this server serves.",
                    mime_type="application/json")(tools.read_profile)


def run_server(server: MCPServer, transport: Transport = Transport.stdio, *,
               host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> None:
    """Serve until the client hangs up (stdio) or the process is interrupted (http)."""
    if transport is Transport.http:
        server.run("streamable-http", host=host, port=port, streamable_http_path=HTTP_PATH)
    else:
        server.run("stdio")


# -- the command ------------------------------------------------------------------------------


def mcp_command(
    user: Annotated[Optional[str], typer.Option(
        "--user", "-u", envvar="MEMFOLD_USER", show_default=False,
        help="The ONE user id this server serves (required; default $MEMFOLD_USER). No tool "
             "takes a user id, so a client cannot reach another user's memory.")] = None,
    transport: Annotated[Transport, typer.Option(
        case_sensitive=False,
        help="stdio: the MCP client starts this process and talks over stdin/stdout. "
             f"http: streamable HTTP at http://HOST:PORT{HTTP_PATH}.")] = Transport.stdio,
    host: Annotated[str, typer.Option(
        help="Address to listen on with --transport http. The MCP endpoint has no "
             "authentication, so only loopback is allowed by default.")] = DEFAULT_HOST,
    port: Annotated[int, typer.Option(
        min=1, max=65535, help="Port to listen on with --transport http.")] = DEFAULT_PORT,
    store: Annotated[Optional[Path], typer.Option(
        "--store", show_default=False,
        help="Store directory (overrides the global --store / MEMFOLD_STORE).")] = None,
    allow_unauthenticated: Annotated[bool, typer.Option(
        "--allow-unauthenticated",
        help="Let --transport http listen on a non-loopback address (anyone who reaches the "
             "port can read and erase the user's memory).")] = False,
) -> None:
    """Serve one user's memory to MCP clients (Claude Desktop, Claude Code, agent frameworks):
    tools remember, recall, context, profile, explain and forget (confirm=true), and the
    profile as the resource memfold://profile. It opens the store for writing, or sends its
    calls to the `memfold serve` that owns the store (--server / MEMFOLD_SERVER)."""
    user_id = pinned_user(user)  # before anything slow: a missing user fails at once
    if transport is Transport.http and host not in _LOOPBACK and not allow_unauthenticated:
        raise ConfigError(f"refusing to serve MCP on {host}: the endpoint has no authentication",
                          hint="keep --host on loopback, or pass --allow-unauthenticated")
    _exit_cleanly_on_sigterm()
    with _open_store(store, user_id) as memory:
        server = build_server(memory, user_id)
        _announce(memory, user_id, transport, host, port)
        try:
            run_server(server, transport, host=host, port=port)
        except KeyboardInterrupt:  # Ctrl-C is how an http server is stopped by hand
            pass


def _exit_cleanly_on_sigterm() -> None:
    """SIGTERM (a client ending its stdio server, a supervisor stopping the http one) becomes
    SystemExit, so the ``with`` that owns the store closes it. By default the signal kills the
    process at once; uvicorn shuts down gracefully but then re-raises the signal, to the same
    effect. Acknowledged writes are durable either way; this also closes the files cleanly."""
    def stop(signum: int, frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)


@contextmanager
def _open_store(store: Path | None, user_id: str) -> Iterator[MemoryAPI]:
    """The CLI's own way of opening a store, so `memfold mcp` behaves like every other command:
    the settings, the check for a store held by another writer, a `memfold serve` that owns
    the store taking the calls, the warning for a user the store has never seen."""
    from memfold import cli

    if store is not None:
        cli.STATE.store = store
    with ExitStack() as stack:
        # a stray print while the store and the model load would corrupt the stdio channel;
        # only while opening: serving needs the real stdout (the SDK guards it from then on)
        with redirect_stdout(sys.stderr):
            memory = stack.enter_context(cli._open(user=user_id))
        yield memory


def _announce(memory: MemoryAPI, user_id: str, transport: Transport, host: str, port: int) -> None:
    from memfold import cli

    url = getattr(memory, "url", None)  # a MemoryClient: the calls go to that server
    source = f"memfold serve at {url}" if url else f"store {cli.STATE.store}"
    where = f"http://{host}:{port}{HTTP_PATH}" if transport is Transport.http else "stdio"
    print(f"memfold mcp: user {user_id!r}, {source}, serving on {where}", file=sys.stderr)


def mount(app: typer.Typer) -> None:
    """Register ``mcp`` as a command of the memfold CLI."""
    app.command("mcp")(mcp_command)


def main() -> None:
    """``python -m memfold.mcp_server``: the command without the rest of the CLI around it.
    The root callback does not run here, so its options come from their MEMFOLD_* variables."""
    import os

    from memfold import cli

    cli.STATE.store = Path(os.environ.get("MEMFOLD_STORE") or cli.DEFAULT_STORE)
    cli.STATE.server = os.environ.get("MEMFOLD_SERVER") or None
    cli.STATE.api_key = os.environ.get("MEMFOLD_API_KEY") or None
    standalone = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    standalone.command()(mcp_command)
    try:
        standalone(prog_name="memfold mcp")
    except MemfoldError as exc:
        cli._print_error(exc)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
