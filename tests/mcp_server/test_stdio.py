"""`python -m memfold.mcp_server` as a real subprocess, driven over stdio by the SDK's client."""

from __future__ import annotations

import os
import subprocess

import pytest
from mcp import Client

from memfold.config import Settings
from memfold.memory import Memory
from memfold.mcp_server import PROFILE_URI

from .conftest import (
    FAST_ENV,
    SERVER,
    TOOLS,
    error_text,
    read_json_resource,
    run_session,
    stdio_params,
    structured,
)


def test_lists_the_six_tools_none_of_which_takes_a_user_id(tmp_path):
    async def steps(client: Client):
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in run_session(stdio_params(tmp_path / "store"), steps)}

    assert set(tools) == TOOLS
    for tool in tools.values():
        properties = tool.input_schema.get("properties", {})
        assert "user_id" not in properties and "user" not in properties, tool.name
        assert all(spec.get("description") for spec in properties.values()), tool.name
        assert "pinned" in tool.description, tool.name  # the model is told the rule
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
    assert tools["forget"].input_schema["required"] == ["confirm"]
    assert tools["forget"].annotations.destructive_hint is True
    assert tools["recall"].annotations.read_only_hint is True


def test_remember_then_recall_returns_the_text_with_its_msg_id_as_source(tmp_path):
    text = "I'm vegetarian, so no meat please."

    async def steps(client: Client):
        remembered = structured(await client.call_tool("remember", {"text": text}))
        recalled = structured(await client.call_tool("recall", {"query": "no meat please", "k": 5}))
        return remembered, recalled

    remembered, recalled = run_session(stdio_params(tmp_path / "store"), steps)

    msg_id = remembered["msg_id"]
    assert len(msg_id) == 32 and remembered["decision"]["msg_id"] == msg_id  # a fresh uuid4 hex
    assert remembered["user_id"] == "u1" and remembered["decision"]["kind"] == "FACT"
    matching = [item for item in recalled["items"] if item["text"] == text]
    assert matching and msg_id in matching[0]["sources"]
    assert isinstance(matching[0]["score"], float)


def test_the_remembered_message_is_on_disk_for_the_pinned_user_only(tmp_path):
    store = tmp_path / "store"

    async def steps(client: Client):
        return structured(await client.call_tool("remember", {
            "text": "I moved to Porto last weekend.", "msg_id": "m1", "speaker": "Maya",
            "ts": "2026-03-20T08:05:00+01:00"}))

    run_session(stdio_params(store, user="maya"), steps)

    with Memory.open(settings=Settings(store=store, embedder="hashing", backend="offline"),
                     read_only=True) as memory:
        assert memory.users() == ["maya"]
        (stored,) = [r["data"] for r in memory.export("maya") if r["type"] == "message"]
    assert (stored["msg_id"], stored["speaker"], stored["role"]) == ("m1", "Maya", "user")
    assert stored["ts"].startswith("2026-03-20T07:05:00")  # +01:00 stored as UTC


def test_forget_without_confirm_is_refused_and_erases_nothing(tmp_path):
    async def steps(client: Client):
        await client.call_tool("remember", {"text": "My sister Rita works as a nurse.", "msg_id": "r1"})
        missing = error_text(await client.call_tool("forget", {}))
        declined = error_text(await client.call_tool("forget", {"confirm": False}))
        as_text = error_text(await client.call_tool("forget", {"confirm": "true"}))
        kept = structured(await client.call_tool("recall", {"query": "Rita nurse"}))
        erased = structured(await client.call_tool("forget", {"confirm": True}))
        after = structured(await client.call_tool("recall", {"query": "Rita nurse"}))
        return missing, declined, as_text, kept, erased, after

    missing, declined, as_text, kept, erased, after = run_session(stdio_params(tmp_path / "s"), steps)

    assert "confirm" in missing and "Field required" in missing
    assert "forget refused: nothing was erased" in declined and "confirm=true" in declined
    assert "confirm" in as_text  # only a JSON true erases, not the string "true"
    assert any("r1" in item["sources"] for item in kept["items"])
    assert erased["user_id"] == "u1" and erased["messages"] == 1
    assert after["items"] == []


def test_a_memfold_error_becomes_a_tool_error_with_message_and_hint(tmp_path):
    async def steps(client: Client):
        await client.call_tool("remember", {"text": "I live in Lisbon.", "msg_id": "dup"})
        clash = error_text(await client.call_tool("remember", {"text": "Other words.", "msg_id": "dup"}))
        blank = error_text(await client.call_tool("remember", {"text": "   "}))
        still_serving = structured(await client.call_tool("profile", {}))
        return clash, blank, still_serving

    clash, blank, still_serving = run_session(stdio_params(tmp_path / "store"), steps)

    assert "InvalidMessageError" in clash and "already stored" in clash and "remove_message" in clash
    assert "InvalidMessageError" in blank and "text must not be empty" in blank
    for text in (clash, blank):
        assert "Traceback" not in text and 'File "' not in text
    assert [fact["key"] for fact in still_serving["facts"]] == ["location"]


def test_the_profile_resource_returns_the_pinned_users_profile(tmp_path):
    async def steps(client: Client):
        await client.call_tool("remember", {"text": "I'm vegetarian, so no meat please.", "msg_id": "d1"})
        listed = (await client.list_resources()).resources
        resource = read_json_resource(await client.read_resource(PROFILE_URI))
        tool = structured(await client.call_tool("profile", {}))
        return listed, resource, tool

    listed, resource, tool = run_session(stdio_params(tmp_path / "store"), steps)

    assert [str(r.uri) for r in listed] == [PROFILE_URI]
    assert resource["user_id"] == "u1"
    (fact,) = resource["facts"]
    assert (fact["key"], fact["value"], fact["sources"]) == ("diet", "vegetarian", ["d1"])
    assert resource == tool


@pytest.mark.parametrize("args", [[], ["--user", "  "]], ids=["no user", "blank user"])
def test_refuses_to_start_without_a_user(tmp_path, args):
    env = {k: v for k, v in os.environ.items() if k not in ("MEMFOLD_USER", "ANTHROPIC_API_KEY")}
    done = subprocess.run([*SERVER, "--store", str(tmp_path / "store"), *args],
                          env={**env, **FAST_ENV}, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)

    assert done.returncode == 1
    assert "MEMFOLD_USER" in done.stderr and "--user" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert not (tmp_path / "store").exists()  # refused before the store was touched


def test_a_store_held_by_another_writer_is_refused_in_one_line(tmp_path):
    store = tmp_path / "store"
    settings = Settings(store=store, embedder="hashing", backend="offline")
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    with Memory.open(settings=settings):  # this test process is the writer
        done = subprocess.run([*SERVER, "--store", str(store), "--user", "u1"],
                              env={**env, **FAST_ENV}, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)

    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "held for writing" in lines[0]
    assert str(os.getpid()) in lines[0] and done.stdout == ""
