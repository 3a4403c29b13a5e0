"""Fixtures for the lifecycle tests (profile retention, explain).

``stores`` runs a test against the in-memory reference stores and against DuckDB
(``:memory:``); ``memory`` runs it through the ``Memory`` facade on the in-memory stores
and on a real store directory (DuckDB file + Chroma). ``enforce`` does what the facade
does around :func:`enforce_retention`: run it in a transaction, then tell the retriever's
BM25 about the archive rows and index them.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memfold.config import Settings
from memfold.embed import HashingEmbedder
from memfold.memory import Memory
from memfold.models import Message, ProfileFact
from memfold.stores import Stores, duckdb_stores
from memfold.stores.duckdb import DuckDBDatabase
from memfold.stores.memory import InMemoryVectorIndex
from memfold.stores.retention import RetentionPolicy, RetentionReport, enforce_retention

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)
USER = "ana"


def at(days: float = 0, hours: float = 0) -> datetime:
    return T0 + timedelta(days=days, hours=hours)


def message(msg_id: str, text: str, when: datetime, *, user: str = USER) -> Message:
    return Message(msg_id=msg_id, user_id=user, text=text, ts=when)


def state(stores: Stores, key: str, value: str, when: datetime, *, user: str = USER,
          subject: str = "user", msg_id: str | None = None, category: str | None = None) -> str:
    """Log a message and write the fact it states (as the router would); returns its msg_id."""
    msg_id = msg_id or f"{key}-{value}-{when:%Y%m%d%H%M%S}"
    with stores.db.transaction():
        stores.log.append([message(msg_id, f"note: {value}", when, user=user)])
        stores.profile.upsert(ProfileFact(user_id=user, subject=subject, key=key, value=value,
                                          sources=[msg_id], updated_at=when, category=category),
                              reason="test", actor="router")
    return msg_id


def make_stores(kind: str) -> Stores:
    if kind == "memory":
        return Stores.in_memory()
    return duckdb_stores(DuckDBDatabase(":memory:"), InMemoryVectorIndex())


@pytest.fixture(params=["memory", "duckdb"])
def stores(request: pytest.FixtureRequest) -> Iterator[Stores]:
    bundle = make_stores(request.param)
    yield bundle
    bundle.close()


def open_memory(kind: str, tmp_path: Path) -> Memory:
    """The rules alone read facts here: these tests write the profile with set_fact and need
    the router to write nothing of its own from messages such as "it's zebra 4711, don't
    forget", which a learned tagger may read as a value."""
    settings = Settings(store=tmp_path / "store", embedder="hashing", backend="offline", fact_tagger=False)
    if kind == "in_memory":
        return Memory.in_memory(settings, embedder=HashingEmbedder())
    return Memory.open(settings=settings)


@pytest.fixture(params=["in_memory", "disk"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    mem = open_memory(request.param, tmp_path)
    assert (mem.stores.directory is None) == (request.param == "in_memory")
    yield mem
    mem.close()


def enforce(memory: Memory, policy: RetentionPolicy, now: datetime, *, user: str = USER,
            index: bool = True) -> RetentionReport:
    """The facade's call: enforce in a transaction, then BM25 + vector index after commit."""
    with memory.stores.db.transaction():
        report = enforce_retention(memory.stores, user, now=now, policy=policy)
    memory.retriever.archived(report.archived)
    if index:
        memory.sync_index()
    return report
