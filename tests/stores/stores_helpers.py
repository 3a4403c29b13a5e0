"""Record builders and store factories shared by the store tests."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from memfold.models import (
    ArchiveItem,
    DocumentChunk,
    Event,
    KnowledgeChunk,
    KnowledgeDoc,
    Message,
    ProfileFact,
    ScratchItem,
)
from memfold.stores import Stores, duckdb_stores
from memfold.stores.base import VectorIndex
from memfold.stores.duckdb import DuckDBDatabase
from memfold.stores.memory import InMemoryVectorIndex

if TYPE_CHECKING:
    from pg_cluster import ChromaServer, PostgresCluster

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)


def at(minutes: int = 0, days: int = 0) -> datetime:
    return T0 + timedelta(minutes=minutes, days=days)


def message(msg_id: str, text: str = "hello there", *, user: str = "ana", minutes: int = 0,
            session: str = "s1", speaker: str = "Ana",
            meta: dict[str, str] | None = None) -> Message:
    return Message(msg_id=msg_id, user_id=user, session_id=session, speaker=speaker, text=text,
                   ts=at(minutes), meta=meta or {})


def fact(key: str, value: str, *sources: str, user: str = "ana", subject: str = "user",
         minutes: int = 0, category: str | None = None) -> ProfileFact:
    return ProfileFact(user_id=user, subject=subject, key=key, value=value,
                       sources=list(sources) or ["m1"], updated_at=at(minutes), category=category)


def event(event_id: str, text: str = "went hiking", *, user: str = "ana", days: int = 0,
          sources: tuple[str, ...] = ("m1",), subject: str = "user") -> Event:
    return Event(event_id=event_id, user_id=user, subject=subject, text=text,
                 occurred_at=at(days=days), recorded_at=T0, sources=list(sources))


def chunk(chunk_id: str, doc_id: str = "d1", index: int = 0, *, user: str = "ana",
          sources: tuple[str, ...] = ("m1",), layer: int = 1) -> DocumentChunk:
    return DocumentChunk(chunk_id=chunk_id, user_id=user, doc_id=doc_id, index=index,
                         text=f"chunk {chunk_id}", sources=list(sources), ts=T0, layer=layer)


def item(item_id: str, key_text: str = "some words", *, user: str = "ana", kind: str = "message",
         sources: tuple[str, ...] = ("m1",), days: int | None = 0) -> ArchiveItem:
    return ArchiveItem(item_id=item_id, user_id=user, kind=kind, text=f"text of {item_id}",
                       key_text=key_text, sources=list(sources),
                       occurred_at=None if days is None else at(days=days))


def make_stores(kind: str, tmp_path: Path, cluster: PostgresCluster | None = None) -> Stores:
    if kind == "memory":
        return Stores.in_memory()
    if kind == "postgres":  # a schema of its own on the session's cluster
        from memfold.stores.postgres import connect, postgres_stores

        assert cluster is not None, "the postgres stores need the pg_cluster fixture"
        return postgres_stores(connect(cluster.conninfo(cluster.new_schema())),
                               InMemoryVectorIndex())
    if kind == "duckdb":
        return duckdb_stores(DuckDBDatabase(":memory:"), InMemoryVectorIndex())
    if kind == "duckdb-file":
        return duckdb_stores(DuckDBDatabase(tmp_path / "memfold.duckdb"), InMemoryVectorIndex())
    raise ValueError(kind)


def make_index(kind: str, tmp_path: Path, server: ChromaServer | None = None) -> VectorIndex:
    if kind == "memory":
        return InMemoryVectorIndex()
    from memfold.stores.chroma import ChromaVectorIndex

    if kind == "chroma-server":  # its own collections (a name prefix) on the session's server
        assert server is not None, "the chroma-server index needs the chroma_server fixture"
        return ChromaVectorIndex(client=server.client(), collection=f"t{uuid.uuid4().hex[:12]}")

    if kind == "chroma-process":  # what `memfold serve` gives: the directory in a child
        from memfold.stores.index_process import ProcessVectorIndex

        return ProcessVectorIndex(tmp_path / "chroma")

    if kind == "cached-chroma":  # what a writer's open_stores gives: recent users in memory
        from memfold.stores.vector_cache import CachedVectorIndex

        return CachedVectorIndex(ChromaVectorIndex(tmp_path / "chroma"))

    if kind == "lazy-chroma":  # what a read-only open_stores gives
        from memfold.stores.lazy_index import LazyVectorIndex, chroma_vector_count

        return LazyVectorIndex(lambda: ChromaVectorIndex(tmp_path / "chroma"),
                               count_unopened=lambda: chroma_vector_count(tmp_path / "chroma"))
    return ChromaVectorIndex(tmp_path / "chroma")


def scratch(task_id: str, key: str, value: object = "a note", *, user: str = "ana",
            minutes: int = 0, kind: str = "note") -> ScratchItem:
    return ScratchItem(user_id=user, task_id=task_id, key=key, kind=kind, value=value,  # type: ignore[arg-type]
                       written_at=at(minutes=minutes))


def kb_doc(doc_id: str, *texts: str, namespace: str = "manual", version: int = 1) -> tuple[
        KnowledgeDoc, list[KnowledgeChunk]]:
    """A knowledge-base document and its chunks, one per text."""
    doc = KnowledgeDoc(namespace=namespace, doc_id=doc_id, version=version, digest=f"d{version}",
                       chunks=len(texts), added_at=T0)
    return doc, [KnowledgeChunk(namespace=namespace, doc_id=doc_id, version=version, index=i, text=t)
                 for i, t in enumerate(texts)]
