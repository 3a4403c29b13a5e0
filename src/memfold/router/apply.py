"""Write one routing decision into the stores.

The caller (the ``Memory`` facade) has already appended the raw message to the
conversation log and wraps this call, with the rest of the batch, in
``stores.db.transaction()``: this module never opens a transaction of its own.

* facts (FACT, and the side facts of an EVENT such as "we moved to Austin") go to the
  profile, only from ``role=user`` messages, only with evidence (the fact must cite this
  message) and only when grounded in its words; ``delete`` removes the key with a
  changelog row; a new value for an existing key is an ``update`` changelog row (the store
  keeps the old value in the changelog);
* EVENT appends one event whose id is derived from the msg_id (re-applying is idempotent
  for stores keyed on event_id);
* DOCUMENT chunks the text into ``DocumentChunk`` rows carrying the decision's flags
  (e.g. ``instruction-like``);
* NONE writes nothing.

Every refusal is recorded in :class:`AppliedWrites.refused`, never raised, so one
unsupported fact cannot abort a batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memfold.errors import EvidenceRequiredError, InvalidInputError
from memfold.llm.keys import canonical_subject, speaker_subject
from memfold.models import (
    DocumentChunk,
    Event,
    FactExtraction,
    Message,
    ProfileFact,
    RefusedWrite,
    RouteDecision,
    RouteKind,
)
from memfold.router.chunking import chunk_text
from memfold.router.grounding import grounding_problem
from memfold.stores import Stores
from memfold.tokens import TokenCounter

FACT_ROLES = frozenset({"user"})


class AppliedWrites(BaseModel):
    """What ``apply_decision`` wrote: fact keys as ``subject.key``, event and chunk ids."""

    model_config = ConfigDict(frozen=True)

    msg_id: str
    kind: RouteKind
    facts_written: list[str] = Field(default_factory=list)
    facts_deleted: list[str] = Field(default_factory=list)
    facts_unchanged: list[str] = Field(default_factory=list)
    event_ids: list[str] = Field(default_factory=list)
    chunk_ids: list[str] = Field(default_factory=list)
    refused: list[RefusedWrite] = Field(default_factory=list)


def event_id_for(message: Message) -> str:
    return f"{message.msg_id}#event"


def chunk_id_for(message: Message, index: int) -> str:
    return f"{message.msg_id}#chunk{index}"


@dataclass
class PendingWrites:
    """Rows a batch writes in one insert each at its end (a statement per message costs
    more than the rows: a few ms each on a large store). Nothing in a batch reads them
    back before the batch ends; profile facts are not buffered (each change reads the
    current value)."""

    chunks: list[DocumentChunk] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def flush(self, stores: Stores) -> None:
        stores.documents.add(self.chunks)
        stores.events.append(self.events)
        self.chunks, self.events = [], []


def apply_decision(stores: Stores, message: Message, decision: RouteDecision, *,
                   counter: TokenCounter | None = None,
                   pending: PendingWrites | None = None) -> AppliedWrites:
    """Write ``decision`` for ``message``; returns what was written and what was refused.

    With ``pending``, document chunks and events are collected there instead of written;
    the caller flushes them in the same transaction."""
    if decision.msg_id != message.msg_id:
        raise InvalidInputError(
            f"decision for {decision.msg_id!r} applied to message {message.msg_id!r}")
    out: dict[str, list[Any]] = {name: [] for name in (
        "facts_written", "facts_deleted", "facts_unchanged", "event_ids", "chunk_ids", "refused")}
    if decision.kind in ("FACT", "EVENT"):
        for fact in decision.facts:
            _apply_fact(stores, message, fact, out, decision.facts)
    if decision.kind == "EVENT":
        out["event_ids"].append(_append_event(stores, message, decision, pending))
    elif decision.kind == "DOCUMENT":
        out["chunk_ids"].extend(_add_chunks(stores, message, decision, counter, pending))
    return AppliedWrites(msg_id=message.msg_id, kind=decision.kind, **out)


def fact_refusal(message: Message, fact: FactExtraction, siblings: list[FactExtraction] | None = None) -> str | None:
    """Why ``fact`` may not be written from ``message`` (trust, evidence, grounding). The
    ``siblings`` (the decision's other facts) may retire a value whose words the new one keeps."""
    if message.role not in FACT_ROLES:
        return f"role {message.role!r} cannot write profile facts"
    if not fact.evidence_msg_id:
        return "no evidence_msg_id"
    if fact.evidence_msg_id != message.msg_id:
        return f"evidence {fact.evidence_msg_id!r} is not this message"
    return grounding_problem(fact, message, retired_value(fact, siblings or []))


def retired_value(fact: FactExtraction, siblings: list[FactExtraction]) -> str:
    """The value a sibling deletes for the same subject and key family ("move to Canada",
    retired by "move to Australia": the new goal keeps the old one's frame words)."""
    family = fact.key.partition(":")[0]
    return " ".join(s.value for s in siblings if s.action == "delete" and s.subject == fact.subject
                    and s.key.partition(":")[0] == family and s.key != fact.key)


def _apply_fact(stores: Stores, message: Message, fact: FactExtraction,
                out: dict[str, list[Any]], siblings: list[FactExtraction]) -> None:
    # one spelling per relative whatever the backend wrote ("user's mum" is "user's mom")
    fact = fact.model_copy(update={"subject": canonical_subject(fact.subject)})
    slot = f"{fact.subject}.{fact.key}"
    if fact.action == "none":
        return
    problem = fact_refusal(message, fact, siblings)
    if problem is not None:
        out["refused"].append(_refused(message, fact, problem))
        return
    sources = [message.msg_id]
    if fact.action == "delete":
        change = stores.profile.delete(message.user_id, fact.subject, fact.key, sources=sources,
                                       reason=fact.reason or "stated no longer true",
                                       actor="router", at=message.ts)
        out["facts_deleted" if change is not None else "facts_unchanged"].append(slot)
        return
    record = ProfileFact(user_id=message.user_id, subject=fact.subject, key=fact.key,
                         value=fact.value, sources=sources, updated_at=message.ts)
    try:
        change = stores.profile.upsert(record, reason=fact.reason, actor="router")
    except EvidenceRequiredError as exc:
        out["refused"].append(_refused(message, fact, str(exc)))
        return
    out["facts_written" if change is not None else "facts_unchanged"].append(slot)


def _refused(message: Message, fact: FactExtraction, reason: str) -> RefusedWrite:
    return RefusedWrite(msg_id=message.msg_id, subject=fact.subject, key=fact.key,
                        value=fact.value, reason=reason)


def _append_event(stores: Stores, message: Message, decision: RouteDecision,
                  pending: PendingWrites | None) -> str:
    extraction = decision.event
    event = Event(
        event_id=event_id_for(message), user_id=message.user_id,
        subject=extraction.subject if extraction else speaker_subject(message),
        text=extraction.text if extraction else message.text,
        occurred_at=extraction.occurred_at if extraction else message.ts,
        granularity=extraction.granularity if extraction else "day",
        recorded_at=message.ts, sources=[message.msg_id])
    if pending is not None:
        pending.events.append(event)
    else:
        stores.events.append([event])
    return event.event_id


def _add_chunks(stores: Stores, message: Message, decision: RouteDecision,
                counter: TokenCounter | None, pending: PendingWrites | None) -> list[str]:
    texts = chunk_text(message.text, counter=counter)
    chunks = [DocumentChunk(chunk_id=chunk_id_for(message, index), user_id=message.user_id,
                            doc_id=message.msg_id, index=index, text=text,
                            sources=[message.msg_id], ts=message.ts, flags=list(decision.flags))
              for index, text in enumerate(texts)]
    if pending is not None:
        pending.chunks.extend(chunks)
    else:
        stores.documents.add(chunks)
    return [chunk.chunk_id for chunk in chunks]
