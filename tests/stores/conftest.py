"""Fixtures for the store contract tests: every test taking ``stores`` runs against the
in-memory reference and against DuckDB; every test taking ``index`` runs against the
numpy reference and against Chroma."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from stores_helpers import make_index, make_stores

from memfold.embed import HashingEmbedder
from memfold.stores import Stores
from memfold.stores.base import VectorIndex


@pytest.fixture(params=["memory", "duckdb"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stores]:
    bundle = make_stores(request.param, tmp_path)
    yield bundle
    bundle.close()


@pytest.fixture(params=["memory", "chroma"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorIndex]:
    idx = make_index(request.param, tmp_path)
    yield idx
    close = getattr(idx, "close", None)
    if close is not None:
        close()


@pytest.fixture(scope="session")
def embedder() -> HashingEmbedder:
    return HashingEmbedder()
