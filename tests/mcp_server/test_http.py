"""`memfold mcp --transport http`: streamable HTTP on a loopback port, a real subprocess."""

from __future__ import annotations

import signal

from mcp import Client

from memfold.config import Settings
from memfold.memory import Memory
from memfold.mcp_server import PROFILE_URI

from .conftest import TOOLS, http_server, read_json_resource, run_session, structured


def test_streamable_http_remember_recall_and_a_clean_stop(tmp_path):
    store = tmp_path / "store"
    text = "My sister Rita works as a nurse."

    async def steps(client: Client):
        names = {tool.name for tool in (await client.list_tools()).tools}
        remembered = structured(await client.call_tool("remember", {"text": text, "msg_id": "h1"}))
        recalled = structured(await client.call_tool("recall", {"query": "Rita works as a nurse"}))
        profile = read_json_resource(await client.read_resource(PROFILE_URI))
        return names, remembered, recalled, profile

    with http_server(store, user="maya") as (url, process):
        names, remembered, recalled, profile = run_session(url, steps)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0  # SIGTERM stops it cleanly, the store closed
        assert "serving on http://127.0.0.1:" in process.stderr.read()

    assert names == TOOLS
    assert remembered["user_id"] == "maya" and remembered["msg_id"] == "h1"
    assert any(item["text"] == text and "h1" in item["sources"] for item in recalled["items"])
    facts = {(f["subject"], f["key"]): (f["value"], f["sources"]) for f in profile["facts"]}
    assert facts[("Rita", "job")] == ("nurse", ["h1"]) and profile["user_id"] == "maya"
    settings = Settings(store=store, embedder="hashing", backend="offline")
    with Memory.open(settings=settings) as memory:  # writable: the server let go of the store
        assert [m["data"]["text"] for m in memory.export("maya") if m["type"] == "message"] == [text]
