"""The indexed L3 merge (NoteSet) decides exactly as a scan of every note would."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.compaction import merge
from memfold.models import Note

SPEAKERS = ["Ana", "Bo", "", "assistant"]
WORDS = ["trip", "hotel", "flight", "sister", "job", "nurse", "team", "Porto", "Lyon", "Maya",
         "2023", "May", "12", "the", "is", "was", "my", "favourite", "colour", "blue", "red", "city"]
START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def scan_merge(notes: list[Note], history: list[Note], new: Note) -> tuple[list[Note], list[Note]]:
    """The reference: compare with every note in order, first match wins."""
    notes, history = list(notes), list(history)
    for index, old in enumerate(notes):
        kind = merge.relation(old.text, new.text)
        if kind == "duplicate":
            notes[index] = old.model_copy(update={
                "sources": list(dict.fromkeys([*old.sources, *new.sources])),
                "importance": max(old.importance, new.importance),
                "updated_at": max(old.updated_at, new.updated_at)})
            return notes, history
        if kind == "contradiction":
            return [*notes[:index], new, *notes[index + 1:]], [*history, old]
    return [*notes, new], history


@st.composite
def note_texts(draw: st.DrawFn) -> str:
    speaker = draw(st.sampled_from(SPEAKERS))
    body = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=7)))
    if draw(st.booleans()):
        body = f"{draw(st.sampled_from(['my favourite colour', 'the city', 'my job']))} is {body}"
    body = body or draw(st.sampled_from(["ok", "12", "Porto"]))
    return f"{speaker}: {body}" if speaker else body


@settings(max_examples=300, deadline=None)
@given(st.lists(note_texts(), min_size=1, max_size=30))
def test_indexed_merge_matches_a_full_scan(texts: list[str]) -> None:
    indexed = merge.NoteSet([])
    indexed_history: list[Note] = []
    notes: list[Note] = []
    history: list[Note] = []
    for number, text in enumerate(texts):
        note = Note(text=text, sources=[f"m{number}"], importance=0.5,
                    updated_at=START + timedelta(minutes=number))
        notes, history = scan_merge(notes, history, note)
        indexed_history = indexed.merge(note, indexed_history)
        assert indexed.notes == notes
        assert indexed_history == history


def test_a_contradiction_reindexes_the_replacing_note() -> None:
    notes = merge.NoteSet([Note(text="Ana: my favourite colour is blue", sources=["m1"])])
    history = notes.merge(Note(text="Ana: my favourite colour is red", sources=["m2"]), [])
    assert [n.text for n in history] == ["Ana: my favourite colour is blue"]
    history = notes.merge(Note(text="Ana: my favourite colour is red", sources=["m3"]), history)
    assert [n.sources for n in notes.notes] == [["m2", "m3"]]  # found through the new note's words
