"""Document chunking: coverage, size limits, overlap, order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.router.chunking import chunk_text
from memfold.tokens import WhitespaceCounter

COUNTER = WhitespaceCounter()


def test_short_text_is_one_chunk() -> None:
    assert chunk_text("  A short note.  ", counter=COUNTER) == ["A short note."]


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text("   ", counter=COUNTER) == []


def test_long_text_is_split_on_sentences_with_overlap() -> None:
    sentences = [f"Sentence number {i} talks about topic {i}." for i in range(200)]
    chunks = chunk_text(" ".join(sentences), target_tokens=100, overlap_tokens=20, counter=COUNTER)
    assert len(chunks) > 5
    assert all(COUNTER.count(c) <= 100 for c in chunks)
    for before, after in zip(chunks, chunks[1:]):
        assert after.splitlines()[0] in before.splitlines()  # overlap: whole sentences
        assert after.splitlines()[-1] not in before.splitlines()  # and then new ones
    assert "Sentence number 0 " in chunks[0] and "number 199 " in chunks[-1]


def test_paragraphs_are_kept_together_when_they_fit() -> None:
    paragraphs = ["Alpha " * 30, "Beta " * 30, "Gamma " * 30]
    chunks = chunk_text("\n\n".join(p.strip() for p in paragraphs), target_tokens=60,
                        overlap_tokens=0, counter=COUNTER)
    assert [c.split()[0] for c in chunks] == ["Alpha", "Beta", "Gamma"]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(alphabet="abcdefgh .\n", min_size=1, max_size=60), min_size=1, max_size=80))
def test_every_word_is_in_some_chunk(parts: list[str]) -> None:
    text = " ".join(parts)
    chunks = chunk_text(text, target_tokens=40, overlap_tokens=8, counter=COUNTER)
    joined = " ".join(chunks).split()
    assert set(text.split()) <= set(joined)
    assert all(COUNTER.count(c) <= 40 or len(c.split()) == 1 for c in chunks)


class _JoinedCounter:
    """The WordPiece counter with the additive shortcut switched off."""

    name = "wordpiece-joined"

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner

    def count(self, text: str) -> int:
        return self.inner.count(text)


pieces = st.lists(st.sampled_from(["Hello,", "world!", "naïve", "café's", "co-op", "3.14", "e-mail:",
                                   "(see", "below)", "URL:https://x.io/a?b=1", "日本", "emoji🙂", "—", "ok."]),
                  min_size=1, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(pieces, min_size=1, max_size=6))
def test_wordpiece_counts_add_up_across_a_whitespace_join(parts: list[str]) -> None:
    from memfold.tokens import default_counter

    counter = default_counter()
    assert counter.additive
    assert counter.count("\n".join(parts)) == sum(counter.count(p) for p in parts)


def test_packing_with_summed_sizes_gives_the_chunks_of_counting_the_joined_text() -> None:
    from memfold.tokens import default_counter

    counter = default_counter()
    text = "\n\n".join(" ".join(f"Paragraph {p} sentence {s} mentions item-{s}, café and 3.{s}." for s in range(9))
                       for p in range(12))
    assert chunk_text(text, counter=counter) == chunk_text(text, counter=_JoinedCounter(counter))
    assert len(chunk_text(text, counter=counter)) > 3
