"""Everyday turns the offline router used to miss, one table per class of case.

Possession and pets, standing preferences phrased as requests to remember, third-person
and planned events (their subject and date), a short reply in front of the content, and
assistant bookkeeping. The sentences are written for these tests (names, places and dates
are arbitrary) and are not taken from any benchmark or the demo transcript.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from router_helpers import MessageFactory

from memfold.models import RouteDecision
from memfold.router import Router, apply_decision
from memfold.stores import Stores

WED = datetime(2025, 11, 19, 18, 5, tzinfo=timezone.utc)  # a Wednesday


def route(router: Router, msg: MessageFactory, text: str, *, role: str = "user",
          speaker: str = "Rosa") -> RouteDecision:
    return router.route(msg(text, role=role, speaker=speaker, ts=WED))


def facts_of(decision: RouteDecision) -> dict[tuple[str, str], str]:
    return {(f.subject, f.key): f.value for f in decision.facts}


PET_AND_FAMILY = [
    ("We have a cat named Pepper, a three-year-old tabby.",
     {("Rosa", "pet:cat"): "Pepper", ("Pepper", "description"): "three-year-old tabby"}),
    ("I've got a rabbit called Clover.", {("Rosa", "pet:rabbit"): "Clover"}),
    ("Our dog Juniper is a border collie.",
     {("Rosa", "pet:dog"): "Juniper", ("Juniper", "description"): "border collie"}),
    ("My parrot's name is Kiwi.", {("Rosa", "pet:parrot"): "Kiwi"}),
    ("We own two hamsters, Pip and Squeak.", {("Rosa", "pet:hamster"): "Pip and Squeak"}),
    ("We adopted a greyhound named Dash.", {("Rosa", "pet:dog"): "Dash"}),  # a breed is its kind
    ("We've got three kids.", {("Rosa", "family:three_kids"): "three kids"}),
    ("I have two daughters.", {("Rosa", "family:two_daughters"): "two daughters"}),
]


@pytest.mark.parametrize(("text", "expected"), PET_AND_FAMILY)
def test_possession_pets_and_family(router: Router, msg: MessageFactory, text: str,
                                    expected: dict[tuple[str, str], str]) -> None:
    decision = route(router, msg, text)
    if "adopted" not in text:  # adopting is an event; the pet is its side fact
        assert decision.kind == "FACT", decision.reasons
    found = facts_of(decision)
    for slot, value in expected.items():
        assert found.get(slot) == value, (text, found)


def test_a_friend_named_is_not_a_pet(router: Router, msg: MessageFactory) -> None:
    decision = route(router, msg, "I have a friend named Oskar who builds boats.")
    assert not any(f.key.startswith("pet:") for f in decision.facts)


PREFERENCES = [
    ("Remember that I always order oat milk in my coffee.", "oat milk"),
    ("Please note I never take meetings before 10am.", "never take meetings before 10am"),
    ("Keep in mind that I only travel by train.", "only travel by train"),
    ("For future reference, I don't drive at night.", "don't drive at night"),
    ("Don't forget I usually book a quiet room.", "usually book quiet room"),
    ("Just so you know, I always need a vegetarian meal on flights.", "vegetarian meal"),
]


@pytest.mark.parametrize(("text", "value"), PREFERENCES)
def test_requests_to_remember_are_preference_facts(router: Router, msg: MessageFactory,
                                                   text: str, value: str) -> None:
    decision = route(router, msg, text)
    assert decision.kind == "FACT", decision.reasons
    prefs = [f for f in decision.facts if f.key.startswith("preference:")]
    assert prefs, decision.facts
    assert value in prefs[0].value
    assert prefs[0].subject == "Rosa"


def test_a_remembered_trait_is_a_fact(router: Router, msg: MessageFactory) -> None:
    decision = route(router, msg, "Bear in mind I'm left-handed.")
    assert decision.kind == "FACT"
    assert ("Rosa", "trait:left_handed") in facts_of(decision)


def test_never_keeps_its_negation(router: Router, msg: MessageFactory) -> None:
    decision = route(router, msg, "I never drive on motorways.")
    assert decision.facts and all("never" in f.value for f in decision.facts)


# (text, event subject, occurred date) -- a short reply in front must not hide the event
THIRD_PERSON_PAST = [
    ("Pretty good. On Saturday Marisol won the chess tournament.", "Marisol", "2025-11-15"),
    ("Not bad, thanks. Last night my brother cooked dinner for everyone.", "Rosa's brother",
     "2025-11-18"),
    ("All good. Yesterday J\u00f6rg finished the renovation.", "J\u00f6rg", "2025-11-18"),
    ("Really well! Two days ago Amara passed her driving test.", "Amara", "2025-11-17"),
    ("My sister Ines ran the Porto half marathon on Sunday.", "Ines", "2025-11-16"),
]


@pytest.mark.parametrize(("text", "subject", "day"), THIRD_PERSON_PAST)
def test_third_person_past_events(router: Router, msg: MessageFactory, text: str,
                                  subject: str, day: str) -> None:
    decision = route(router, msg, text)
    assert decision.kind == "EVENT", decision.reasons
    assert decision.event is not None
    assert decision.event.subject == subject
    assert decision.event.occurred_at.date().isoformat() == day


# (text, subject, expected date or None when the plan names no date)
PLANS = [
    ("Pepper will stay with the neighbours while we're in Rome.", "Pepper", None),
    ("My dad is flying in on Thursday.", "Rosa's dad", "2025-11-20"),
    ("Our friends are coming over next Saturday.", "Rosa's friends", "2025-11-22"),
    ("Lukas is starting his new job on December 1.", "Lukas", "2025-12-01"),
    ("We leave for Oslo on Friday.", "Rosa", "2025-11-21"),
    ("I'm having my wisdom teeth out on the 3rd of February.", "Rosa", "2026-02-03"),
]


@pytest.mark.parametrize(("text", "subject", "day"), PLANS)
def test_planned_events_keep_their_subject_and_future_date(
        router: Router, msg: MessageFactory, text: str, subject: str, day: str | None) -> None:
    decision = route(router, msg, text)
    assert decision.kind == "EVENT", decision.reasons
    assert decision.event is not None and decision.event.subject == subject
    if day is not None:
        assert decision.event.occurred_at.date().isoformat() == day
        assert decision.event.granularity == "day"
        assert any(r.startswith("planned") for r in decision.reasons)


def test_a_planned_event_is_logged_with_its_future_date(stores: Stores, router: Router,
                                                        msg: MessageFactory) -> None:
    message = msg("We fly to Tallinn on January 9.", speaker="Rosa", ts=WED)
    decision = router.route(message)
    with stores.db.transaction():
        stores.log.append([message])
        applied = apply_decision(stores, message, decision)
    assert applied.event_ids
    upcoming = stores.events.range(message.user_id, start=WED, end=WED + timedelta(days=400))
    assert [(e.occurred_at.date().isoformat(), e.granularity) for e in upcoming] == [
        ("2026-01-09", "day")]


ASSISTANT_BOOKKEEPING = [
    "Saved your grocery list.",
    "Noted \u2014 you prefer vegetarian options.",
    "I'll remember that you're allergic to cats.",
    "Updated the reminder for your dentist visit.",
    "Done! I've added the meeting to your calendar for Friday.",
    "Got it, I've stored the recipe.",
    "Okay, deleted the old address.",
]


@pytest.mark.parametrize("text", ASSISTANT_BOOKKEEPING)
def test_assistant_bookkeeping_is_none(router: Router, msg: MessageFactory, text: str) -> None:
    decision = route(router, msg, text, role="assistant", speaker="assistant")
    assert decision.kind == "NONE", decision.reasons
    assert decision.event is None


@pytest.mark.parametrize(("text", "kind"), [
    ("Your order was shipped yesterday afternoon.", "EVENT"),
    ("Your sister phoned this morning while you were out.", "EVENT"),
    ("I recommend leaving early on Friday.", "NONE"),
    ("I looked it up and found three good options.", "NONE"),
    ("I went through your notes.", "NONE"),
])
def test_assistant_events_need_a_dated_world_event(router: Router, msg: MessageFactory,
                                                    text: str, kind: str) -> None:
    decision = route(router, msg, text, role="assistant", speaker="assistant")
    assert decision.kind == kind, decision.reasons
    if kind == "EVENT":
        assert decision.event is not None and decision.event.subject != "assistant"


@pytest.mark.parametrize(("text", "subject"), [
    ("Great news: I passed the bar exam yesterday.", "Rosa"),
    ("Update: my nephew Teo started school on Monday.", "Teo"),
    ("Oh, and Marta and I painted the fence yesterday.", "Rosa"),
    ("Yesterday we drove to the coast.", "Rosa"),
    ("Tariq, I finally finished the quilt last night.", "Rosa"),
])
def test_event_subject_skips_labels_and_counts_the_speaker(router: Router, msg: MessageFactory,
                                                           text: str, subject: str) -> None:
    decision = route(router, msg, text)
    assert decision.kind == "EVENT" and decision.event is not None
    assert decision.event.subject == subject


def test_a_stated_preference_has_a_preference_key(router: Router, msg: MessageFactory) -> None:
    decision = route(router, msg, "I prefer aisle seats on long flights.")
    assert decision.kind == "FACT"
    assert any(f.key.startswith("preference:aisle_seats") for f in decision.facts)


def test_dates_in_a_text_pasted_for_editing_are_not_events(router: Router,
                                                          msg: MessageFactory) -> None:
    decision = route(router, msg, "Could you proofread this for me? Our bakery was opened in "
                     "2004 by two sisters and has since become a favourite stop for commuters "
                     "on their way to the station every morning.")
    assert decision.kind == "DOCUMENT", decision.reasons
