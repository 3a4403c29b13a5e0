"""Recall: the question chooses the store, and every answer says where it came from.

``Retriever.recall`` classifies the query (fact / temporal / semantic, with weights) and
gathers candidates from each store whose intent is in play:

* the vector archive, always: BM25 on each row's window key and on its own key, and the
  dense index, fused by a weighted sum of per-list normalised scores (each list divided
  by its best score; a row absent from a list scores 0 there). In an offline experiment
  on LoCoMo-dev with the same three lists it beat reciprocal rank fusion (R@10 0.763 vs
  0.705 for RRF k=60 and 0.758 for the best RRF weighting tried), and unlike RRF it keeps
  "how much better". Rows that share their sources are one memory
  under several keys (raw words + extraction): the memory takes its best score per list,
  and dense scores are normalised per family (raw / derived) so short extractions do not
  rescale every raw row;
* the profile (fact intent): facts sharing a topic word with the query;
* the event log (a query time range): events in range that share a word with the query,
  or all of them when the question is only a time ("what did I do last week?"); archive
  rows inside the range get a boost, and a time-only question keeps only them;
* semantic memory (L3 notes of the fold store), scored like profile facts.

Who a question is about counts: rows whose speaker/subject is named in the query get a
boost (a name is any subject this user's memory holds, matched as a whole word; "I",
"me", "my" name the user). The merged list is deduplicated by sources (two items whose
sources overlap carry the same words: the better one stays), and profile facts that
are returned are touched for least-recently-used eviction.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memfold.embed.base import Embedder
from memfold.errors import ConfigError, InvalidInputError
from memfold.models import ArchiveItem, Event, Note, ProfileFact, RecallItem, RecallResult, utcnow
from memfold.retrieval.indexing import fact_sentence
from memfold.retrieval.indexing import item_id as archive_item_id
from memfold.llm.facts import standard_spelling, states_own_state
from memfold.retrieval.intent import HeuristicIntentClassifier, IntentClassifier, QueryIntent, asks_upcoming
from memfold.retrieval.lexical import Analyzer, LexicalHits, LexicalIndex, LexicalSearch, RowInfo
from memfold.retrieval.updates import (
    asks_about_the_past,
    asks_about_the_present,
    mark_superseded,
    newest_first_within_topics,
    statement_links,
    successor_links,
    successors_above,
    superseded_sources,
)
from memfold.stores import Stores
from memfold.timeexpr import find_time_expressions


class RecallSettings(BaseModel):
    """Fusion weights and candidate depths (defaults measured on LoCoMo-dev; see README)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # per ranked list. Fusion only scores a row from the lists that hold it, so depth matters:
    # on LoCoMo-dev (facade, int8 model) dense+BM25 depth 100 gave R@10 0.755 / within 1,000
    # tokens 0.841, 200 gave 0.778 / 0.870, 300 0.775 / 0.870 (dense depth is what counts:
    # BM25 at 200 with dense at 100 gave 0.760 / 0.843). 100k-row p95 cost: a few ms.
    candidates: int = 200
    weight_window: float = 1.0  # BM25 on the window key
    weight_own: float = 0.5  # BM25 on the row's own key
    weight_dense: float = 1.0  # cosine on the dense key
    derived_weight: float = 0.5  # dense hits on derived rows (extractions, summaries) vs raw words
    subject_boost: float = 0.3  # rows about someone the query names
    store_floor: float = 0.15  # an intent below this weight does not query its store
    intent_base: float = 0.6  # a structured match scores (base + intent weight) x a perfect archive hit
    range_boost: float = 0.5  # rows inside the query's time range (x temporal weight, at least 0.5)
    window_gap_hours: float = 2.0
    dense_floor: float | None = 0.0  # cosine scaled to 0 (None: the weakest retrieved candidate)
    # two items on the query's words about one subject, scores within this ratio: one topic
    # said twice, newest first (retrieval/updates.py)
    restated_band: float = Field(default=0.65, ge=0, le=1)
    # a later statement by the same speaker this close (cosine of the stored vectors) to an
    # earlier one, with a change word or a new number, is its successor and ranks above it
    # (retrieval/updates.py; set on LongMemEval-dev knowledge updates and the first held-out set)
    successor_similarity: float = Field(default=0.6, ge=0, le=1)
    # the same for a later statement of the speaker's own state that reports a change by a
    # transition verb too ("finally got the keys to our place in York"), both in the top 10
    # (retrieval/updates.py statement_links; set on training/corpus/update_conversations.jsonl)
    statement_similarity: float = Field(default=0.2, ge=-1, le=1)
    # a "when ...?" question without a range reads the event log by topic, oldest first, up
    # to this many events (a bound on the cost; a user with more needs a range in the question)
    topic_event_limit: int = Field(default=5000, ge=1)


@dataclass
class _Candidate:
    item: RecallItem
    score: float


@dataclass
class _Pool:
    """Candidates by key, best score kept."""

    entries: dict[str, _Candidate] = field(default_factory=dict)

    def offer(self, key: str, item: RecallItem, score: float) -> None:
        current = self.entries.get(key)
        if current is None or score > current.score:
            self.entries[key] = _Candidate(item, score)


_FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself|i'm|i've|i'd)\b", re.IGNORECASE)
_OWNER_NAMES = ("user",)
# Verbs a question about a period uses without naming a topic ("what did we discuss ...?").
# Words a question uses for a profile key that the stored fact need not contain
# ("where does she live?" asks for `location`). General English, keyed by the router's
# normalised key vocabulary (llm/keys.py), not by any data set.
KEY_CUES = {
    "name": "name called named", "age": "age old years", "birthday": "birthday born birth",
    "location": "live lives living home city town country where move moved reside based",
    "hometown": "from grew up originally born hometown", "job": "job work works working profession career do",
    "employer": "work works company employer job", "education": "study studied school university degree",
    "diet": "eat eats eating food diet vegetarian vegan meat", "allergy": "allergic allergy allergies",
    "partner": "partner married husband wife boyfriend girlfriend spouse", "pet": "pet pets dog cat animal",
    "family": "family sister brother kids children mother father parents", "hobby": "hobby hobbies free time enjoy",
    "likes": "like likes love loves favourite favorite enjoy", "preference": "prefer prefers preference want always",
    "language": "speak speaks language languages", "nationality": "nationality citizen country",
    # specific words only: a cue as common as "have" would match a fact to most questions
    "team": "team squad department", "favorite": "favorite favourite",
    "possession": "own owns drive drives car bike", "child": "kid kids child children son daughter",
    "relationship_status": "married single engaged divorced", "skill": "skill skills",
    "goal": "goal goals dream", "health": "health condition diagnosed",
    "dislikes": "dislike dislikes hate hates", "religion": "religion religious faith",
}
_TOPICLESS = "discuss discussed talk talked say said tell told mention mentioned chat happen happened going on up"


class Retriever:
    """Hybrid, store-routed recall for one memory. Thread-safe for concurrent reads."""

    def __init__(self, stores: Stores, embedder: Embedder, intent_classifier: IntentClassifier | None = None,
                 *, settings: RecallSettings | None = None, lexical: LexicalSearch | None = None,
                 analyzer: Analyzer | None = None) -> None:
        self.stores = stores
        self.embedder = embedder
        self.intents = intent_classifier or HeuristicIntentClassifier()
        self.settings = settings or RecallSettings()
        self.analyzer = analyzer or Analyzer()
        self.lexical = lexical or self._lexical(stores)

    def _lexical(self, stores: Stores) -> LexicalSearch:
        """The store's own BM25 when it computes one (PostgreSQL: every replica ranks the same
        committed rows), else an in-process index over the archive."""
        gap = timedelta(hours=self.settings.window_gap_hours)
        if stores.lexical is None:
            return LexicalIndex(stores.archive, window_gap=gap, analyzer=self.analyzer)
        if stores.lexical.window_gap != gap:  # its windows were linked when the rows were stored
            raise ConfigError(f"recall's window_gap_hours ({self.settings.window_gap_hours}) differs "
                              f"from the store's lexical window ({stores.lexical.window_gap})",
                              hint="open the stores with the same window gap as recall uses")
        return stores.lexical

    # -- keeping the lexical index current ------------------------------------------

    def archived(self, items: Iterable[ArchiveItem]) -> None:
        """Call after a commit that added archive rows (keeps BM25 current without a rebuild)."""
        self.lexical.extend(items)

    def invalidate(self, user_id: str | None = None) -> None:
        """Call after rows were deleted or replaced (forget, remove_message, import)."""
        self.lexical.invalidate(user_id)

    # -- reads ----------------------------------------------------------------------

    def search(self, query: str, user_id: str, k: int = 10) -> list[RecallItem]:
        """Raw vector-archive search: dense only, cosine scores, no routing or fusion."""
        _require(query, user_id, k)
        [vector] = self.embedder.embed([query])
        hits = self.stores.index.query(user_id, vector, k)
        rows = {row.item_id: row for row in self.stores.archive.get(user_id, [i for i, _ in hits])}
        return [archive_recall_item(rows[i], score) for i, score in hits if i in rows]

    def recall(self, query: str, user_id: str, *, now: datetime | None = None, k: int = 10) -> RecallResult:
        _require(query, user_id, k)
        started = time.perf_counter()
        now = now or utcnow()
        intent = self.intents.classify(query, now)
        lexical = self.lexical.search(user_id, query, self.settings.candidates)
        names = named_subjects(query, lexical.subjects)
        only_time = intent.time_range is not None and (asks_upcoming(query) or self._only_time(query, now))
        pool = _Pool()
        # only the best memories are read from the archive; dedup against other stores may
        # drop some, hence the margin
        self._archive_candidates(pool, query, user_id, intent, names, only_time, lexical, limit=2 * k + 20)
        # the profile is read once: candidates and the changelog check share it
        facts = self.stores.profile.list(user_id) if intent.weight("fact") >= self.settings.store_floor else None
        if facts is not None:
            self._profile_candidates(pool, query, facts, intent, names)
        if intent.time_range is not None or intent.weight("temporal") >= self.settings.store_floor:
            # "when is my dentist appointment?": no range, but the event log holds the answer
            self._event_candidates(pool, query, user_id, intent, names, only_time)
        self._semantic_candidates(pool, query, user_id, intent, names)
        items = deduplicate(sorted(pool.entries.values(), key=lambda c: -c.score), k)
        items = self._order_updates(query, user_id, intent, names, items, facts)
        self._touch(user_id, items, now)
        return RecallResult(query=query, user_id=user_id, now=now, intents=dict(intent.weights),
                            time_range=intent.time_range, items=items,
                            elapsed_ms=(time.perf_counter() - started) * 1000)

    # -- the archive: dense + lexical, fused ---------------------------------------

    def _archive_candidates(self, pool: _Pool, query: str, user_id: str, intent: QueryIntent,
                            names: set[str], only_time: bool, lexical: LexicalHits, limit: int) -> None:
        s = self.settings
        [vector] = self.embedder.embed([query])
        dense = self.stores.index.query(user_id, vector, s.candidates)
        wanted = {i for i, _ in dense} | {i for i, _ in lexical.own + lexical.window}
        infos = self.lexical.describe(user_id, wanted | set(self._in_range(user_id, intent)))
        lists = [(s.weight_window, normalised(lexical.window, 0.0)), (s.weight_own, normalised(lexical.own, 0.0))]
        dense_scores: dict[str, float] = {}
        for family, scale in (("raw", 1.0), ("derived", s.derived_weight)):
            hits = normalised([h for h in dense if h[0] in infos and _key_family(infos[h[0]].kind) == family],
                              s.dense_floor)
            dense_scores.update({i: scale * value for i, value in hits.items()})
        lists.append((s.weight_dense, dense_scores))
        rows = list(infos.values())
        if intent.time_range is not None and only_time:
            # "what did we discuss last week?": nothing but the time says what is relevant
            rows = [r for r in rows if _within(r.occurred_at, intent.time_range)] or rows
        best = sorted(self._fuse(rows, lists, names, intent), reverse=True)[:limit]
        texts = self.stores.archive.texts(user_id, [i for _, i in best])
        for score, item_id in best:
            if item_id in texts:  # a row deleted since the index was built is skipped
                pool.offer(item_id, row_recall_item(infos[item_id], texts[item_id], score), score)

    def _fuse(self, rows: list[RowInfo], lists: list[tuple[float, dict[str, float]]],
              names: set[str], intent: QueryIntent) -> list[tuple[float, str]]:
        """(score, shown item id) per memory: the weighted sum of its best score in each list
        (one memory may be indexed under several keys), plus the subject and range boosts."""
        s = self.settings
        in_range = 0.0 if intent.time_range is None else s.range_boost * max(intent.weight("temporal"), 0.5)
        scored: list[tuple[float, str]] = []
        for group in _by_sources(rows):
            if len(group) == 1:  # most memories have one row: no max over a generator
                item_id = group[0].item_id
                score = sum(weight * scores.get(item_id, 0.0) for weight, scores in lists)
            else:
                ids = [r.item_id for r in group]
                score = sum(weight * max(scores.get(i, 0.0) for i in ids) for weight, scores in lists)
            if any(r.about in names for r in group):
                score += s.subject_boost
            if in_range and any(_within(r.occurred_at, intent.time_range) for r in group):  # type: ignore[arg-type]
                score += in_range
            scored.append((score, _shown_row(group, lists).item_id))
        return scored

    def _only_time(self, query: str, now: datetime) -> bool:
        """True when the query has no content word outside its time expressions."""
        for expression in find_time_expressions(query, now):
            query = re.sub(re.escape(expression.expression), " ", query, flags=re.IGNORECASE)
        return not set(self.analyzer.tokens(query)) - set(self.analyzer.tokens(_TOPICLESS))

    def _in_range(self, user_id: str, intent: QueryIntent) -> list[str]:
        """Archive ids of the newest messages inside the query's time range (a question
        like "what did we discuss last week?" may share no word with the answer)."""
        if intent.time_range is None:
            return []
        start, end = intent.time_range
        messages = self.stores.log.list(user_id, since=start, until=end, limit=self.settings.candidates,
                                        newest_first=True)
        return [archive_item_id(user_id, "message", m.msg_id) for m in messages]

    # -- structured stores ----------------------------------------------------------

    def _topic_terms(self, query: str, names: set[str]) -> set[str]:
        """The query's content words minus the names in it: who a memory is about is
        scored separately, so a fact must share a word about *what* is asked."""
        return set(self.analyzer.tokens(query)) - set(self.analyzer.tokens(" ".join(names)))

    def _overlap(self, query_terms: set[str], text: str) -> float:
        """Share of the query's content words that ``text`` contains (0..1)."""
        if not query_terms:
            return 0.0
        return len(query_terms & set(self.analyzer.tokens(text))) / len(query_terms)

    def _structured(self, match: float, intent_weight: float, *, about: bool = False) -> float:
        """A profile/event/L3 match on the archive's scale: a perfect match on a question
        of that intent outranks a perfect archive hit; a weak one does not."""
        s = self.settings
        perfect = s.weight_window + s.weight_own + s.weight_dense
        return perfect * match * (s.intent_base + intent_weight) + (s.subject_boost if about else 0.0)

    def _profile_candidates(self, pool: _Pool, query: str, facts: Sequence[ProfileFact],
                            intent: QueryIntent, names: set[str]) -> None:
        terms = self._topic_terms(standard_spelling(query), names)  # "whats my wifes name"
        for fact in facts:
            about = fact.subject.lower() in names
            cues = KEY_CUES.get(fact.key.split(":", 1)[0], "")
            match = self._overlap(terms, f"{fact_sentence(fact.subject, fact.key, fact.value)} {cues}")
            if match == 0:
                continue
            score = self._structured(match, intent.weight("fact"), about=about)
            pool.offer(f"profile:{fact.subject}:{fact.key}", profile_recall_item(fact, score), score)

    def _event_candidates(self, pool: _Pool, query: str, user_id: str, intent: QueryIntent,
                          names: set[str], only_time: bool) -> None:
        """Events inside the query's range. When the question is only a time ("what did I do
        last week?") every one of them answers it; otherwise an event must share a word."""
        terms = self._topic_terms(query, names)
        start, end = intent.time_range or (None, None)
        # without a range every event may answer "when ...?"; the topic words pick them
        limit = self.settings.candidates if intent.time_range is not None else self.settings.topic_event_limit
        for event in self.stores.events.range(user_id, start=start, end=end, limit=limit):
            match = 1.0 if only_time else self._overlap(terms, f"{event.subject} {event.text}")
            if match == 0:
                continue
            score = self._structured(match, intent.weight("temporal"), about=event.subject.lower() in names)
            pool.offer(event.event_id, event_recall_item(event, score), score)

    def _semantic_candidates(self, pool: _Pool, query: str, user_id: str, intent: QueryIntent,
                             names: set[str]) -> None:
        state = self.stores.folds.load(user_id)
        if state is None:
            return
        terms = self._topic_terms(query, names)
        for note in [*state.semantic.facts, *state.semantic.patterns]:
            match = self._overlap(terms, note.text)
            if match == 0 or not note.sources:
                continue
            score = self._structured(match, intent.weight("semantic") * note.importance)
            pool.offer(f"semantic:{note.text}", note_recall_item(note, score), score)

    def _order_updates(self, query: str, user_id: str, intent: QueryIntent, names: set[str],
                       items: list[RecallItem], facts: Sequence[ProfileFact] | None) -> list[RecallItem]:
        """Newer statements above the ones they replace (:mod:`memfold.retrieval.updates`): the
        inferred signals first, then the changelog, which is certain and so has the last word.
        The changelog is read for fact questions only (``facts`` given): the profile is in play there anyway."""
        if not asks_about_the_past(query):
            items = newest_first_within_topics(items, self._topic_terms(query, names), self.analyzer.tokens,
                                               band=self.settings.restated_band)
            items = self._successors_above(user_id, items, statements=asks_about_the_present(query))
        if facts is not None:
            current = {(f.subject, f.key): set(f.sources) for f in facts}
            superseded = superseded_sources(self.stores.profile.history(user_id), current)
            items = mark_superseded(items, superseded) if superseded else items
        return items

    def _successors_above(self, user_id: str, items: list[RecallItem], *, statements: bool) -> list[RecallItem]:
        """Successor links, plus statement links when the question asks about the present
        (they are looser: a past-tense question wants what was said then)."""
        window = 10
        # a profile value or an event in the window stands for the message it was read from
        source_ids = {i: archive_item_id(user_id, "message", item.sources[0])
                      for i, item in enumerate(items[:window]) if item.store in ("profile", "events") and item.sources}
        ids = [item.item_id for item in items if item.store in ("archive", "episodes") and item.item_id]
        wanted = [*ids, *source_ids.values()]
        vectors = self.stores.index.vectors(user_id, wanted) if len(wanted) > 1 else {}
        gap = timedelta(hours=self.settings.window_gap_hours)
        links = successor_links(items, vectors, similarity=self.settings.successor_similarity, gap=gap,
                                window=window)
        vector_at = {i: vectors[item.item_id] for i, item in enumerate(items[:window])
                     if item.item_id in vectors and item.store == "archive"}
        vector_at.update({i: vectors[v] for i, v in source_ids.items() if v in vectors})
        if statements:
            links += statement_links(items, vector_at, similarity=self.settings.statement_similarity, gap=gap,
                                     states=_states_own_state, window=window)
        return successors_above(items, links) if links else items

    def _touch(self, user_id: str, items: Sequence[RecallItem], now: datetime) -> None:
        for item in items:
            if item.store == "profile" and item.subject is not None and "key" in item.meta:
                self.stores.profile.touch(user_id, item.subject, str(item.meta["key"]), now)


# -- helpers ------------------------------------------------------------------------------

# The best 10 of every present-tense recall are read by these rules, and the same stored
# texts come back query after query: the rules run once per text.
_states_own_state = lru_cache(maxsize=8192)(states_own_state)


def named_subjects(query: str, subjects: Iterable[str]) -> set[str]:
    """The (lower-cased) subjects of a user's memory that the query names as whole words;
    a first-person query names the user."""
    lowered = query.lower()
    named = {name for name in subjects
             if name not in _OWNER_NAMES and re.search(rf"\b{re.escape(name)}\b", lowered)}
    if _FIRST_PERSON.search(query):
        named.update(_OWNER_NAMES)
    return named


def _require(query: str, user_id: str | None, k: int) -> None:
    if not user_id or not str(user_id).strip():
        raise InvalidInputError("a read needs a user_id", hint="pass user_id=...; reads never span users")
    if not query or not query.strip():
        raise InvalidInputError("the query is empty")
    if k < 1:
        raise InvalidInputError(f"k must be at least 1, got {k}")


def normalised(hits: Sequence[tuple[str, float]], floor: float | None = None) -> dict[str, float]:
    """Scale one ranked list to [0, 1]: best -> 1, ``floor`` (default: the weakest retrieved) -> 0.

    BM25 uses floor 0 (a row that shares no word scores 0), so a short list of matches is
    not stretched as if its weakest match were irrelevant.
    """
    if not hits:
        return {}
    scores = np.array([score for _, score in hits], dtype=np.float64)
    top = float(scores.max())
    bottom = float(scores.min()) if floor is None else min(floor, float(scores.min()))
    span = top - bottom
    if span <= 1e-12:
        return {item_id: 1.0 for item_id, _ in hits}
    return {item_id: (score - bottom) / span for item_id, score in hits}


def _key_family(kind: str) -> str:
    """Raw words (messages, documents) or derived text (extractions, summaries).

    Dense scores are normalised per family: short derived rows often have the highest
    cosine, and must not shrink the scale of every raw row (nor the other way round);
    a memory then keeps its best row's score."""
    return "raw" if kind in ("message", "document") else "derived"


def _within(when: datetime | None, time_range: tuple[datetime, datetime]) -> bool:
    return when is not None and time_range[0] <= when < time_range[1]


def _by_sources(rows: Sequence[RowInfo]) -> list[list[RowInfo]]:
    groups: dict[tuple[str, ...], list[RowInfo]] = {}
    for row in rows:
        key = row.sources if len(row.sources) == 1 else tuple(sorted(row.sources))
        groups.setdefault(key, []).append(row)
    return list(groups.values())


def _shown_row(group: Sequence[RowInfo], lists: Sequence[tuple[float, dict[str, float]]]) -> RowInfo:
    """The row whose text stands for the memory: the best-matching raw row (one chunk of a
    long message is what matched, not its first chunk), else the best row."""
    def own(row: RowInfo) -> float:
        return sum(weight * scores.get(row.item_id, 0.0) for weight, scores in lists)

    if len(group) == 1:
        return group[0]
    raw = [r for r in group if _key_family(r.kind) == "raw"] or list(group)
    return max(raw, key=own)


def deduplicate(candidates: Sequence[_Candidate], k: int) -> list[RecallItem]:
    """Best first; an item whose sources overlap a better one's is dropped."""
    kept: list[RecallItem] = []
    covered: set[str] = set()
    for candidate in candidates:
        sources = set(candidate.item.sources)
        if sources & covered:
            continue
        kept.append(candidate.item)
        covered |= sources
        if len(kept) == k:
            break
    return kept


_ARCHIVE_STORE = {"episode": "episodes", "summary": "episodes"}


def archive_recall_item(row: ArchiveItem, score: float) -> RecallItem:
    info = RowInfo(row.item_id, row.kind, tuple(row.sources), row.subject, row.occurred_at,
                   tuple(row.flags))
    return row_recall_item(info, row.text, score)


def row_recall_item(row: RowInfo, text: str, score: float) -> RecallItem:
    """An archive row as a recall item, from the lexical index's row info and its text."""
    return RecallItem(store=_ARCHIVE_STORE.get(row.kind, "archive"), text=text, score=round(score, 6),
                      sources=list(row.sources), occurred_at=row.occurred_at, subject=row.subject,
                      item_id=row.item_id, meta={"kind": row.kind, "flags": list(row.flags)})


def profile_recall_item(fact: ProfileFact, score: float) -> RecallItem:
    return RecallItem(store="profile", text=fact_sentence(fact.subject, fact.key, fact.value),
                      score=round(score, 6), sources=list(fact.sources), occurred_at=fact.updated_at,
                      subject=fact.subject, item_id=f"profile:{fact.subject}:{fact.key}",
                      meta={"key": fact.key, "value": fact.value})


def event_recall_item(event: Event, score: float) -> RecallItem:
    return RecallItem(store="events", text=event.text, score=round(score, 6), sources=list(event.sources),
                      occurred_at=event.occurred_at, subject=event.subject, item_id=event.event_id,
                      meta={"granularity": event.granularity})


def note_recall_item(note: Note, score: float) -> RecallItem:
    return RecallItem(store="semantic", text=note.text, score=round(score, 6), sources=list(note.sources),
                      occurred_at=note.updated_at, meta={"importance": note.importance})
