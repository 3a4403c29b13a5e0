"""Erasure across the whole store directory: after deleting a user's rows, rewriting the
DuckDB file and purging Chroma's log, no byte of that user is left in any file."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest
from stores_helpers import chunk, event, fact, item, message

from memfold.embed import HashingEmbedder
from memfold.models import FoldState, Note, SemanticMemory
from memfold.stores import open_stores
from memfold.stores.sync import sync_index


def _files_with(directory: Path, needle: bytes) -> list[str]:
    return [str(p.relative_to(directory)) for p in directory.rglob("*")
            if p.is_file() and needle in p.read_bytes()]


@pytest.mark.slow  # the rebuild runs in a fresh interpreter (imports chromadb: ~5 s)
def test_forgotten_user_leaves_no_bytes_in_the_store_directory(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    canary = f"zq{uuid.uuid4().hex[:16]}"  # the user id and a word of every record
    stores = open_stores(directory)
    with stores.db.transaction():
        for user in (canary, "ana"):
            stores.log.append([message(f"m{n}", f"{user} said thing {n}", user=user, minutes=n)
                               for n in range(20)])
            stores.profile.upsert(fact("nickname", f"{user} nick", "m1", user=user))
            stores.events.append([event("e1", f"{user} went out", user=user)])
            stores.documents.add([chunk("c1", user=user)])
            stores.archive.add([item(f"{user}:{n}", f"{user} key {n}", user=user)
                                for n in range(20)])
            stores.folds.save(FoldState(user_id=user, semantic=SemanticMemory(
                user_id=user, facts=[Note(text=f"{user} note", sources=["m1"])])))
    sync_index(stores, HashingEmbedder())
    stores.db.checkpoint()  # type: ignore[attr-defined]
    assert _files_with(directory, canary.encode())

    with stores.db.transaction():
        stores.log.delete_user(canary)
        stores.profile.delete_user(canary)
        stores.events.delete_user(canary)
        stores.documents.delete_user(canary)
        stores.folds.delete_user(canary)
        doomed = stores.archive.delete_user(canary)
    stores.index.delete(doomed)
    stores.db.rewrite_file()  # type: ignore[attr-defined]
    stores.index.purge_log()  # type: ignore[attr-defined]

    assert _files_with(directory, canary.encode()) == []
    assert stores.log.count("ana") == 20
    assert stores.index.ids("ana") == {f"ana:{n}" for n in range(20)}
    assert sync_index(stores, HashingEmbedder()).indexed == 0
    stores.close()
    with open_stores(directory) as again:
        assert again.db.users() == ["ana"] and again.index.count() == 20


def test_leftovers_of_an_interrupted_rewrite_are_removed_on_open(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    open_stores(directory).close()
    # what a crash in the middle of rewrite_file / purge_log leaves behind
    (directory / "memfold.duckdb.rewrite").write_bytes(b"old copy")
    for leftover in ("chroma.old", "chroma.rebuild"):
        (directory / leftover).mkdir()
        (directory / leftover / "chroma.sqlite3").write_bytes(b"deleted vectors")
    reader = open_stores(directory, read_only=True)  # a reader changes nothing
    reader.close()
    assert (directory / "chroma.old").exists()
    with open_stores(directory) as writer:
        assert writer.log.count() == 0
    names = sorted(p.name for p in directory.iterdir())
    assert names == ["chroma", "memfold.duckdb", "writer.lock"]


def test_an_index_lost_mid_rebuild_is_rebuilt_from_duckdb(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    with open_stores(directory) as stores:
        stores.archive.add([item(f"ana:{n}", f"words {n}") for n in range(12)])
        sync_index(stores, HashingEmbedder())
    shutil.rmtree(directory / "chroma")  # crash between the two renames of purge_log
    with open_stores(directory) as stores:
        report = sync_index(stores, HashingEmbedder())
        assert report.missing == 12 and stores.index.count() == 12
