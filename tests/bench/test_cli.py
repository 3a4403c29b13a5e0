"""`memfold bench` through the real root app (global --embedder), baselines only (no model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfold.bench.cli import parse_ks, parse_systems
from memfold.cli import app
from memfold.errors import ConfigError

BASELINES = "bm25,dense,hybrid,recency"


def test_locomo_command_prints_json_and_writes_outputs(locomo_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["--embedder", "hashing", "bench", "locomo", str(locomo_file),
                                      "--k", "1,3", "--budget", "40", "--systems", BASELINES,
                                      "--conversations", "1", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)
    assert results["conversations"] == 1 and results["questions"] == 5
    assert set(results["systems"]) == set(BASELINES.split(","))
    assert results["systems"]["bm25"]["recall_at"].keys() == {"1", "3"}
    assert (out / "results.md").read_text().startswith("# Benchmark")


def test_questions_command_with_messages(generic_files: tuple[Path, Path]) -> None:
    messages, questions = generic_files
    result = CliRunner().invoke(app, ["--embedder", "hashing", "bench", "questions", str(questions),
                                      "--messages", str(messages), "--systems", "bm25,recency"])
    assert result.exit_code == 0, result.output
    assert "| bm25 |" in result.stdout and "| recency |" in result.stdout


def test_parse_options() -> None:
    assert parse_ks("5, 10,25") == (5, 10, 25)
    assert parse_systems("bm25, dense,") == ("bm25", "dense")
    with pytest.raises(ConfigError):
        parse_ks("5,ten")
