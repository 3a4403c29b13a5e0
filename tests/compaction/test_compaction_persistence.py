"""Fold state on a real DuckDB store: round trip, and kill -9 in the middle of folding."""

from __future__ import annotations

from pathlib import Path

import pytest
from compaction_helpers import COUNTER, messages

from memfold.compaction.base import FoldSettings
from memfold.compaction.crashcheck import run_once
from memfold.compaction.manager import ConversationManager
from memfold.stores.duckdb import DuckDBArchiveLog, DuckDBDatabase, DuckDBFoldStore
from memfold.stores.memory import InMemoryDatabase, InMemoryFoldStore


def _folded_state():
    manager = ConversationManager(settings=FoldSettings(l1_max_turns=6, l2_max_episodes=3,
                                                        min_turns_before_fold=0), counter=COUNTER)
    texts = [f"We decided to move the {i} servers to Lisbon because rent is {100 + i} euros."
             for i in range(40)]
    return manager.add(manager.new_state("u1"), messages(texts))


def test_state_round_trips_through_duckdb(tmp_path: Path) -> None:
    outcome = _folded_state()
    assert outcome.state.semantic.facts and outcome.state.episodes and outcome.archive
    db = DuckDBDatabase(tmp_path / "f.duckdb")
    with db.transaction():
        DuckDBFoldStore(db).save(outcome.state)
        DuckDBArchiveLog(db).add(outcome.archive)
    db.close()
    db = DuckDBDatabase(tmp_path / "f.duckdb")
    assert DuckDBFoldStore(db).load("u1") == outcome.state
    assert {a.item_id for a in DuckDBArchiveLog(db).list("u1")} == {a.item_id for a in outcome.archive}
    db.close()


def test_state_round_trips_through_the_in_memory_store() -> None:
    outcome = _folded_state()
    store = InMemoryFoldStore(InMemoryDatabase())
    store.save(outcome.state)
    assert store.load("u1") == outcome.state


def test_a_failed_transaction_keeps_the_previous_state(tmp_path: Path) -> None:
    outcome = _folded_state()
    db = DuckDBDatabase(tmp_path / "f.duckdb")
    store = DuckDBFoldStore(db)
    store.save(outcome.state)
    newer = outcome.state.model_copy(update={"folds": outcome.state.folds + 1})
    with pytest.raises(RuntimeError), db.transaction():
        store.save(newer)
        raise RuntimeError("crash inside the ingest transaction")
    assert store.load("u1") == outcome.state
    db.close()


@pytest.mark.slow
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_kill_9_during_folds_leaves_the_last_or_previous_state(tmp_path: Path, seed: int) -> None:
    run = run_once(tmp_path, seed)
    assert run.acked >= 1
    assert run.recovered in (run.acked, run.acked + 1), run
    assert run.archive_consistent, run
