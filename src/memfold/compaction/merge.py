"""Merging notes into L3 semantic memory: duplicates fold together, contradictions replace.

Two notes are compared on their *content tokens* (lower-cased words minus stopwords) and
their *values* (numbers, explicit dates). Rules, in order:

* duplicate: token-set Jaccard >= ``duplicate_jaccard`` and the same values -> one note,
  sources united, the higher importance kept (the older wording stays).
* contradiction: same speaker, and either (a) both carry values, the values differ and the
  non-value tokens overlap >= 0.6, or (b) both read "<subject> is/are/was <value>" with the
  same subject (>= 2 content words) and a different value -> the newer note replaces the
  older one, which moves to ``history`` (nothing is deleted).
* otherwise the notes are distinct.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal, TypeVar

from memfold.compaction import text as t
from memfold.models import Decision, Eliminated, Note

Relation = Literal["duplicate", "contradiction", "distinct"]

_COPULA_RE = re.compile(r"^(.{3,80}?)\s+(?:is|are|was|were|am)\s+(.+)$", re.I)
_SPEAKER_RE = re.compile(r"^([^:\n]{1,64}):\s")


def speaker_of(text: str) -> str:
    match = _SPEAKER_RE.match(text)
    return match.group(1).lower() if match else ""


def _body(text: str) -> str:
    match = _SPEAKER_RE.match(text)
    return text[match.end():] if match else text


def values_of(text: str) -> frozenset[str]:
    """The specifics of a note: numbers, dates and names (words capitalised mid-sentence).

    Two notes that differ in any of them are never duplicates ("error 1 on the Alice
    server" is not "error 1 on the Bruno server")."""
    body = _body(text)
    names = {n.lower() for n in t.proper_nouns(body)}
    return frozenset(t.numbers(body) | t.dates(body) | names)


def relation(old: str, new: str, duplicate_jaccard: float = 0.75, *,
             same_speaker: bool = True) -> Relation:
    """How ``new`` relates to ``old``. ``same_speaker=False`` lets texts without a
    "Speaker: " prefix (model-written facts) contradict prefixed ones."""
    old_tokens, new_tokens = t.content_tokens(old), t.content_tokens(new)
    old_values, new_values = values_of(old), values_of(new)
    if old_values == new_values and t.jaccard(old_tokens, new_tokens) >= duplicate_jaccard:
        return "duplicate"
    if same_speaker and speaker_of(old) != speaker_of(new):
        return "distinct"
    if old_values and new_values and old_values != new_values:
        rest = t.jaccard(old_tokens - old_values, new_tokens - new_values)
        if rest >= 0.6:
            return "contradiction"
    if _same_subject_new_value(old, new):
        return "contradiction"
    return "distinct"


def _same_subject_new_value(old: str, new: str) -> bool:
    old_match, new_match = _COPULA_RE.match(_body(old)), _COPULA_RE.match(_body(new))
    if not old_match or not new_match:
        return False
    old_key, new_key = t.content_tokens(old_match.group(1)), t.content_tokens(new_match.group(1))
    if len(old_key) < 2 or old_key != new_key:
        return False
    return t.content_tokens(old_match.group(2)) != t.content_tokens(new_match.group(2))


def _union(*lists: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for items in lists:
        for item in items:
            seen.setdefault(item, None)
    return list(seen)


def _latest(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a or b
    return max(a, b)


def merge_note(notes: list[Note], history: list[Note], new: Note,
               duplicate_jaccard: float = 0.75) -> tuple[list[Note], list[Note]]:
    """Merge ``new`` into ``notes``; returns (notes, history). Inputs are not mutated."""
    notes, history = list(notes), list(history)
    for index, old in enumerate(notes):
        kind = relation(old.text, new.text, duplicate_jaccard)
        if kind == "duplicate":
            notes[index] = old.model_copy(update={
                "sources": _union(old.sources, new.sources),
                "importance": max(old.importance, new.importance),
                "updated_at": _latest(old.updated_at, new.updated_at)})
            return notes, history
        if kind == "contradiction":
            history.append(old)
            notes[index] = new
            return notes, history
    notes.append(new)
    return notes, history


E = TypeVar("E", Decision, Eliminated)


def _merge_entry(entries: list[E], new: E, text_field: str, fill: tuple[str, ...],
                 duplicate_jaccard: float) -> list[E]:
    """Append ``new``, or fold it into a near-duplicate: sources united, empty ``fill``
    fields (reason, constraint, why) taken from the newcomer."""
    entries = list(entries)
    new_tokens = t.content_tokens(getattr(new, text_field))
    for index, old in enumerate(entries):
        if t.jaccard(t.content_tokens(getattr(old, text_field)), new_tokens) >= duplicate_jaccard:
            update = {name: getattr(old, name) or getattr(new, name) for name in fill}
            entries[index] = old.model_copy(update={"sources": _union(old.sources, new.sources), **update})
            return entries
    entries.append(new)
    return entries


def merge_decision(decisions: list[Decision], new: Decision,
                   duplicate_jaccard: float = 0.75) -> list[Decision]:
    return _merge_entry(decisions, new, "decision", ("reason", "constraint"), duplicate_jaccard)


def merge_eliminated(items: list[Eliminated], new: Eliminated,
                     duplicate_jaccard: float = 0.75) -> list[Eliminated]:
    return _merge_entry(items, new, "approach", ("why",), duplicate_jaccard)


def answers(question: str, later: str) -> bool:
    """Whether ``later`` (said by someone else) plausibly answers ``question``.

    Heuristic: a different speaker, and either >= 2 shared content words or half of the
    question's content words. Used to drop resolved open questions.
    """
    if speaker_of(question) and speaker_of(question) == speaker_of(later):
        return False
    asked = t.content_tokens(_body(question))
    if not asked:
        return True  # a contentless question ("how are you?") needs no answer kept
    shared = asked & t.content_tokens(_body(later))
    return len(shared) >= 2 or len(shared) * 2 >= len(asked)


def resolved(question: str, later_texts: Sequence[str]) -> bool:
    return any(answers(question, text) for text in later_texts)
