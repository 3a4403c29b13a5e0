"""Sentence splitting, key facts and importance bands."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memfold.compaction import scoring
from memfold.compaction import text as t


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_every_sentence_is_a_verbatim_span(source: str) -> None:
    for span in t.split_sentences(source):
        assert source[span.start:span.end] == span.text
        assert span.text == span.text.strip() and span.text


def test_split_keeps_abbreviations_together() -> None:
    spans = t.split_sentences("Dr. Smith met Ann at 9.30 today. Then they left! Did they? Yes.")
    assert [s.text for s in spans] == ["Dr. Smith met Ann at 9.30 today.", "Then they left!",
                                       "Did they?", "Yes."]


def test_key_facts_numbers_dates_names() -> None:
    facts = t.key_facts("On 8 May 2023 I paid $284.7 to Megacorp in Paris. Then I slept.")
    assert {"8", "may", "2023", "$284.7", "megacorp", "paris"} <= facts
    assert "then" not in facts and "i" not in facts


def test_sentence_initial_word_counts_only_when_known_as_a_name() -> None:
    assert "paris" not in t.key_facts("Paris is lovely.")
    assert "paris" in t.key_facts("Paris is lovely.", frozenset({"paris"}))


def test_modal_may_is_not_a_date() -> None:
    assert "may" not in t.dates("You may go now.")
    assert "may" in t.dates("We met in May last year.")


def test_importance_bands_follow_the_spec() -> None:
    high = ["Revenue was $284.7 million in 2023.", "We chose Postgres because it supports JSONB.",
            "You must never modify the production database.", "The build failed with a timeout error."]
    low = ["Hi!", "Thanks so much!", "Okay, sounds good."]
    medium = ["I went hiking with Maria near the lake.", "My sister prefers quiet places."]
    assert all(scoring.score(s) >= 0.8 for s in high)
    assert all(scoring.score(s) <= 0.3 for s in low)
    assert all(0.4 <= scoring.score(s) <= 0.7 for s in medium)


def test_split_reason_returns_verbatim_parts() -> None:
    sentence = "We chose Postgres because it supports JSONB."
    head, reason = scoring.split_reason(sentence)
    assert (head, reason) == ("We chose Postgres", "it supports JSONB.")
    assert head in sentence and reason in sentence
