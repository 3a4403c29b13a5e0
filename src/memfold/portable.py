"""Export and import: every record of a user (or of all users) as JSONL, round-tripping exactly.

Each line is ``{"type": TYPE, "data": RECORD}`` where TYPE names a pydantic record
(message, profile_fact, profile_change, event, document, archive_item, fold_state, and
task_item for the scratchpads of tasks still open). An export of the whole store also
carries the knowledge base (knowledge_doc, knowledge_chunk), which belongs to no user.
Importing writes records as they are: no routing, no new changelog rows, the same ids.
Vectors are not exported; they are rebuilt from the archive rows and the knowledge chunks
on import.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from memfold.errors import MalformedInputError
from memfold.models import (
    ArchiveItem,
    DocumentChunk,
    Event,
    FoldState,
    KnowledgeChunk,
    KnowledgeDoc,
    Message,
    ProfileChange,
    ProfileFact,
    ScratchItem,
)

if TYPE_CHECKING:
    from memfold.stores import Stores

RECORD_TYPES: dict[str, type[BaseModel]] = {
    "message": Message,
    "profile_fact": ProfileFact,
    "profile_change": ProfileChange,
    "event": Event,
    "document": DocumentChunk,
    "archive_item": ArchiveItem,
    "fold_state": FoldState,
    "task_item": ScratchItem,
    "knowledge_doc": KnowledgeDoc,
    "knowledge_chunk": KnowledgeChunk,
}
KNOWLEDGE_TYPES = ("knowledge_doc", "knowledge_chunk")


def export_records(stores: Stores, user_ids: Iterable[str]) -> Iterator[dict[str, Any]]:
    for user_id in user_ids:
        for record_type, record in _user_records(stores, user_id):
            yield {"type": record_type, "data": record.model_dump(mode="json")}


def _user_records(stores: Stores, user_id: str) -> Iterator[tuple[str, BaseModel]]:
    yield from (("message", m) for m in stores.log.list(user_id))
    yield from (("profile_fact", f) for f in stores.profile.list(user_id))
    yield from (("profile_change", c) for c in stores.profile.history(user_id))
    yield from (("event", e) for e in stores.events.range(user_id))
    yield from (("document", d) for d in stores.documents.list(user_id))
    yield from (("archive_item", a) for a in stores.archive.list(user_id))
    state = stores.folds.load(user_id)
    if state is not None:
        yield "fold_state", state
    for task in stores.scratchpad.tasks(user_id):
        yield from (("task_item", i) for i in stores.scratchpad.items(user_id, task.task_id))


def export_knowledge(stores: Stores) -> Iterator[dict[str, Any]]:
    """Every namespace's documents and chunks (the vectors are rebuilt on import)."""
    for doc in stores.knowledge.documents():
        yield {"type": "knowledge_doc", "data": doc.model_dump(mode="json")}
        for chunk in stores.knowledge.chunks(doc.namespace, doc.doc_id):
            yield {"type": "knowledge_chunk", "data": chunk.model_dump(mode="json")}


def parse_records(path: Path) -> list[tuple[str, BaseModel]]:
    """Every record of an export file; the first malformed line raises, naming the line."""
    records: list[tuple[str, BaseModel]] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                records.append(_parse_line(line, number, path))
    return records


def _parse_line(line: str, number: int, path: Path) -> tuple[str, BaseModel]:
    try:
        raw = json.loads(line)
        record_type = raw["type"]
        model = RECORD_TYPES[record_type]
        return record_type, model.model_validate(raw["data"])
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise MalformedInputError(f"{path}:{number}: not an export record ({exc})", line=number,
                                  path=str(path), hint="import reads files written by `memfold export`") from exc
    except ValidationError as exc:
        raise MalformedInputError(f"{path}:{number}: invalid {raw.get('type')} record: "
                                  f"{exc.errors()[0].get('msg')}", line=number, path=str(path)) from exc


def import_records(stores: Stores, records: list[tuple[str, BaseModel]]) -> dict[str, int]:
    """Write the user records as they are, in one transaction; returns counts per type.
    Knowledge records are the caller's (they need vectors: ``knowledge_groups``)."""
    by_type: dict[str, list[Any]] = {name: [] for name in RECORD_TYPES}
    for record_type, record in records:
        by_type[record_type].append(record)
    with stores.db.transaction():
        stores.log.append(by_type["message"])
        stores.profile.restore(by_type["profile_fact"], by_type["profile_change"])
        stores.events.append(by_type["event"])
        stores.documents.add(by_type["document"])
        stores.archive.add(by_type["archive_item"])
        for state in by_type["fold_state"]:
            stores.folds.save(state)
        for item in by_type["task_item"]:
            stores.scratchpad.put(item)
    return {name: len(items) for name, items in by_type.items() if items}


def knowledge_groups(records: list[tuple[str, BaseModel]]) -> list[tuple[KnowledgeDoc, list[KnowledgeChunk]]]:
    """Each exported document with its chunks; a chunk without its document, or a document
    whose chunks do not match its version and count, is refused (nothing is imported)."""
    docs = {(r.namespace, r.doc_id): r for t, r in records if t == "knowledge_doc"}  # type: ignore[attr-defined]
    chunks: dict[tuple[str, str], list[KnowledgeChunk]] = {key: [] for key in docs}
    for record_type, record in records:
        if record_type == "knowledge_chunk":
            key = (record.namespace, record.doc_id)  # type: ignore[attr-defined]
            if key not in docs or docs[key].version != record.version:  # type: ignore[attr-defined]
                raise MalformedInputError(f"knowledge chunk of {key[0]}/{key[1]} without its document "
                                          "record (at that version)")
            chunks[key].append(record)  # type: ignore[arg-type]
    for key, found in chunks.items():
        if len(found) != docs[key].chunks:
            raise MalformedInputError(f"knowledge document {key[0]}/{key[1]} lists {docs[key].chunks} "
                                      f"chunks, the file holds {len(found)}")
    return [(docs[key], sorted(chunks[key], key=lambda c: c.index)) for key in sorted(docs)]
