"""The ``MemoryAPI`` contract runs against every implementation: the embedded ``Memory``
(on a DuckDB + Chroma store directory) and ``MemoryClient`` over a real loopback socket to
the REST app wrapping such a store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from memfold.api import MemoryAPI
from memfold.client import MemoryClient
from memfold.config import Settings
from memfold.memory import Memory
from memfold.service.app import create_app
from memfold.service.auth import KeyRing
from memfold.service.server import running_in_thread

T0 = datetime(2024, 5, 8, 13, 56, tzinfo=timezone.utc)
GRANTS = {"reader": ["contract-kb"]}  # only this user reads the namespace the tests fill


def msg(msg_id: str, text: str, *, user: str = "ana", minutes: int = 0, speaker: str = "Ana",
        role: str = "user", session: str = "s1") -> dict:
    return {"msg_id": msg_id, "user_id": user, "session_id": session, "speaker": speaker,
            "role": role, "text": text, "ts": (T0 + timedelta(minutes=minutes)).isoformat()}


def open_store(tmp_path) -> Memory:
    return Memory.open(settings=Settings(store=tmp_path / "store", embedder="hashing",
                                         backend="offline", knowledge_grants=GRANTS))


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory) -> Iterator[Memory]:
    memory = open_store(tmp_path_factory.mktemp("contract"))
    yield memory
    memory.close()


@pytest.fixture(scope="module")
def server_url(shared_store) -> Iterator[str]:
    with running_in_thread(create_app(shared_store)) as url:
        yield url


_users = iter(range(10**9))


@pytest.fixture
def user() -> str:
    """A fresh user id per test: the module's store is shared, users keep tests apart."""
    return f"user-{next(_users)}"


@pytest.fixture(params=["embedded", "remote"])
def api(request, shared_store) -> Iterator[MemoryAPI]:
    if request.param == "embedded":
        yield shared_store
        return
    client = MemoryClient(request.getfixturevalue("server_url"))
    yield client
    client.close()


@pytest.fixture
def keyed_server(tmp_path) -> Iterator[tuple[str, Memory]]:
    """A server with two scoped keys: "key-a" for alice, "key-admin" for everyone."""
    memory = open_store(tmp_path)
    keys = KeyRing.from_inline("key-a=alice;key-admin=*")
    with running_in_thread(create_app(memory, keys=keys)) as url:
        yield url, memory
    memory.close()
