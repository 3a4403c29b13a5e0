"""Threads, tenant isolation, erasure, poisoning and bad input on a real store directory
(DuckDB + Chroma, hashing embedder). Full counts: ``benchmarks/reliability.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
import rel_badinput
import rel_concurrency
import rel_erasure
import rel_isolation
import rel_poisoning
from rel_payloads import PAYLOADS


@pytest.mark.parametrize("iterations", [pytest.param(2, id="16x2"),
                                        pytest.param(12, id="16x12", marks=pytest.mark.slow)])
def test_sixteen_threads_lose_nothing(tmp_path: Path, iterations: int) -> None:
    result = rel_concurrency.threads(str(tmp_path), n_threads=16, iterations=iterations)
    assert result["errors"] == 0, result["error_examples"]
    assert result["ingested"] == 16 * iterations and result["lost_messages"] == 0
    assert result["profile_changes_returned"] > 0
    assert result["changes_missing_from_history"] == 0 and result["history_rows_nobody_made"] == 0
    assert result["lost_updates"] == 0 and result["final_value_not_last_change"] == 0
    assert not {k: v for k, v in result.items() if k.startswith(("orphan", "index_")) and v}


@pytest.mark.parametrize("operations", [pytest.param(150, id="150-ops"),
                                        pytest.param(2000, id="2000-ops", marks=pytest.mark.slow)])
def test_no_read_path_shows_another_users_canary(tmp_path: Path, operations: int) -> None:
    result = rel_isolation.isolation(str(tmp_path), operations=operations, seed=operations)
    assert result["leaks"] == 0, result["leak_examples"]
    assert result["reads_showing_own_canary"] > result["reads"] // 2  # outputs are not just empty
    assert all(result["reads_per_path"].values())
    assert result["unscoped_reads_not_rejected"] == 0, result["unscoped_not_rejected"]


@pytest.mark.parametrize("sizes", [pytest.param((30,), id="30-per-user"),
                                   pytest.param((100, 400), id="100-400", marks=pytest.mark.slow)])
def test_forget_leaves_no_byte_and_keeps_the_others(tmp_path: Path, sizes: tuple[int, ...]) -> None:
    result = rel_erasure.erasure(str(tmp_path), sizes=sizes)
    for run in result["runs"]:
        assert run["canary_occurrences_before"] > 0  # the canary was on disk before forget
        assert run["forgotten"]["facts"] > 0 and run["forgotten"]["events"] > 0
        assert run["forgotten"]["documents"] > 0 and run["forgotten"]["vectors"] > 0
        assert run["victim_rows_after"] == {k: 0 for k in run["victim_rows_after"]}
    assert result["canary_bytes_after"] == 0, [r["files_with_canary_after"] for r in result["runs"]]
    assert result["user_id_bytes_after"] == 0, [r["files_with_user_id_after"] for r in result["runs"]]
    assert result["other_users_changed"] == 0 and result["other_users_not_searchable"] == 0


@pytest.mark.parametrize("contexts", [pytest.param(6, id="6-contexts"),
                                      pytest.param(None, id="all-contexts",
                                                   marks=pytest.mark.slow)])
def test_poisoned_tool_content_is_flagged_quoted_and_removable(tmp_path: Path,
                                                              contexts: int | None) -> None:
    result = rel_poisoning.poisoning(str(tmp_path), contexts=contexts)
    assert result["payloads"] == len(PAYLOADS) >= 50
    assert result["profile_facts_from_payloads"] == 0
    assert result["changelog_rows_from_payloads"] == 0
    assert result["events_from_payloads"] == 0
    assert result["unflagged"] == [] and result["flagged"] == len(PAYLOADS)
    assert result["archive_rows_without_flag"] == 0
    assert result["contexts_showing_a_payload"] > 0 and result["contexts_missing_preamble"] == 0
    assert result["payload_lines_unquoted_in_system"] == 0
    assert result["payload_turns_unquoted_in_messages"] == 0
    removals = [result["remove_payload_message"], result["remove_folded_message"],
                result["remove_user_message"]["fact_message"],
                result["remove_user_message"]["event_message"]]
    assert all(r["before"]["archive"] and r["before"]["vectors"] for r in removals)
    assert any(r["before"]["fold_refs"] for r in removals)
    assert any(r["before"]["profile"] for r in removals)
    assert result["removals_left_behind"] == 0, removals


def test_bad_input_is_rejected_per_line_and_valid_input_kept(tmp_path: Path) -> None:
    result = rel_badinput.bad_input(str(tmp_path))
    assert result["cases_total"] >= 30
    assert result["file_unclear_or_missing"] == []
    assert result["file_rejected"] == result["file_cases"]
    assert result["valid_lines_stored"] == result["valid_lines"] and result["bad_ids_stored"] == []
    assert result["whole_file_not_rejected"] == 0 and result["whole_file_rows_stored"] == 0
    assert result["many_unclear_or_missing"] == []
    assert result["many_rejected"] == result["many_cases"]
    assert not {k: v for k, v in result.items()
                if k.startswith(("orphan", "index_", "fold_")) and v}


@pytest.mark.slow
@pytest.mark.parametrize("embedder", ["minilm-q8", "minilm"])
def test_real_model_poisoning_and_isolation(tmp_path: Path, embedder: str) -> None:
    """The offline router's prototypes use the embedder: with real MiniLM vectors (the default
    int8 model and the fp32 one) a payload must still never become a fact, and dense search
    must still stay inside one user."""
    poisoned = rel_poisoning.poisoning(str(tmp_path / "p"), contexts=4, embedder=embedder)
    assert poisoned["profile_facts_from_payloads"] == 0 and poisoned["events_from_payloads"] == 0
    assert poisoned["unflagged"] == [] and poisoned["removals_left_behind"] == 0
    isolated = rel_isolation.isolation(str(tmp_path / "i"), operations=120, embedder=embedder)
    assert isolated["leaks"] == 0, isolated["leak_examples"]
