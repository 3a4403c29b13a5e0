"""The server in this process (the SDK's in-process Client) over a real in-memory Memory:
the pinned-user rule, time handling, error text, and that only MemoryAPI is used."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from typing import Any

import anyio
import pytest
import typer
from mcp import Client
from typer.testing import CliRunner

from memfold.api import MemoryAPI
from memfold.client import MemoryClient
from memfold.errors import ConfigError, StoreError, UnknownUserError
from memfold.memory import Memory
from memfold.mcp_server import build_server, error_text, mount
from memfold.service.app import create_app
from memfold.service.server import running_in_thread

from .conftest import error_text as tool_error, structured

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


class ProtocolOnly:
    """A working MemoryAPI that exposes nothing but the Protocol's methods (as the remote
    MemoryClient will): a server reaching for Memory internals fails against it."""

    _ALLOWED = {name for name in dir(MemoryAPI) if not name.startswith("_")}

    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def __getattr__(self, name: str) -> Any:
        if name not in self._ALLOWED:
            raise AttributeError(f"{name} is not part of MemoryAPI")
        return getattr(self._memory, name)


@pytest.fixture
def memory():
    mem = Memory.in_memory()
    mem.ingest({"msg_id": "b1", "user_id": "ben", "text": "I'm Ben and I live in Leeds.", "ts": T0})
    yield mem
    mem.close()


def call(memory: Any, user: str, steps: Callable[[Client], Awaitable[Any]]) -> Any:
    async def session() -> Any:
        async with Client(build_server(memory, user)) as client:
            return await steps(client)

    return anyio.run(session)


def test_a_server_pinned_to_one_user_never_reaches_another(memory):
    async def steps(client: Client):
        await client.call_tool("remember", {"text": "I live in Lisbon.", "msg_id": "a1"})
        recalled = structured(await client.call_tool("recall", {"query": "I live in Leeds"}))
        profile = structured(await client.call_tool("profile", {}))
        smuggled = await client.call_tool("profile", {"user_id": "ben"})  # not an argument
        erased = structured(await client.call_tool("forget", {"confirm": True}))
        return recalled, profile, smuggled, erased

    recalled, profile, smuggled, erased = call(ProtocolOnly(memory), "ana", steps)

    assert all("b1" not in item["sources"] for item in recalled["items"])
    assert {f["user_id"] for f in profile["facts"]} == {"ana"}
    assert {f["user_id"] for f in structured(smuggled)["facts"]} == {"ana"}  # the extra key is ignored
    assert erased["user_id"] == "ana" and erased["messages"] == 1
    assert "Leeds" in [f.value for f in memory.profile("ben")]  # ben untouched


def test_message_times_without_a_zone_are_utc_and_the_default_is_the_servers_clock(memory):
    async def steps(client: Client):
        naive = structured(await client.call_tool("remember", {"text": "hello", "ts": "2026-03-01T10:00:00"}))
        offset = structured(await client.call_tool("remember", {"text": "hi", "ts": "2026-03-01T10:00:00-05:00"}))
        default = structured(await client.call_tool("remember", {"text": "hey", "role": "assistant"}))
        return naive, offset, default

    before = datetime.now(timezone.utc)
    naive, offset, default = call(memory, "ana", steps)

    assert naive["ts"] == "2026-03-01T10:00:00Z"
    assert offset["ts"] == "2026-03-01T15:00:00Z"
    assert datetime.fromisoformat(default["ts"]) >= before
    (said,) = [r["data"] for r in memory.export("ana")
               if r["type"] == "message" and r["data"]["text"] == "hey"]
    assert (said["role"], said["speaker"]) == ("assistant", "assistant")


def test_explain_and_context_return_their_records(memory):
    async def steps(client: Client):
        await client.call_tool("remember", {"text": "I'm vegetarian, so no meat please.", "msg_id": "v1"})
        why = structured(await client.call_tool("explain", {"key": "diet"}))
        ctx = structured(await client.call_tool("context", {"query": "dinner plans", "budget_tokens": 300}))
        return why, ctx

    why, ctx = call(memory, "ana", steps)

    assert why["current"]["value"] == "vegetarian" and why["current"]["sources"] == ["v1"]
    assert [m["msg_id"] for m in why["evidence"]] == ["v1"]
    assert "vegetarian" in ctx["system"] and 0 < ctx["tokens"] <= 300


def test_out_of_range_arguments_are_refused_by_the_schema(memory):
    async def steps(client: Client):
        return [tool_error(await client.call_tool(name, args)) for name, args in [
            ("recall", {"query": "x", "k": 0}), ("recall", {"query": ""}),
            ("context", {"query": "x", "budget_tokens": -1}), ("remember", {"text": "x", "role": "boss"})]]

    for text in call(memory, "ana", steps):
        assert "validation error" in text and "Traceback" not in text


def test_error_text_names_the_error_and_hint_and_drops_the_sql_echo():
    exc = StoreError("Binder Error: column x not found\nLINE 1: SELECT x FROM t\n        ^", hint="reindex")

    assert error_text(exc) == "StoreError: Binder Error: column x not found (hint: reindex)"
    assert error_text(UnknownUserError("no such user")) == "UnknownUserError: no such user"


def test_the_same_tools_over_a_memory_client_to_memfold_serve(memory):
    """The remote MemoryAPI: tools -> MemoryClient -> REST service -> Memory, errors included."""
    async def steps(client: Client):
        remembered = structured(await client.call_tool("remember", {"text": "I live in Lisbon.", "msg_id": "a1"}))
        recalled = structured(await client.call_tool("recall", {"query": "I live in Lisbon"}))
        clash = tool_error(await client.call_tool("remember", {"text": "Other.", "msg_id": "a1"}))
        return remembered, recalled, clash

    with running_in_thread(create_app(memory)) as url, MemoryClient(url) as remote:
        remembered, recalled, clash = call(remote, "ana", steps)

    assert remembered["decision"]["kind"] == "FACT"
    assert any("a1" in item["sources"] for item in recalled["items"])
    assert "already stored" in clash and "Traceback" not in clash
    assert "Lisbon" in [f.value for f in memory.profile("ana")]  # it reached the store behind


def _cli_with_mcp() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """A CLI to mount on."""

    mount(app)
    return app


def test_http_on_a_non_loopback_address_is_refused_without_the_flag(tmp_path):
    store = tmp_path / "store"
    result = CliRunner().invoke(_cli_with_mcp(), ["mcp", "--user", "u1", "--store", str(store),
                                                  "--transport", "http", "--host", "0.0.0.0"])

    assert isinstance(result.exception, ConfigError)
    assert "no authentication" in str(result.exception) and "--allow-unauthenticated" in str(result.exception)
    assert not store.exists()


def test_mount_adds_the_mcp_command_with_help():
    result = CliRunner().invoke(_cli_with_mcp(), ["mcp", "--help"])

    assert result.exit_code == 0, result.output
    for option in ("--user", "MEMFOLD_USER", "--transport", "--host", "--port", "--store"):
        assert option in result.output
