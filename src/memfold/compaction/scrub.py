"""Removing a source message from the folded layers (L1, L2 and L3).

When a message is removed (``Memory.remove_message``), everything derived from it must
go too. Episode summaries are extractive (built from their notes), so an episode that
cited the message is rebuilt from the notes that remain; an episode left with nothing
is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from memfold.models import Decision, Eliminated, Episode, FoldState, Note, SemanticMemory

T = TypeVar("T", Note, Decision, Eliminated)


def scrub_sources(state: FoldState, msg_ids: set[str]) -> tuple[FoldState, int]:
    """The state without anything citing ``msg_ids``, and how many entries were removed."""
    working = [m for m in state.working if m.msg_id not in msg_ids]
    removed = len(state.working) - len(working)
    episodes: list[Episode] = []
    for episode in state.episodes:
        kept, dropped = _scrub_episode(episode, msg_ids)
        removed += dropped
        if kept is not None:
            episodes.append(kept)
    semantic, dropped = _scrub_semantic(state.semantic, msg_ids)
    removed += dropped
    summary, dropped = _scrub_summary(state.summary, msg_ids)
    removed += dropped
    scrubbed = state.model_copy(update={"working": working, "episodes": episodes,
                                        "semantic": semantic, "summary": summary})
    return scrubbed, removed


def _keep(entries: Sequence[T], msg_ids: set[str]) -> tuple[list[T], int]:
    kept = [e for e in entries if not msg_ids.intersection(e.sources)]
    return kept, len(entries) - len(kept)


def _scrub_episode(episode: Episode, msg_ids: set[str]) -> tuple[Episode | None, int]:
    if not msg_ids.intersection(episode.sources):
        return episode, 0
    notes, n1 = _keep(episode.notes, msg_ids)
    decisions, n2 = _keep(episode.decisions, msg_ids)
    eliminated, n3 = _keep(episode.eliminated, msg_ids)
    if not (notes or decisions or eliminated):
        return None, n1 + n2 + n3 + 1
    sources = sorted({s for entry in [*notes, *decisions, *eliminated] for s in entry.sources})
    summary = " ".join(note.text for note in notes)
    questions = [q for q in episode.open_questions if any(q in note.text for note in notes)]
    rebuilt = episode.model_copy(update={
        "notes": notes, "decisions": decisions, "eliminated": eliminated, "sources": sources,
        "summary": summary, "open_questions": questions, "tool_results": {}})
    return rebuilt, n1 + n2 + n3


def _scrub_semantic(semantic: SemanticMemory, msg_ids: set[str]) -> tuple[SemanticMemory, int]:
    removed = 0
    update = {}
    for name in ("facts", "patterns", "open_questions", "history", "decisions", "eliminated_approaches"):
        kept, dropped = _keep(getattr(semantic, name), msg_ids)
        update[name] = kept
        removed += dropped
    return semantic.model_copy(update=update), removed


def _scrub_summary(summary: str, msg_ids: set[str]) -> tuple[str, int]:
    """The `summarize` strategy's rolling summary without lines citing ``msg_ids``."""
    from memfold.compaction.manager import format_summary, parse_summary

    notes, dropped = _keep(parse_summary(summary), msg_ids)
    return (format_summary(notes) if dropped else summary), dropped
