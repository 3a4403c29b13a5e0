"""Issue 17 item 8: a DuckDB file that fails its checksum acknowledges no write. The first
corrupt read of a writer raises StoreCorruptError (not a generic StoreError) and marks the
store (``corrupt.json``); every later write in that process and every later writer open is
refused with a message that says how to recover, while read-only opens (``export``) work."""

from __future__ import annotations

import shutil

import pytest
import rel_harness as h

from memfold.errors import StoreCorruptError
from memfold.memory import Memory


@pytest.fixture(scope="module")
def damaged_template(tmp_path_factory):
    store = tmp_path_factory.mktemp("damaged") / "store"
    with Memory.open(store, h.settings(store)) as memory:
        memory.ingest_many([{"msg_id": f"m{n}", "user_id": "ana", "ts": h.T0.isoformat(),
                             "text": f"I adopted a cat named Miso number {n} and " + "words " * 30}
                            for n in range(1200)])
        memory.stores.db.checkpoint()  # type: ignore[attr-defined]
    path = store / "memfold.duckdb"
    data = bytearray(path.read_bytes())
    for offset in range(len(data) // 3, len(data) // 3 + 200_000, 4096):
        data[offset + 100] ^= 0xFF
    path.write_bytes(bytes(data))
    return store


def _damaged_store(template, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(template, store)
    return store


def test_a_corrupt_file_acknowledges_no_write_and_says_how_to_recover(damaged_template, tmp_path):
    store = _damaged_store(damaged_template, tmp_path)
    memory = Memory.open(store, h.settings(store))
    with pytest.raises(StoreCorruptError, match="Corrupt database file") as first:
        memory.ingest({"msg_id": "new1", "user_id": "ana", "text": "I moved to Porto.",
                       "ts": h.T0.isoformat()})
    assert "export" in first.value.hint
    assert (store / "corrupt.json").exists()
    with pytest.raises(StoreCorruptError, match="writes are refused"):
        memory.set_fact("ana", "city", "Porto", sources=["m1"])  # would not even read the bad block
    memory.close()
    with pytest.raises(StoreCorruptError, match="integrity check"):
        Memory.open(store, h.settings(store))
    with Memory.open(store, h.settings(store), read_only=True) as reader:
        assert any(r["type"] == "message" for r in reader.export("ana"))  # what still reads


def test_a_pending_forget_on_a_corrupt_store_fails_with_the_recovery_message(damaged_template, tmp_path):
    store = _damaged_store(damaged_template, tmp_path)
    (store / "forget-pending.json").write_text('["ana"]')
    with pytest.raises(StoreCorruptError) as caught:
        Memory.open(store, h.settings(store))
    assert "export" in caught.value.hint
