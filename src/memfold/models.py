"""Pydantic records: the data memfold stores, routes and returns.

Data only: behaviour lives behind the protocols in ``stores/``, ``llm/``, ``router/``,
``compaction/`` and ``retrieval/``. Every stored memory carries ``sources``: the
``msg_id`` values of the messages whose words the record carries.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Role = Literal["user", "assistant", "tool", "document"]
RouteKind = Literal["FACT", "EVENT", "DOCUMENT", "NONE"]
StoreName = Literal["profile", "events", "archive", "episodes", "semantic", "working", "knowledge",
                    "task"]
ScratchKind = Literal["note", "result", "tool_call", "plan"]
ArchiveKind = Literal["message", "document", "fact", "event", "episode", "evicted_fact", "summary"]
Granularity = Literal["instant", "day", "week", "month", "year"]

# ids travel through SQL parameters, Chroma ids and file names: keep them printable.
_ID_RE = re.compile(r"^[^\x00-\x1f\x7f]{1,256}$")
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs"})  # invisible or layout-changing


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _check_id(value: str, name: str) -> str:
    """A display id (speaker, subject, key): surrounding whitespace is not part of it."""
    value = value.strip() if isinstance(value, str) else value
    if not value:
        raise ValueError(f"{name} must be a non-empty string")
    if not _ID_RE.match(value):
        raise ValueError(f"{name} must be 1-256 printable characters")
    return _check_utf8(value, name)


def check_identity(value: object, name: str = "user_id") -> str:
    """An identity (user_id, msg_id, session_id) is exactly its characters, NFC-normalised.

    Two ids that differ only by whitespace ("alice", "alice\u00a0", "\u2003alice") must
    never name the same data, so such an id is refused with a clear error instead of being
    stripped into another one; so are control and format characters (zero-width, bidi),
    which make two different ids look alike. NFC makes a composed and a decomposed "é" one id.
    """
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string")
    value = unicodedata.normalize("NFC", value)
    if value != value.strip():
        raise ValueError(f"{name} {value!r} has leading or trailing whitespace "
                         "(ids are exact: remove it, memfold will not strip it for you)")
    hidden = sorted({f"U+{ord(c):04X}" for c in value if unicodedata.category(c) in _HIDDEN})
    if hidden:
        raise ValueError(f"{name} {value!r} holds control or format characters ({', '.join(hidden)})")
    if len(value) > 256:
        raise ValueError(f"{name} must be at most 256 characters")
    return _check_utf8(value, name)


def check_text(value: str, name: str = "text") -> str:
    """Stored text: not blank, no NUL (no store keeps one), valid Unicode."""
    if not value or not value.strip():
        raise ValueError(f"{name} must not be empty")
    if "\x00" in value:
        raise ValueError(f"{name} must not contain NUL bytes")
    return _check_utf8(value, name)


def _check_utf8(value: str, name: str) -> str:
    """Refuse lone surrogates (JSON "\\ud800"): no store can encode them, and one of them
    would otherwise fail the whole batch at the database instead of this one message."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{name} is not valid Unicode (lone surrogate at position {exc.start})") from None
    return value


def _aware(value: datetime, name: str) -> datetime:
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise ValueError(f"{name} must carry a timezone (e.g. 2023-05-08T13:56:00Z)")
    try:
        return value.astimezone(timezone.utc)
    except OverflowError:  # 0001-01-01T00:00+14:00 is before year 1 in UTC
        raise ValueError(f"{name} {value.isoformat()} is outside the years 1-9999 in UTC") from None


class Record(BaseModel):
    """Base for stored records: strict field names, immutable after validation."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Message(Record):
    """One raw utterance: the unit of ingest and of provenance."""

    msg_id: str
    user_id: str
    session_id: str = "default"
    speaker: str = "user"
    role: Role = "user"
    text: str
    ts: datetime
    meta: dict[str, str] = Field(default_factory=dict)

    @field_validator("msg_id", "user_id", "session_id")
    @classmethod
    def _identity(cls, value: str, info: Any) -> str:
        return check_identity(value, info.field_name)

    @field_validator("speaker")
    @classmethod
    def _speaker(cls, value: str, info: Any) -> str:
        return _check_id(value, info.field_name)

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        return check_text(value)

    @field_validator("meta")
    @classmethod
    def _meta(cls, value: dict[str, str]) -> dict[str, str]:
        for key, item in value.items():
            _check_utf8(key, "meta key")
            _check_utf8(item, f"meta[{key!r}]")
        return value

    @field_validator("ts")
    @classmethod
    def _ts(cls, value: datetime) -> datetime:
        return _aware(value, "ts")

    def indexed_text(self) -> str:
        """The text a retriever should see: the words plus any attached image caption."""
        caption = self.meta.get("blip_caption")
        return f"{self.text} [image: {caption}]" if caption else self.text


class ProfileFact(Record):
    """A stable fact about someone: (user_id, subject, key) -> value, with its evidence."""

    user_id: str
    subject: str = "user"
    key: str
    value: str
    sources: list[str] = Field(min_length=1)
    updated_at: datetime = Field(default_factory=utcnow)
    category: str | None = None

    @field_validator("user_id")
    @classmethod
    def _identity(cls, value: str, info: Any) -> str:
        return check_identity(value, info.field_name)

    @field_validator("subject", "key")
    @classmethod
    def _ids(cls, value: str, info: Any) -> str:
        return _check_id(value, info.field_name)

    @field_validator("updated_at")
    @classmethod
    def _ts(cls, value: datetime) -> datetime:
        return _aware(value, "updated_at")


ChangeAction = Literal["add", "update", "delete", "evict", "expire"]


class ProfileChange(Record):
    """One changelog row: who changed which key, when, from what to what, on what evidence."""

    change_id: str
    user_id: str
    subject: str
    key: str
    action: ChangeAction
    old_value: str | None = None
    new_value: str | None = None
    sources: list[str] = Field(default_factory=list)
    reason: str = ""
    actor: str = "router"
    changed_at: datetime = Field(default_factory=utcnow)


class Event(Record):
    """Something that happened at a time, in the episodic event log."""

    event_id: str
    user_id: str
    subject: str = "user"
    text: str
    occurred_at: datetime
    granularity: Granularity = "day"
    recorded_at: datetime = Field(default_factory=utcnow)
    sources: list[str] = Field(min_length=1)

    @field_validator("occurred_at", "recorded_at")
    @classmethod
    def _ts(cls, value: datetime, info: Any) -> datetime:
        return _aware(value, info.field_name)


class DocumentChunk(Record):
    """A chunk of reference content (a DOCUMENT message or a long tool result)."""

    chunk_id: str
    user_id: str
    doc_id: str
    index: int = 0
    text: str
    sources: list[str] = Field(min_length=1)
    ts: datetime
    flags: list[str] = Field(default_factory=list)  # e.g. "instruction-like" (poisoning guard)
    layer: int = 1  # progressive summarization layer: 1 = full text, 2..4 = distilled


class ArchiveItem(Record):
    """A row of the vector archive. DuckDB holds it; Chroma holds its embedding.

    ``text`` is what recall shows and what ``sources`` vouch for; ``key_text`` is what is
    embedded and indexed, and may be richer (the turns around a message, the extraction
    of a fact) so that a memory is found by more than its own words.
    """

    item_id: str
    user_id: str
    kind: ArchiveKind
    text: str
    key_text: str
    sources: list[str] = Field(min_length=1)
    subject: str | None = None
    occurred_at: datetime | None = None
    flags: list[str] = Field(default_factory=list)


class Decision(Record):
    decision: str
    reason: str = ""
    constraint: str = ""
    sources: list[str] = Field(default_factory=list)


class Eliminated(Record):
    approach: str
    why: str = ""
    sources: list[str] = Field(default_factory=list)


class Note(Record):
    """A sentence-sized memory with its provenance and importance (L2/L3 building block)."""

    text: str
    sources: list[str] = Field(default_factory=list)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    updated_at: datetime | None = None

    @property
    def pinned(self) -> bool:
        """High-importance notes (>= 0.8) survive every fold."""
        return self.importance >= 0.8


class Episode(Record):
    """L2: a folded run of working-memory turns (spec: folded-memory.txt, step 3)."""

    episode_id: int
    user_id: str
    turn_range: tuple[int, int]
    summary: str
    decisions: list[Decision] = Field(default_factory=list)
    eliminated: list[Eliminated] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)
    tool_results: dict[str, str] = Field(default_factory=dict)
    notes: list[Note] = Field(default_factory=list)  # the extracted sentences, scored
    sources: list[str] = Field(default_factory=list)
    started_at: datetime | None = None
    ended_at: datetime | None = None

    @model_validator(mode="after")
    def _range(self) -> Episode:
        if self.turn_range[0] > self.turn_range[1]:
            raise ValueError("turn_range must be (start, end) with start <= end")
        return self


class SemanticMemory(Record):
    """L3: durable knowledge, merged (not appended) as episodes distil."""

    user_id: str
    facts: list[Note] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    eliminated_approaches: list[Eliminated] = Field(default_factory=list)
    patterns: list[Note] = Field(default_factory=list)
    open_questions: list[Note] = Field(default_factory=list)
    history: list[Note] = Field(default_factory=list)  # facts replaced by newer ones
    updated_at: datetime | None = None

    def is_empty(self) -> bool:
        return not (self.facts or self.decisions or self.eliminated_approaches or self.patterns)


class FoldState(Record):
    """Everything compaction needs to resume for one user: saved after every fold."""

    user_id: str
    working: list[Message] = Field(default_factory=list)  # L1
    episodes: list[Episode] = Field(default_factory=list)  # L2
    semantic: SemanticMemory  # L3
    current_episode_id: int = 0
    total_turns_seen: int = 0
    folds: int = 0
    strategy: Literal["truncate", "summarize", "folded"] = "folded"
    summary: str = ""  # the `summarize` strategy's rolling summary


class FactExtraction(Record):
    """A (subject, key, value) the router pulled out of one message."""

    action: Literal["add", "update", "delete", "none"] = "add"
    subject: str = "user"
    key: str
    value: str = ""
    evidence_msg_id: str | None = None
    reason: str = ""
    # the words the value was read from, when the value is their normalised spelling
    # ("june 3rd" -> "June 3"); grounding checks the quote and the normalisation
    quote: str = ""
    # how the message names a subject known from the profile ("mom" for Linda, "tomas" for
    # Tomás); grounding checks these words instead of the stored name
    subject_quote: str = ""


class EventExtraction(Record):
    subject: str = "user"
    text: str
    occurred_at: datetime
    granularity: Granularity = "day"
    time_expression: str | None = None  # the words the date was resolved from


class RefusedWrite(Record):
    """A profile write the router or the store refused (never silently dropped)."""

    msg_id: str
    subject: str
    key: str
    value: str = ""
    reason: str


class RouteDecision(Record):
    """What the router decided for one message, before anything is stored."""

    msg_id: str
    kind: RouteKind
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    facts: list[FactExtraction] = Field(default_factory=list)
    event: EventExtraction | None = None
    reasons: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    backend: str = "offline"
    refused: list[RefusedWrite] = Field(default_factory=list)


class Rejection(Record):
    """One input that was not ingested, and why."""

    position: int  # 1-based line or index in the batch
    msg_id: str | None = None
    field: str | None = None
    error: str


class IngestReport(Record):
    accepted: int = 0
    duplicates: int = 0
    rejected: list[Rejection] = Field(default_factory=list)
    routed: dict[str, int] = Field(default_factory=dict)
    folds: int = 0
    seconds: float = 0.0
    refused: list[RefusedWrite] = Field(default_factory=list)  # profile writes not made

    def merged(self, later: IngestReport, *, offset: int = 0) -> IngestReport:
        """This report and a later batch's, as one; ``offset`` shifts the later batch's
        rejection positions (its first message follows ``offset`` earlier ones)."""
        routed = dict(self.routed)
        for kind, n in later.routed.items():
            routed[kind] = routed.get(kind, 0) + n
        shifted = [r.model_copy(update={"position": r.position + offset}) for r in later.rejected]
        return IngestReport(accepted=self.accepted + later.accepted,
                            duplicates=self.duplicates + later.duplicates,
                            rejected=[*self.rejected, *shifted], routed=routed,
                            folds=self.folds + later.folds, seconds=self.seconds + later.seconds,
                            refused=[*self.refused, *later.refused])


def unique_sources(items: list[RecallItem]) -> list[str]:
    return list(dict.fromkeys(src for item in items for src in item.sources))


class RecallItem(Record):
    store: StoreName
    text: str
    score: float
    sources: list[str]
    occurred_at: datetime | None = None
    subject: str | None = None
    item_id: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class RecallResult(Record):
    query: str
    user_id: str
    now: datetime
    intents: dict[str, float] = Field(default_factory=dict)
    time_range: tuple[datetime, datetime] | None = None
    items: list[RecallItem] = Field(default_factory=list)
    # from the knowledge-base namespaces granted to the user, ranked apart from the user's own
    # memories; provenance is meta namespace / doc_id / version (they cite no message)
    knowledge: list[RecallItem] = Field(default_factory=list)
    elapsed_ms: float = 0.0

    def sources(self) -> list[str]:
        """Every msg_id the items carry, first occurrence first."""
        return unique_sources(self.items)


class ContextSection(Record):
    name: str
    tokens: int
    items: int


class Context(Record):
    """A prompt context assembled under a token budget."""

    user_id: str
    query: str
    budget_tokens: int
    tokens: int
    system: str
    messages: list[dict[str, str]] = Field(default_factory=list)
    sections: list[ContextSection] = Field(default_factory=list)
    items: list[RecallItem] = Field(default_factory=list)

    def sources(self) -> list[str]:
        """Every msg_id the items carry, first occurrence first."""
        return unique_sources(self.items)


class Explanation(Record):
    """Answers "how do you know that?": the value, every change, and the quoted evidence."""

    user_id: str
    subject: str
    key: str
    current: ProfileFact | None = None
    changes: list[ProfileChange] = Field(default_factory=list)
    evidence: list[Message] = Field(default_factory=list)

    def render(self) -> str:
        lines = [f"{self.subject}.{self.key} = {self.current.value!r}" if self.current
                 else f"{self.subject}.{self.key}: no current value"]
        for change in self.changes:
            old = f"{change.old_value!r} -> " if change.old_value is not None else ""
            lines.append(f"- {change.changed_at:%Y-%m-%d %H:%M} {change.action} by {change.actor}: "
                         f"{old}{change.new_value!r} (evidence: {', '.join(change.sources) or 'none'})")
        by_id = {m.msg_id: m for m in self.evidence}
        for msg_id in dict.fromkeys(s for c in self.changes for s in c.sources):
            message = by_id.get(msg_id)
            if message:
                lines.append(f'  [{msg_id}] {message.ts:%Y-%m-%d} {message.speaker}: "{message.text}"')
        return "\n".join(lines)


class ForgetReport(Record):
    user_id: str
    messages: int = 0
    facts: int = 0
    events: int = 0
    documents: int = 0
    archive_items: int = 0
    vectors: int = 0
    fold_state: int = 0
    task_items: int = 0  # scratchpad items of the user's open tasks
    file_rewritten: bool = False
    seconds: float = 0.0


# -- the scratchpad (one task) and the knowledge base (no user) --------------------------------


class ScratchItem(Record):
    """One entry of a task's scratchpad: an intermediate result, a tool call, a partial plan.
    It lives as long as its task (``end_task`` or expiry deletes it) and reaches no other
    layer unless the agent promotes it."""

    user_id: str
    task_id: str
    key: str
    kind: ScratchKind = "note"
    value: Any
    written_at: datetime

    @field_validator("user_id", "task_id", "key")
    @classmethod
    def _identity(cls, value: str, info: Any) -> str:
        return check_identity(value, info.field_name)

    @field_validator("written_at")
    @classmethod
    def _ts(cls, value: datetime) -> datetime:
        return _aware(value, "written_at")


class TaskInfo(Record):
    """An open task: how many scratchpad items it holds and when it was last written."""

    user_id: str
    task_id: str
    items: int
    started_at: datetime
    last_write: datetime


class TaskState(Record):
    """A task's scratchpad, in write order; ``expires_at``: when it burns if left open."""

    user_id: str
    task_id: str
    items: list[ScratchItem] = Field(default_factory=list)
    expires_at: datetime | None = None


class TaskEnd(Record):
    user_id: str
    task_id: str
    items: int = 0  # scratchpad items deleted


class KnowledgeDoc(Record):
    """One document of a knowledge-base namespace, at its current version."""

    namespace: str
    doc_id: str
    version: int = Field(ge=1)
    digest: str  # sha256 of the text: re-adding the same text keeps the version
    title: str = ""
    chunks: int = Field(ge=0)
    added_at: datetime

    @field_validator("namespace", "doc_id")
    @classmethod
    def _identity(cls, value: str, info: Any) -> str:
        return check_identity(value, info.field_name)


class KnowledgeChunk(Record):
    namespace: str
    doc_id: str
    version: int = Field(ge=1)
    index: int = Field(ge=0)
    text: str

    @property
    def chunk_id(self) -> str:
        return f"kb:{self.namespace}/{self.doc_id}@v{self.version}#{self.index}"


class KnowledgeInput(Record):
    """A document to add to a namespace (``Memory.add_knowledge``)."""

    doc_id: str
    text: str
    title: str = Field(default="", max_length=1000)

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        if "\x00" in value:
            raise ValueError("title must not contain NUL bytes")
        return _check_utf8(value, "title")

    @field_validator("doc_id")
    @classmethod
    def _identity(cls, value: str) -> str:
        return check_identity(value, "doc_id")

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        return check_text(value)


class KnowledgeReport(Record):
    """What ``add_knowledge`` / ``remove_knowledge`` changed in one namespace."""

    namespace: str
    added: list[KnowledgeDoc] = Field(default_factory=list)  # new documents and new versions
    replaced: list[str] = Field(default_factory=list)  # doc ids whose older version was removed
    unchanged: list[str] = Field(default_factory=list)  # same text as the stored version
    removed: list[str] = Field(default_factory=list)
    chunks_added: int = 0
    chunks_removed: int = 0
    seconds: float = 0.0
