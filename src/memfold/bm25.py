"""What every BM25 index of memfold shares: the analyzer, which rows are indexed and how,
the window rule, the parameters, and the shape of a search's answer.

Two indexes rank with these definitions: the in-process one of the embedded store
(:mod:`memfold.retrieval.lexical`) and the one PostgreSQL computes in SQL for a shared
deployment (:mod:`memfold.stores.postgres`). They live here, below both the stores and
retrieval, so that the two cannot drift apart: a word is the same token in both, and a
window joins the same rows.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache, lru_cache
from typing import NamedTuple, Protocol

import Stemmer

from memfold.models import ArchiveItem

# General English function words (question words, auxiliaries, pronouns): they carry no
# topic, and a question is full of them. bm25s' English stopwords are added on first use.
_GENERAL_WORDS = frozenset("""
about above after again against all am any because been before being below between both can
could did do does doing down during each few from further had has have having he her here hers
herself him himself his how i its itself just me more most my myself nor now off once only other
our ours ourselves out over own same she should so some than that's them themselves those
through too under until up very we were what when where which while who whom why would you your
yours yourself yourselves s t d ll m re ve don didn doesn isn wasn aren weren hasn haven hadn
""".split())

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
WINDOW_KINDS = frozenset({"message", "document"})
# Extraction rows restate their message's words, which BM25 already holds under the raw
# row and its window: indexing them again only lets short restatements crowd the list
# (measured on LoCoMo-dev with the offline router: R@10 0.739 -> 0.745). They stay in the
# dense index and in the profile/event stores.
SKIP_KINDS = frozenset({"fact", "event"})
K1 = 1.2
B = 0.75
DEFAULT_WINDOW_GAP = timedelta(hours=2)


@cache
def function_words() -> frozenset[str]:
    """The words no key is matched on. bm25s is imported here, not at module load: it pulls
    in scipy (~0.3 s), which opening a store to read records never needs."""
    from bm25s.stopwords import STOPWORDS_EN

    return _GENERAL_WORDS | frozenset(STOPWORDS_EN)


class Analyzer:
    """Text -> stemmed content tokens (thread-safe: PyStemmer objects are not)."""

    def __init__(self, cache_size: int = 32_768) -> None:
        self._stemmer = Stemmer.Stemmer("english")
        self._stop = function_words()
        self._lock = threading.Lock()
        # recall tokenises each candidate's text to measure its overlap with the query, and
        # the same memories come back query after query (7% of the service's GIL samples)
        self._cached = lru_cache(maxsize=cache_size)(self._analyse)

    def tokens(self, text: str) -> list[str]:
        return list(self._cached(text))

    def _analyse(self, text: str) -> tuple[str, ...]:
        words = [w for w in _WORD.findall(text.lower()) if w not in self._stop]
        with self._lock:
            return tuple(self._stemmer.stemWords(words))


def analyzer_version() -> str:
    """A fingerprint of what decides the stored tokens (the stopwords, the stemmer, the kinds
    skipped): an index persisted under another fingerprint must be rebuilt."""
    parts = [" ".join(sorted(function_words())), "snowball-english", _WORD.pattern,
             " ".join(sorted(SKIP_KINDS)), " ".join(sorted(WINDOW_KINDS))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def lexical_key(item: ArchiveItem) -> str:
    """What BM25 reads: the row's key plus who it is about (speaker-aware matching)."""
    return f"{item.subject} {item.key_text}" if item.subject else item.key_text


def close_in_time(before: datetime | None, after: datetime | None, gap: timedelta) -> bool:
    """The window rule: two consecutive message rows share a window unless they are more than
    ``gap`` apart (a row without a time joins its neighbours)."""
    if before is None or after is None:
        return True
    return abs(after - before) <= gap


class RowInfo(NamedTuple):
    """What fusion needs to know about a row, kept in memory so that only the rows finally
    shown are read from the archive (a read of hundreds of candidates costs more than the
    whole ranking at 100,000 rows)."""

    item_id: str
    kind: str
    sources: tuple[str, ...]  # in the row's order
    subject: str | None  # as stored
    occurred_at: datetime | None
    flags: tuple[str, ...] = ()

    @property
    def about(self) -> str | None:
        """Who the row is about, lower-cased (for matching names in a query)."""
        return self.subject.lower() if self.subject else None


@dataclass(frozen=True)
class LexicalHits:
    """Two rankings of one query: (item_id, score), best first; and who the rows are about."""

    own: list[tuple[str, float]]
    window: list[tuple[str, float]]
    subjects: frozenset[str] = frozenset()


class LexicalSearch(Protocol):
    """BM25 over a user's archive rows: the in-process :class:`LexicalIndex`, or one a store
    computes itself (PostgreSQL, shared by replicas: ``Stores.lexical``)."""

    window_gap: timedelta

    def search(self, user_id: str, query: str, k: int) -> LexicalHits:
        """The ``own`` and ``window`` rankings of the user's rows, and who they are about."""

    def describe(self, user_id: str, item_ids: Iterable[str]) -> dict[str, RowInfo]:
        """RowInfo of those of ``item_ids`` that are this user's rows."""

    def extend(self, items: Iterable[ArchiveItem]) -> None:
        """Rows just committed (an index the database keeps ignores this)."""

    def invalidate(self, user_id: str | None = None) -> None:
        """Rows were deleted or replaced (an index the database keeps ignores this)."""
