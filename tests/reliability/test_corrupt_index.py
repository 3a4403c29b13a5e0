"""Issue 17 item 9: a corrupt Chroma index (``chroma.sqlite3`` truncated to 4 KB) fails the
open with a VectorIndexError every time (a retry used to raise an untranslated
AttributeError from chromadb's cache), leaves the store lock free, and ``reindex``
rebuilds the index from DuckDB in an empty directory."""

from __future__ import annotations

import pytest
import rel_harness as h

from memfold.errors import VectorIndexError
from memfold.memory import Memory


def _corrupt_store(tmp_path):
    store = tmp_path / "store"
    with Memory.open(store, h.settings(store)) as memory:
        memory.ingest_many([{"msg_id": f"m{n}", "user_id": "ana", "text": f"I adopted a cat named Miso {n}.",
                             "ts": h.T0.isoformat()} for n in range(20)])
    sqlite = store / "chroma" / "chroma.sqlite3"
    sqlite.write_bytes(sqlite.read_bytes()[:4096])
    return store


def test_a_corrupt_index_fails_the_open_the_same_clean_way_every_time(tmp_path):
    store = _corrupt_store(tmp_path)
    for _ in range(3):
        with pytest.raises(VectorIndexError, match="reindex"):
            Memory.open(store, h.settings(store))


def test_reindex_rebuilds_a_corrupt_index_from_an_empty_directory(tmp_path):
    store = _corrupt_store(tmp_path)
    with pytest.raises(VectorIndexError):
        Memory.open(store, h.settings(store))
    with Memory.open(store, h.settings(store), reembed=True, fresh_index=True) as memory:
        report = memory.reindex()
        assert report.indexed == report.archive_rows > 0
        assert any("m3" in item.sources for item in memory.search("cat named Miso 3", "ana"))
    with Memory.open(store, h.settings(store)) as memory:  # and it opens normally afterwards
        assert memory.stats()["vectors"] == report.indexed
