"""The storage layer: DuckDB system of record + Chroma vector index, bundled as :class:`Stores`.

    stores = open_stores("./memfold-store")          # takes the writer lock
    with stores.db.transaction():
        stores.log.append(messages)
        stores.archive.add(items)
    sync_index(stores, embedder)                      # embeds + indexes what is pending
    stores.close()

``Stores.in_memory()`` bundles the reference implementations (tests, ``Memory.in_memory``).
A store directory holds ``memfold.duckdb``, ``chroma/`` and ``writer.lock``.
"""

from __future__ import annotations

from dataclasses import dataclass
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from memfold.bm25 import LexicalSearch
from memfold.errors import StoreError, StoreLockedError
from memfold.stores.base import (
    ArchiveLog,
    ConversationLog,
    Database,
    DocumentStore,
    EventLog,
    FoldStore,
    KnowledgeStore,
    ProfileStore,
    Scratchpad,
    VectorIndex,
)
from memfold.stores.lock import WriterLock, holder_pid

if TYPE_CHECKING:
    from memfold.stores.duckdb import DuckDBDatabase

DB_FILE = "memfold.duckdb"
CHROMA_DIR = "chroma"


@dataclass
class Stores:
    """Every store of one memory, sharing one Database (and so one transaction)."""

    db: Database
    log: ConversationLog
    profile: ProfileStore
    events: EventLog
    documents: DocumentStore
    archive: ArchiveLog
    index: VectorIndex
    folds: FoldStore
    scratchpad: Scratchpad
    knowledge: KnowledgeStore
    lock: WriterLock | None = None
    directory: Path | None = None
    read_only: bool = False
    # BM25 the database computes (PostgreSQL); None: recall keeps an in-process index
    lexical: LexicalSearch | None = None

    @classmethod
    def in_memory(cls) -> Stores:
        from memfold.stores import memory as m

        db = m.InMemoryDatabase()
        return cls(db=db, log=m.InMemoryConversationLog(db), profile=m.InMemoryProfileStore(db),
                   events=m.InMemoryEventLog(db), documents=m.InMemoryDocumentStore(db),
                   archive=m.InMemoryArchiveLog(db), index=m.InMemoryVectorIndex(),
                   folds=m.InMemoryFoldStore(db), scratchpad=m.InMemoryScratchpad(db),
                   knowledge=m.InMemoryKnowledgeStore(db))

    def close(self) -> None:
        """Close the database and index, then release the writer lock (idempotent)."""
        try:
            self.db.close()
            close_index = getattr(self.index, "close", None)
            if close_index is not None:
                close_index()
        finally:
            if self.lock is not None:
                self.lock.close()

    def __enter__(self) -> Stores:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def duckdb_stores(db: DuckDBDatabase, index: VectorIndex, **extra: object) -> Stores:
    """Bundle the DuckDB stores of ``db`` with a vector index (``:memory:`` works too)."""
    from memfold.stores import duckdb as d

    return Stores(db=db, log=d.DuckDBConversationLog(db), profile=d.DuckDBProfileStore(db),
                  events=d.DuckDBEventLog(db), documents=d.DuckDBDocumentStore(db),
                  archive=d.DuckDBArchiveLog(db), index=index, folds=d.DuckDBFoldStore(db),
                  scratchpad=d.DuckDBScratchpad(db), knowledge=d.DuckDBKnowledgeStore(db),
                  **extra)  # type: ignore[arg-type]


def open_stores(directory: str | Path, *, read_only: bool = False,
                fresh_index: bool = False, index_process: bool = False,
                vector_cache_bytes: int = 0) -> Stores:
    """Open (creating if needed) the store directory.

    A writer takes ``DIR/writer.lock`` first and fails at once if another process holds
    it. A reader takes no lock, but DuckDB cannot open a file another process holds even
    read-only (measured), so with a live writer it fails at once too, naming its PID.
    ``fresh_index=True`` (a writer only) starts the vector index from an empty directory:
    the index is derived from DuckDB, so a corrupt one is dropped, not repaired, and
    ``reindex`` rebuilds it. ``index_process`` (a writer only): the Chroma directory is
    served by a child process (:mod:`memfold.stores.index_process`). ``vector_cache_bytes``
    (a writer only; 0: off): the vectors of the users read last are kept in this process
    for reads (:mod:`memfold.stores.vector_cache`).
    """
    directory = Path(directory)
    lock = None
    if read_only:  # checked before the slow imports below, so a refusal is immediate
        pid = holder_pid(directory)
        if pid is not None:
            raise StoreLockedError(str(directory), pid)
        if not (directory / DB_FILE).is_file():
            raise StoreError(f"no memfold store at {directory}", hint="ingest something first")
    else:
        lock = WriterLock(directory)
        if fresh_index:  # under the writer lock: nobody else has the index open
            shutil.rmtree(directory / CHROMA_DIR, ignore_errors=True)
    try:
        from memfold.stores.duckdb import DuckDBDatabase

        try:
            db = DuckDBDatabase(directory / DB_FILE, read_only=read_only)
        except StoreLockedError as exc:
            if lock is None:
                raise
            # we hold the writer lock, so whoever holds DuckDB's lock is a reader
            raise StoreLockedError(str(directory), exc.pid, reader=True) from exc
        try:
            index = (_reader_index(directory) if read_only
                     else _chroma_index(directory, cleanup=True, child=index_process))
            if vector_cache_bytes > 0 and not read_only:  # the one writer: every write passes it
                from memfold.stores.vector_cache import CachedVectorIndex

                index = CachedVectorIndex(index, max_bytes=vector_cache_bytes)
        except StoreError:
            db.close()
            raise
    except BaseException:
        if lock is not None:
            lock.close()
        raise
    return duckdb_stores(db, index, lock=lock, directory=directory, read_only=read_only)


def _chroma_index(directory: Path, *, cleanup: bool, child: bool = False) -> VectorIndex:
    if child:
        from memfold.stores.index_process import ProcessVectorIndex

        return ProcessVectorIndex(directory / CHROMA_DIR, cleanup=cleanup)
    from memfold.stores.chroma import ChromaVectorIndex

    return ChromaVectorIndex(directory / CHROMA_DIR, cleanup=cleanup)


def _reader_index(directory: Path) -> VectorIndex:
    """A reader's index opens Chroma (~1 s of imports) only when a command needs vectors;
    its count comes from Chroma's SQLite file while it is closed."""
    from memfold.stores.lazy_index import LazyVectorIndex, chroma_vector_count

    return LazyVectorIndex(lambda: _chroma_index(directory, cleanup=False),
                           count_unopened=lambda: chroma_vector_count(directory / CHROMA_DIR))


__all__ = ["CHROMA_DIR", "DB_FILE", "Stores", "WriterLock", "duckdb_stores", "holder_pid",
           "open_stores"]
