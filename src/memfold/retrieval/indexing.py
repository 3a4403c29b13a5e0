"""The indexing policy: which archive rows a batch of messages becomes.

Every message is archived as its own raw text (nothing said is unreachable). With
``extractions=True`` a FACT or EVENT message is archived a second time as its extraction,
so it is found by the words of the message *and* by the normalised words of the fact or
event; the facade leaves that off by default (``Settings.index_extractions``: on
LoCoMo-dev the extra rows lowered recall and cost an embedding each).

Keys are chosen for the cost of ingest as much as for recall:

* A message row's ``key_text`` is exactly ``Message.indexed_text()``: ingest already
  embedded that text for the router, so the vector index reuses the vector and a plain
  chat turn costs one embedding in total.
* The window key (the turn plus its previous and next turn, the biggest recall lever
  measured) is lexical only and derived when the per-user BM25 index is built
  (:mod:`memfold.retrieval.lexical`), from the order of the rows. Deriving it there means
  a row never has to be rewritten, and so never re-embedded, when the next turn arrives.
* Extraction rows carry short normalised text; they are the only extra embeddings.

Item ids are a hash of (user, kind, message, position): re-ingesting the same batch
produces the same ids, so the archive's idempotent ``add`` replaces rows instead of
duplicating them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from datetime import datetime

from memfold.errors import InvalidInputError
from memfold.models import ArchiveItem, ArchiveKind, EventExtraction, FactExtraction, Message, RouteDecision

# Texts longer than this are split into chunk rows: MiniLM reads 256 word pieces at most,
# and a recalled item should be small enough to quote.
CHUNK_WORDS = 160
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n{2,}")


def item_id(user_id: str, kind: str, msg_id: str, position: int = 0) -> str:
    """A deterministic, printable id for one archive row."""
    digest = hashlib.blake2b(f"{user_id}\x1f{kind}\x1f{msg_id}\x1f{position}".encode(),
                             digest_size=12).hexdigest()
    return f"{kind}-{digest}"


def archive_items(messages: Sequence[Message], decisions: Sequence[RouteDecision], *,
                  previous: Message | None = None, extractions: bool = True) -> list[ArchiveItem]:
    """The archive rows for one user's batch, in message order.

    ``decisions`` are aligned with ``messages`` (one per message, same msg_id).
    ``extractions=False`` archives raw rows only: each extraction row costs one more
    embedding at ingest (LoCoMo-dev with the offline router: 0.47 per message), and the
    fact/event stay findable in the profile and event log.
    ``previous`` is the user's last stored message before the batch; it is only checked to
    belong to the same user, because the window key is derived when BM25 is built (from
    the order of the rows), so no earlier row has to be rewritten when a turn arrives.
    """
    if len(messages) != len(decisions):
        raise InvalidInputError(f"{len(messages)} messages but {len(decisions)} route decisions")
    _check_batch(messages, previous)
    items: list[ArchiveItem] = []
    for message, decision in zip(messages, decisions):
        if decision.msg_id != message.msg_id:
            raise InvalidInputError(f"decision for {decision.msg_id!r} paired with message {message.msg_id!r}")
        items.extend(raw_items(message, decision))
        if extractions:
            items.extend(extraction_items(message, decision))
    return items


def _check_batch(messages: Sequence[Message], previous: Message | None) -> None:
    users = {m.user_id for m in messages} | ({previous.user_id} if previous else set())
    if len(users) > 1:
        raise InvalidInputError(f"one user per archive batch, got {sorted(users)}")


def raw_items(message: Message, decision: RouteDecision) -> list[ArchiveItem]:
    """The message's own words: one row, or one row per chunk of a long text."""
    kind: ArchiveKind = "document" if decision.kind == "DOCUMENT" or message.role == "document" else "message"
    chunks = row_texts(message)
    return [
        ArchiveItem(item_id=item_id(message.user_id, kind, message.msg_id, n), user_id=message.user_id,
                    kind=kind, text=chunk, key_text=chunk, sources=[message.msg_id],
                    subject=message.speaker, occurred_at=message.ts, flags=list(decision.flags))
        for n, chunk in enumerate(chunks)
    ]


def row_texts(message: Message) -> list[str]:
    """The key texts of a message's raw rows: its indexed text, or its chunks when long.

    Ingest embeds exactly these texts (and nothing else of the message): the router reads
    their mean, the vector index reuses each one."""
    text = message.indexed_text()
    return list(chunk_text(text)) if len(text.split()) > CHUNK_WORDS else [text]


def extraction_items(message: Message, decision: RouteDecision) -> list[ArchiveItem]:
    """What the router extracted from the message, as short normalised rows."""
    items = [_fact_item(message, n, fact, decision.flags) for n, fact in enumerate(decision.facts)
             if fact.action in ("add", "update") and fact.value.strip()]
    if decision.event is not None and decision.event.text.strip():
        items.append(_event_item(message, decision.event, decision.flags))
    return items


def _fact_item(message: Message, position: int, fact: FactExtraction, flags: list[str]) -> ArchiveItem:
    text = fact_sentence(fact.subject, fact.key, fact.value)
    source = fact.evidence_msg_id or message.msg_id
    return ArchiveItem(item_id=item_id(message.user_id, "fact", message.msg_id, position),
                       user_id=message.user_id, kind="fact", text=text, key_text=text,
                       sources=[source], subject=fact.subject, occurred_at=message.ts, flags=list(flags))


def _event_item(message: Message, event: EventExtraction, flags: list[str]) -> ArchiveItem:
    text = f"{event.text} ({describe_date(event.occurred_at, event.granularity)})"
    return ArchiveItem(item_id=item_id(message.user_id, "event", message.msg_id),
                       user_id=message.user_id, kind="event", text=text, key_text=text,
                       sources=[message.msg_id], subject=event.subject, occurred_at=event.occurred_at,
                       flags=list(flags))


def fact_sentence(subject: str, key: str, value: str) -> str:
    """``("user", "home_city", "Austin")`` -> ``"user home city: Austin"``."""
    return f"{subject} {key.replace('_', ' ')}: {value}"


def describe_date(when: datetime, granularity: str = "day") -> str:
    """A date in words, so lexical search matches "May" or "2023" in a question."""
    if granularity == "year":
        return f"{when.year}"
    if granularity == "month":
        return f"{when:%B %Y}"
    if granularity == "week":
        return f"week of {when.day} {when:%B %Y}"
    return f"{when.day} {when:%B %Y}"


def chunk_text(text: str, max_words: int = CHUNK_WORDS) -> Iterator[str]:
    """Split on sentence ends into chunks of at most ``max_words`` words (a longer sentence is cut)."""
    current: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        words = sentence.split()
        while len(words) > max_words:
            if current:
                yield " ".join(current)
                current = []
            yield " ".join(words[:max_words])
            words = words[max_words:]
        if current and len(current) + len(words) > max_words:
            yield " ".join(current)
            current = []
        current.extend(words)
    if current:
        yield " ".join(current)
