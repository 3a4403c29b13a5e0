"""The WordPiece token counter counts a text word by word (its words are cached): the
count must equal encoding the whole text, for any text (Hypothesis) and for the edge cases
of BERT's normaliser (accents, non-breaking spaces, emoji, CJK, control characters)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.tokens import WordPieceCounter, _load_tokenizer

COUNTER = WordPieceCounter()


def _whole(text: str) -> int:
    return len(_load_tokenizer().encode(text, add_special_tokens=False).ids)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_word_by_word_equals_the_whole_text(text: str) -> None:
    assert COUNTER.count(text) == _whole(text)


def test_normaliser_edge_cases() -> None:
    for text in ["héllo wörld — naïve café\u00a0tab\there\nnew line", "emoji 😀 🎉🎉 ok",
                 "a\u2028b \x1cc \u200bzero width", "日本語のテキスト です", "don't stop-believing!!!",
                 "   ", "x" * 500]:
        assert COUNTER.count(text) == _whole(text), text


def test_a_full_word_cache_starts_again_and_still_counts_right() -> None:
    counter = WordPieceCounter(word_cache_size=3)
    for text in ["one two three", "four five six seven", "one seven eight nine ten"]:
        assert counter.count(text) == _whole(text)
