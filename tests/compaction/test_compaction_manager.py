"""ConversationManager: triggers, strategies, purity, and the pinned-note invariant."""

from __future__ import annotations

import pytest
from compaction_helpers import COUNTER, message, messages, turn_texts
from hypothesis import HealthCheck, given, settings as hsettings
from hypothesis import strategies as st

from memfold.compaction.base import FoldOutcome, FoldSettings
from memfold.compaction.manager import ConversationManager, enforce_cap, parse_summary
from memfold.errors import InvalidInputError
from memfold.models import FoldState, Note, SemanticMemory


def _manager(**overrides: object) -> ConversationManager:
    return ConversationManager(settings=FoldSettings(**overrides), counter=COUNTER)


def _feed(manager: ConversationManager, batches: list[list]) -> tuple[FoldState, list[FoldOutcome]]:
    state = manager.new_state("u1")
    outcomes = []
    for batch in batches:
        outcome = manager.add(state, batch)
        outcomes.append(outcome)
        state = outcome.state
    return state, outcomes


def test_folds_oldest_half_when_l1_reaches_its_window(manager: ConversationManager) -> None:
    turns = messages([f"Note {i}: the meter read {i * 7} units." for i in range(20)])
    outcome = manager.add(manager.new_state("u1"), turns)
    assert outcome.folds == 1 and [m.msg_id for m in outcome.folded_out] == [f"m{i}" for i in range(10)]
    assert [m.msg_id for m in outcome.state.working] == [f"m{i}" for i in range(10, 20)]
    assert outcome.episodes[0].turn_range == (0, 9) and outcome.fold_ranges == [(0, 9)]
    assert outcome.state.total_turns_seen == 20 and outcome.state.current_episode_id == 1


def test_nothing_folds_below_the_window(manager: ConversationManager) -> None:
    outcome = manager.add(manager.new_state("u1"), messages(["short line here."] * 19))
    assert outcome.folds == 0 and len(outcome.state.working) == 19


def test_early_trigger_at_sixty_percent_of_the_token_budget() -> None:
    manager = _manager(l1_token_budget=1000, fold_at_token_share=0.6, min_turns_before_fold=0)
    long_turn = " ".join(["word"] * 100)  # 130 tokens by the whitespace counter
    state = manager.new_state("u1")
    for i in range(4):  # 520 tokens < 600: no fold yet
        state = manager.add(state, [message(i, long_turn)]).state
    assert state.folds == 0 and manager.l1_tokens(state.working) == 520
    outcome = manager.add(state, [message(4, long_turn)])  # 650 > 600: fold before the cap
    assert outcome.folds == 1 and len(outcome.state.working) < 5
    assert manager.l1_tokens(outcome.state.working) <= 600


def test_min_turns_before_fold_is_respected() -> None:
    manager = _manager(l1_max_turns=4, min_turns_before_fold=10)
    state, outcomes = _feed(manager, [[m] for m in messages([f"Line {i} has 3 items." for i in range(12)])])
    first_fold = next(i for i, o in enumerate(outcomes) if o.folds)
    assert first_fold == 9  # the 10th turn is the first that may trigger a fold
    assert all(o.folds == 0 for o in outcomes[:9])


def test_l2_distils_oldest_half_into_l3_and_archives_it() -> None:
    manager = _manager(l1_max_turns=4, l2_max_episodes=4, min_turns_before_fold=0)
    texts = [f"Invoice {i} for Acme was {100 + i} euros." for i in range(40)]
    state, outcomes = _feed(manager, [messages(texts)])
    outcome = outcomes[0]
    assert outcome.distils >= 1 and outcome.semantic_changed
    assert len(state.episodes) < 4
    assert state.semantic.facts
    distilled_ids = {e.episode_id for e in outcome.distilled}
    assert {f"episode:u1:{i}" for i in distilled_ids} <= {a.item_id for a in outcome.archive}


def test_add_is_pure(manager: ConversationManager) -> None:
    state = manager.new_state("u1")
    before = state.model_copy(deep=True)
    manager.add(state, messages([f"Line {i} costs {i} euros." for i in range(30)]))
    assert state == before


def test_messages_of_another_user_are_rejected(manager: ConversationManager) -> None:
    with pytest.raises(InvalidInputError):
        manager.add(manager.new_state("u1"), [message(0, "hello there", user="u2")])


def test_truncate_keeps_a_sliding_window_and_reports_dropped_turns() -> None:
    manager = _manager(strategy="truncate", l1_max_turns=5)
    outcome = manager.add(manager.new_state("u1"), messages([f"Turn {i}." for i in range(12)]))
    assert [m.msg_id for m in outcome.state.working] == [f"m{i}" for i in range(7, 12)]
    assert [m.msg_id for m in outcome.folded_out] == [f"m{i}" for i in range(7)]
    assert outcome.state.episodes == [] and outcome.state.strategy == "truncate"


def test_summarize_preserves_decisions_and_discards_greetings() -> None:
    manager = _manager(strategy="summarize", l1_max_turns=6, min_turns_before_fold=0,
                       summary_max_tokens=120)
    texts = ["Hi!", "Hello, thanks!", "We decided to ship on Friday because QA signs off Thursday.",
             "Okay, sounds good.", "Sorry about that.", "My favourite editor is Helix.",
             "Sure.", "Great!", "The API limit is 500 requests per minute.", "Cool."] * 2
    state, _ = _feed(manager, [messages(texts)])
    lines = parse_summary(state.summary)
    text = " ".join(n.text for n in lines)
    assert "decided to ship on Friday" in text and "500 requests" in text
    assert "Hi!" not in text and "Sorry" not in text and "Okay" not in text
    assert COUNTER.count(state.summary) <= 120 + 10 * len(lines)  # markup aside, within budget
    assert state.episodes == []


def test_fold_now_ignores_triggers(manager: ConversationManager) -> None:
    state = manager.add(manager.new_state("u1"), messages(["The code is 4471.", "Noted, 4471."])).state
    outcome = manager.fold_now(state)
    assert outcome.folds == 1 and len(outcome.state.working) == 1
    assert len(outcome.state.episodes) == 1


def test_cap_evicts_unpinned_by_rank_and_never_pinned() -> None:
    notes = [Note(text=f"Ann: fact number {i} about gardens", sources=[f"m{i}"], importance=0.5)
             for i in range(6)]
    pinned = Note(text="Ann: the lease ends on 3 March 2031", sources=["m99"], importance=0.9)
    sem = SemanticMemory(user_id="u1", facts=[pinned] + notes)
    capped, evicted = enforce_cap(sem, FoldSettings(semantic_store_cap=2))
    assert pinned in capped.facts and len(capped.facts) == 3
    assert [n.sources for n in capped.facts[1:]] == [["m4"], ["m5"]]  # most recent survive
    assert len(evicted) == 4 and pinned not in evicted


def test_open_questions_are_capped_like_patterns_newest_kept_pinned_never_evicted() -> None:
    questions = [Note(text=f"Ana: what about the plan {n}?", sources=[f"m{n}"], importance=0.5)
                 for n in range(12)]
    pinned = Note(text="Ana: who signs the lease?", sources=["p"], importance=0.9)
    sem = SemanticMemory(user_id="u1", open_questions=[pinned, *questions])
    capped, evicted = enforce_cap(sem, FoldSettings(semantic_store_cap=8))  # quarter: 2
    assert capped.open_questions == [pinned, *questions[-2:]]
    assert evicted == questions[:-2]  # archived as searchable rows by the manager


def _survives(note: Note, state: FoldState, archived: list[Note]) -> bool:
    """A pinned note survives if some record in the layers (or an archived row) keeps its
    words and cites all of its sources."""
    sem = state.semantic
    holders = [n for e in state.episodes for n in e.notes]
    holders += sem.facts + sem.patterns + sem.open_questions + sem.history + archived
    for holder in holders:
        if set(note.sources) <= set(holder.sources) and (holder.text == note.text
                                                         or holder.text in note.text
                                                         or note.text in holder.text
                                                         or _near(holder.text, note.text)):
            return True
    return False


def _near(a: str, b: str) -> bool:
    from memfold.compaction.merge import relation

    return relation(a, b) == "duplicate"


@given(texts=turn_texts(min_size=10, max_size=90), batch=st.integers(1, 25),
       window=st.integers(4, 12), episodes=st.integers(2, 5), cap=st.integers(1, 8))
@hsettings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_pinned_note_is_never_lost_across_any_sequence_of_folds(
        texts: list[str], batch: int, window: int, episodes: int, cap: int) -> None:
    manager = _manager(l1_max_turns=window, l2_max_episodes=episodes, min_turns_before_fold=0,
                       semantic_store_cap=cap)
    turns = messages(texts)
    state, outcomes = _feed(manager, [turns[i:i + batch] for i in range(0, len(turns), batch)])
    archived = [Note(text=a.text, sources=a.sources) for o in outcomes for a in o.archive
                if a.kind != "episode"]
    pinned = [n for o in outcomes for e in o.episodes for n in e.notes if n.pinned]
    for note in pinned:
        assert _survives(note, state, archived), note
    folded = {m.msg_id for o in outcomes for m in o.folded_out}
    for outcome in outcomes:
        for episode in outcome.episodes:
            assert set(episode.sources) <= folded
            start, end = episode.turn_range
            assert set(episode.sources) <= {f"m{i}" for i in range(start, end + 1)}
    assert len(state.working) + len(folded) == len(turns)


@given(texts=turn_texts(min_size=10, max_size=60))
@hsettings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_rolling_summary_line_occurs_in_a_folded_turn(texts: list[str]) -> None:
    manager = _manager(strategy="summarize", l1_max_turns=6, min_turns_before_fold=0)
    turns = messages(texts)
    outcome = manager.add(manager.new_state("u1"), turns)
    by_id = {m.msg_id: m for m in turns}
    folded = {m.msg_id for m in outcome.folded_out}
    for note in parse_summary(outcome.state.summary):
        assert set(note.sources) <= folded
        assert note.text.split(": ", 1)[1] in by_id[note.sources[0]].text
    assert COUNTER.count(outcome.state.summary) <= manager.settings.summary_max_tokens
