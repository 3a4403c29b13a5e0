"""Ingested data survives close/reopen on a real store; a second writer process is refused."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memfold.errors import InvalidInputError
from memfold.memory import Memory

from .conftest import msg


def test_data_survives_reopen(settings):
    with Memory.open(settings=settings) as memory:
        memory.ingest_many([msg("m1", "My name is Ana and I live in Lisbon."),
                            msg("m2", "Yesterday I went hiking in Sintra.", minutes=1),
                            msg("m3", "Thanks!", minutes=2)])
    with Memory.open(settings=settings) as memory:
        assert [m.msg_id for m in memory.stores.log.list("ana")] == ["m1", "m2", "m3"]
        result = memory.recall("hiking in Sintra", "ana", k=5)
        assert "m2" in result.sources()
        assert memory.stores.index.count() == memory.stores.archive.count()


def test_second_writer_process_is_refused_with_pid(settings):
    with Memory.open(settings=settings):
        code = ("import sys\nfrom memfold.config import Settings\nfrom memfold.memory import Memory\n"
                "from memfold.errors import StoreLockedError\n"
                f"s = Settings(store={str(settings.store)!r}, embedder='hashing', backend='offline')\n"
                "try:\n    Memory.open(settings=s)\nexcept StoreLockedError as e:\n    print(e); sys.exit(3)\n"
                "sys.exit(0)\n")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert done.returncode == 3, done.stderr
        import os

        assert str(os.getpid()) in done.stdout


def test_read_without_user_is_rejected(memory):
    with pytest.raises(InvalidInputError):
        memory.recall("anything", "")


def test_an_interrupted_forget_is_finished_on_the_next_open(settings):
    import json

    with Memory.open(settings=settings) as memory:
        memory.ingest_many([msg("m1", "My secret word is zanzibar-canary."),
                            msg("b1", "I like tea.", user="bob", speaker="Bob")])
    # simulate a crash after the marker was written but before anything was erased
    (settings.store / "forget-pending.json").write_text(json.dumps(["ana"]))
    with Memory.open(settings=settings) as memory:
        assert memory.stores.log.count("ana") == 0
        assert memory.stores.log.count("bob") == 1
    assert not (settings.store / "forget-pending.json").exists()
    for path in settings.store.rglob("*"):
        if path.is_file():
            assert b"zanzibar-canary" not in path.read_bytes()


def test_a_forget_killed_after_its_commit_leaves_no_vector_bytes(settings):
    """The killed run had committed the row deletions but not removed the vectors: the
    resumed erasure finds no archive ids, yet must still take the user's vectors out before
    the files are rewritten (CI found the user's id left in chroma.sqlite3: the open's orphan
    sweep, which came after the rewrite, deleted them into Chroma's log)."""
    import json

    user = "user-zanzibar-7f3c"
    with Memory.open(settings=settings) as memory:
        memory.ingest_many([msg("m1", "My secret word is zanzibar.", user=user),
                            msg("b1", "I like tea.", user="bob", speaker="Bob")])
        assert memory.stores.index.ids(user)
        memory._user_transaction([user], lambda: memory._erase_rows(user))  # the commit, then the kill
    (settings.store / "forget-pending.json").write_text(json.dumps([user]))
    with Memory.open(settings=settings) as memory:
        assert memory.stores.log.count("bob") == 1
    for path in settings.store.rglob("*"):
        if path.is_file():
            assert user.encode() not in path.read_bytes(), path


def test_opening_with_another_embedder_is_refused_until_reindexed(settings):
    from memfold.errors import ConfigError

    with Memory.open(settings=settings) as memory:
        memory.ingest(msg("m1", "I live in Lisbon."))
    other = settings.model_copy(update={"embedder": "minilm"})
    with pytest.raises(ConfigError, match="hashing"):
        Memory.open(settings=other, embedder=_Renamed())
    with Memory.open(settings=settings, embedder=_Renamed(), reembed=True) as memory:
        memory.reindex()
    with Memory.open(settings=settings, embedder=_Renamed()) as memory:  # now built with it
        assert memory.stores.index.count() == memory.stores.archive.count()


class _Renamed:
    """A hashing embedder under another name (stands in for a different model)."""

    def __init__(self):
        from memfold.embed import HashingEmbedder

        self._base = HashingEmbedder(seed=1)
        self.name, self.dim = "other-model", self._base.dim

    def embed(self, texts):
        return self._base.embed(texts)
