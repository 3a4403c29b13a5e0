"""ConversationManager: when to fold, with one of three strategies.

* ``truncate``: a sliding window; turns beyond ``l1_max_turns`` (or the L1 token budget)
  leave the prompt. They go to ``folded_out`` so the facade archives them.
* ``summarize``: incremental compaction into one rolling summary (<= ``summary_max_tokens``)
  that PRESERVES decisions, open questions and preferences and DISCARDS greetings,
  acknowledgements and apologies (the offline compactor's scoring does both).
* ``folded`` (default): L1 working turns -> L2 episodes -> L3 semantic memory.

Triggers (summarize and folded): L1 reaches ``l1_max_turns`` (fold the oldest half), or
L1's tokens pass ``fold_at_token_share`` of ``l1_token_budget`` (fold the oldest half by
tokens), never before ``min_turns_before_fold`` turns were seen. L2 reaching
``l2_max_episodes`` distils its oldest half into L3.

The API is pure: ``add(state, messages)`` returns a new :class:`FoldState` inside a
:class:`FoldOutcome` and stores nothing. The facade saves the state and the archive rows
in its ingest transaction.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from memfold.compaction import merge
from memfold.compaction.base import Compactor, FoldOutcome, FoldSettings
from memfold.compaction.offline import OfflineCompactor, episode_notes
from memfold.errors import InvalidInputError
from memfold.models import ArchiveItem, Episode, FoldState, Message, Note, SemanticMemory
from memfold.sensitive import has_secret
from memfold.tokens import TokenCounter, default_counter

_SUMMARY_LINE_RE = re.compile(r"^- (?P<text>.+) \[(?P<sources>[^\[\]]+)\] \((?P<imp>[0-9.]+)\)$")


@dataclass(slots=True)
class _Run:
    """Mutable scratch state for one add/fold_now call; frozen into a FoldOutcome at the end."""

    state: FoldState
    working: list[Message]
    episodes: list[Episode]
    semantic: SemanticMemory
    summary: str
    next_episode_id: int
    total: int
    created: list[Episode] = field(default_factory=list)
    distilled: list[Episode] = field(default_factory=list)
    folded_out: list[Message] = field(default_factory=list)
    fold_ranges: list[tuple[int, int]] = field(default_factory=list)
    archive: list[ArchiveItem] = field(default_factory=list)
    folds: int = 0
    distils: int = 0

    @classmethod
    def start(cls, state: FoldState) -> _Run:
        return cls(state=state, working=list(state.working), episodes=list(state.episodes),
                   semantic=state.semantic, summary=state.summary,
                   next_episode_id=state.current_episode_id, total=state.total_turns_seen)

    def outcome(self, strategy: str) -> FoldOutcome:
        new_state = self.state.model_copy(update={
            "working": self.working, "episodes": self.episodes, "semantic": self.semantic,
            "summary": self.summary, "current_episode_id": self.next_episode_id,
            "total_turns_seen": self.total, "folds": self.state.folds + self.folds,
            "strategy": strategy})
        return FoldOutcome(
            state=new_state, episodes=self.created,
            distilled=self.distilled, semantic_changed=self.semantic != self.state.semantic,
            folded_out=self.folded_out, fold_ranges=self.fold_ranges, archive=self.archive, folds=self.folds,
            distils=self.distils)


class ConversationManager:
    """Folds conversation state per the configured strategy (pure: returns new state)."""

    def __init__(self, compactor: Compactor | None = None, settings: FoldSettings | None = None,
                 counter: TokenCounter | None = None) -> None:
        self.settings = settings or FoldSettings()
        self.counter = counter or default_counter()
        self.compactor = compactor or OfflineCompactor(self.settings, self.counter)
        self._token_cache: dict[str, int] = {}

    @staticmethod
    def new_state(user_id: str) -> FoldState:
        return FoldState(user_id=user_id, semantic=SemanticMemory(user_id=user_id))

    # ---- public API ------------------------------------------------------------------
    def add(self, state: FoldState, messages: list[Message]) -> FoldOutcome:
        """Append ``messages`` to L1, folding whenever a trigger fires."""
        _check_users(state, messages)
        run = _Run.start(state)
        for message in messages:
            run.working.append(message)
            run.total += 1
            self._settle(run)
        return run.outcome(self.settings.strategy)

    def fold_now(self, state: FoldState, *, keep: int | None = None) -> FoldOutcome:
        """Fold the oldest turns now, ignoring triggers (``memfold fold``).

        ``keep`` recent turns stay in L1 (default: the newer half).
        """
        run = _Run.start(state)
        keep = len(run.working) // 2 if keep is None else max(0, keep)
        count = len(run.working) - keep
        if count > 0:
            self._fold(run, count)
        return run.outcome(self.settings.strategy)

    def l1_tokens(self, working: list[Message]) -> int:
        return sum(self._tokens(message) for message in working)

    def should_fold(self, working: list[Message], total_turns_seen: int) -> bool:
        """The summarize/folded trigger: turn window full, or the early token trigger."""
        s = self.settings
        if total_turns_seen < s.min_turns_before_fold or len(working) < 2:
            return False
        return len(working) >= s.l1_max_turns or self.l1_tokens(working) > s.token_trigger

    # ---- triggers --------------------------------------------------------------------
    def _settle(self, run: _Run) -> None:
        if self.settings.strategy == "truncate":
            self._slide(run)
            return
        while self.should_fold(run.working, run.total):
            self._fold(run, self._fold_count(run.working))

    def _slide(self, run: _Run) -> None:
        s = self.settings
        while len(run.working) > 1 and (len(run.working) > s.l1_max_turns
                                        or self.l1_tokens(run.working) > s.l1_token_budget):
            self._fold(run, 1)

    def _fold_count(self, working: list[Message]) -> int:
        """Oldest half by turns (spec) or, on the early token trigger, oldest half by tokens."""
        s = self.settings
        count = 0
        if len(working) >= s.l1_max_turns:
            count = len(working) - (s.l1_max_turns - s.l1_max_turns // 2)
        if self.l1_tokens(working) > s.token_trigger:
            half_tokens, running, by_tokens = self.l1_tokens(working) / 2, 0, 0
            for message in working:
                running += self._tokens(message)
                by_tokens += 1
                if running >= half_tokens:
                    break
            count = max(count, by_tokens)
        return max(1, min(len(working) - 1, count))

    def _tokens(self, message: Message) -> int:
        cached = self._token_cache.get(message.msg_id + "\x00" + message.user_id)
        if cached is None:
            if len(self._token_cache) > 10_000:
                self._token_cache.clear()
            cached = self.counter.count(message.text)
            self._token_cache[message.msg_id + "\x00" + message.user_id] = cached
        return cached

    # ---- folding ---------------------------------------------------------------------
    def _fold(self, run: _Run, count: int) -> None:
        start = run.total - len(run.working)
        run.fold_ranges.append((start, start + count - 1))
        if self.settings.strategy == "truncate":
            run.folded_out.extend(run.working[:count])
            run.working = run.working[count:]
            run.folds += 1
            return
        turns = run.working[:count]
        episode = without_reference_content(self.compactor.compact_episode(
            turns, episode_id=run.next_episode_id, turn_range=(start, start + count - 1),
            user_id=run.state.user_id), turns)
        run.next_episode_id += 1
        run.working = run.working[count:]
        run.folded_out.extend(turns)
        run.folds += 1
        if self.settings.strategy == "summarize":
            self._absorb_into_summary(run, episode)
            return
        run.episodes.append(episode)
        run.created.append(episode)
        self._maybe_distil(run)

    def _maybe_distil(self, run: _Run) -> None:
        s = self.settings
        while len(run.episodes) >= s.l2_max_episodes:
            oldest = run.episodes[: s.l2_max_episodes // 2]
            run.episodes = run.episodes[s.l2_max_episodes // 2:]
            semantic = only_from_episodes(self.compactor.distil(oldest, run.semantic),
                                          run.semantic, oldest)
            run.semantic, evicted = enforce_cap(semantic, s)
            run.distilled.extend(oldest)
            run.distils += 1
            run.archive.extend(a for a in (episode_archive_item(e) for e in oldest) if a)
            run.archive.extend(note_archive_item(run.state.user_id, n, "evicted_fact")
                               for n in evicted)

    # ---- summarize strategy ----------------------------------------------------------
    def _absorb_into_summary(self, run: _Run, episode: Episode) -> None:
        lines, history = parse_summary(run.summary), []
        for note in episode_notes(episode):
            lines, history = merge.merge_note(lines, history, note, self.settings.duplicate_jaccard)
        kept, dropped = self._trim_to_tokens(lines, self.settings.summary_max_tokens)
        run.summary = format_summary(kept)
        run.archive.extend(note_archive_item(run.state.user_id, n, "summary")
                           for n in dropped + history)

    def _trim_to_tokens(self, notes: list[Note], budget: int) -> tuple[list[Note], list[Note]]:
        """Keep the best notes (importance x recency) whose lines fit ``budget`` tokens."""
        ranked = sorted(range(len(notes)), key=lambda i: -_rank(notes, i))
        kept: set[int] = set()
        used = 0
        for index in ranked:
            cost = self.counter.count(format_summary([notes[index]]))
            if used + cost <= budget:
                kept.add(index)
                used += cost
        return ([n for i, n in enumerate(notes) if i in kept],
                [n for i, n in enumerate(notes) if i not in kept])


# ---- L3 cap and archive rows -------------------------------------------------------------
# ---- structural trust: reference content never becomes memory -------------------------
REFERENCE_ROLES = frozenset({"tool", "document"})


def without_reference_content(episode: Episode, turns: list[Message]) -> Episode:
    """Tool output and documents never become an L2 note, decision or ruled-out approach,
    whatever any compactor wrote and whether or not a pattern flagged them: a fetched page
    that says "the user is a minor" stays quoted reference content in the archive (and a
    tool's answer in ``tool_results``), never a memory about the user. A model-written
    summary of a window that held reference content is replaced by the kept notes."""
    reference = {turn.msg_id for turn in turns if turn.role in REFERENCE_ROLES}
    if not reference:
        return episode

    def trusted(sources: list[str]) -> bool:
        return bool(set(sources) - reference)

    notes = [n for n in episode.notes if trusted(n.sources)]
    return episode.model_copy(update={
        "notes": notes,
        "decisions": [d for d in episode.decisions if trusted(d.sources)],
        "eliminated": [e for e in episode.eliminated if trusted(e.sources)],
        "summary": " ".join(n.text for n in notes[:3]),
        "sources": [src for src in episode.sources if src not in reference]})


def only_from_episodes(distilled: SemanticMemory, before: SemanticMemory,
                       episodes: list[Episode]) -> SemanticMemory:
    """L3 distils L2, nothing else: a new fact, pattern or decision must cite a source of
    the episodes' own notes or decisions (so nothing a model read in ``tool_results`` or made
    up arrives in L3); what L3 already held is kept as it was. No L3 item may hold a
    secret (``memfold.sensitive``)."""
    allowed = {src for e in episodes for item in [*e.notes, *e.decisions, *e.eliminated]
               for src in item.sources}
    old = {n.text for n in [*before.facts, *before.patterns, *before.open_questions]}
    old_decisions = {d.decision for d in before.decisions}

    def keep(text: str, sources: list[str], known: set[str]) -> bool:
        if has_secret(text):  # a password or an id is never durable knowledge
            return False
        return text in known or bool(set(sources) & allowed)

    return distilled.model_copy(update={
        "facts": [n for n in distilled.facts if keep(n.text, n.sources, old)],
        "patterns": [n for n in distilled.patterns if keep(n.text, n.sources, old)],
        "open_questions": [n for n in distilled.open_questions if keep(n.text, n.sources, old)],
        "decisions": [d for d in distilled.decisions if keep(d.decision, d.sources, old_decisions)],
        "eliminated_approaches": [e for e in distilled.eliminated_approaches
                                  if keep(e.approach, e.sources, {x.approach for x in before.eliminated_approaches})]})


def enforce_cap(sem: SemanticMemory, settings: FoldSettings) -> tuple[SemanticMemory, list[Note]]:
    """Keep L3 within ``semantic_store_cap`` unpinned facts+patterns (and as many history notes).

    Rule: pinned notes always stay; the unpinned ones are ranked by importance x recency
    and the lowest leave L3 (open questions are capped at a quarter of the cap, like
    patterns). Evicted notes (and the oldest history beyond the cap) are
    returned so the manager can archive them as ``evicted_fact`` rows: searchable, not lost.
    """
    cap, pin = settings.semantic_store_cap, settings.pin_threshold
    facts, evicted_facts = _cap_notes(sem.facts, cap, pin)
    patterns, evicted_patterns = _cap_notes(sem.patterns, max(1, cap // 4), pin)
    # open questions too: unanswered ones pile up with the history, and every distil step
    # checks each of them against the new turns
    questions, evicted_questions = _cap_notes(sem.open_questions, max(1, cap // 4), pin)
    history = list(sem.history)
    evicted_history = history[:-cap] if len(history) > cap else []
    history = history[-cap:]
    evicted = evicted_facts + evicted_patterns + evicted_questions + evicted_history
    if not evicted:
        return sem, []
    return sem.model_copy(update={"facts": facts, "patterns": patterns, "open_questions": questions,
                                  "history": history}), evicted


def _cap_notes(notes: list[Note], cap: int, pin: float) -> tuple[list[Note], list[Note]]:
    unpinned = [i for i, n in enumerate(notes) if n.importance < pin]
    if len(unpinned) <= cap:
        return list(notes), []
    ranked = sorted(unpinned, key=lambda i: _rank(notes, i))
    drop = set(ranked[: len(unpinned) - cap])
    return ([n for i, n in enumerate(notes) if i not in drop],
            [n for i, n in enumerate(notes) if i in drop])


def _rank(notes: list[Note], index: int) -> float:
    """importance x recency, recency in [0.5, 1] by position (notes are kept oldest first)."""
    recency = 0.5 + 0.5 * (index / (len(notes) - 1) if len(notes) > 1 else 1.0)
    return notes[index].importance * recency


def _stable_id(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:16]


def episode_archive_item(episode: Episode) -> ArchiveItem | None:
    """An episode leaving L2, as an archive row (None if it kept no words)."""
    if not episode.sources:
        return None
    lines = [n.text for n in episode.notes] or [episode.summary]
    text = "\n".join(lines)
    return ArchiveItem(item_id=f"episode:{episode.user_id}:{episode.episode_id}",
                       user_id=episode.user_id, kind="episode", text=text, key_text=text,
                       sources=list(episode.sources), occurred_at=episode.started_at)


def note_archive_item(user_id: str, note: Note, kind: str) -> ArchiveItem:
    sources = note.sources or ["unknown"]
    return ArchiveItem(item_id=f"{kind}:{user_id}:{_stable_id(note.text, *sources)}",
                       user_id=user_id, kind=kind, text=note.text,  # type: ignore[arg-type]
                       key_text=note.text, sources=sources, occurred_at=note.updated_at)


def format_summary(notes: list[Note]) -> str:
    """The `summarize` strategy's rolling summary: one parseable line per kept sentence."""
    return "\n".join(f"- {n.text} [{', '.join(n.sources)}] ({n.importance:.2f})" for n in notes)


def parse_summary(summary: str) -> list[Note]:
    notes: list[Note] = []
    for line in summary.splitlines():
        match = _SUMMARY_LINE_RE.match(line.strip())
        if match:
            notes.append(Note(text=match["text"], importance=float(match["imp"]),
                              sources=[s.strip() for s in match["sources"].split(",") if s.strip()]))
    return notes


def _check_users(state: FoldState, messages: list[Message]) -> None:
    for message in messages:
        if message.user_id != state.user_id:
            raise InvalidInputError(
                f"message {message.msg_id} belongs to user {message.user_id!r}, "
                f"not {state.user_id!r}", hint="fold each user's messages into that user's state")
