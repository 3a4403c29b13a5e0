"""End-to-end runs on synthetic data with the baselines (fast: hashing embedder, no model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfold.bench import run_locomo, run_questions
from memfold.bench.systems import BASELINES, default_factories
from memfold.embed import HashingEmbedder
from memfold.errors import ConfigError, MalformedInputError
from memfold.tokens import WhitespaceCounter

CATEGORY_KEYS = {"n", "recall_at", "recall_at_budget", "context_at"}


def baseline_factories():  # type: ignore[no-untyped-def]
    return default_factories(BASELINES, HashingEmbedder)


def check_shape(results: dict, systems: tuple[str, ...], ks: tuple[str, ...]) -> None:
    for key in ("dataset", "conversations", "questions", "ingest", "systems", "missing_evidence",
                "full_context_tokens", "date", "git_commit", "machine"):
        assert key in results, key
    assert set(results["ingest"]) >= {"messages", "seconds", "messages_per_s"}
    assert set(results["machine"]) >= {"cores", "ram_gb"}
    assert set(results["systems"]) == set(systems)
    for sysres in results["systems"].values():
        assert set(sysres["recall_at"]) == set(ks)
        assert 0.0 <= sysres["recall_at_budget"] <= 1.0
        assert set(sysres["latency_ms"]) == {"p50", "p95"}
        assert sysres["budget_tokens"] > 0 and sysres["mean_context_tokens"] >= 0
        assert set(sysres["context_at"]) == {"500", "1000", "2000", str(sysres["budget_tokens"])}
        assert all(0.0 <= v <= 1.0 for v in sysres["context_at"].values())
        assert set(sysres["overall_1_4"]) == CATEGORY_KEYS
        for block in sysres["by_category"].values():
            assert set(block) == CATEGORY_KEYS and set(block["recall_at"]) == set(ks)


def test_run_locomo_on_synthetic_data_writes_three_outputs(locomo_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    results = run_locomo(locomo_file, ks=(1, 3), budget=50, out=out,
                         factories=baseline_factories(), counter=WhitespaceCounter())
    check_shape(results, BASELINES, ("1", "3"))
    assert results["conversations"] == 2 and results["questions"] == 10
    assert results["missing_evidence"] == 2  # D9:9 once per conversation
    assert results["ingest"]["messages"] == 10
    for name in ("results.json", "results.md", "recall_by_category.png"):
        assert (out / name).stat().st_size > 0
    assert json.loads((out / "results.json").read_text())["systems"].keys() == results["systems"].keys()
    bm25 = results["systems"]["bm25"]
    assert set(bm25["by_category"]) == {"single-hop", "multi-hop", "temporal", "adversarial",
                                        "open-domain"}
    assert bm25["by_category"]["open-domain"]["recall_at_budget"] == 1.0  # no evidence counts 1
    assert bm25["by_category"]["adversarial"]["recall_at"]["3"] == 0.0  # D9:9 does not exist
    assert bm25["overall_1_4"]["n"] == 8


def test_budget_bounds_the_context(locomo_file: Path) -> None:
    counter = WhitespaceCounter()
    results = run_locomo(locomo_file, ks=(5,), budget=12, factories=baseline_factories(),
                         counter=counter)
    for sysres in results["systems"].values():
        assert sysres["mean_context_tokens"] <= 12


def test_run_questions_with_fresh_ingest(generic_files: tuple[Path, Path], tmp_path: Path) -> None:
    messages, questions = generic_files
    results = run_questions(questions, messages=messages, ks=(1, 2), budget=100, out=tmp_path / "q",
                            factories=baseline_factories(), counter=WhitespaceCounter())
    check_shape(results, BASELINES, ("1", "2"))
    assert results["questions"] == 2 and results["missing_evidence"] == 1  # m404
    assert results["mode"] == "fresh-ingest"
    assert set(results["systems"]["bm25"]["by_category"]) == {"single-hop", "uncategorised"}
    assert results["systems"]["bm25"]["by_category"]["single-hop"]["recall_at"]["1"] == 1.0


def test_run_questions_needs_messages_or_a_store(generic_files: tuple[Path, Path]) -> None:
    _, questions = generic_files
    with pytest.raises(ConfigError):
        run_questions(questions)
    with pytest.raises(ConfigError):
        run_questions(questions, store="/nonexistent/store", systems=["memfold"])


def test_bad_k_and_budget_are_config_errors(locomo_file: Path) -> None:
    with pytest.raises(ConfigError):
        run_locomo(locomo_file, ks=(0,), factories=baseline_factories())
    with pytest.raises(ConfigError):
        run_locomo(locomo_file, budget=0, factories=baseline_factories())


def test_malformed_question_line_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "ok?", "user_id": "u", "evidence": []}\n{"question": 1\n')
    with pytest.raises(MalformedInputError) as info:
        run_questions(path, messages=path, factories=baseline_factories())
    assert info.value.line == 2


def test_details_rows_name_questions_by_id_and_list_misses(locomo_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "details"
    results = run_locomo(locomo_file, ks=(1,), budget=6, conversations=1, out=out, details=True,
                         factories=default_factories(["recency"], HashingEmbedder),
                         counter=WhitespaceCounter())
    rows = [json.loads(line) for line in (out / "details.jsonl").read_text().splitlines()]
    assert len(rows) == 5 and "details" not in json.loads((out / "results.json").read_text())
    assert [row["question_id"] for row in rows] == [f"conv-a#{i}" for i in range(5)]
    assert all("question" not in row for row in rows)
    by_id = {row["question_id"]: row for row in rows}
    assert by_id["conv-a#3"]["missed_within_budget"] == ["D9:9"]
    assert by_id["conv-a#4"]["recall_at_budget"] == 1.0 and by_id["conv-a#4"]["missed_within_budget"] == []
    assert len(results["details"]) == 5
