"""``Task``: a handle on one task's scratchpad, over any ``MemoryAPI`` (embedded or remote).

    with memory.task("ana", "trip-42") as task:       # end_task() on leaving the block
        task.write("plan", ["find flights", "book hotel"], kind="plan")
        task.write("flights", {"cheapest": "TP 1234"}, kind="result")
        prompt = task.context("book the hotel now", budget_tokens=1500)
        task.promote("flights")                       # kept past the task, with provenance

Every method is one call of the API it wraps, so it means the same in-process and over HTTP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memfold.api import MemoryAPI
    from memfold.models import Context, RouteDecision, ScratchItem, TaskEnd, TaskState


def scratch_text(value: object) -> str:
    """A scratchpad value as text: a string as it is, anything else as compact JSON."""
    import json

    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


class Task:
    def __init__(self, memory: MemoryAPI, user_id: str, task_id: str) -> None:
        self.memory = memory
        self.user_id = user_id
        self.task_id = task_id

    def write(self, key: str, value: Any, *, kind: str = "note") -> ScratchItem:
        return self.memory.task_write(self.user_id, self.task_id, key, value, kind=kind)

    def read(self) -> TaskState:
        return self.memory.task_read(self.user_id, self.task_id)

    def values(self) -> dict[str, Any]:
        """key -> value, in write order."""
        return {item.key: item.value for item in self.read().items}

    def context(self, query: str, budget_tokens: int = 2000) -> Context:
        return self.memory.context(query, self.user_id, budget_tokens=budget_tokens, task_id=self.task_id)

    def promote(self, key: str, *, role: str = "tool", msg_id: str | None = None) -> RouteDecision:
        return self.memory.promote(self.user_id, self.task_id, key, role=role, msg_id=msg_id)

    def end(self) -> TaskEnd:
        return self.memory.end_task(self.user_id, self.task_id)

    def __enter__(self) -> Task:
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()  # burn after reading, also when the task failed


__all__ = ["Task", "scratch_text"]
