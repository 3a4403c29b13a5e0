"""The indexing policy: what a batch of messages becomes in the archive."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memfold.errors import InvalidInputError
from memfold.models import EventExtraction, FactExtraction, Message, RouteDecision
from memfold.retrieval.indexing import CHUNK_WORDS, archive_items, chunk_text

from .conftest import T0, make_messages


def _none(messages: list[Message]) -> list[RouteDecision]:
    return [RouteDecision(msg_id=m.msg_id, kind="NONE") for m in messages]


def test_every_message_is_archived_as_its_raw_text() -> None:
    messages = make_messages("ana", ["hello there", "I adopted a cat", "ok"], speakers=["ana", "bo", "ana"])
    items = archive_items(messages, _none(messages), previous=None)
    assert [i.text for i in items] == ["hello there", "I adopted a cat", "ok"]
    assert [i.sources for i in items] == [["m0"], ["m1"], ["m2"]]
    assert [i.subject for i in items] == ["ana", "bo", "ana"]
    assert all(i.occurred_at == m.ts for i, m in zip(items, messages))
    # the dense key is the text ingest already embedded for the router: no second embedding
    assert all(i.key_text == m.indexed_text() for i, m in zip(items, messages))


def test_image_caption_is_part_of_the_archived_text() -> None:
    message = Message(msg_id="p1", user_id="ana", text="look at this", ts=T0, meta={"blip_caption": "a red kite"})
    [item] = archive_items([message], _none([message]), previous=None)
    assert "a red kite" in item.text and "a red kite" in item.key_text


def test_fact_and_event_messages_are_findable_as_raw_text_and_as_extraction() -> None:
    messages = make_messages("ana", ["I moved to Austin", "I ran a marathon yesterday"])
    when = datetime(2024, 3, 3, tzinfo=timezone.utc)
    decisions = [
        RouteDecision(msg_id="m0", kind="FACT", facts=[FactExtraction(key="home_city", value="Austin")]),
        RouteDecision(msg_id="m1", kind="EVENT", event=EventExtraction(text="ran a marathon", occurred_at=when)),
    ]
    items = archive_items(messages, decisions, previous=None)
    kinds = {(i.kind, tuple(i.sources)) for i in items}
    assert kinds == {("message", ("m0",)), ("fact", ("m0",)), ("message", ("m1",)), ("event", ("m1",))}
    fact = next(i for i in items if i.kind == "fact")
    event = next(i for i in items if i.kind == "event")
    assert "home city" in fact.key_text and "Austin" in fact.text
    assert event.occurred_at == when and "March 2024" in event.key_text


def test_deleting_a_fact_adds_no_extraction_row() -> None:
    [message] = make_messages("ana", ["forget my old address"])
    decision = RouteDecision(msg_id="m0", kind="FACT", facts=[FactExtraction(action="delete", key="address")])
    assert [i.kind for i in archive_items([message], [decision], previous=None)] == ["message"]


def test_item_ids_are_deterministic_and_unique() -> None:
    messages = make_messages("ana", ["a", "b"])
    first = archive_items(messages, _none(messages), previous=None)
    again = archive_items(messages, _none(messages), previous=None)
    other_user = archive_items(make_messages("bo", ["a", "b"]), _none(messages), previous=None)
    assert [i.item_id for i in first] == [i.item_id for i in again]
    assert len({i.item_id for i in first + other_user}) == 4


def test_long_messages_become_chunk_rows_with_the_same_source() -> None:
    text = " ".join(f"Sentence number {n} is here." for n in range(200))
    [message] = make_messages("ana", [text])
    items = archive_items([message], _none([message]), previous=None)
    assert len(items) > 1
    assert all(len(i.text.split()) <= CHUNK_WORDS and i.sources == ["m0"] for i in items)
    assert " ".join(i.text for i in items).split() == text.split()


def test_chunking_cuts_overlong_sentences() -> None:
    words = ["w"] * (CHUNK_WORDS * 2 + 5)
    chunks = list(chunk_text(" ".join(words)))
    assert [len(c.split()) for c in chunks] == [CHUNK_WORDS, CHUNK_WORDS, 5]


def test_misaligned_decisions_and_mixed_users_are_rejected() -> None:
    messages = make_messages("ana", ["a", "b"])
    with pytest.raises(InvalidInputError):
        archive_items(messages, _none(messages[:1]), previous=None)
    with pytest.raises(InvalidInputError):
        archive_items(messages, list(reversed(_none(messages))), previous=None)
    [other] = make_messages("bo", ["c"])
    with pytest.raises(InvalidInputError):
        archive_items(messages, _none(messages), previous=other)


def test_extraction_rows_can_be_turned_off() -> None:
    [message] = make_messages("ana", ["I moved to Austin"])
    decision = RouteDecision(msg_id="m0", kind="FACT", facts=[FactExtraction(key="home_city", value="Austin")])
    assert [i.kind for i in archive_items([message], [decision], extractions=False)] == ["message"]
    assert [i.kind for i in archive_items([message], [decision])] == ["message", "fact"]
