"""A stored condition said to be over keeps its key, with the resolution as value (llm/resolved.py)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memfold.llm.facts import replaced_siblings
from memfold.llm.resolved import resolved_conditions
from memfold.models import FactExtraction, Message
from memfold.router.grounding import grounding_problem

AT = datetime(2026, 6, 1, tzinfo=timezone.utc)


def _message(text: str) -> Message:
    return Message(msg_id="m1", user_id="u", role="user", speaker="user", text=text, ts=AT)


def _resolved(text: str, stored: dict[tuple[str, str], str]) -> list[tuple[str, str, str]]:
    return [(f.subject, f.key, f.value) for f in resolved_conditions(text, _message(text), stored)]


@pytest.mark.parametrize(("text", "stored", "expected"), [
    ("the paediatrician confirmed Noor grew out of her sesame allergy, so hummus is back on the menu",
     {("Noor", "allergy:sesame"): "sesame"}, ("Noor", "allergy:sesame", "grew out of")),
    ("my shoulder is fully healed after months of physio, what workouts can i restart",
     {("user", "health:frozen_shoulder"): "frozen shoulder"}, ("user", "health:frozen_shoulder", "fully healed")),
    ("great news about uncle Dario, the scan says he is in remission",
     {("Dario", "health:leukaemia"): "leukaemia", ("user", "family:uncle"): "Dario"},
     ("Dario", "health:leukaemia", "in remission")),
    ("her psoriasis cleared up with the new cream, anything to keep it away?",
     {("user's daughter", "health:psoriasis"): "psoriasis"}, ("user's daughter", "health:psoriasis", "cleared up")),
    ("grandads blood sugar is back to normal since he changed his diet",
     {("user's grandad", "health:high_blood_sugar"): "high blood sugar"},
     ("user's grandad", "health:high_blood_sugar", "back to normal")),
    ("physio signed me off today, knee is fully recovered", {("user", "health:knee_injury"): "knee injury"},
     ("user", "health:knee_injury", "fully recovered")),
    ("good news, mums asthma is under control with the new inhaler",
     {("user's mom", "health:asthma"): "asthma"}, ("user's mom", "health:asthma", "under control")),
    ("the doctor did the test again, I am no longer allergic to sulfa",
     {("user", "allergy:sulfa_drugs"): "sulfa drugs"}, ("user", "allergy:sulfa_drugs", "no longer allergic")),
    ("turns out im not actually allergic to penicillin, they tested me properly",
     {("user", "allergy:penicillin"): "penicillin", ("user", "health:penicillin_rash"): "penicillin rash"},
     ("user", "allergy:penicillin", "not actually allergic")),
])
def test_a_stored_condition_said_to_be_over_takes_the_resolution(
        text: str, stored: dict[tuple[str, str], str], expected: tuple[str, str, str]) -> None:
    assert _resolved(text, stored) == [expected]


@pytest.mark.parametrize("text", [
    "will Noor grow out of her sesame allergy?",
    "hoping Noor has outgrown the sesame allergy by summer",
    "Noor has not outgrown her sesame allergy yet",
    "the sesame allergy is almost gone for Noor",
    "can kids be in remission from a sesame allergy?",
    "its clear that Noor's sesame allergy is getting worse",
    "Noor has gone to the sesame allergy clinic again",
    "is Noor not allergic to sesame anymore?",
    "Noor might not be allergic to sesame after all",
])
def test_a_resolution_asked_hoped_or_denied_changes_nothing(text: str) -> None:
    assert _resolved(text, {("Noor", "allergy:sesame"): "sesame"}) == []


def test_a_condition_no_word_names_is_not_resolved() -> None:
    # "healed" alone says nothing about which condition; "in remission" needs one stored condition
    assert _resolved("my knee is healed", {("user", "health:asthma"): "asthma"}) == []
    stored = {("Dario", "health:leukaemia"): "leukaemia", ("Dario", "health:gout"): "gout"}
    assert _resolved("Dario is in remission", stored) == []


def test_the_condition_of_the_person_spoken_of_is_resolved() -> None:
    stored = {("user", "allergy:eggs"): "eggs", ("Noor", "allergy:eggs"): "eggs"}
    assert _resolved("Noor outgrew the egg allergy, i havent", stored) == [("Noor", "allergy:eggs", "outgrew")]
    # someone else's healed wrist is not the speaker's
    assert _resolved("Tomasz said his wrist is healed", {("user", "health:broken_wrist"): "broken wrist"}) == []


def test_a_resolution_replaces_the_rereading_of_the_condition_and_is_grounded() -> None:
    text = "Noor grew out of her sesame allergy!! can she have tahini now"
    message = _message(text)
    stored = {("Noor", "allergy:sesame"): "sesame", ("user", "child:noor"): "Noor"}
    reread = FactExtraction(subject="Noor", key="allergy:sesame_allergy", value="sesame allergy", evidence_msg_id="m1")
    out = replaced_siblings([reread], message, stored)
    assert [(f.action, f.subject, f.key, f.value) for f in out] == [("update", "Noor", "allergy:sesame", "grew out of")]
    assert all(grounding_problem(f, message) is None for f in out)
