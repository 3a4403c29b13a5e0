"""Message builders and Hypothesis generators shared by the compaction tests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import strategies as st

from memfold.models import Message
from memfold.tokens import WhitespaceCounter

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
COUNTER = WhitespaceCounter()

# Sentence templates: high-importance (numbers, dates, decisions, constraints, errors),
# medium (names, preferences) and low (greetings, acknowledgements).
HIGH = [
    "The invoice total was {n} dollars for {name}.",
    "We decided to use Postgres because it supports {n} connections.",
    "The deploy must finish before {month} {n}.",
    "The build failed with error code {n} on the {name} server.",
    "{name} moved to Lisbon in {month} {year}.",
]
MEDIUM = [
    "I really enjoy hiking with {name} on weekends.",
    "My sister prefers quiet places near the sea.",
    "We talked about the garden and the new fence.",
    "Is the report ready for {name}?",
]
LOW = ["Hi!", "Thanks!", "Okay, sounds good.", "Haha yes.", "Sure thing."]
NAMES = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah"]
MONTHS = ["March", "June", "October"]


def message(i: int, text: str, *, user: str = "u1", speaker: str | None = None,
            role: str = "user", meta: dict[str, str] | None = None) -> Message:
    return Message(msg_id=f"m{i}", user_id=user, speaker=speaker or ("Ann" if i % 2 else "Bob"),
                   role=role, text=text, ts=T0 + timedelta(minutes=i), meta=meta or {})


def messages(texts: list[str], *, start: int = 0, user: str = "u1") -> list[Message]:
    return [message(start + i, text, user=user) for i, text in enumerate(texts)]


@st.composite
def sentence(draw: st.DrawFn) -> str:
    template = draw(st.sampled_from(HIGH + MEDIUM + LOW))
    return template.format(n=draw(st.integers(1, 9999)), name=draw(st.sampled_from(NAMES)),
                           month=draw(st.sampled_from(MONTHS)), year=draw(st.integers(1990, 2030)))


@st.composite
def turn_texts(draw: st.DrawFn, min_size: int = 1, max_size: int = 60) -> list[str]:
    count = draw(st.integers(min_size, max_size))
    return [" ".join(draw(st.lists(sentence(), min_size=1, max_size=3))) for _ in range(count)]
