"""Fixtures for the retrieval tests: in-memory stores, the hashing embedder, an ingest helper."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import pytest

from memfold.embed import HashingEmbedder
from memfold.models import Event, Message, ProfileFact, RouteDecision
from memfold.retrieval.indexing import archive_items
from memfold.retrieval.recall import Retriever
from memfold.stores import Stores
from memfold.tokens import WhitespaceCounter

T0 = datetime(2024, 3, 4, 9, 0, tzinfo=timezone.utc)  # a Monday


def make_messages(user_id: str, texts: Sequence[str], *, speakers: Sequence[str] | None = None,
                  start: datetime = T0, step: timedelta = timedelta(minutes=1), prefix: str = "m") -> list[Message]:
    speakers = speakers or ["user"] * len(texts)
    return [Message(msg_id=f"{prefix}{i}", user_id=user_id, speaker=speakers[i], text=text, ts=start + i * step)
            for i, text in enumerate(texts)]


class Harness:
    """Stores + retriever, and the same ingest steps the facade runs (log, archive, index)."""

    def __init__(self) -> None:
        self.stores = Stores.in_memory()
        self.embedder = HashingEmbedder()
        self.retriever = Retriever(self.stores, self.embedder)
        self.counter = WhitespaceCounter()

    def ingest(self, messages: Sequence[Message], decisions: Sequence[RouteDecision] | None = None) -> None:
        decisions = decisions or [RouteDecision(msg_id=m.msg_id, kind="NONE") for m in messages]
        by_user: dict[str, list[int]] = {}
        for position, message in enumerate(messages):
            by_user.setdefault(message.user_id, []).append(position)
        for user_id, positions in by_user.items():
            last = self.stores.log.list(user_id, newest_first=True, limit=1)
            msgs = [messages[p] for p in positions]
            items = archive_items(msgs, [decisions[p] for p in positions], previous=last[0] if last else None)
            self.stores.log.append(msgs)
            self.stores.archive.add(items)
            self.stores.index.upsert(items, self.embedder.embed([i.key_text for i in items]))
            self.stores.archive.mark_indexed([i.item_id for i in items])
            self.retriever.archived(items)

    def add_fact(self, user_id: str, key: str, value: str, source: str, subject: str = "user") -> None:
        self.stores.profile.upsert(ProfileFact(user_id=user_id, subject=subject, key=key, value=value,
                                               sources=[source], updated_at=T0))

    def add_event(self, user_id: str, event_id: str, text: str, when: datetime, source: str) -> None:
        self.stores.events.append([Event(event_id=event_id, user_id=user_id, text=text, occurred_at=when,
                                         sources=[source], recorded_at=when)])


@pytest.fixture
def harness() -> Harness:
    return Harness()
