"""The server with the default embedder (the int8 MiniLM model), over stdio."""

from __future__ import annotations

import pytest
from mcp import Client

from .conftest import run_session, stdio_params, structured

SAID = [("t1", "We booked the train to Porto for the 14th."),
        ("t2", "My favourite colour is green."),
        ("t3", "The plumber comes on Friday to fix the kitchen sink."),
        ("t4", "Can you suggest a good book about Roman history?"),
        ("t5", "I have been learning to play the cello since spring."),
        ("t6", "The quarterly report is due at the end of the month."),
        ("t7", "Our cat knocked a glass off the table this morning."),
        ("t8", "I prefer window seats on long flights.")]


@pytest.mark.slow
def test_recall_by_meaning_with_the_default_embedder(tmp_path):
    async def steps(client: Client):
        for msg_id, text in SAID:
            structured(await client.call_tool("remember", {"text": text, "msg_id": msg_id}))
        return structured(await client.call_tool("recall", {"query": "what instrument am I studying?"}))

    # no MEMFOLD_EMBEDDER: the default model. The hashing embedder ranks t8 first here.
    recalled = run_session(stdio_params(tmp_path / "store", env={"MEMFOLD_BACKEND": "offline"}), steps)

    top = recalled["items"][0]
    assert top["sources"] == ["t5"] and "cello" in top["text"]
