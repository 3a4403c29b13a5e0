"""Per-user BM25 over the archive rows, with the window key derived at index time.

bm25s builds a static sparse matrix; memfold's archive grows one turn at a time, so this
module keeps its own append-only inverted index (postings as growing arrays) and scores
with the same Okapi BM25 formula (Lucene idf), using bm25s' English stopwords plus a
general English function-word list and the PyStemmer English stemmer.

Two rankings come out of one index:

* ``own``: each row scored on its own key (its words plus its speaker/subject name);
* ``window``: each message row scored as if its key were the row plus the message rows
  just before and after it (same conversation: no more than ``window_gap`` apart). The
  window document is never stored: its term frequencies are the sums of the neighbours'
  postings, computed per query term, so a new turn only links itself to its
  predecessor instead of rewriting (and re-embedding) the predecessor's row.

The index is built lazily per user from the ArchiveLog and cached. ``extend`` appends the
rows a commit added (the fast path); a row count that no longer matches the cache (a
delete, another process) rebuilds the user's index on the next search.
"""

from __future__ import annotations

import threading
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple

import numpy as np

from memfold.bm25 import (
    B,
    DEFAULT_WINDOW_GAP,
    K1,
    SKIP_KINDS,
    WINDOW_KINDS,
    Analyzer,
    LexicalHits,
    LexicalSearch,
    RowInfo,
    close_in_time,
    lexical_key,
)
from memfold.models import ArchiveItem
from memfold.stores.base import ArchiveLog

__all__ = ["Analyzer", "LexicalHits", "LexicalIndex", "LexicalSearch", "RowInfo", "SKIP_KINDS",
           "UserIndex", "WINDOW_KINDS", "lexical_key"]


@dataclass
class _Postings:
    docs: array = field(default_factory=lambda: array("i"))
    tfs: array = field(default_factory=lambda: array("f"))

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.frombuffer(self.docs, dtype=np.int32), np.frombuffer(self.tfs, dtype=np.float32)


class _Stats(NamedTuple):
    lengths: np.ndarray
    prev: np.ndarray
    next: np.ndarray
    window_lengths: np.ndarray
    own_avg: float
    window_avg: float


class UserIndex:
    """The append-only BM25 index of one user's archive rows."""

    def __init__(self, analyzer: Analyzer, window_gap: timedelta) -> None:
        self.analyzer = analyzer
        self.window_gap = window_gap
        self.item_ids: list[str] = []
        self.positions: dict[str, int] = {}
        self.lengths = array("f")
        self.prev = array("i")
        self.next = array("i")
        self.postings: dict[str, _Postings] = {}
        self.subjects: set[str] = set()
        self.rows: list[RowInfo] = []
        self._last_message: tuple[int, datetime | None] | None = None
        self._stats: _Stats | None = None  # derived from lengths and links; reset by add()
        self.replaced: set[int] = set()  # docs superseded by a newer version of their row

    def __len__(self) -> int:
        """Live rows: what the archive holds for the user when the index is current."""
        return len(self.item_ids) - len(self.replaced)

    def add(self, item: ArchiveItem) -> None:
        """Append a row; a row already present (same item_id) is replaced: its old doc keeps
        its postings but never scores again, so a replacement costs what an append does."""
        self._stats = None
        old = self.positions.get(item.item_id)
        if old is not None:
            self.replaced.add(old)
        doc = len(self.item_ids)
        self.item_ids.append(item.item_id)
        self.positions[item.item_id] = doc
        self.rows.append(RowInfo(item.item_id, item.kind, tuple(item.sources), item.subject,
                                 item.occurred_at, tuple(item.flags)))
        if item.kind in SKIP_KINDS:  # described and counted (the cache check compares counts), never matched
            self.lengths.append(0.0)
            self.prev.append(-1)
            self.next.append(-1)
            return
        tokens = self.analyzer.tokens(lexical_key(item))
        self.lengths.append(float(len(tokens)))
        if item.subject:
            self.subjects.add(item.subject.lower())
        for term, tf in Counter(tokens).items():
            postings = self.postings.setdefault(term, _Postings())
            postings.docs.append(doc)
            postings.tfs.append(float(tf))
        self._link(doc, item)

    def _link(self, doc: int, item: ArchiveItem) -> None:
        self.prev.append(-1)
        self.next.append(-1)
        if item.kind not in WINDOW_KINDS:
            return
        last = self._last_message
        if last is not None and close_in_time(last[1], item.occurred_at, self.window_gap):
            self.prev[doc] = last[0]
            self.next[last[0]] = doc
        self._last_message = (doc, item.occurred_at)

    def search(self, query: str, k: int) -> LexicalHits:
        terms = [t for t in dict.fromkeys(self.analyzer.tokens(query)) if t in self.postings]
        subjects = frozenset(self.subjects)
        if not terms or not self.item_ids:
            return LexicalHits([], [], subjects)
        n = len(self.item_ids)
        st = self.stats()
        lengths, prev, nxt, window_lengths = st.lengths, st.prev, st.next, st.window_lengths
        own_avg, window_avg = st.own_avg, st.window_avg
        own = np.zeros(n, dtype=np.float32)
        window = np.zeros(n, dtype=np.float32)
        for term in terms:
            docs, tfs = self.postings[term].arrays()
            _accumulate(own, docs, tfs, lengths, own_avg, n)
            wdocs = np.concatenate([docs, nxt[docs], prev[docs]])
            wtfs = np.concatenate([tfs, tfs, tfs])
            keep = wdocs >= 0
            _accumulate(window, wdocs[keep], wtfs[keep], window_lengths, window_avg, n, repeats=True)
        return LexicalHits(self._top(own, k), self._top(window, k), subjects)

    def stats(self) -> _Stats:
        """Lengths, links and averages as arrays, computed once per change of the index."""
        if self._stats is None:
            lengths = np.frombuffer(self.lengths, dtype=np.float32).copy()
            prev = np.frombuffer(self.prev, dtype=np.int32).copy()
            nxt = np.frombuffer(self.next, dtype=np.int32).copy()
            window = lengths + _gather(lengths, prev) + _gather(lengths, nxt)
            self._stats = _Stats(lengths, prev, nxt, window, float(lengths.mean()) or 1.0,
                                 float(window.mean()) or 1.0)
        return self._stats

    def _top(self, scores: np.ndarray, k: int) -> list[tuple[str, float]]:
        if self.replaced:
            scores[list(self.replaced)] = 0.0
        hits = np.flatnonzero(scores > 0)
        if len(hits) > k:
            hits = hits[np.argpartition(-scores[hits], k - 1)[:k]]
        hits = hits[np.argsort(-scores[hits], kind="stable")]
        return [(self.item_ids[i], float(scores[i])) for i in hits]


def _gather(values: np.ndarray, links: np.ndarray) -> np.ndarray:
    """values[links], with 0 where a link is -1 (no neighbour)."""
    return np.where(links >= 0, values[np.maximum(links, 0)], 0.0).astype(np.float32)


def _accumulate(scores: np.ndarray, docs: np.ndarray, tfs: np.ndarray, lengths: np.ndarray,
                avg: float, n: int, *, repeats: bool = False) -> None:
    """Add one term's BM25 contribution. With ``repeats`` a doc may appear several times
    (a window sums its neighbours' postings); a plain posting list holds each doc once."""
    if len(docs) == 0:
        return
    if repeats:
        # one O(n) count beats sorting for np.unique once posting lists reach thousands
        counts = np.bincount(docs, weights=tfs, minlength=n)
        unique = np.flatnonzero(counts)
        tf = counts[unique].astype(np.float32)
    else:
        unique, tf = docs, tfs
    idf = np.log1p((n - len(unique) + 0.5) / (len(unique) + 0.5))
    norm = K1 * (1 - B + B * lengths[unique] / avg)
    scores[unique] += idf * tf * (K1 + 1) / (tf + norm)


class LexicalIndex:
    """The BM25 indexes of every user seen, built on first search and kept current."""

    def __init__(self, archive: ArchiveLog, *, window_gap: timedelta = DEFAULT_WINDOW_GAP,
                 analyzer: Analyzer | None = None) -> None:
        self.archive = archive
        self.window_gap = window_gap
        self.analyzer = analyzer or Analyzer()
        self._users: dict[str, UserIndex] = {}
        self._lock = threading.RLock()

    def search(self, user_id: str, query: str, k: int) -> LexicalHits:
        with self._lock:
            index = self._current(user_id)
            return index.search(query, k)

    def describe(self, user_id: str, item_ids: Iterable[str]) -> dict[str, RowInfo]:
        """RowInfo of those of ``item_ids`` that are this user's rows."""
        with self._lock:
            index = self._users.get(user_id) or self._current(user_id)  # just checked by search
            return {i: index.rows[index.positions[i]] for i in item_ids if i in index.positions}

    def extend(self, items: Iterable[ArchiveItem]) -> None:
        """Append rows just committed (a row re-added under its item_id replaces the old one)."""
        with self._lock:
            for item in items:
                index = self._users.get(item.user_id)
                if index is not None:  # else built from the archive on first search
                    index.add(item)

    def invalidate(self, user_id: str | None = None) -> None:
        with self._lock:
            if user_id is None:
                self._users.clear()
            else:
                self._users.pop(user_id, None)

    def _current(self, user_id: str) -> UserIndex:
        index = self._users.get(user_id)
        if index is None or len(index) != self.archive.count(user_id):
            index = self.build(user_id, self.archive.list(user_id))
            self._users[user_id] = index
        return index

    def build(self, user_id: str, items: Sequence[ArchiveItem]) -> UserIndex:
        index = UserIndex(self.analyzer, self.window_gap)
        for item in items:
            if item.user_id == user_id:
                index.add(item)
        return index
