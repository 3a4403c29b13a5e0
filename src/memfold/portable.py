"""Export and import: every record of a user (or of all users) as JSONL, round-tripping exactly.

Each line is ``{"type": TYPE, "data": RECORD}`` where TYPE names a pydantic record
(message, profile_fact, profile_change, event, document, archive_item, fold_state).
Importing writes records as they are: no routing, no new changelog rows, the same ids.
Vectors are not exported; they are rebuilt from the archive rows on import.
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
    Message,
    ProfileChange,
    ProfileFact,
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
}


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
    """Write the records as they are, in one transaction; returns counts per type."""
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
    return {name: len(items) for name, items in by_type.items() if items}
