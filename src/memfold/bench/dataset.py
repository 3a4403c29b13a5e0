"""The data a benchmark run works on: conversations to ingest and questions with evidence.

Both benchmark formats (LoCoMo and the generic JSONL pair) load into these records, so
the runner and the metric never see a file format.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from memfold.models import Message

# LoCoMo's JSON category numbers (they do not follow the paper's section 4.1 order).
LOCOMO_CATEGORIES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
CORE_CATEGORIES = ("multi-hop", "temporal", "open-domain", "single-hop")  # "overall_1_4"
UNCATEGORISED = "uncategorised"


class BenchQuestion(BaseModel):
    """One question with the msg_ids (LoCoMo dia_ids) that hold its answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    user_id: str
    evidence: list[str] = Field(default_factory=list)
    category: str = UNCATEGORISED
    now: datetime | None = None
    answer: str | None = None
    # LongMemEval-style extras: the sessions that hold the answer, and for a knowledge
    # update the turn that states the current value and the turns whose values it replaced
    evidence_sessions: list[str] = Field(default_factory=list)
    newest_evidence: str | None = None
    replaced_evidence: list[str] = Field(default_factory=list)


class BenchConversation(BaseModel):
    """One user's transcript and the questions asked about it (one fresh store each)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_id: str
    messages: list[Message]
    questions: list[BenchQuestion]

    def msg_ids(self) -> set[str]:
        return {message.msg_id for message in self.messages}

    def last_ts(self) -> datetime | None:
        return max((message.ts for message in self.messages), default=None)


class BenchDataset(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    conversations: list[BenchConversation]
    skipped: list[str] = Field(default_factory=list)  # malformed records left out, with the reason

    @property
    def question_count(self) -> int:
        return sum(len(conversation.questions) for conversation in self.conversations)

    @property
    def message_count(self) -> int:
        return sum(len(conversation.messages) for conversation in self.conversations)


def ordered_categories(categories: Iterable[str]) -> list[str]:
    """Distinct categories, LoCoMo's in their JSON number order, then the rest alphabetically."""
    present = set(categories)
    known = [name for name in LOCOMO_CATEGORIES.values() if name in present]
    return known + sorted(present - set(known))


def missing_evidence(conversation: BenchConversation) -> int:
    """Evidence ids that name no message of the conversation (they stay misses in the metric)."""
    known = conversation.msg_ids()
    return sum(1 for question in conversation.questions for ev in question.evidence if ev not in known)
