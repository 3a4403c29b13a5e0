"""Fixtures for the store contract tests: every test taking ``stores`` runs against the
in-memory reference, DuckDB and PostgreSQL (a schema of its own on a throwaway cluster,
tests/pg_cluster.py); every test taking ``index`` runs against the
numpy reference, against Chroma, against Chroma behind the in-process cache of recent users'
vectors (a writer's), against Chroma opened on first use (a reader's), against
Chroma in a child process (the service's), and against a Chroma server (``chroma run``,
one per session)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from stores_helpers import make_index, make_stores

from memfold.embed import HashingEmbedder
from memfold.stores import Stores
from memfold.stores.base import VectorIndex


@pytest.fixture(params=["memory", "duckdb", "postgres"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stores]:
    cluster = request.getfixturevalue("pg_cluster") if request.param == "postgres" else None
    bundle = make_stores(request.param, tmp_path, cluster)
    yield bundle
    bundle.close()


@pytest.fixture(params=["memory", "chroma", "cached-chroma", "lazy-chroma", "chroma-process",
                        "chroma-server"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorIndex]:
    server = request.getfixturevalue("chroma_server") if request.param == "chroma-server" else None
    idx = make_index(request.param, tmp_path, server)
    yield idx
    close = getattr(idx, "close", None)
    if close is not None:
        close()


@pytest.fixture(scope="session")
def embedder() -> HashingEmbedder:
    return HashingEmbedder()
