"""JSON extraction from model text and the key vocabulary."""

from __future__ import annotations

import pytest

from memfold.llm.jsonparse import NotJsonError, extract_json_object
from memfold.llm.keys import fact_key, normalise_key


@pytest.mark.parametrize(("text", "expected"), [
    ('{"a": 1}', {"a": 1}),
    ('```json\n{"a": 1}\n```', {"a": 1}),
    ('Here you go:\n```\n{"a": [1, 2]}\n```\nAnything else?', {"a": [1, 2]}),
    ('Sure! {"type": "FACT", "x": {"y": 2}} hope that helps', {"type": "FACT", "x": {"y": 2}}),
])
def test_extracts_objects(text: str, expected: dict) -> None:
    assert extract_json_object(text) == expected


@pytest.mark.parametrize("text", ["", "no json here", "[1, 2, 3]", "{broken: json"])
def test_rejects_non_objects(text: str) -> None:
    with pytest.raises(NotJsonError):
        extract_json_object(text)


@pytest.mark.parametrize(("raw", "key"), [
    ("Occupation", "job"), ("home city", "location"), ("lives_in", "location"), ("Pets", "pet"),
    ("favourite", "favorite"), ("favorite: coffee", "favorite:coffee"), ("likes: Jazz music", "likes:jazz_music"), ("shoe size", "shoe_size"),
    ("", "fact"),
])
def test_normalise_key(raw: str, key: str) -> None:
    assert normalise_key(raw) == key


def test_fact_key_is_per_value_for_multi_valued_keys() -> None:
    assert fact_key("hobby", "Rock climbing") == "hobby:rock_climbing"
    assert fact_key("job", "nurse") == "job"
    assert fact_key("fact", "collect stamps") == "fact:collect_stamps"


@pytest.mark.parametrize(("key", "canonical"), [
    ("favorite:colour", "favorite:color"), ("favorite:tv_show", "favorite:show"), ("favorite:series", "favorite:show"),
    ("favorite:football_team", "favorite:team"), ("favorite:flowers", "favorite:flower"),
    ("favorite:films", "favorite:movie"), ("favorite:bus", "favorite:bus")])
def test_one_key_per_kind_of_favourite(key: str, canonical: str) -> None:
    from memfold.llm.keys import canonical_key

    assert canonical_key(key) == canonical


def test_a_per_value_key_keeps_the_letters_that_carry_accents() -> None:
    from memfold.llm.keys import slug

    assert slug("Tomás") == "tomas"
    assert slug("Conceição gardening") == "conceicao_gardening"
    assert slug("Zoë") == "zoe"
