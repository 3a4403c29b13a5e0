"""What people actually tell an assistant, through the facade with the default embedder
(MiniLM q8, so the learned router head is in play): requests to remember, reminders,
changes of every key family, casual spelling, refused writes, and the user as subject."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from memfold.config import Settings, build_embedder
from memfold.embed.base import Embedder
from memfold.memory import Memory

T0 = datetime(2026, 6, 15, 12, tzinfo=timezone.utc)  # a Monday


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return build_embedder(Settings(embedder="minilm-q8"))


@pytest.fixture
def memory(embedder: Embedder) -> Iterator[Memory]:
    mem = Memory.in_memory(Settings(embedder="minilm-q8", backend="offline"), embedder=embedder)
    yield mem
    mem.close()


def say(memory: Memory, user: str, *texts: str, speaker: str = "user") -> None:
    for n, text in enumerate(texts):
        memory.ingest({"msg_id": f"{user}-{n}", "user_id": user, "speaker": speaker, "text": text,
                       "ts": (T0 + timedelta(hours=n)).isoformat()})


def current(memory: Memory, user: str, key: str) -> str | None:
    values = [f.value for f in memory.profile(user, "user") if f.key == key]
    return values[0] if values else None


def test_a_request_to_remember_stores_the_fact(memory: Memory) -> None:
    say(memory, "u1", "Can you remember that my wife's name is Priya?")
    assert current(memory, "u1", "partner") == "Priya"


def test_a_reminder_is_a_future_event_on_its_date(memory: Memory) -> None:
    decision = memory.ingest({"msg_id": "r1", "user_id": "u2", "text": "Remind me to call mom on Sunday",
                              "ts": T0.isoformat()})
    assert decision.kind == "EVENT"
    assert decision.event is not None and decision.event.occurred_at.date().isoformat() == "2026-06-21"


@pytest.mark.parametrize(("key", "before", "after", "old", "new"), [
    ("job", "I work as a barista at Northern Bean.", "I now work as a junior developer at Acme Software!",
     "barista", "junior developer"),
    ("employer", "I work as a barista at Northern Bean.", "I now work as a junior developer at Acme Software!",
     "Northern Bean", "Acme Software"),
    ("team", "I'm on the checkout team.", "btw I switched teams, I'm on the payments team now",
     "checkout", "payments"),
    ("location", "I live in Berlin.", "I no longer live in Berlin, I moved to Lisbon.", "Berlin", "Lisbon"),
    ("diet", "I'm vegetarian.", "I've gone vegan since last month", "vegetarian", "vegan"),
    ("birthday", "my birthday is June 3", "sorry my bday is actually june 13th", "June 3", "June 13"),
    ("favorite:coffee", "My favorite coffee is a flat white.", "My favorite coffee is a cortado now.",
     "flat white", "cortado"),
    ("possession:bike", "My bike is a red Trek.", "My bike is a blue Brompton", "red Trek", "blue Brompton"),
    ("partner", "My girlfriend's name is Maya.", "My girlfriend's name is Lena now, Maya and I split.",
     "Maya", "Lena"),
])
def test_a_change_replaces_the_value_and_the_changelog_keeps_both(
        memory: Memory, key: str, before: str, after: str, old: str, new: str) -> None:
    say(memory, "u3", before, after)
    assert current(memory, "u3", key) == new
    history = memory.profile_history("u3", "user", key)
    assert {old, new} <= {v for row in history for v in (row.old_value, row.new_value)}


def test_casual_spelling_still_writes_the_fact(memory: Memory) -> None:
    say(memory, "u4", "my wifes name is priya", "im allergic to shellfish lol")
    assert current(memory, "u4", "partner") == "Priya"
    assert current(memory, "u4", "allergy:shellfish") == "shellfish"


def test_a_task_prompt_writes_no_fact(memory: Memory) -> None:
    say(memory, "u5", "give me a recipe without sweet potato")
    assert memory.profile("u5") == []


def test_the_display_name_of_the_user_is_an_alias_of_user(memory: Memory) -> None:
    say(memory, "sam", "I live in Austin.", speaker="Sam")
    assert current(memory, "sam", "location") == "Austin"
    assert memory.explain("sam", "user", "location").current is not None


def test_a_question_about_the_user_consults_the_profile_whatever_the_spelling(memory: Memory) -> None:
    say(memory, "u6", "My wife's name is Priya.")
    result = memory.recall("whats my wifes name", "u6", now=T0 + timedelta(days=1))
    assert result.intents["fact"] == max(result.intents.values())  # the profile is queried
    assert "Priya" in result.items[0].text


def test_a_when_question_without_a_range_reaches_the_event_log(memory: Memory) -> None:
    say(memory, "u7", "My dentist appointment is on Thursday at 3pm.")
    result = memory.recall("When is my dentist appointment?", "u7", now=T0 + timedelta(hours=2))
    assert any(item.store == "events" for item in result.items)


class _UngroundedBackend:
    """A backend that "infers" a value the message never says (what a careless model does)."""

    name = "ungrounded"

    def __init__(self, inner) -> None:  # noqa: ANN001 - any Backend
        self.inner = inner

    def complete_json(self, system, user, schema, *, fallback):  # noqa: ANN001, ANN201
        return fallback()

    def route(self, message, context):  # noqa: ANN001, ANN201
        return self.route_many([message], [context])[0]

    def route_many(self, messages, contexts):  # noqa: ANN001, ANN201
        from memfold.models import FactExtraction

        out = []
        for decision, message in zip(self.inner.route_many(messages, contexts), messages):
            invented = FactExtraction(key="location", value="Atlantis", evidence_msg_id=message.msg_id)
            out.append(decision.model_copy(update={"kind": "FACT", "facts": [*decision.facts, invented]}))
        return out


def test_a_refused_profile_write_is_reported_not_dropped(embedder: Embedder) -> None:
    from dataclasses import replace

    from memfold.config import build_parts
    from memfold.router import Router
    from memfold.stores import Stores

    settings, stores = Settings(embedder="minilm-q8", backend="offline"), Stores.in_memory()

    def parts():  # noqa: ANN202 - the real parts, with a router over the careless backend
        real = build_parts(settings, stores, embedder)
        return replace(real, router=Router(_UngroundedBackend(real.router.backend)))

    memory = Memory(stores=stores, embedder=embedder, settings=settings, parts=parts)
    report = memory.ingest_many([{"msg_id": "m1", "user_id": "u8", "text": "I love hiking.",
                                  "ts": T0.isoformat()}])
    [refused] = report.refused
    assert (refused.msg_id, refused.key, refused.value) == ("m1", "location", "Atlantis")
    assert "grounding" in refused.reason
    assert report.accepted == 1 and current(memory, "u8", "location") is None
    assert memory.profile("u8", "user")  # the grounded fact (likes hiking) was written


def test_a_named_speaker_talking_with_an_assistant_is_the_user(memory: Memory) -> None:
    memory.ingest_many([
        {"msg_id": "a1", "user_id": "u123", "role": "assistant", "speaker": "assistant",
         "text": "Hi! How can I help?", "ts": T0.isoformat()},
        {"msg_id": "a2", "user_id": "u123", "speaker": "Sam", "text": "I live in Austin.",
         "ts": (T0 + timedelta(minutes=1)).isoformat()}])
    memory.ingest({"msg_id": "a3", "user_id": "u123", "role": "assistant", "speaker": "assistant",
                   "text": "Noted!", "ts": (T0 + timedelta(minutes=2)).isoformat()})
    memory.ingest({"msg_id": "a4", "user_id": "u123", "speaker": "Sam", "text": "I work at Globex.",
                   "ts": (T0 + timedelta(minutes=3)).isoformat()})  # alone, after the assistant's turn
    assert current(memory, "u123", "location") == "Austin"
    assert current(memory, "u123", "employer") == "Globex"
    assert [m.speaker for m in memory.stores.log.list("u123")] == ["assistant", "Sam", "assistant", "Sam"]


def test_two_named_friends_keep_their_own_subjects(memory: Memory) -> None:
    memory.ingest_many([
        {"msg_id": "b1", "user_id": "chat", "speaker": "Caroline", "text": "I live in Austin.",
         "ts": T0.isoformat()},
        {"msg_id": "b2", "user_id": "chat", "speaker": "Melanie", "text": "I live in Denver.",
         "ts": (T0 + timedelta(minutes=1)).isoformat()}])
    assert {(f.subject, f.value) for f in memory.profile("chat") if f.key == "location"} == {
        ("Caroline", "Austin"), ("Melanie", "Denver")}
