"""Helpers shared by the in-memory, DuckDB and PostgreSQL stores, so all follow one contract."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from memfold.errors import EvidenceRequiredError, InvalidInputError
from memfold.models import ArchiveItem, ChangeAction, ProfileChange, ProfileFact, utcnow


def merge_sources(old: Iterable[str], new: Iterable[str]) -> list[str]:
    """Union of two source lists, first-seen order kept."""
    return list(dict.fromkeys([*old, *new]))


def overlaps(sources: Iterable[str], msg_ids: Iterable[str]) -> bool:
    return not set(sources).isdisjoint(msg_ids)


def require_evidence(fact: ProfileFact) -> None:
    """The hallucination filter: a profile write must name the message it came from."""
    if not fact.sources or not all(isinstance(s, str) and s.strip() for s in fact.sources):
        raise EvidenceRequiredError(
            f"profile write {fact.subject}.{fact.key} for user {fact.user_id} has no source msg_id"
        )


def new_change(fact_or_key: ProfileFact | tuple[str, str, str], action: ChangeAction, *,
               old_value: str | None, new_value: str | None, sources: Sequence[str],
               reason: str, actor: str, at: datetime | None) -> ProfileChange:
    if isinstance(fact_or_key, ProfileFact):
        user_id, subject, key = fact_or_key.user_id, fact_or_key.subject, fact_or_key.key
    else:
        user_id, subject, key = fact_or_key
    return ProfileChange(
        change_id=uuid.uuid4().hex, user_id=user_id, subject=subject, key=key, action=action,
        old_value=old_value, new_value=new_value, sources=list(sources), reason=reason,
        actor=actor, changed_at=as_utc(at) if at is not None else utcnow(),
    )


@dataclass(frozen=True)
class FactWrite:
    """What a profile upsert writes: a new row (``insert``), or the stored row's new state
    (``update``), and the changelog row if the value changed (None: same value, more
    evidence, no change)."""

    kind: Literal["insert", "update"]
    fact: ProfileFact
    change: ProfileChange | None


def plan_upsert(old: ProfileFact | None, fact: ProfileFact, *, reason: str,
                actor: str) -> FactWrite:
    """The upsert rule every store applies: a new key is added; the same value only merges
    the sources (newest time, category kept if the new one has none); a new value replaces
    the old one, and the changelog keeps both."""
    require_evidence(fact)
    if old is None:
        return FactWrite("insert", fact, new_change(fact, "add", old_value=None, new_value=fact.value,
                                                    sources=fact.sources, reason=reason, actor=actor,
                                                    at=fact.updated_at))
    category = fact.category or old.category
    if old.value == fact.value:
        merged = fact.model_copy(update={"sources": merge_sources(old.sources, fact.sources),
                                         "updated_at": max(old.updated_at, fact.updated_at),
                                         "category": category})
        return FactWrite("update", merged, None)
    return FactWrite("update", fact.model_copy(update={"category": category}),
                     new_change(fact, "update", old_value=old.value, new_value=fact.value,
                                sources=fact.sources, reason=reason, actor=actor, at=fact.updated_at))


def as_utc(value: datetime) -> datetime:
    if value.tzinfo is None:  # stored values are UTC; a naive one came back from storage
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def to_json(value: Any, what: str) -> str:
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{what} must be JSON-serialisable: {exc}") from exc


def in_window(when: datetime, start: datetime | None, end: datetime | None) -> bool:
    """start <= when < end, either bound optional."""
    if start is not None and when < start:
        return False
    return end is None or when < end


def refuse_foreign_ids(items: Sequence[ArchiveItem], owners: dict[str, str]) -> None:
    """Archive ids are global (they are the vector ids): one user may never replace
    another user's row by reusing its id."""
    owners = dict(owners)
    for item in items:
        owner = owners.setdefault(item.item_id, item.user_id)
        if owner != item.user_id:
            raise InvalidInputError(
                f"archive item {item.item_id!r} already belongs to another user",
                hint="archive item ids must be unique across users (include the user id)")


def fsync_path(path: Any) -> None:
    """fsync a file or a directory (a directory entry must be synced for a rename to be durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def float_matrix(values: Any, rows: int, what: str = "embeddings") -> Any:
    """``values`` as a float32 matrix of ``rows`` rows, or InvalidInputError."""
    import numpy as np

    matrix = np.asarray(values, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != rows:
        raise InvalidInputError(f"expected {rows} {what} as a 2-d array, got shape {matrix.shape}")
    return matrix


def embedding_matrix(items: Sequence[ArchiveItem], embeddings: Any) -> Any:
    """``embeddings`` as a float32 matrix with one row per item, or InvalidInputError."""
    return float_matrix(embeddings, len(items))


def unit_rows(embeddings: Any, expected: int) -> Any:
    """``embeddings`` as float32 rows of length 1 (a zero row stays zero), or InvalidInputError."""
    import numpy as np

    matrix = float_matrix(embeddings, expected)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def cosine_top(matrix: Any, query: Any, k: int, allowed: Any = None) -> list[tuple[int, float]]:
    """Exact search: (row, cosine) of the best ``k`` unit rows of ``matrix`` for the unit
    ``query``, best first, ties in row order; ``allowed`` (a boolean mask) limits the rows."""
    import numpy as np

    if k <= 0 or len(matrix) == 0:
        return []
    scores = matrix @ query
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    if len(scores) > k:  # only the best k are sorted (k=200 of a user's thousands of rows)
        best = np.argpartition(-scores, k - 1)[:k]
        order = best[np.lexsort((best, -scores[best]))]
    else:
        order = np.argsort(-scores, kind="stable")
    return [(int(n), float(scores[n])) for n in order if np.isfinite(scores[n])]


def rows_by_user(items: Sequence[ArchiveItem]) -> dict[str, list[int]]:
    """The positions of each user's items, users in first-seen order (one collection each)."""
    rows: dict[str, list[int]] = {}
    for position, item in enumerate(items):
        rows.setdefault(item.user_id, []).append(position)
    return rows


# -- scratchpad and knowledge base ---------------------------------------------------------------


def scratch_value(item: Any) -> str:
    """The item's value as the JSON text every store keeps (so all return equal copies)."""
    return to_json(item.value, f"scratchpad value {item.task_id}/{item.key}")


def task_infos(items: Iterable[Any]) -> list[Any]:
    """TaskInfo rows of scratchpad items (the in-memory store's GROUP BY)."""
    from memfold.models import TaskInfo

    groups: dict[tuple[str, str], list[Any]] = {}
    for item in items:
        groups.setdefault((item.user_id, item.task_id), []).append(item)
    return [TaskInfo(user_id=u, task_id=t, items=len(group),
                     started_at=min(i.written_at for i in group),
                     last_write=max(i.written_at for i in group))
            for (u, t), group in sorted(groups.items())]


def vector_blobs(vectors: Any, expected: int) -> list[bytes]:
    """One float32 byte string per row: how the SQL stores keep knowledge-base vectors."""
    return [row.tobytes() for row in float_matrix(vectors, expected, "vectors")]


def vectors_of(blobs: Sequence[bytes | memoryview]) -> Any:
    """The matrix back from ``vector_blobs`` (an empty namespace gives shape (0, 0))."""
    import numpy as np

    if not blobs:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([np.frombuffer(bytes(b), dtype=np.float32) for b in blobs])


def expire_stale(scratchpad: Any, before: datetime) -> list[Any]:
    """Delete every task whose last write is before ``before`` (one transaction); returns them."""
    with scratchpad.db.transaction():
        stale = [t for t in scratchpad.tasks() if t.last_write < before]
        for task in stale:
            scratchpad.clear(task.user_id, task.task_id)
    return stale
