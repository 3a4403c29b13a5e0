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
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
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


@dataclass(frozen=True, slots=True)
class Features:
    """What the merge rules read of a note, computed once per distinct text."""

    tokens: frozenset[str]
    values: frozenset[str]
    speaker: str
    copula: tuple[frozenset[str], frozenset[str]] | None  # ("<subject>", "<value>") tokens

    @property
    def rest(self) -> frozenset[str]:
        return self.tokens - self.values


@lru_cache(maxsize=65_536)
def features(text: str) -> Features:
    """Cached: a note is compared with many others over a long conversation, and the
    regular expressions behind tokens, values and the copula dominate a comparison."""
    match = _COPULA_RE.match(_body(text))
    copula = (t.content_tokens(match.group(1)), t.content_tokens(match.group(2))) if match else None
    return Features(t.content_tokens(text), values_of(text), speaker_of(text), copula)


def relation(old: str, new: str, duplicate_jaccard: float = 0.75, *,
             same_speaker: bool = True) -> Relation:
    """How ``new`` relates to ``old``. ``same_speaker=False`` lets texts without a
    "Speaker: " prefix (model-written facts) contradict prefixed ones."""
    return _relation(features(old), features(new), duplicate_jaccard, same_speaker)


def _relation(old: Features, new: Features, duplicate_jaccard: float, same_speaker: bool) -> Relation:
    if old.values == new.values and t.jaccard(old.tokens, new.tokens) >= duplicate_jaccard:
        return "duplicate"
    if same_speaker and old.speaker != new.speaker:
        return "distinct"
    if old.values and new.values and old.values != new.values:
        if t.jaccard(old.rest, new.rest) >= 0.6:
            return "contradiction"
    if _same_subject_new_value(old, new):
        return "contradiction"
    return "distinct"


def _same_subject_new_value(old: Features, new: Features) -> bool:
    if old.copula is None or new.copula is None:
        return False
    (old_key, old_value), (new_key, new_value) = old.copula, new.copula
    if len(old_key) < 2 or old_key != new_key:
        return False
    return old_value != new_value


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
    """Merge ``new`` into ``notes``; returns (notes, history). Inputs are not mutated.

    For a one-off merge; repeated merges into one list go through :class:`NoteSet`, which
    finds the same first match through a token index instead of comparing every note."""
    notes_set = NoteSet(notes, duplicate_jaccard)
    history = notes_set.merge(new, list(history))
    return notes_set.notes, history


class NoteSet:
    """A list of notes with an inverted index from content token to positions.

    A note can only be a duplicate or a contradiction of a note it shares enough content
    tokens with: a duplicate needs Jaccard >= ``duplicate_jaccard``, so at least that share
    of the larger token set in common; a value contradiction needs 0.6 of the larger
    non-value set; the copula rule an equal subject of two or more words. Candidates are
    counted through the index and checked against those bounds before the rules run;
    notes without tokens (or whose tokens are all values) meet the rules through empty
    sets and are always checked. Candidates are checked in list order, so the first match
    is the one a full scan would find, at the cost of the notes that share words.
    """

    def __init__(self, notes: Iterable[Note], duplicate_jaccard: float = 0.75) -> None:
        self.notes: list[Note] = list(notes)
        self.duplicate_jaccard = duplicate_jaccard
        self._features = [features(note.text) for note in self.notes]  # aligned with notes
        self._postings: dict[str, set[int]] = {}
        self._no_tokens: set[int] = set()
        self._no_rest: set[int] = set()
        for position, found in enumerate(self._features):
            self._link(position, found)

    def _link(self, position: int, found: Features, *, add: bool = True) -> None:
        groups = [self._postings.setdefault(token, set()) for token in found.tokens]
        groups += [self._no_tokens] if not found.tokens else []
        groups += [self._no_rest] if not found.rest else []
        for group in groups:
            group.add(position) if add else group.discard(position)

    def candidates(self, found: Features) -> list[int]:
        """Positions that may relate to ``found`` (a superset of those that do), in order."""
        shared: Counter[int] = Counter()
        for token in found.tokens:
            shared.update(self._postings.get(token, ()))
        always = (self._no_tokens if not found.tokens else set()) | (
            self._no_rest if not found.rest else set())
        floor = self._least_shared(found)
        hits = [i for i, n in shared.items()
                if n >= floor and self._may_relate(self._features[i], found, n)]
        return sorted(always.union(hits))

    def _least_shared(self, new: Features) -> float:
        """The fewest shared tokens any rule could accept, from ``new`` alone (each bound of
        ``_may_relate`` is at least its share of the new note's own set): most notes share
        only a speaker name or a common word and are dropped by one comparison."""
        bounds = [self.duplicate_jaccard * len(new.tokens), 0.6 * len(new.rest)]
        if new.copula is not None:
            bounds.append(2)
        return min(bounds) - 1e-9

    def _may_relate(self, old: Features, new: Features, shared: int) -> bool:
        slack = 1e-9  # the bounds are necessary conditions; never let rounding exclude a match
        if shared >= self.duplicate_jaccard * max(len(old.tokens), len(new.tokens)) - slack:
            return True
        if old.speaker != new.speaker:
            return False
        if shared >= 0.6 * max(len(old.rest), len(new.rest)) - slack:
            return True
        return shared >= 2 and old.copula is not None and new.copula is not None

    def merge(self, new: Note, history: list[Note]) -> list[Note]:
        """Fold ``new`` in (duplicate: sources united; contradiction: the old note moves to
        the returned history; otherwise appended)."""
        found = features(new.text)
        for index in self.candidates(found):
            old, old_found = self.notes[index], self._features[index]
            kind = _relation(old_found, found, self.duplicate_jaccard, True)
            if kind == "duplicate":
                self.notes[index] = old.model_copy(update={
                    "sources": _union(old.sources, new.sources),
                    "importance": max(old.importance, new.importance),
                    "updated_at": _latest(old.updated_at, new.updated_at)})
                return history
            if kind == "contradiction":
                self._link(index, old_found, add=False)
                self._link(index, found)
                self.notes[index], self._features[index] = new, found
                return [*history, old]
        self._link(len(self.notes), found)
        self.notes.append(new)
        self._features.append(found)
        return history


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
    return resolved_by(question, parse_replies([later]))


def resolved(question: str, later_texts: Sequence[str]) -> bool:
    return resolved_by(question, parse_replies(later_texts))


Reply = tuple[str, frozenset[str]]  # (speaker, content tokens of the body)


def parse_replies(texts: Sequence[str]) -> list[Reply]:
    """Later texts read once for :func:`resolved_by` (many questions check the same texts)."""
    return [(speaker_of(text), t.content_tokens(_body(text))) for text in texts]


def resolved_by(question: str, replies: Sequence[Reply]) -> bool:
    """Whether any reply answers ``question``: the rule of :func:`answers`, on parsed texts."""
    speaker = speaker_of(question)
    asked = t.content_tokens(_body(question))
    for reply_speaker, said in replies:
        if speaker and speaker == reply_speaker:
            continue
        if not asked:
            return True
        shared = asked & said
        if len(shared) >= 2 or len(shared) * 2 >= len(asked):
            return True
    return False
