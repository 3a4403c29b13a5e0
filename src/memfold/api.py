"""``MemoryAPI``: the one interface every front end talks to.

Two implementations, one contract (``tests/api/``):

* :class:`memfold.memory.Memory`, the embedded facade (in this process, on a store directory);
* :class:`memfold.client.MemoryClient`, the same methods over HTTP to ``memfold serve``.

The CLI, the REST routes and the MCP tools are thin layers over this Protocol, so anything
an agent can do in-process it can do against a server, with the same records (pydantic
models from :mod:`memfold.models`) and the same errors (the :mod:`memfold.errors` tree).

Importing this module is light: it pulls in pydantic models only (no DuckDB, Chroma or
model code), so a client process never pays for the embedded stack.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from memfold.models import (
    Context,
    Episode,
    Event,
    Explanation,
    FoldState,
    ForgetReport,
    IngestReport,
    KnowledgeDoc,
    KnowledgeInput,
    KnowledgeReport,
    Message,
    ProfileChange,
    ProfileFact,
    RecallItem,
    RecallResult,
    RouteDecision,
    ScratchItem,
    SemanticMemory,
    TaskEnd,
    TaskInfo,
    TaskState,
)

__all__ = ["MemoryAPI", "READ_METHODS", "WRITE_METHODS"]

#: Methods that change the store; a server runs them one at a time.
WRITE_METHODS = frozenset({"ingest", "ingest_many", "ingest_file", "set_fact", "delete_fact", "fold",
                           "remove_message", "forget", "task_write", "end_task", "promote",
                           "expire_tasks", "add_knowledge", "remove_knowledge"})
#: Methods that only read; a server runs them concurrently with each other and with writes.
READ_METHODS = frozenset({"route", "recall", "context", "search", "profile", "profile_history", "explain",
                          "events", "episodes", "semantic", "export", "stats", "users", "task_read",
                          "tasks", "knowledge", "search_knowledge"})


@runtime_checkable
class MemoryAPI(Protocol):
    """The public operations of a memfold store, embedded or remote."""

    # -- writes -------------------------------------------------------------------------
    def ingest(self, message: Message | dict[str, Any]) -> RouteDecision:
        """Store one message; durable when this returns. Invalid input raises."""
        ...

    def ingest_many(self, messages: Iterable[Message | dict[str, Any]], *,
                    progress: Callable[[int], None] | None = None) -> IngestReport:
        """Store many messages; a bad one is reported in ``rejected``, the rest are kept."""
        ...

    def ingest_file(self, path: str | Path, *, user_id: str | None = None,
                    progress: Callable[[int], None] | None = None,
                    on_total: Callable[[int], None] | None = None) -> IngestReport:
        """Read a JSONL (or LoCoMo JSON) transcript where the caller runs and store it;
        rejections name the file's line numbers."""
        ...

    def set_fact(self, user_id: str, key: str, value: str, *, sources: Sequence[str],
                 subject: str = "user", reason: str = "set by hand") -> ProfileChange | None:
        """Write a profile fact; ``sources`` must name stored messages."""
        ...

    def delete_fact(self, user_id: str, key: str, *, subject: str = "user",
                    reason: str = "deleted by the user") -> ProfileChange | None:
        ...

    def fold(self, user_id: str) -> FoldState:
        """Fold the user's working memory now."""
        ...

    def remove_message(self, user_id: str, msg_id: str) -> dict[str, int]:
        """Delete one message and everything derived from it."""
        ...

    def forget(self, user_id: str) -> ForgetReport:
        """Erase a user completely."""
        ...

    # -- the scratchpad (one task) and the knowledge base (no user) ------------------------
    def task_write(self, user_id: str, task_id: str, key: str, value: Any, *,
                   kind: str = "note") -> ScratchItem:
        """Write one scratchpad item (note, result, tool_call or plan) of an open task."""
        ...

    def end_task(self, user_id: str, task_id: str) -> TaskEnd:
        """Burn the task's scratchpad."""
        ...

    def promote(self, user_id: str, task_id: str, key: str, *, role: str = "tool",
                msg_id: str | None = None) -> RouteDecision:
        """Keep one scratchpad item past its task, as a message citing the task and key."""
        ...

    def expire_tasks(self, now: datetime | None = None) -> list[TaskInfo]:
        """Burn every task idle longer than the deployment's task TTL."""
        ...

    def add_knowledge(self, namespace: str,
                      documents: Sequence[KnowledgeInput | dict[str, Any]]) -> KnowledgeReport:
        """Add or replace (by doc_id, as a new version) documents of a namespace."""
        ...

    def remove_knowledge(self, namespace: str, doc_id: str | None = None) -> KnowledgeReport:
        """Remove one document, or the whole namespace, with every chunk and vector."""
        ...

    def task_read(self, user_id: str, task_id: str) -> TaskState:
        ...

    def tasks(self, user_id: str) -> list[TaskInfo]:
        ...

    def knowledge(self, namespace: str | None = None) -> list[KnowledgeDoc]:
        ...

    def search_knowledge(self, query: str, namespace: str, k: int = 10) -> list[RecallItem]:
        ...

    # -- reads --------------------------------------------------------------------------
    def route(self, message: Message | dict[str, Any]) -> RouteDecision:
        """What the router would do with ``message``; nothing is stored."""
        ...

    def recall(self, query: str, user_id: str, now: datetime | None = None,
               k: int = 10) -> RecallResult:
        ...

    def context(self, query: str, user_id: str, budget_tokens: int = 2000,
                now: datetime | None = None, task_id: str | None = None) -> Context:
        """With ``task_id``, the prompt holds that task's scratchpad too."""
        ...

    def search(self, query: str, user_id: str, k: int = 10) -> list[RecallItem]:
        ...

    def profile(self, user_id: str, subject: str | None = None) -> list[ProfileFact]:
        ...

    def profile_history(self, user_id: str, subject: str | None = None,
                        key: str | None = None) -> list[ProfileChange]:
        ...

    def explain(self, user_id: str, subject: str, key: str) -> Explanation:
        ...

    def events(self, user_id: str, since: datetime | None = None, until: datetime | None = None,
               about: str | None = None, limit: int | None = None) -> list[Event]:
        ...

    def episodes(self, user_id: str) -> list[Episode]:
        ...

    def semantic(self, user_id: str) -> SemanticMemory:
        ...

    def export(self, user_id: str | None = None) -> Iterator[dict[str, Any]]:
        ...

    def stats(self) -> dict[str, Any]:
        ...

    def users(self) -> list[str]:
        ...

    def close(self) -> None:
        ...
