"""Offline importance scoring of sentences (spec: memory-compression.txt, importance bands).

Bands, as in the spec's IMPORTANCE_SYSTEM prompt:

* 0.8-1.0 HIGH: specific numbers or explicit dates, decisions with their reason,
  constraints ("must", "never", "only", ...), errors and failures. Pinned: no fold
  or distil may drop them.
* 0.4-0.7 MEDIUM: named people/things, preferences, relative dates, decisions without
  a stated reason, substantive questions, ordinary content.
* 0.1-0.3 LOW: greetings, acknowledgements, filler, very short routine lines.

The rules are generic English cues, not tuned to any benchmark's names or phrasing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memfold.compaction import text as t

# Strong decision cues mark a decision on their own; weak ones ("will", "let's") only
# together with a stated reason.
_DECISION_RE = re.compile(
    r"\b(decided|decide to|decision|chose|choose to|chosen|going with|plan(?:ning)? to|agreed|"
    r"opted|settled on|switch(?:ed)? to|picked|signed up|committed to)\b", re.I)
_WEAK_DECISION_RE = re.compile(r"\b(will|we'll|i'll|let's|going to|gonna)\b", re.I)
_REASON_RE = re.compile(r"\b(because|since|so that|due to|in order to)\b", re.I)
_CONSTRAINT_RE = re.compile(
    r"\b(must(?!\s+have\b|'ve\b|\s+be\s+(?:so|really|very|nice|fun|great|hard|tough)\b)|never|only|always|required|requires?|cannot|can't(?!\s+(?:wait|believe|agree|beat|imagine|stop|help))|mustn't|no more than|at least|"
    r"at most|deadline|not allowed|forbidden|mandatory|limit)\b", re.I)
_ERROR_RE = re.compile(
    r"\b(error|errors|failed|fails|failure|exception|crash(?:ed)?|bug|broke|broken|traceback|"
    r"timeout|timed out|denied|refused)\b", re.I)
_ELIMINATED_RE = re.compile(
    r"\b(tried|ruled out|didn't work|did not work|doesn't work|does not work|won't work|"
    r"gave up|give up|abandoned|no longer|stopped|rejected)\b", re.I)
_PREFERENCE_RE = re.compile(
    r"\b(prefer|prefers|favou?rite|love|loves|hate|hates|enjoy|enjoys|allergic|passionate|"
    r"dislike|can't stand)\b", re.I)
_FILLER_RE = re.compile(
    r"^(hi|hey|hello|thanks|thank you|bye|goodbye|see you|ok|okay|sure|cool|great|awesome|nice|"
    r"wow|lol|haha|yeah|yes|no problem|sounds good|good to|glad|sorry|congrats|take care)\b", re.I)
_APOLOGY_RE = re.compile(r"\b(sorry|apologi[sz]e|my bad)\b", re.I)


@dataclass(frozen=True, slots=True)
class Signals:
    """What the scorer saw in one sentence (also reused to classify it)."""

    numbers: int
    dates: int
    names: int
    relative_date: bool
    decision: bool
    reason: bool
    constraint: bool
    error: bool
    eliminated: bool
    preference: bool
    question: bool
    filler: bool
    content_words: int


def signals(sentence: str, known_names: frozenset[str] = frozenset()) -> Signals:
    content = t.content_tokens(sentence)
    return Signals(
        numbers=len(t.numbers(sentence)),
        dates=len(t.dates(sentence)),
        names=len(t.proper_nouns(sentence, known_names)),
        relative_date=t.has_relative_date(sentence),
        decision=bool(_DECISION_RE.search(sentence))
        or bool(_WEAK_DECISION_RE.search(sentence) and _REASON_RE.search(sentence)),
        reason=bool(_REASON_RE.search(sentence)),
        constraint=bool(_CONSTRAINT_RE.search(sentence)),
        error=bool(_ERROR_RE.search(sentence)),
        eliminated=bool(_ELIMINATED_RE.search(sentence)),
        preference=bool(_PREFERENCE_RE.search(sentence)),
        question=sentence.rstrip().endswith("?"),
        filler=bool(_FILLER_RE.match(sentence.strip())) or bool(_APOLOGY_RE.search(sentence)),
        content_words=len(content),
    )


def score(sentence: str, known_names: frozenset[str] = frozenset()) -> float:
    """Importance in [0, 1] following the spec's bands."""
    return score_signals(signals(sentence, known_names))


def score_signals(s: Signals) -> float:
    high = _high_signal_count(s)
    if high:
        bonus = 0.05 * (high - 1) + (0.05 if s.names else 0.0)
        return round(min(1.0, 0.8 + bonus), 3)
    if s.filler and s.content_words <= 3 or s.content_words <= 1:
        return 0.1 if s.content_words == 0 else 0.2
    return round(min(0.7, _medium_score(s)), 3)


def _high_signal_count(s: Signals) -> int:
    """Spec HIGH criteria: specific numbers/dates, decision + rationale, constraints, errors
    (and an approach ruled out with its reason)."""
    substantive = s.content_words >= 3
    return sum((
        s.numbers > 0 and substantive,
        s.dates > 0 and substantive,
        s.decision and s.reason and substantive,
        s.eliminated and s.reason and substantive,  # ruled out, with why: prevents re-trying
        s.constraint and substantive and not s.question,
        s.error and substantive,
    ))


def _medium_score(s: Signals) -> float:
    value = 0.3 if s.content_words < 4 else 0.4
    value += 0.15 if s.names else 0.0
    value += 0.1 if s.preference else 0.0
    value += 0.1 if s.decision or s.eliminated else 0.0
    value += 0.05 if s.relative_date else 0.0
    value -= 0.1 if s.filler else 0.0
    return max(0.25, value)


def is_decision(s: Signals) -> bool:
    return s.decision and not s.question and s.content_words >= 3


def is_eliminated(s: Signals) -> bool:
    return s.eliminated and not s.question and s.content_words >= 3


def split_reason(sentence: str) -> tuple[str, str]:
    """'X because Y' -> ('X', 'Y'); both are verbatim substrings of the sentence."""
    match = _REASON_RE.search(sentence)
    if not match:
        return sentence, ""
    head = sentence[:match.start()].rstrip(" ,;-")
    tail = sentence[match.end():].strip(" ,;-")
    return (head or sentence), tail
