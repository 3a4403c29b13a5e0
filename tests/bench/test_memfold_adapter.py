"""The memfold adapter against the real facade, with the hashing embedder and offline backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfold.bench import run_locomo, run_questions
from memfold.bench.generic import load_messages
from memfold.bench.systems import MemfoldSystem, RecallSystem, default_factories
from memfold.embed import HashingEmbedder
from memfold.tokens import WhitespaceCounter


@pytest.fixture
def offline_settings():  # type: ignore[no-untyped-def]
    from memfold.config import Settings

    return Settings(embedder="hashing", backend="offline")


def test_adapter_ingests_and_recalls_sourced_items(generic_files: tuple[Path, Path],
                                                  offline_settings) -> None:  # type: ignore[no-untyped-def]
    messages_path, _ = generic_files
    system = MemfoldSystem.in_memory(offline_settings, embedder=HashingEmbedder())
    assert isinstance(system, RecallSystem)
    try:
        assert system.ingest(load_messages(messages_path)) == 3
        items = system.recall("Where does my sister Lucia live?", "u1", None, 5)
        assert items and all(item.sources for item in items)
        assert "m1" in {source for item in items for source in item.sources}
    finally:
        system.close()


def test_run_locomo_with_memfold_on_disk(locomo_file: Path, offline_settings) -> None:  # type: ignore[no-untyped-def]
    factories = default_factories(["memfold", "bm25"], HashingEmbedder, offline_settings)
    results = run_locomo(locomo_file, ks=(1, 5), budget=60, conversations=1, factories=factories,
                         counter=WhitespaceCounter())
    memfold = results["systems"]["memfold"]
    assert results["ingest"]["messages"] == 5  # the facade's ingest, not a baseline's
    assert memfold["ingest"]["rejected"] == 0
    assert 0.0 < memfold["recall_at"]["5"] <= 1.0
    assert memfold["mean_context_tokens"] <= 60


def test_questions_against_an_existing_store(generic_files: tuple[Path, Path], tmp_path: Path,
                                             offline_settings) -> None:  # type: ignore[no-untyped-def]
    messages_path, questions_path = generic_files
    store = tmp_path / "store"
    system = MemfoldSystem.open(store, offline_settings)
    try:
        system.ingest(load_messages(messages_path))
    finally:
        system.close()
    results = run_questions(questions_path, store=store, ks=(3,), budget=200,
                            memfold_settings=offline_settings, counter=WhitespaceCounter())
    assert results["mode"] == "existing-store" and list(results["systems"]) == ["memfold"]
    assert results["systems"]["memfold"]["by_category"]["single-hop"]["recall_at"]["3"] == 1.0
