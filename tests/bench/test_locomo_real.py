"""The real LoCoMo file, one conversation, every system with the real model (slow; CI step 2).

Skips when the data is absent: it is CC BY-NC and lives outside the repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfold.bench.systems import ALL_SYSTEMS

from .conftest import REAL_LOCOMO

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900),
              pytest.mark.skipif(not REAL_LOCOMO.exists(), reason=f"{REAL_LOCOMO} not present")]

CATEGORIES = {"multi-hop", "temporal", "open-domain", "single-hop", "adversarial"}


def test_one_conversation_end_to_end_json_shape(tmp_path: Path) -> None:
    from memfold.cli import app

    out = tmp_path / "locomo"
    result = CliRunner().invoke(app, ["--backend", "offline", "bench", "locomo", str(REAL_LOCOMO),
                                      "--conversations", "1", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)
    written = json.loads((out / "results.json").read_text())
    assert set(results.pop("outputs")) == {"json", "markdown", "chart"}  # added after writing
    assert results == written
    assert (out / "results.md").exists() and (out / "recall_by_category.png").exists()
    assert results["conversations"] == 1 and results["questions"] > 100
    assert results["ingest"]["messages"] > 100 and results["ingest"]["messages_per_s"] > 0
    assert results["full_context_tokens"] > 1000
    assert isinstance(results["missing_evidence"], int)
    assert set(results["systems"]) == set(ALL_SYSTEMS)
    for name, sysres in results["systems"].items():
        assert set(sysres["recall_at"]) == {"5", "10", "25"}, name
        assert sysres["recall_at"]["5"] <= sysres["recall_at"]["10"] <= sysres["recall_at"]["25"]
        assert set(sysres["by_category"]) == CATEGORIES
        assert sysres["budget_tokens"] == 1000 and sysres["mean_context_tokens"] <= 1000
        assert sysres["latency_ms"]["p50"] <= sysres["latency_ms"]["p95"]
        assert 0.0 <= sysres["overall_1_4"]["recall_at_budget"] <= 1.0
    # a lexical retriever must beat the query-blind one on real questions
    assert results["systems"]["bm25"]["recall_at"]["10"] > results["systems"]["recency"]["recall_at"]["10"]
