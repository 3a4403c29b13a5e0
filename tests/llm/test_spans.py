"""The span helpers answer what the per-value patterns they replace answered."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.llm.spans import find_all_said, find_said, said_after, said_at

# short texts over few letters, so values recur inside them often
_LETTERS = st.sampled_from(list("abAB _-'.,é1"))
_TEXT = st.text(_LETTERS, max_size=30)
_VALUE = st.text(_LETTERS, min_size=1, max_size=4)


@settings(max_examples=400, deadline=None)
@given(_TEXT, _VALUE)
def test_whole_word_spans_are_those_of_the_bounded_pattern(text: str, value: str) -> None:
    expected = [m.span() for m in re.finditer(rf"\b{re.escape(value)}\b", text, re.IGNORECASE)]
    assert list(find_all_said(text, value)) == expected


@settings(max_examples=400, deadline=None)
@given(_TEXT, _VALUE)
def test_substring_spans_are_those_of_the_literal_pattern(text: str, value: str) -> None:
    expected = [m.span() for m in re.finditer(re.escape(value), text, re.IGNORECASE)]
    assert list(find_all_said(text, value, whole_words=False)) == expected


_LEAD = re.compile(r"\bab (?P<tail>(?:a )?)", re.IGNORECASE)


@settings(max_examples=400, deadline=None)
@given(_TEXT, _VALUE)
def test_said_after_is_the_search_of_lead_then_value(text: str, value: str) -> None:
    expected = re.search(r"\bab (?:a )?" + re.escape(value) + r"\b", text, re.IGNORECASE) is not None
    assert said_after(_LEAD, text, value) == expected


def test_a_value_is_found_whatever_its_case_and_not_inside_a_word() -> None:
    assert find_said("moved to Lisbon last year", "lisbon") == (9, 15)
    assert find_said("Lisbonne is not it", "lisbon") is None
    assert said_at("im 5 lol", 3, "5") and not said_at("im 50 lol", 3, "5")


def test_a_letter_whose_lower_case_is_longer_is_still_found() -> None:
    # "İ" lower-cases to two characters: positions come from re instead
    assert find_said("İstanbul then Ankara", "ankara") == (14, 20)
