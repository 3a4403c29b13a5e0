"""Crash safety with real ``kill -9`` of separate processes (forked from the zygote).

Default run: a few kills per property. ``-m slow``: more kills. The full counts (50 runs
each) are in ``benchmarks/reliability.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rel_harness import Zygote

INVARIANTS = ("lost", "messages_without_archive", "orphan_archive_rows", "orphan_profile_rows",
              "orphan_profile_changes_rows", "orphan_events_rows", "orphan_documents_rows",
              "fold_refs_to_missing_messages", "fold_turns_mismatch", "index_missing",
              "index_orphans")


def assert_clean(result: dict[str, Any]) -> None:
    assert result["killed"] == result["runs"], result
    assert result["opened_cleanly"] == result["runs"], result["open_errors"]
    broken = {key: result[key] for key in INVARIANTS if result[key]}
    assert broken == {}, result


@pytest.mark.parametrize("runs", [pytest.param(2, id="2-kills"),
                                  pytest.param(12, id="12-kills", marks=pytest.mark.slow)])
def test_kill_during_ingest_many_loses_no_acknowledged_message(zygote: Zygote, tmp_path: Path,
                                                               runs: int) -> None:
    result = zygote.run("kill_ingest", runs=runs, seed=runs, root=str(tmp_path), max_delay=2.5,
                        min_delay=1.0)
    assert_clean(result)
    assert 0 < result["acknowledged_messages"] <= result["stored_messages"]


@pytest.mark.parametrize("runs", [pytest.param(4, id="each-variant"),
                                  pytest.param(12, id="12-kills", marks=pytest.mark.slow)])
def test_kill_between_commit_and_vector_index_is_repaired_on_open(zygote: Zygote, tmp_path: Path,
                                                                  runs: int) -> None:
    result = zygote.run("kill_after_commit", runs=runs, seed=runs, root=str(tmp_path))
    assert_clean(result)
    # the crash did leave work for the reopen (otherwise this test proves nothing)
    assert result["runs_with_unindexed_rows_before_reopen"] >= 1
    assert result["runs_with_orphan_vectors_before_reopen"] >= 1
    assert result["removed_still_stored"] == 0
    assert result["forgotten_bytes_after_retry"] == 0


@pytest.mark.parametrize("runs", [pytest.param(2, id="2-kills"),
                                  pytest.param(12, id="12-kills", marks=pytest.mark.slow)])
def test_kill_during_fold_leaves_the_last_or_the_in_flight_fold(zygote: Zygote, tmp_path: Path,
                                                                runs: int) -> None:
    # at least 1 s of work before each kill, so that folds happen even in a 2-kill run
    result = zygote.run("kill_fold", runs=runs, seed=runs, root=str(tmp_path), max_delay=2.5,
                        min_delay=1.0)
    assert result["killed"] == runs and result["opened_cleanly"] == runs
    assert result["unreadable"] == 0 and result["neither"] == 0, result
    assert result["equals_last"] + result["equals_in_flight"] == result["user_states_checked"]
    assert result["fold_turns_mismatch"] == 0 and result["fold_refs_to_missing_messages"] == 0
    assert result["folds_in_final_state"] > 0  # folds did happen


@pytest.mark.parametrize("tries", [pytest.param(3, id="3-tries"),
                                   pytest.param(20, id="20-tries", marks=pytest.mark.slow)])
def test_second_writer_is_refused_naming_the_holder(zygote: Zygote, tmp_path: Path,
                                                    tries: int) -> None:
    result = zygote.run("second_writer", tries=tries, root=str(tmp_path))
    assert result["silent_successes"] == 0, result
    assert result["refused"] == tries and result["named_holder_pid"] == tries, result
    assert result["opens_after_holder_killed"]  # kill -9 of the holder released the lock
