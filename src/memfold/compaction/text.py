"""Text primitives for extractive compaction: sentences with offsets, content tokens, key facts.

Everything here is deterministic and language-light (English heuristics). The offline
compactor only ever *selects* spans of its input, so the sentence splitter returns the
character offsets of each sentence: every emitted sentence is ``text[start:end]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Abbreviations after which a period does not end a sentence.
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st vs etc e.g i.e approx dept est inc ltd co no fig vol".split()
)
_BOUNDARY_RE = re.compile(r"[.!?]+[\"')\]]*\s+|\n+")
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-.]*[A-Za-z0-9]|[A-Za-z0-9]")
_CAP_WORD_RE = re.compile(r"(?<![\w'’])([A-Z][a-zA-Z'’\-]*[a-zA-Z]|[A-Z]{2,})(?![\w])")
_NUMBER_RE = re.compile(r"(?<![\w.])[$€£]?\d+(?:[.,:/]\d+)*(?:%|st|nd|rd|th|k|m|km|kg|s)?(?![\w])")
_YEAR_RE = re.compile(r"\b(1[89]\d\d|20\d\d)\b")

MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
RELATIVE_DATES = frozenset(
    "yesterday today tomorrow tonight weekend week month year ago last next".split()
)

STOPWORDS = frozenset("""
a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
don't down during each few for from further get got had hadn't has hasn't have haven't having he
he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in
into is isn't it it's its itself just let's like me more most mustn't my myself no nor not now of
off on once only or other ought our ours ourselves out over own really same shan't she she'd
she'll she's should shouldn't so some such than that that's the their theirs them themselves then
there there's these they they'd they'll they're they've this those through to too under until up
very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's which
while who who's whom why why's will with won't would wouldn't you you'd you'll you're you've your
yours yourself yourselves yeah yes oh ok okay well thanks thank hey hi hello wow lol sure great
cool awesome nice good really totally definitely glad hope one lot much many thing things
""".split())

# Capitalised words that are ordinary words, not names, even mid-sentence.
_NOT_NAMES = frozenset(
    "i i'm i've i'll i'd ok okay hey hi hello thanks wow yes yeah no oh omg lol".split()
)


@dataclass(frozen=True, slots=True)
class Span:
    """A sentence of a source text: ``source[start:end] == text``."""

    text: str
    start: int
    end: int


def split_sentences(text: str) -> list[Span]:
    """Split into sentences, returning verbatim spans with their character offsets."""
    spans: list[Span] = []
    start = 0
    for match in _BOUNDARY_RE.finditer(text):
        if _ends_with_abbreviation(text[start:match.start() + 1]) and "\n" not in match.group():
            continue
        _append_span(spans, text, start, match.end())
        start = match.end()
    _append_span(spans, text, start, len(text))
    return spans


def _ends_with_abbreviation(chunk: str) -> bool:
    words = chunk.rstrip(".!?\"')] ").split()
    if not words or not chunk.rstrip().endswith("."):
        return False
    last = words[-1].lower().rstrip(".")
    return last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())


def _append_span(spans: list[Span], text: str, start: int, end: int) -> None:
    chunk = text[start:end]
    stripped = chunk.strip()
    if not stripped:
        return
    offset = start + chunk.index(stripped)
    spans.append(Span(stripped, offset, offset + len(stripped)))


def words(text: str) -> list[str]:
    return [w.rstrip(".") for w in _WORD_RE.findall(text)]


def content_tokens(text: str) -> frozenset[str]:
    """Lower-cased words minus stopwords: the basis of duplicate and overlap tests."""
    return frozenset(w for w in (t.lower().replace("’", "'") for t in words(text))
                     if w not in STOPWORDS and len(w) > 1 or w.isdigit())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def numbers(text: str) -> set[str]:
    return {m.group().lower() for m in _NUMBER_RE.finditer(text)}


def dates(text: str) -> set[str]:
    """Explicit calendar words and years (relative dates such as 'yesterday' excluded)."""
    found = {w.lower() for w in words(text) if w.lower() in MONTHS or w.lower() in WEEKDAYS}
    # "may" is a month only when capitalised mid-sentence; the modal verb is lower case.
    if "may" in found and not re.search(r"(?<=\w )May\b", text):
        found.discard("may")
    return found | set(_YEAR_RE.findall(text))


def has_relative_date(text: str) -> bool:
    return any(w.lower() in RELATIVE_DATES for w in words(text))


def proper_nouns(text: str, known_names: frozenset[str] = frozenset()) -> set[str]:
    """Capitalised words that are not sentence-initial (unless already known as names)."""
    found: set[str] = set()
    for sentence in split_sentences(text):
        first = True
        for match in _CAP_WORD_RE.finditer(sentence.text):
            word = match.group(1)
            lower = word.lower().replace("’", "'")
            initial = first and sentence.text[:match.start()].strip(" \"'(*-:") == ""
            first = False
            if lower in _NOT_NAMES or lower in MONTHS or lower in WEEKDAYS:
                continue
            if initial and lower not in known_names:
                continue
            if lower in STOPWORDS and lower not in known_names:
                continue
            found.add(word)
    return found


def key_facts(text: str, known_names: frozenset[str] = frozenset()) -> set[str]:
    """Numbers, explicit dates and proper nouns, lower-cased: what compression must keep."""
    names = {n.lower() for n in proper_nouns(text, known_names)}
    return numbers(text) | dates(text) | names


def contains_fact(haystack_lower: str, fact: str) -> bool:
    """Whole-word, case-insensitive presence of a key fact in already lower-cased text."""
    return re.search(r"(?<![\w])" + re.escape(fact) + r"(?![\w])", haystack_lower) is not None
