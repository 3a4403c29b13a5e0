"""OfflineCompactor: deterministic, extractive L1 -> L2 -> L3 compaction.

Extractive means every sentence it emits is a verbatim span of a source turn (prefixed
with the speaker's name), and every record lists the ``msg_id`` values whose words it
keeps. Nothing is paraphrased, so nothing can be fabricated.

Selecting sentences for an episode (budget = ``target_ratio`` x the folded turns' tokens,
counted as the episode is rendered: heading, one quoted line per turn, source tags):

1. split turns into sentences and score each (``scoring.py``: the spec's importance bands);
2. drop near-duplicates (content-token Jaccard), uniting their sources;
3. keep every pinned sentence (importance >= ``pin_threshold``), whatever the budget;
4. fill the rest of the budget greedily by (importance + 0.5 x key facts not yet
   covered) / sqrt(cost), where a sentence opening a new line also pays the line's
   speaker, quotes and source tag: a budgeted coverage heuristic that favours sentences
   carrying numbers, dates and names nothing kept so far carries, and turns already quoted;
5. never keep low-importance filler (< 0.3) that adds no new key fact.

The coverage weight (0.5, was 0.25) and the line-aware cost were chosen on the LoCoMo
development conversations (``benchmarks/compaction.py``); nothing else is fitted to them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from dataclasses import dataclass, field
from functools import lru_cache

from memfold.compaction import merge, scoring
from memfold.compaction import text as t
from memfold.compaction.base import FoldSettings, episode_heading, line_markup
from memfold.models import Decision, Eliminated, Episode, Message, Note, SemanticMemory
from memfold.tokens import TokenCounter, default_counter

_COVERAGE_WEIGHT = 0.5
_FILLER_FLOOR = 0.3
_MAX_OPEN_QUESTIONS = 3
_PATTERN_WORDS = frozenset("always usually often every whenever typically tend tends habit".split())


@dataclass(slots=True)
class Candidate:
    """One sentence of one turn, scored."""

    position: int  # order in the folded turns (turn index * 1e6 + sentence index)
    message: Message
    text: str  # "Speaker: sentence"
    sentence: str
    signals: scoring.Signals
    importance: float
    tokens: int  # of "Speaker: sentence"
    sentence_tokens: int  # of the sentence alone (what it adds to a line already open)
    facts: frozenset[str]
    sources: list[str] = field(default_factory=list)


class OfflineCompactor:
    """Extractive compactor with importance scoring, deduplication and L3 merging."""

    name = "offline"

    def __init__(self, settings: FoldSettings | None = None,
                 counter: TokenCounter | None = None) -> None:
        self.settings = settings or FoldSettings()
        self.counter = counter or default_counter()
        self._line_costs: dict[tuple[str, ...], int] = {}

    # ---- L1 -> L2 -------------------------------------------------------------------
    def compact_episode(self, turns: list[Message], *, episode_id: int,
                        turn_range: tuple[int, int], user_id: str) -> Episode:
        candidates = self.candidates(turns)
        open_ones = _open_questions(candidates)
        kept = self.select(candidates, budget=self._budget(turns, episode_id),
                           must_keep=open_ones)
        notes = [self._note(c) for c in kept]
        return Episode(
            episode_id=episode_id, user_id=user_id, turn_range=turn_range,
            summary=_summary(notes), notes=notes,
            decisions=[_decision(c) for c in kept if scoring.is_decision(c.signals)],
            eliminated=[_eliminated(c) for c in kept if scoring.is_eliminated(c.signals)],
            open_questions=[c.text for c in open_ones],
            tool_results=_tool_results(kept),
            sources=_ordered_sources(kept),
            started_at=turns[0].ts if turns else None,
            ended_at=turns[-1].ts if turns else None,
        )

    def _budget(self, turns: list[Message], episode_id: int) -> int:
        """``target_ratio`` x the folded tokens, minus the episode's heading when the budget
        is the rendered cost (``budget_includes_markup``)."""
        tokens_in = sum(self.counter.count(turn.text) for turn in turns)
        budget = int(tokens_in * self.settings.target_ratio)
        if self.settings.budget_includes_markup and turns:
            budget -= self.counter.count(episode_heading(episode_id, turns[0].ts))
        return budget

    def candidates(self, turns: list[Message]) -> list[Candidate]:
        """Every sentence of ``turns``, scored and deduplicated (sources of duplicates united).

        A turn longer than ``long_turn_tokens`` (a pasted document, a big tool output) only
        offers its best sentences up to ``long_turn_keep_tokens``: its full text lives in
        the document store / archive with progressive layers (``progressive.py``).
        """
        names = known_names(turns)
        found: list[Candidate] = []
        for turn_index, turn in enumerate(turns):
            if _untrusted(turn):
                continue  # instruction-like tool/document text stays quoted in the archive only
            own = [self._candidate(turn, span.text, turn_index * 1_000_000 + i, names)
                   for i, span in enumerate(t.split_sentences(turn.text))]
            found.extend(self._limit_long_turn(turn, own))
        return _deduplicate(found, self.settings.duplicate_jaccard)

    def _limit_long_turn(self, turn: Message, own: list[Candidate]) -> list[Candidate]:
        if sum(c.tokens for c in own) <= self.settings.long_turn_tokens:
            return own
        from memfold.compaction.progressive import greedy_cover

        picked = greedy_cover(range(len(own)), [c.importance for c in own],
                              [c.tokens for c in own], [c.facts for c in own],
                              budget=self.settings.long_turn_keep_tokens)
        return [own[i] for i in sorted(picked)]

    def _candidate(self, turn: Message, sentence: str, position: int,
                   names: frozenset[str]) -> Candidate:
        text = f"{speaker_label(turn)}: {sentence}"
        sig = scoring.signals(sentence, names)
        return Candidate(position=position, message=turn, text=text, sentence=sentence,
                         signals=sig, importance=scoring.score_signals(sig),
                         tokens=max(1, self.counter.count(text)),
                         sentence_tokens=max(1, self.counter.count(sentence)),
                         facts=frozenset(t.key_facts(sentence, names)), sources=[turn.msg_id])

    def select(self, candidates: list[Candidate], *, budget: int,
               must_keep: Sequence[Candidate] = ()) -> list[Candidate]:
        """Pinned sentences and ``must_keep`` always; then budgeted greedy coverage.

        A sentence costs its tokens plus, for the first sentence kept from a turn, the
        rendered line's quoting and source tag (render.py gives each turn one line), so
        the budget bounds what the episode costs in a prompt, not just its words.
        """
        forced = {id(c) for c in must_keep}
        kept = [c for c in candidates
                if c.importance >= self.settings.pin_threshold or id(c) in forced]
        lines: set[tuple[str, ...]] = set()
        remaining = budget
        for cand in kept:  # what the forced sentences cost, each line's markup paid once
            remaining -= self._added_cost(cand, lines)
            lines.add(tuple(cand.sources))
        # a kept note carries its speaker's name as a prefix: that name is covered by it.
        # Only facts the turns mention count ("Bob: ok" does not win by naming Bob).
        mentioned = frozenset().union(*(c.facts for c in candidates))
        covered = set().union(*(_covers(c) for c in kept))
        chosen = {id(c) for c in kept}
        pool = [c for c in candidates if id(c) not in chosen]
        while pool:
            best = max(pool, key=lambda c: (_gain(c, covered, mentioned)
                                            / math.sqrt(self._added_cost(c, lines)), -c.position))
            pool.remove(best)
            cost = self._added_cost(best, lines)
            new_facts = _covers(best) & mentioned - covered
            if best.importance < _FILLER_FLOOR and not new_facts or cost > remaining:
                continue
            kept.append(best)
            lines.add(tuple(best.sources))
            covered |= _covers(best)
            remaining -= cost
        return sorted(kept, key=lambda c: c.position)

    def _added_cost(self, candidate: Candidate, lines: set[tuple[str, ...]]) -> int:
        """What keeping ``candidate`` adds to the episode: a sentence joining its turn's line
        adds its own words; one opening a line also pays the speaker, quotes and source tag."""
        if not self.settings.budget_includes_markup:
            return candidate.tokens
        line = tuple(candidate.sources)
        if line in lines:
            return candidate.sentence_tokens
        return candidate.tokens + self._line_cost(line)

    def _line_cost(self, sources: tuple[str, ...]) -> int:
        """Tokens a rendered episode line adds around its sentences: - "..." [msg_id].
        Memoised: the greedy loop asks for every candidate's line on every step."""
        cost = self._line_costs.get(sources)
        if cost is None:
            cost = self._line_costs[sources] = self.counter.count(line_markup(list(sources)))
            if len(self._line_costs) > 10_000:  # bounded: one entry per quoted turn
                self._line_costs.clear()
        return cost

    def _note(self, candidate: Candidate) -> Note:
        return Note(text=candidate.text, sources=candidate.sources,
                    importance=candidate.importance, updated_at=candidate.message.ts)

    # ---- L2 -> L3 -------------------------------------------------------------------
    def distil(self, episodes: list[Episode], existing: SemanticMemory) -> SemanticMemory:
        sem = existing
        ordered = sorted(episodes, key=lambda e: e.turn_range)
        later_texts = [note.text for ep in ordered for note in episode_notes(ep)]
        sem = _resolve_open_questions(sem, later_texts)
        for index, episode in enumerate(ordered):
            after = [n.text for ep in ordered[index + 1:] for n in episode_notes(ep)]
            sem = self._distil_one(episode, sem, after)
        return sem

    def _distil_one(self, episode: Episode, sem: SemanticMemory, after: list[str]) -> SemanticMemory:
        draft = _L3Draft.start(sem, self.settings)
        for decision in episode.decisions:
            draft.decisions = merge.merge_decision(draft.decisions, decision, draft.dup)
        for item in episode.eliminated:
            draft.eliminated = merge.merge_eliminated(draft.eliminated, item, draft.dup)
        structured = _structured_texts(episode)
        for note in episode_notes(episode):
            if note.text in episode.open_questions:
                draft.add_question(note, answered=merge.resolved(note.text, after))
            elif not _contains_any(note.text, structured) or draft.pinned(note):
                draft.add_note(note)
        return draft.finish(sem, episode)


@dataclass(slots=True)
class _L3Draft:
    """L3 under construction during one distil step (merging rules in ``merge.py``)."""

    settings: FoldSettings
    facts: merge.NoteSet
    patterns: merge.NoteSet
    questions: merge.NoteSet
    history: list[Note]
    decisions: list[Decision]
    eliminated: list[Eliminated]
    covered: set[str]  # key facts L3 already carries

    @classmethod
    def start(cls, sem: SemanticMemory, settings: FoldSettings) -> _L3Draft:
        texts = [n.text for n in sem.facts + sem.patterns] + [d.decision for d in sem.decisions]
        dup = settings.duplicate_jaccard
        return cls(settings, merge.NoteSet(sem.facts, dup), merge.NoteSet(sem.patterns, dup),
                   merge.NoteSet(sem.open_questions, dup), list(sem.history),
                   list(sem.decisions), list(sem.eliminated_approaches),
                   set().union(*(_key_facts(x) for x in texts)) if texts else set())

    @property
    def dup(self) -> float:
        return self.settings.duplicate_jaccard

    def pinned(self, note: Note) -> bool:
        return note.importance >= self.settings.pin_threshold

    def add_question(self, note: Note, *, answered: bool) -> None:
        if not answered:
            self.history = self.questions.merge(note, self.history)
        elif self.pinned(note):
            self.history.append(note)  # answered, but pinned notes are never dropped

    def add_note(self, note: Note) -> None:
        """Durable notes (pinned, important, or carrying a key fact L3 lacks) are merged in."""
        new_facts = t.key_facts(note.text) - self.covered
        durable = note.importance >= self.settings.distil_min_importance
        if not (self.pinned(note) or durable or new_facts):
            return  # stays reachable through the archived episode
        self.covered |= new_facts
        target = self.patterns if _is_pattern(note.text) else self.facts
        self.history = target.merge(note, self.history)

    def finish(self, sem: SemanticMemory, episode: Episode) -> SemanticMemory:
        return sem.model_copy(update={
            "facts": self.facts.notes, "decisions": self.decisions,
            "eliminated_approaches": self.eliminated, "patterns": self.patterns.notes,
            "open_questions": self.questions.notes, "history": self.history,
            "updated_at": _latest_time(sem, episode)})


# ---- helpers ---------------------------------------------------------------------------
@lru_cache(maxsize=65_536)
def _key_facts(text: str) -> frozenset[str]:
    """Cached: every distil step reads the key facts of all of L3, which changes little."""
    return frozenset(t.key_facts(text))


def _untrusted(turn: Message) -> bool:
    """Tool or document content that reads like instructions must not become L2/L3 memory."""
    from memfold.router.trust import looks_like_instruction

    return turn.role in ("tool", "document") and looks_like_instruction(turn.text)


def speaker_label(turn: Message) -> str:
    if turn.role == "tool":
        return f"tool {turn.meta.get('tool', turn.speaker)}"
    return turn.speaker


def known_names(turns: list[Message]) -> frozenset[str]:
    """Speaker names plus words capitalised mid-sentence more often than written in lower case.

    The frequency test keeps "Sounds" (capitalised after a quote, lower case elsewhere) out
    while "Paris" or "LGBTQ" stay in; known names then also count at a sentence start.
    """
    capitalised: dict[str, int] = defaultdict(int)
    lower_case: dict[str, int] = defaultdict(int)
    for turn in turns:
        for name in t.proper_nouns(turn.text):
            capitalised[name.lower()] += 1
        for word in t.words(turn.text):
            if word.islower():
                lower_case[word] += 1
    names = {w for w, n in capitalised.items() if n > lower_case.get(w, 0)}
    return frozenset(names | {turn.speaker.lower() for turn in turns})


def _covers(candidate: Candidate) -> frozenset[str]:
    """Key facts a kept note makes present: its own, plus its speaker's name (the prefix)."""
    return candidate.facts | {speaker_label(candidate.message).lower()}


def _gain(candidate: Candidate, covered: set[str], mentioned: frozenset[str]) -> float:
    return candidate.importance + _COVERAGE_WEIGHT * len(_covers(candidate) & mentioned - covered)


def _deduplicate(candidates: list[Candidate], threshold: float) -> list[Candidate]:
    kept: list[Candidate] = []
    tokens: list[frozenset[str]] = []
    for cand in candidates:
        cand_tokens = t.content_tokens(cand.sentence)
        match = _find_duplicate(cand, cand_tokens, kept, tokens, threshold)
        if match is None:
            kept.append(cand)
            tokens.append(cand_tokens)
            continue
        if cand.message.msg_id not in match.sources:
            match.sources.append(cand.message.msg_id)
        match.importance = max(match.importance, cand.importance)
    return kept


def _find_duplicate(cand: Candidate, cand_tokens: frozenset[str], kept: list[Candidate],
                    tokens: list[frozenset[str]], threshold: float) -> Candidate | None:
    if len(cand_tokens) < 2:
        return None  # too short to call a duplicate; filler is dropped by score instead
    for other, other_tokens in zip(kept, tokens):
        if other.facts == cand.facts and t.jaccard(cand_tokens, other_tokens) >= threshold:
            return other
    return None


def _summary(notes: list[Note]) -> str:
    """The 2-3 most important kept sentences, in order: the episode's narrative line."""
    top = sorted(range(len(notes)), key=lambda i: (-notes[i].importance, i))[:3]
    return " ".join(notes[i].text for i in sorted(top))


def _decision(c: Candidate) -> Decision:
    head, reason = scoring.split_reason(c.sentence)
    constraint = c.sentence if c.signals.constraint else ""
    return Decision(decision=f"{speaker_label(c.message)}: {head}", reason=reason,
                    constraint=constraint, sources=list(c.sources))


def _eliminated(c: Candidate) -> Eliminated:
    head, why = scoring.split_reason(c.sentence)
    return Eliminated(approach=f"{speaker_label(c.message)}: {head}", why=why,
                      sources=list(c.sources))


def _open_questions(candidates: list[Candidate]) -> list[Candidate]:
    """Questions no later turn answers (PRESERVE: open questions / TODOs).

    Answered means: the next turn by someone else makes a statement (not only questions,
    >= 2 content words), or a later turn by someone else shares the question's content
    words (``merge.answers``). At most three per episode, the most important, in order;
    the selection keeps them whatever the budget.
    """
    texts = [c.text for c in candidates]
    open_ones = [c for i, c in enumerate(candidates)
                 if c.signals.question and c.signals.content_words >= 2
                 and not _replied(c, candidates[i + 1:])
                 and not merge.resolved(c.text, texts[i + 1:])]
    open_ones.sort(key=lambda c: (-c.importance, c.position))
    return sorted(open_ones[:_MAX_OPEN_QUESTIONS], key=lambda c: c.position)


def _replied(question: Candidate, later: list[Candidate]) -> bool:
    reply = next((c.message for c in later if c.message.speaker != question.message.speaker
                  and c.message.role in ("user", "assistant")), None)
    if reply is None:
        return False
    statements = [s.text for s in t.split_sentences(reply.text) if not s.text.endswith("?")]
    return len(t.content_tokens(" ".join(statements))) >= 2


def _tool_results(kept: list[Candidate]) -> dict[str, str]:
    results: dict[str, list[str]] = {}
    for cand in kept:
        if cand.message.role == "tool":
            key = cand.message.meta.get("tool", cand.message.msg_id)
            results.setdefault(key, []).append(cand.sentence)
    return {key: " ".join(sentences) for key, sentences in results.items()}


def _ordered_sources(kept: list[Candidate]) -> list[str]:
    seen: dict[str, None] = {}
    for cand in kept:
        for source in cand.sources:
            seen.setdefault(source, None)
    return list(seen)


def episode_notes(episode: Episode) -> list[Note]:
    """The episode's notes, plus its summary sentences that no note already quotes
    (a model-written summary), citing the episode's sources."""
    residual = episode.summary
    for note in episode.notes:  # an extractive summary is made of note texts
        residual = residual.replace(note.text, "\n")
    if not episode.sources:
        return list(episode.notes)
    extra = [Note(text=span.text, sources=list(episode.sources),
                  importance=scoring.score(span.text), updated_at=episode.ended_at)
             for span in t.split_sentences(residual)]
    return list(episode.notes) + extra


def _structured_texts(episode: Episode) -> list[str]:
    return [d.decision for d in episode.decisions] + [e.approach for e in episode.eliminated]


def _contains_any(text: str, parts: list[str]) -> bool:
    return any(part and part in text for part in parts)


def _is_pattern(text: str) -> bool:
    return any(word in _PATTERN_WORDS for word in (w.lower() for w in t.words(text)))


def _resolve_open_questions(sem: SemanticMemory, later: list[str]) -> SemanticMemory:
    """Questions that a newer turn answers leave L3's open list (kept in history)."""
    later_parsed = merge.parse_replies(later)  # once, not once per open question
    is_answered = [merge.resolved_by(q.text, later_parsed) for q in sem.open_questions]
    still_open = [q for q, done in zip(sem.open_questions, is_answered) if not done]
    answered = [q for q, done in zip(sem.open_questions, is_answered) if done]
    if not answered:
        return sem
    return sem.model_copy(update={"open_questions": still_open,
                                  "history": list(sem.history) + answered})


def _latest_time(sem: SemanticMemory, episode: Episode) -> datetime | None:
    times = [x for x in (sem.updated_at, episode.ended_at) if x is not None]
    return max(times) if times else None
