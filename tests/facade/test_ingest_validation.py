"""Bad input is rejected with a clear MemfoldError subclass and nothing is partially stored."""

from __future__ import annotations

import pytest

from memfold.errors import InvalidMessageError, MemfoldError

from .conftest import msg


BAD = [
    ({"text": ""}, "text"),
    ({"text": "   \n "}, "text"),
    ({"msg_id": ""}, "msg_id"),
    ({"user_id": ""}, "user_id"),
    ({"ts": "not a date"}, "ts"),
    ({"ts": "2024-05-08T13:56:00"}, "ts"),  # naive: no timezone
    ({"ts": "2999-01-01T00:00:00+00:00"}, "ts"),  # far future
    ({"role": "system"}, "role"),
    ({"text": "x" * 300_000}, "text"),  # over max_text_chars
]


@pytest.mark.parametrize("override,field", BAD)
def test_bad_message_rejected_with_field_and_nothing_stored(memory, override, field):
    record = {**msg("m1", "I live in Lisbon."), **override}
    with pytest.raises(InvalidMessageError) as info:
        memory.ingest(record)
    assert isinstance(info.value, MemfoldError)
    assert info.value.field is not None and field in info.value.field
    assert memory.stores.log.count("ana") == 0
    assert memory.stores.archive.count("ana") == 0
    assert memory.profile("ana") == []


def test_missing_id_is_rejected(memory):
    record = msg("m1", "hello there")
    del record["msg_id"]
    with pytest.raises(InvalidMessageError) as info:
        memory.ingest(record)
    assert info.value.field == "msg_id"


def test_one_bad_message_does_not_lose_the_others(memory):
    report = memory.ingest_many([
        msg("m1", "I live in Lisbon.", minutes=0),
        msg("m2", "", minutes=1),
        msg("m3", "Yesterday I went hiking in Sintra.", minutes=2),
        msg("m1", "a different text under a used id", minutes=3),
    ])
    assert report.accepted == 2
    assert [r.position for r in report.rejected] == [2, 4]
    assert {m.msg_id for m in memory.stores.log.list("ana")} == {"m1", "m3"}


def test_reingest_is_idempotent_and_conflicting_id_rejected(memory):
    first = memory.ingest_many([msg("m1", "I live in Lisbon.")])
    again = memory.ingest_many([msg("m1", "I live in Lisbon.")])
    clash = memory.ingest_many([msg("m1", "I live in Porto.")])
    assert (first.accepted, again.accepted, again.duplicates) == (1, 0, 1)
    assert clash.accepted == 0 and clash.rejected[0].field == "msg_id"
    assert memory.stores.log.get("ana", ["m1"])[0].text == "I live in Lisbon."
