"""The scratchpad and knowledge-base reads and deletes shared by the DuckDB and PostgreSQL
stores: their statements differ only in the parameter placeholder (``?`` or ``%s``).
Each backend keeps its own writes (insertion numbers, bulk inserts and locks differ)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memfold.models import KnowledgeChunk, KnowledgeDoc, ScratchItem, TaskInfo
from memfold.stores._common import as_utc, expire_stale, vectors_of

KB_DOC_COLS = "namespace, doc_id, version, digest, title, chunks, added_at"


class SqlStore:
    PLACEHOLDER = "?"

    def __init__(self, db: Any) -> None:
        self.db = db

    TABLE = ""

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        if self.TABLE in getattr(self.db, "missing_tables", ()):
            return []  # a read-only open of a store that predates these tables: nothing stored
        return self.db.fetchall(sql.replace("?", self.PLACEHOLDER), list(params))


class SqlScratchpadReads(SqlStore):
    """Task notes keyed by (user_id, task_id, key), as JSON text, in write order."""

    TABLE = "task_items"

    def items(self, user_id: str, task_id: str) -> list[ScratchItem]:
        rows = self._rows("SELECT key, kind, value, written_at FROM task_items WHERE user_id = ? "
                          "AND task_id = ? ORDER BY seq", [user_id, task_id])
        return [ScratchItem(user_id=user_id, task_id=task_id, key=key, kind=kind,
                            value=json.loads(value), written_at=as_utc(at))
                for key, kind, value, at in rows]

    def tasks(self, user_id: str | None = None) -> list[TaskInfo]:
        where, params = ("WHERE user_id = ?", [user_id]) if user_id is not None else ("", [])
        rows = self._rows("SELECT user_id, task_id, count(*), min(written_at), max(written_at) "
                          f"FROM task_items {where} GROUP BY 1, 2 ORDER BY 1, 2", params)
        return [TaskInfo(user_id=u, task_id=t, items=n, started_at=as_utc(first),
                         last_write=as_utc(last)) for u, t, n, first, last in rows]

    def clear(self, user_id: str, task_id: str) -> int:
        return len(self._rows("DELETE FROM task_items WHERE user_id = ? AND task_id = ? RETURNING 1",
                              [user_id, task_id]))

    def expire(self, before: datetime) -> list[TaskInfo]:
        return expire_stale(self, before)

    def delete_user(self, user_id: str) -> int:
        return len(self._rows("DELETE FROM task_items WHERE user_id = ? RETURNING 1", [user_id]))


class SqlKnowledgeReads(SqlStore):
    """Knowledge-base documents and chunks; each chunk row holds its float32 vector."""

    TABLE = "kb_documents"  # created with kb_chunks, in the same schema statement list

    def document(self, namespace: str, doc_id: str) -> KnowledgeDoc | None:
        rows = self._rows(f"SELECT {KB_DOC_COLS} FROM kb_documents WHERE namespace = ? AND doc_id = ?",
                          [namespace, doc_id])
        return kb_doc(rows[0]) if rows else None

    def documents(self, namespace: str | None = None) -> list[KnowledgeDoc]:
        where, params = ("WHERE namespace = ?", [namespace]) if namespace is not None else ("", [])
        return [kb_doc(row) for row in self._rows(
            f"SELECT {KB_DOC_COLS} FROM kb_documents {where} ORDER BY 1, 2", params)]

    def chunks(self, namespace: str, doc_id: str | None = None) -> list[KnowledgeChunk]:
        extra, params = _doc_filter(namespace, doc_id)
        rows = self._rows("SELECT namespace, doc_id, version, idx, text FROM kb_chunks "
                          f"WHERE namespace = ?{extra} ORDER BY doc_id, idx", params)
        return [kb_chunk(row) for row in rows]

    def vectors(self, namespace: str) -> tuple[list[KnowledgeChunk], Any]:
        rows = self._rows("SELECT namespace, doc_id, version, idx, text, vector FROM kb_chunks "
                          "WHERE namespace = ? ORDER BY doc_id, idx", [namespace])
        return [kb_chunk(row[:5]) for row in rows], vectors_of([row[5] for row in rows])

    def remove(self, namespace: str, doc_id: str | None = None) -> tuple[list[str], int]:
        extra, params = _doc_filter(namespace, doc_id)
        with self.db.transaction():
            chunks = len(self._rows(f"DELETE FROM kb_chunks WHERE namespace = ?{extra} RETURNING 1", params))
            docs = self._rows(f"DELETE FROM kb_documents WHERE namespace = ?{extra} RETURNING doc_id", params)
        return sorted(r[0] for r in docs), chunks

    def _drop(self, doc: KnowledgeDoc) -> int:
        """Delete every version of ``doc`` (inside the caller's transaction); returns its chunks."""
        return self.remove(doc.namespace, doc.doc_id)[1]

    def _insert_doc(self, doc: KnowledgeDoc) -> None:
        self._rows(f"INSERT INTO kb_documents ({KB_DOC_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [doc.namespace, doc.doc_id, doc.version, doc.digest, doc.title, doc.chunks, doc.added_at])


def _doc_filter(namespace: str, doc_id: str | None) -> tuple[str, list[str]]:
    return (" AND doc_id = ?", [namespace, doc_id]) if doc_id is not None else ("", [namespace])


def kb_doc(row: Sequence[Any]) -> KnowledgeDoc:
    namespace, doc_id, version, digest, title, chunks, added_at = row
    return KnowledgeDoc(namespace=namespace, doc_id=doc_id, version=version, digest=digest,
                        title=title, chunks=chunks, added_at=as_utc(added_at))


def kb_chunk(row: Sequence[Any]) -> KnowledgeChunk:
    namespace, doc_id, version, index, text = row
    return KnowledgeChunk(namespace=namespace, doc_id=doc_id, version=version, index=index, text=text)
