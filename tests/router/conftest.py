"""Fixtures for the router tests: stores (in-memory reference and DuckDB ``:memory:``),
a hashing-embedder offline router, and a message builder."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
from router_helpers import T0, MessageFactory

from memfold.embed import HashingEmbedder
from memfold.llm import OfflineBackend
from memfold.models import Message
from memfold.router import Router
from memfold.stores import Stores, duckdb_stores
from memfold.stores.memory import InMemoryVectorIndex
from memfold.tokens import WhitespaceCounter


@pytest.fixture(params=["memory", "duckdb"])
def stores(request: pytest.FixtureRequest) -> Iterator[Stores]:
    if request.param == "memory":
        bundle = Stores.in_memory()
    else:
        from memfold.stores.duckdb import DuckDBDatabase

        bundle = duckdb_stores(DuckDBDatabase(":memory:"), InMemoryVectorIndex())
    yield bundle
    bundle.close()


@pytest.fixture(scope="session")
def backend() -> OfflineBackend:
    return OfflineBackend(HashingEmbedder())


@pytest.fixture()
def router(backend: OfflineBackend) -> Router:
    return Router(backend)


@pytest.fixture()
def counter() -> WhitespaceCounter:
    return WhitespaceCounter()


@pytest.fixture()
def msg() -> MessageFactory:
    seq = iter(range(1, 10_000))

    def build(text: str, *, role: str = "user", speaker: str = "user", msg_id: str | None = None,
              user_id: str = "u1", ts: datetime = T0) -> Message:
        return Message(msg_id=msg_id or f"m{next(seq)}", user_id=user_id, speaker=speaker,
                       role=role, text=text, ts=ts)

    return build
