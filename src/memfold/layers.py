"""The two layers beside a user's long-term memory, as methods of the ``Memory`` facade.

* **Scratchpad** (one task): an agent's intermediate results, tool calls and partial plans,
  keyed by (user, task, key). ``end_task`` deletes them; a task left open burns
  ``Settings.task_ttl_seconds`` after its last write. Nothing of a scratchpad is folded,
  archived, routed or indexed: the only way out is ``promote``, which stores one item as a
  new message (role ``tool`` by default: quoted data, never a profile source) whose ``meta``
  names the task, the key and the time it was written.
* **Knowledge base** (no user): namespaces of documents, chunked as the archive chunks long
  content and embedded, each document with an id and a version. Re-adding a document with
  other text stores version n+1 and drops version n in one transaction; the same text is a
  no-op. A user reads the namespaces the deployment grants it (``Settings.knowledge_grants``);
  no user write path reaches a namespace, and ``forget`` never touches one.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from memfold.errors import InvalidInputError, NotStoredError
from memfold.tasks import scratch_text
from memfold.models import (
    KnowledgeChunk,
    KnowledgeDoc,
    KnowledgeInput,
    KnowledgeReport,
    RecallItem,
    RouteDecision,
    ScratchItem,
    TaskEnd,
    TaskInfo,
    TaskState,
    check_identity,
    utcnow,
)

if TYPE_CHECKING:
    from memfold.config import Settings
    from memfold.stores import Stores
    from memfold.tasks import Task


class LayerMethods:
    """Scratchpad and knowledge-base methods; mixed into ``memfold.memory.Memory``, whose
    attributes (stores, settings, embedder, parts, the write lock) they use."""

    stores: Stores
    settings: Settings
    embedder: Any
    _write_lock: Any

    # -- scratchpad ---------------------------------------------------------------------

    def task(self, user_id: str, task_id: str) -> Task:
        """A handle on one task's scratchpad; ``with memory.task(u, t) as task:`` ends it."""
        from memfold.tasks import Task

        return Task(self, user_id, task_id)  # type: ignore[arg-type]

    def task_write(self, user_id: str, task_id: str, key: str, value: Any, *,
                   kind: str = "note") -> ScratchItem:
        """Write (or overwrite) one scratchpad item of a task; ``kind`` is note, result,
        tool_call or plan. The value must be JSON (str, number, list, object)."""
        self._check_open()  # type: ignore[attr-defined]
        try:
            item = ScratchItem(user_id=_require(user_id), task_id=task_id, key=key, kind=kind,  # type: ignore[arg-type]
                               value=value, written_at=utcnow())
        except ValidationError as exc:
            raise _invalid(exc) from exc
        with self._write_lock:
            self._expire_idle_tasks()
            self.stores.scratchpad.put(item)
            stored = self.stores.scratchpad.items(item.user_id, item.task_id)
        return next(i for i in stored if i.key == item.key)  # the value as stored (through JSON)

    def task_read(self, user_id: str, task_id: str) -> TaskState:
        """The task's scratchpad in write order (empty once it ended or expired)."""
        user_id, task_id = _require(user_id), _require(task_id, "task_id")
        items = self._live_items(user_id, task_id)
        expires = max(i.written_at for i in items) + self._task_ttl() if items else None
        return TaskState(user_id=user_id, task_id=task_id, items=items, expires_at=expires)

    def tasks(self, user_id: str) -> list[TaskInfo]:
        """The user's open tasks (expired ones are not listed)."""
        cutoff = utcnow() - self._task_ttl()
        return [t for t in self.stores.scratchpad.tasks(_require(user_id)) if t.last_write >= cutoff]

    def end_task(self, user_id: str, task_id: str) -> TaskEnd:
        """Burn the task's scratchpad: every item is deleted; nothing was copied elsewhere."""
        user_id, task_id = _require(user_id), _require(task_id, "task_id")
        with self._write_lock:
            removed = self.stores.scratchpad.clear(user_id, task_id)
        return TaskEnd(user_id=user_id, task_id=task_id, items=removed)

    def expire_tasks(self, now: datetime | None = None) -> list[TaskInfo]:
        """Burn every task left open longer than ``task_ttl_seconds`` since its last write."""
        with self._write_lock:
            return self.stores.scratchpad.expire((now or utcnow()) - self._task_ttl())

    def promote(self, user_id: str, task_id: str, key: str, *, role: str = "tool",
                msg_id: str | None = None) -> RouteDecision:
        """Keep one scratchpad item past its task: it is ingested as a new message (default
        id ``task:TASK:KEY``) whose meta records its provenance, and routed like any message."""
        user_id, task_id = _require(user_id), _require(task_id, "task_id")
        found = [i for i in self._live_items(user_id, task_id) if i.key == key]
        if not found:
            raise NotStoredError(f"task {task_id!r} of user {user_id!r} has no item {key!r}",
                                 hint="promote before end_task (or expiry) burns the scratchpad")
        item = found[0]
        text = scratch_text(item.value)
        message = {"msg_id": msg_id or f"task:{task_id}:{key}", "user_id": user_id,
                   "session_id": f"task:{task_id}", "speaker": "agent", "role": role, "text": text,
                   "ts": item.written_at,
                   "meta": {"promoted_from_task": task_id, "scratch_key": key,
                            "scratch_kind": item.kind, "written_at": item.written_at.isoformat()}}
        return self.ingest(message)  # type: ignore[attr-defined]

    def _live_items(self, user_id: str, task_id: str) -> list[ScratchItem]:
        """Reads never write: an expired task reads as empty until a write or open burns it."""
        items = self.stores.scratchpad.items(user_id, task_id)
        if items and max(i.written_at for i in items) < utcnow() - self._task_ttl():
            return []
        return items

    def _expire_idle_tasks(self) -> None:
        if not self.stores.read_only:
            self.stores.scratchpad.expire(utcnow() - self._task_ttl())

    def _task_ttl(self) -> timedelta:
        return timedelta(seconds=self.settings.task_ttl_seconds)

    # -- knowledge base -------------------------------------------------------------------

    def add_knowledge(self, namespace: str, documents: Sequence[KnowledgeInput | dict[str, Any]]) -> KnowledgeReport:
        """Add documents to a namespace, chunked and embedded; a document whose text changed
        gets the next version and its old chunks and vectors are dropped in the same
        transaction. Every document is checked before anything is written."""
        started = time.perf_counter()
        namespace = _require(namespace, "namespace")
        planned, unchanged = self._plan_knowledge(namespace, _knowledge_inputs(documents))
        vectors = [self.embedder.embed([c.text for c in chunks]) for _, chunks, _ in planned]
        dropped = 0
        with self._write_lock, self.stores.db.transaction():  # every document or none
            for (doc, chunks, _), matrix in zip(planned, vectors):
                dropped += self.stores.knowledge.replace(doc, chunks, matrix)
        return KnowledgeReport(namespace=namespace, added=[doc for doc, _, _ in planned],
                               replaced=[doc.doc_id for doc, _, old in planned if old],
                               unchanged=unchanged, chunks_added=sum(len(c) for _, c, _ in planned),
                               chunks_removed=dropped, seconds=time.perf_counter() - started)

    def _plan_knowledge(self, namespace: str, inputs: list[KnowledgeInput]) -> tuple[
            list[tuple[KnowledgeDoc, list[KnowledgeChunk], bool]], list[str]]:
        """Each changed document's next version and chunks (160-word chunks, as the archive
        chunks long content); documents whose text and title are stored already are skipped."""
        from memfold.retrieval.indexing import chunk_text

        planned, unchanged = [], []
        for doc in inputs:
            digest = hashlib.sha256(doc.text.encode("utf-8")).hexdigest()
            old = self.stores.knowledge.document(namespace, doc.doc_id)
            if old is not None and old.digest == digest and old.title == doc.title:
                unchanged.append(doc.doc_id)
                continue
            version = old.version + 1 if old is not None else 1
            texts = list(chunk_text(doc.text)) or [doc.text]
            chunks = [KnowledgeChunk(namespace=namespace, doc_id=doc.doc_id, version=version, index=i,
                                     text=t) for i, t in enumerate(texts)]
            planned.append((KnowledgeDoc(namespace=namespace, doc_id=doc.doc_id, version=version,
                                         digest=digest, title=doc.title, chunks=len(chunks),
                                         added_at=utcnow()), chunks, old is not None))
        return planned, unchanged

    def remove_knowledge(self, namespace: str, doc_id: str | None = None) -> KnowledgeReport:
        """Remove one document (or the whole namespace) with every chunk and vector of it."""
        namespace = _require(namespace, "namespace")
        with self._write_lock:
            removed, chunks = self.stores.knowledge.remove(namespace, doc_id)
        if not removed:
            what = f"document {doc_id!r} in namespace" if doc_id is not None else "namespace"
            raise NotStoredError(f"no {what} {namespace!r} in the knowledge base",
                                 hint="`memfold kb list` shows what is stored")
        return KnowledgeReport(namespace=namespace, removed=removed, chunks_removed=chunks)

    def knowledge(self, namespace: str | None = None) -> list[KnowledgeDoc]:
        """Documents of one namespace (or of every namespace), with their versions."""
        return self.stores.knowledge.documents(None if namespace is None else _require(namespace, "namespace"))

    def search_knowledge(self, query: str, namespace: str, k: int = 10) -> list[RecallItem]:
        """The best chunks of one namespace for ``query`` (an operator's view; users read
        their granted namespaces through recall and context)."""
        _check_query(query, k)
        return self.parts.knowledge.search(query, [_require(namespace, "namespace")], k=k)  # type: ignore[attr-defined]

    def _knowledge_for(self, query: str, user_id: str, k: int) -> list[RecallItem]:
        namespaces = self.settings.granted_namespaces(user_id)
        if not namespaces or k <= 0:
            return []
        return self.parts.knowledge.search(query, namespaces, k=k)  # type: ignore[attr-defined]


def _require(value: str | None, name: str = "user_id") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"a {name} is required", hint=f"pass {name}=")
    try:
        return check_identity(value, name)
    except ValueError as exc:
        raise InvalidInputError(str(exc), hint=f"{name}s are exact strings") from exc


def _check_query(query: str, k: int) -> None:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must be a non-empty string")
    if not isinstance(k, int) or k < 1:
        raise InvalidInputError(f"k must be a positive integer, got {k!r}")


def _knowledge_inputs(documents: Sequence[KnowledgeInput | dict[str, Any]]) -> list[KnowledgeInput]:
    if isinstance(documents, (str, bytes, dict)) or not isinstance(documents, Sequence):
        raise InvalidInputError("documents must be a list of {doc_id, text[, title]} objects")
    inputs, seen = [], set()
    for position, raw in enumerate(documents, start=1):
        try:
            doc = raw if isinstance(raw, KnowledgeInput) else KnowledgeInput.model_validate(raw)
        except ValidationError as exc:
            raise _invalid(exc, f"document #{position}") from exc
        if doc.doc_id in seen:
            raise InvalidInputError(f"document #{position}: doc_id {doc.doc_id!r} appears twice")
        seen.add(doc.doc_id)
        inputs.append(doc)
    return inputs


def _invalid(exc: ValidationError, where: str = "") -> InvalidInputError:
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first.get("loc", ())) or "value"
    prefix = f"{where}: " if where else ""
    return InvalidInputError(f"{prefix}{field}: {first.get('msg')}")


__all__ = ["LayerMethods"]
