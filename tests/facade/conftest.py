from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from memfold.config import Settings
from memfold.embed import HashingEmbedder
from memfold.memory import Memory

T0 = datetime(2024, 5, 8, 13, 56, tzinfo=timezone.utc)


def msg(msg_id: str, text: str, *, user: str = "ana", role: str = "user", minutes: int = 0,
        speaker: str = "Ana", session: str = "s1") -> dict:
    return {"msg_id": msg_id, "user_id": user, "session_id": session, "speaker": speaker, "role": role,
            "text": text, "ts": (T0 + timedelta(minutes=minutes)).isoformat()}


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(store=tmp_path / "store", embedder="hashing", backend="offline")


@pytest.fixture
def memory() -> Iterator[Memory]:
    mem = Memory.in_memory(embedder=HashingEmbedder())
    yield mem
    mem.close()


@pytest.fixture
def disk_memory(settings) -> Iterator[Memory]:
    mem = Memory.open(settings=settings)
    yield mem
    mem.close()
