"""Issue 17 item 1: a user id is exactly its characters (NFC-normalised). Ids that differ
only by Unicode whitespace never read or overwrite each other's data: such an id is
refused with a clear error, never stripped; control and format characters are refused."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.embed import HashingEmbedder
from memfold.errors import InvalidInputError
from memfold.memory import Memory

WHITESPACE = [" ", "\t", "\u00a0", "\u2003", "\u3000", "\u2009", "\u202f", "\u205f", "\u1680"]
HIDDEN = ["\u200b", "\u200d", "\u202e", "\u2066", "\ufeff", "\x00", "\x1b", "\u00ad"]


def _msg(user: str, msg_id: str = "m1", text: str = "I live in Lisbon.") -> dict:
    return {"msg_id": msg_id, "user_id": user, "speaker": "Alice", "text": text,
            "ts": "2026-03-02T09:00:00+00:00"}


@pytest.fixture
def memory():
    mem = Memory.in_memory(embedder=HashingEmbedder())
    mem.ingest(_msg("alice"))
    yield mem
    mem.close()


@pytest.mark.parametrize("space", WHITESPACE, ids=[f"U+{ord(c):04X}" for c in WHITESPACE])
@pytest.mark.parametrize("where", ["before", "after"])
def test_an_id_with_surrounding_whitespace_is_refused_for_reads_and_writes(memory, space, where):
    user = space + "alice" if where == "before" else "alice" + space
    report = memory.ingest_many([_msg(user, "m2", "I moved to Porto.")])
    assert report.accepted == 0 and report.rejected and "whitespace" in report.rejected[0].error
    for read in (lambda: memory.recall("where do I live?", user), lambda: memory.profile(user),
                 lambda: memory.context("where?", user), lambda: memory.forget(user)):
        with pytest.raises(InvalidInputError, match="whitespace"):
            read()
    assert memory.users() == ["alice"]
    assert [m["data"]["text"] for m in memory.export("alice") if m["type"] == "message"] == ["I live in Lisbon."]


@pytest.mark.parametrize("char", HIDDEN, ids=[f"U+{ord(c):04X}" for c in HIDDEN])
def test_an_id_with_hidden_characters_is_refused(memory, char):
    report = memory.ingest_many([_msg("ali" + char + "ce", "m3")])
    assert report.accepted == 0 and report.rejected
    with pytest.raises(InvalidInputError):
        memory.profile("ali" + char + "ce")


def test_composed_and_decomposed_forms_are_one_user():
    memory = Memory.in_memory(embedder=HashingEmbedder())
    composed, decomposed = "jos\u00e9", "jose\u0301"
    memory.ingest(_msg(composed))
    assert memory.users() == [composed]
    assert [m.msg_id for m in memory.explain(decomposed, "user", "location").evidence] in ([], ["m1"])
    assert memory.stats()["users"][composed]["messages"] == 1
    assert len(memory.recall("where do I live?", decomposed).items) >= 1
    memory.close()


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=12))
def test_any_id_either_round_trips_exactly_or_is_refused(user):
    memory = Memory.in_memory(embedder=HashingEmbedder())
    report = memory.ingest_many([_msg(user)])
    if report.accepted:
        assert memory.users() == [unicodedata.normalize("NFC", user)]
    else:
        assert report.rejected and memory.users() == []
    memory.close()
