"""A reader's vector index: Chroma opened on first use, its count read from Chroma's SQLite file.

`memfold stats` reports the count without importing chromadb; these tests hold that count to
Chroma's own after upserts, deletes and erasures, and check the cases where the file cannot
answer (then Chroma is opened and answers, as before).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from stores_helpers import item

from memfold.embed import HashingEmbedder
from memfold.errors import StoreClosedError
from memfold.stores import open_stores
from memfold.stores.lazy_index import LazyVectorIndex, chroma_vector_count
from memfold.stores.sync import sync_index

EMBEDDER = HashingEmbedder()


def _store(directory: Path, users: dict[str, int]) -> None:
    with open_stores(directory) as stores:
        stores.archive.add([item(f"{user}:{n}", f"words {user} {n}", user=user)
                            for user, count in users.items() for n in range(count)])
        sync_index(stores, EMBEDDER)


def test_a_readers_count_is_chromas_without_opening_chroma(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    _store(directory, {"ana": 7, "ben": 5})
    with open_stores(directory) as writer:  # deletes hide vectors; the count must follow
        writer.index.delete(["ana:0", "ana:1", "ben:4"])
    with open_stores(directory, read_only=True) as reader:
        assert isinstance(reader.index, LazyVectorIndex)
        counted = reader.index.count()
        assert not reader.index.opened
        assert counted == 9 == len(reader.index.ids())  # ids() opens Chroma
        assert reader.index.opened and reader.index.count() == 9


def test_a_reader_of_a_store_without_an_index_counts_zero_and_creates_nothing(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    open_stores(directory).close()
    (directory / "chroma").rename(tmp_path / "elsewhere")
    with open_stores(directory, read_only=True) as reader:
        assert reader.index.count() == 0
    assert not (directory / "chroma").exists()


def test_a_write_log_not_yet_applied_is_counted_by_chroma_itself(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    _store(directory, {"ana": 4})
    chroma = directory / "chroma"
    assert chroma_vector_count(chroma) == 4
    with closing(sqlite3.connect(chroma / "chroma.sqlite3")) as connection:
        topic = connection.execute("SELECT topic FROM embeddings_queue LIMIT 1").fetchone()[0]
        connection.execute("INSERT INTO embeddings_queue (seq_id, operation, topic, id) "
                           "VALUES (1000000, 0, ?, 'ana:late')", [topic])  # past the applied one
        connection.commit()
    assert chroma_vector_count(chroma) is None


@pytest.mark.parametrize("content", [b"", b"not a database at all" * 100])
def test_a_file_this_cannot_read_is_left_to_chroma(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "chroma.sqlite3").write_bytes(content)
    assert chroma_vector_count(tmp_path) is None
    opened = []
    index = LazyVectorIndex(lambda: opened.append(1) or _CountsThree(),
                            count_unopened=lambda: chroma_vector_count(tmp_path))
    assert index.count() == 3 and opened == [1]


def test_nothing_opens_the_index_after_close(tmp_path: Path) -> None:
    opened = []
    index = LazyVectorIndex(lambda: opened.append(1) or _CountsThree(), count_unopened=lambda: 3)
    index.close()
    with pytest.raises(StoreClosedError):
        index.count()
    with pytest.raises(StoreClosedError):
        index.purge_log()  # any attribute of the real index
    assert opened == []


class _CountsThree:
    def count(self) -> int:
        return 3
