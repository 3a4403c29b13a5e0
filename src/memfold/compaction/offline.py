"""OfflineCompactor: deterministic, extractive L1 -> L2 -> L3 compaction.

Extractive means every sentence it emits is a verbatim span of a source turn (prefixed
with the speaker's name), and every record lists the ``msg_id`` values whose words it
keeps. Nothing is paraphrased, so nothing can be fabricated.

Selecting sentences for an episode (budget = ``target_ratio`` x the folded turns' tokens):

1. split turns into sentences and score each (``scoring.py``: the spec's importance bands);
2. drop near-duplicates (content-token Jaccard), uniting their sources;
3. keep every pinned sentence (importance >= ``pin_threshold``), whatever the budget;
4. fill the rest of the budget greedily by (importance + 0.25 x key facts not yet
   covered) / sqrt(tokens): a budgeted coverage heuristic that favours sentences carrying
   numbers, dates and names nothing kept so far carries;
5. never keep low-importance filler (< 0.3) that adds no new key fact.
"""

from __future__ import annotations

import math
from datetime import datetime
from dataclasses import dataclass, field

from memfold.compaction import merge, scoring
from memfold.compaction import text as t
from memfold.compaction.base import FoldSettings
from memfold.models import Decision, Eliminated, Episode, Message, Note, SemanticMemory
from memfold.tokens import TokenCounter, default_counter

_COVERAGE_WEIGHT = 0.25
_FILLER_FLOOR = 0.3
_MAX_OPEN_QUESTIONS = 3
_PATTERN_WORDS = frozenset("always usually often every whenever typically tend tends habit".split())


@dataclass(slots=True)
class Candidate:
    """One sentence of one turn, scored."""

    position: int  # order in the folded turns (turn index * 1000 + sentence index)
    message: Message
    text: str  # "Speaker: sentence"
    sentence: str
    signals: scoring.Signals
    importance: float
    tokens: int
    facts: frozenset[str]
    sources: list[str] = field(default_factory=list)


class OfflineCompactor:
    """Extractive compactor with importance scoring, deduplication and L3 merging."""

    name = "offline"

    def __init__(self, settings: FoldSettings | None = None,
                 counter: TokenCounter | None = None) -> None:
        self.settings = settings or FoldSettings()
        self.counter = counter or default_counter()

    # ---- L1 -> L2 -------------------------------------------------------------------
    def compact_episode(self, turns: list[Message], *, episode_id: int,
                        turn_range: tuple[int, int], user_id: str) -> Episode:
        candidates = self.candidates(turns)
        kept = self.select(candidates, budget=self._budget(turns))
        notes = [self._note(c) for c in kept]
        texts = [c.text for c in candidates]
        return Episode(
            episode_id=episode_id, user_id=user_id, turn_range=turn_range,
            summary=_summary(notes), notes=notes,
            decisions=[_decision(c) for c in kept if scoring.is_decision(c.signals)],
            eliminated=[_eliminated(c) for c in kept if scoring.is_eliminated(c.signals)],
            open_questions=_open_questions(kept, texts),
            tool_results=_tool_results(kept),
            sources=_ordered_sources(kept),
            started_at=turns[0].ts if turns else None,
            ended_at=turns[-1].ts if turns else None,
        )

    def _budget(self, turns: list[Message]) -> int:
        tokens_in = sum(self.counter.count(turn.text) for turn in turns)
        return int(tokens_in * self.settings.target_ratio)

    def candidates(self, turns: list[Message]) -> list[Candidate]:
        """Every sentence of ``turns``, scored and deduplicated (sources of duplicates united)."""
        names = known_names(turns)
        found: list[Candidate] = []
        for turn_index, turn in enumerate(turns):
            for sentence_index, span in enumerate(t.split_sentences(turn.text)):
                found.append(self._candidate(turn, span.text, turn_index * 1000 + sentence_index,
                                             names))
        return _deduplicate(found, self.settings.duplicate_jaccard)

    def _candidate(self, turn: Message, sentence: str, position: int,
                   names: frozenset[str]) -> Candidate:
        text = f"{speaker_label(turn)}: {sentence}"
        sig = scoring.signals(sentence, names)
        return Candidate(position=position, message=turn, text=text, sentence=sentence,
                         signals=sig, importance=scoring.score_signals(sig),
                         tokens=max(1, self.counter.count(text)),
                         facts=frozenset(t.key_facts(sentence, names)), sources=[turn.msg_id])

    def select(self, candidates: list[Candidate], *, budget: int) -> list[Candidate]:
        """Pinned sentences always; then budgeted greedy coverage; chronological order out."""
        pinned = [c for c in candidates if c.importance >= self.settings.pin_threshold]
        kept = list(pinned)
        # every note carries its speaker's name as a prefix: speaker names are never "new"
        covered = {speaker_label(c.message).lower() for c in candidates}
        covered = covered.union(*(c.facts for c in pinned))
        remaining = budget - sum(c.tokens for c in pinned)
        pool = [c for c in candidates if c.importance < self.settings.pin_threshold]
        while pool:
            best = max(pool, key=lambda c: (_gain(c, covered) / math.sqrt(c.tokens), -c.position))
            pool.remove(best)
            new_facts = best.facts - covered
            if best.importance < _FILLER_FLOOR and not new_facts:
                continue
            if best.tokens > remaining:
                continue
            kept.append(best)
            covered |= best.facts
            remaining -= best.tokens
        return sorted(kept, key=lambda c: c.position)

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
        dup = self.settings.duplicate_jaccard
        decisions, eliminated = list(sem.decisions), list(sem.eliminated_approaches)
        for decision in episode.decisions:
            decisions = merge.merge_decision(decisions, decision, dup)
        for item in episode.eliminated:
            eliminated = merge.merge_eliminated(eliminated, item, dup)
        facts, patterns, history = list(sem.facts), list(sem.patterns), list(sem.history)
        questions = list(sem.open_questions)
        structured = _structured_texts(episode)
        for note in episode_notes(episode):
            pinned = note.importance >= self.settings.pin_threshold
            if note.text in episode.open_questions:
                if not merge.resolved(note.text, after):
                    questions, history = merge.merge_note(questions, history, note, dup)
                elif pinned:
                    history.append(note)  # answered, but pinned notes are never dropped
            elif _contains_any(note.text, structured) and not pinned:
                continue  # carried by decisions / eliminated above
            elif not pinned and note.importance < self.settings.distil_min_importance:
                continue  # not durable: stays reachable through the archived episode
            elif _is_pattern(note.text):
                patterns, history = merge.merge_note(patterns, history, note, dup)
            else:
                facts, history = merge.merge_note(facts, history, note, dup)
        return sem.model_copy(update={
            "facts": facts, "decisions": decisions, "eliminated_approaches": eliminated,
            "patterns": patterns, "open_questions": questions, "history": history,
            "updated_at": _latest_time(sem, episode)})


# ---- helpers ---------------------------------------------------------------------------
def speaker_label(turn: Message) -> str:
    if turn.role == "tool":
        return f"tool {turn.meta.get('tool', turn.speaker)}"
    return turn.speaker


def known_names(turns: list[Message]) -> frozenset[str]:
    """Speaker names plus words capitalised mid-sentence anywhere in the turns (lower-cased)."""
    names = {turn.speaker.lower() for turn in turns}
    for turn in turns:
        names |= {n.lower() for n in t.proper_nouns(turn.text)}
    return frozenset(names)


def _gain(candidate: Candidate, covered: set[str]) -> float:
    return candidate.importance + _COVERAGE_WEIGHT * len(candidate.facts - covered)


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


def _open_questions(kept: list[Candidate], texts: list[str]) -> list[str]:
    """Kept questions that no later turn by someone else answers (at most 3, most important)."""
    open_ones: list[Candidate] = []
    for cand in kept:
        if not cand.signals.question or cand.signals.content_words < 2:
            continue
        later = texts[texts.index(cand.text) + 1:]
        if not merge.resolved(cand.text, later):
            open_ones.append(cand)
    open_ones.sort(key=lambda c: (-c.importance, c.position))
    return [c.text for c in sorted(open_ones[:_MAX_OPEN_QUESTIONS], key=lambda c: c.position)]


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
    """The episode's notes; for an episode without notes (LLM-made), its summary sentences."""
    if episode.notes:
        return list(episode.notes)
    return [Note(text=span.text, sources=list(episode.sources),
                 importance=scoring.score(span.text), updated_at=episode.ended_at)
            for span in t.split_sentences(episode.summary) if episode.sources]


def _structured_texts(episode: Episode) -> list[str]:
    return [d.decision for d in episode.decisions] + [e.approach for e in episode.eliminated]


def _contains_any(text: str, parts: list[str]) -> bool:
    return any(part and part in text for part in parts)


def _is_pattern(text: str) -> bool:
    return any(word in _PATTERN_WORDS for word in (w.lower() for w in t.words(text)))


def _resolve_open_questions(sem: SemanticMemory, later: list[str]) -> SemanticMemory:
    """Questions that a newer turn answers leave L3's open list (kept in history)."""
    still_open = [q for q in sem.open_questions if not merge.resolved(q.text, later)]
    answered = [q for q in sem.open_questions if merge.resolved(q.text, later)]
    if not answered:
        return sem
    return sem.model_copy(update={"open_questions": still_open,
                                  "history": list(sem.history) + answered})


def _latest_time(sem: SemanticMemory, episode: Episode) -> datetime | None:
    times = [x for x in (sem.updated_at, episode.ended_at) if x is not None]
    return max(times) if times else None
