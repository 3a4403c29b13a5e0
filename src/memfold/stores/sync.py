"""Keeping the vector index in step with the archive rows in DuckDB.

DuckDB commits first; the index is derived and updated afterwards. A crash between the
two leaves either rows not yet indexed (their ``indexed`` flag is false, so they are
embedded on the next sync) or vectors whose rows were deleted (orphans, deleted here).

Stores shared by several processes (PostgreSQL: ``archive.claim_unindexed``) index each
batch inside one transaction that claims its rows (``FOR UPDATE SKIP LOCKED``): two
replicas never index the same row at once, and a row re-added meanwhile is indexed again
with its new text. An embedded store (one writer process) reads and marks as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from memfold.embed.base import Embedder
from memfold.errors import StoreError
from memfold.models import ArchiveItem
from memfold.stores import Stores

T = TypeVar("T")


class SyncReport(BaseModel):
    """What one ``sync_index`` run did."""

    indexed: int = 0
    orphans_deleted: int = 0
    missing: int = 0  # rows marked indexed whose vector was gone: re-embedded by this run
    archive_rows: int = 0
    index_vectors: int = 0
    seconds: float = 0.0


def _claims(stores: Stores) -> Callable[[int], list[ArchiveItem]] | None:
    return getattr(stores.archive, "claim_unindexed", None)


def _pending(stores: Stores, limit: int) -> list[ArchiveItem]:
    """Rows to index: claimed for this transaction when other processes share the store."""
    claim = _claims(stores)
    return stores.archive.unindexed(limit=limit) if claim is None else claim(limit)


def _in_claim(stores: Stores, work: Callable[[], T]) -> T:
    """Shared stores: claim, upsert and mark in one transaction (released at its end)."""
    if _claims(stores) is None:
        return work()
    with stores.db.transaction():
        return work()


def _index_batch(stores: Stores, embedder: Embedder, batch_size: int, seen: set[str]) -> int:
    items = _pending(stores, batch_size)
    ids = [item.item_id for item in items]
    if not items or seen.issuperset(ids):  # nothing left, or rows that refuse the flag
        return 0
    seen.update(ids)
    vectors = embedder.embed([item.key_text for item in items])
    stores.index.upsert(items, vectors)
    stores.archive.mark_indexed(ids)
    return len(items)


def _index_pending(stores: Stores, embedder: Embedder, batch_size: int) -> int:
    done = 0
    seen: set[str] = set()
    while True:
        indexed = _in_claim(stores, lambda: _index_batch(stores, embedder, batch_size, seen))
        done += indexed
        if indexed < batch_size:  # a short batch was the last one (no SELECT to find nothing)
            return done


def index_known(stores: Stores, vectors: Mapping[str, Any], limit: int = 10_000) -> list[ArchiveItem]:
    """Index the pending rows whose key text already has a vector in ``vectors``; return the
    other pending rows (left unindexed: a later sync, or the next open, embeds them)."""
    if stores.read_only or not stores.archive.count_unindexed():
        return []
    return _in_claim(stores, lambda: _index_known(stores, vectors, limit))


def _index_known(stores: Stores, vectors: Mapping[str, Any], limit: int) -> list[ArchiveItem]:
    pending = _pending(stores, limit)
    known = [item for item in pending if item.key_text in vectors]
    if known:
        stores.index.upsert(known, np.stack([vectors[item.key_text] for item in known]))
        stores.archive.mark_indexed([item.item_id for item in known])
    return [item for item in pending if item.key_text not in vectors]


def sync_index(stores: Stores, embedder: Embedder, batch_size: int = 256, *,
               full: bool = True) -> SyncReport:
    """Embed and index pending archive rows, drop orphan vectors, restore lost ones.

    Cheap when nothing is pending: two counts, and ids are only listed when the
    number of vectors differs from the number of archive rows. ``full=False`` (after a
    write) only indexes the pending rows and counts nothing: counting the vectors means
    asking every per-user collection (measured ~80 ms of a ~230 ms single-message ingest at
    30 users, benchmarks/load_http.py), and on stores replicas share the counts differ
    whenever another replica is between its commit and its upsert. The orphans and lost
    vectors a crash leaves are for the full sync (``Memory.open``, ``memfold reindex``).
    """
    started = time.perf_counter()
    if stores.read_only:
        return SyncReport(archive_rows=stores.archive.count(), index_vectors=stores.index.count())
    report = SyncReport()
    report.indexed = _index_pending(stores, embedder, batch_size)  # its SELECT finds nothing pending
    if not full:  # after a write: its own rows are indexed; reconciling is for open()
        report.seconds = time.perf_counter() - started
        return report
    if stores.index.count() != stores.archive.count():
        in_index, in_archive = stores.index.ids(), stores.archive.all_ids()
        orphans = sorted(in_index - in_archive)
        stores.index.delete(orphans)
        report.orphans_deleted = len(orphans)
        missing = sorted(in_archive - in_index)  # e.g. a crash inside an index rewrite
        report.missing = len(missing)
        if missing:
            stores.archive.mark_unindexed(missing)
            report.indexed += _index_pending(stores, embedder, batch_size)
    report.archive_rows = stores.archive.count()
    report.index_vectors = stores.index.count()
    report.seconds = time.perf_counter() - started
    return report


def reset_index(stores: Stores) -> None:
    """Drop every vector and queue every archive row for indexing again."""
    if stores.read_only:
        raise StoreError("cannot rebuild the index of a store opened read-only")
    stores.index.reset()
    stores.archive.mark_all_unindexed()


def rebuild_index(stores: Stores, embedder: Embedder, batch_size: int = 256) -> SyncReport:
    """Drop every vector and re-embed every archive row (``memfold reindex``)."""
    reset_index(stores)
    return sync_index(stores, embedder, batch_size)
