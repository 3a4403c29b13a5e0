"""Normalised profile values: one spelling per value, and grounding that accepts exactly
the normalisation of words the message says."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memfold.llm.values import normalise_value
from memfold.models import FactExtraction, Message
from memfold.router.grounding import grounding_problem

T0 = datetime(2026, 6, 15, 12, tzinfo=timezone.utc)


@pytest.mark.parametrize(("key", "raw", "value"), [
    ("birthday", "june 3rd", "June 3"),
    ("birthday", "the 9th of August 1990", "August 9 1990"),
    ("birthday", "Sept 30", "September 30"),
    ("age", "34 years old", "34"),
    ("diet", "vegan now", "vegan"),
    ("diet", "plant-based", "vegan"),
    ("diet", "eat chicken and fish now", "omnivore"),
    ("partner", "priya", "Priya"),
    ("location", "san jose", "San Jose"),
    ("location", "the Bay Area", "Bay Area"),
    ("job", "a Junior Developer", "junior developer"),
    ("relationship_status", "wife", "married"),
    ("relationship_status", "fiancée", "engaged"),
    ("likes:radiohead", "Radiohead", "Radiohead"),
    ("employer", "a startup called Fernleaf Labs", "Fernleaf Labs"),
    ("partner", "a guy named hugo", "Hugo"),
    ("language", "Russian mostly", "Russian"),
    ("hometown", "actually Norman", "Norman"),
    ("team", "the web team", "web"),
    ("age", "twenty five years old", "25"),
    ("age", "twenty-six", "26"),
    ("possession:bike", "red Trek FX3 to", "red Trek FX3"),
    ("team", "legal department", "legal"),
])
def test_each_family_has_one_spelling(key: str, raw: str, value: str) -> None:
    assert normalise_value(key, raw) == value


@given(st.sampled_from(["birthday", "age", "diet", "partner", "location", "job", "team",
                        "likes:x", "child:x", "relationship_status"]),
       st.text(alphabet=st.characters(codec="ascii", categories=("L", "N", "Zs", "P")), max_size=40))
def test_normalising_twice_changes_nothing(key: str, raw: str) -> None:
    once = normalise_value(key, raw)
    assert normalise_value(key, once) == once


def _message(text: str) -> Message:
    return Message(msg_id="m1", user_id="u", text=text, ts=T0)


def test_grounding_accepts_the_normalisation_of_said_words() -> None:
    fact = FactExtraction(key="birthday", value="June 3", quote="june 3rd", evidence_msg_id="m1")
    assert grounding_problem(fact, _message("my bday is june 3rd")) is None


def test_grounding_refuses_a_value_that_is_not_the_quotes_normalisation() -> None:
    forged = FactExtraction(key="birthday", value="July 4", quote="june 3rd", evidence_msg_id="m1")
    assert grounding_problem(forged, _message("my bday is june 3rd")) is not None
    unsaid = FactExtraction(key="diet", value="vegan", quote="vegan", evidence_msg_id="m1")
    assert grounding_problem(unsaid, _message("I love steak")) is not None


def test_grounding_reads_a_number_written_against_its_unit() -> None:
    age = FactExtraction(key="age", value="17", evidence_msg_id="m1")
    assert grounding_problem(age, _message("17m, i want to study maths")) is None
    assert grounding_problem(age, _message("i want to study maths")) is not None
