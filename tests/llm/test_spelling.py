"""Slips of the keyboard in the rules' words are read as meant; names and real words are not."""

from __future__ import annotations

import json

import pytest

from memfold.embed.minilm import default_model_path
from memfold.llm.spelling import CORRECTIONS, corrected


@pytest.mark.parametrize(("typed", "meant"), [
    ("my ssiter camila got a job at google", "my sister camila got a job at google"),
    ("My ucnle Femi owns a restaurant", "My uncle Femi owns a restaurant"),
    ("can you rememebr my cats name", "can you remember my cats name"),
    ("My birtdhay is June 3.", "My birthday is June 3."),
    ("im a teachr, year 3", "im a teacher, year 3"),
    ("our negihbor Gloria", "our neighbor Gloria"),
])
def test_a_slip_in_a_word_the_rules_read_is_put_back(typed: str, meant: str) -> None:
    assert corrected(typed) == meant


@pytest.mark.parametrize("text", [
    "dear diary, my friend tunde fried the plantain",  # real words one slip from a target
    "we move in may and i work nights",  # a dropped last letter is an inflection, not a slip
    "Ikaika and Ilse said hi",  # names are never corrected
])
def test_real_words_and_names_are_left_as_typed(text: str) -> None:
    assert corrected(text) == text


def test_no_correction_starts_from_a_real_word() -> None:
    """Every slip the table corrects is a non-word of the MiniLM tokenizer's whole-word
    vocabulary (the exclusions in ``spelling._REAL_WORDS`` keep it so)."""
    vocabulary = json.loads((default_model_path() / "tokenizer.json").read_text(encoding="utf-8"))
    words = {token for token in vocabulary["model"]["vocab"] if token.isalpha()}
    assert CORRECTIONS and not sorted(slip for slip in CORRECTIONS if slip in words)


def test_the_router_reads_a_slip_as_meant_and_grounds_its_fact() -> None:
    """Through the offline backend: the fact is read and passes grounding against the text
    as typed (the stored raw turn keeps the slip)."""
    from datetime import datetime, timezone

    from memfold.embed import HashingEmbedder
    from memfold.llm import OfflineBackend, RouteContext
    from memfold.models import Message
    from memfold.router.grounding import grounding_problem

    message = Message(msg_id="m", user_id="u", role="user", text="My ucnle Femi lives in Peckham",
                      ts=datetime(2026, 1, 1, tzinfo=timezone.utc))
    decision = OfflineBackend(HashingEmbedder()).route(message, RouteContext())
    relation = [fact for fact in decision.facts if fact.key == "family:uncle"]
    assert [fact.value for fact in relation] == ["Femi"]
    assert grounding_problem(relation[0], message) is None


def test_a_vowel_spelt_as_another_in_a_long_word_is_put_back() -> None:
    assert corrected("we seperated last year") == "we separated last year"
    assert corrected("she's vegeterian") == "she's vegetarian"
    assert corrected("I made a collage") == "I made a collage"  # a real word stays
    assert corrected("my cat is here") == "my cat is here"  # short words are never touched


def test_a_corrected_status_replaces_the_one_its_partner_word_implies() -> None:
    from datetime import datetime, timezone

    from memfold.llm.facts import extract_facts
    from memfold.models import Message

    text = corrected("my husband and i seperated last month, still living close for the kids")
    message = Message(msg_id="m", user_id="u", speaker="user", role="user", text=text,
                      ts=datetime(2024, 1, 1, tzinfo=timezone.utc))
    facts, _ = extract_facts(message)
    assert {(f.key, f.value) for f in facts if f.key == "relationship_status"} == {("relationship_status", "separated")}
