"""The scale-out deployment through the facade: MEMFOLD_DATABASE_URL + MEMFOLD_CHROMA_URL
select PostgreSQL and a Chroma server (the session's throwaway ones, tests/pg_cluster.py);
a Memory built from them ingests, recalls and forgets a user, and a second Memory on the
same servers (another replica) sees the same data."""

from __future__ import annotations

import pytest

from memfold.config import Settings
from memfold.errors import ConfigError
from memfold.memory import Memory
from memfold.stores.chroma import COLLECTION, ChromaVectorIndex, collection_name
from memfold.stores.postgres import PostgresDatabase

from .conftest import msg


def _server_settings(pg_cluster, chroma_server, monkeypatch) -> Settings:
    monkeypatch.setenv("MEMFOLD_DATABASE_URL", pg_cluster.url(pg_cluster.new_schema()))
    monkeypatch.setenv("MEMFOLD_CHROMA_URL", chroma_server.url)
    return Settings.from_env(embedder="hashing", backend="offline")


def _collections(chroma_server) -> set[str]:
    return {c.name for c in chroma_server.client().list_collections()}


def test_memory_on_postgres_and_a_chroma_server(pg_cluster, chroma_server, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # the default store directory must stay unused
    settings = _server_settings(pg_cluster, chroma_server, monkeypatch)
    memory = Memory.open(settings=settings)
    try:
        assert isinstance(memory.stores.db, PostgresDatabase)
        index = memory.stores.index
        assert isinstance(index, ChromaVectorIndex) and index.path is None  # a server's client
        for user in ("ana", "bob"):
            memory.ingest_many([
                msg("m1", f"My name is {user} and I live in Lisbon.", user=user),
                msg("m2", "Yesterday I went hiking in Sintra.", user=user, minutes=1)])
        assert "m2" in memory.recall("hiking in Sintra", "ana", k=5).sources()
        assert memory.stores.index.count() == memory.stores.archive.count() > 0
        assert collection_name(COLLECTION, "ana") in _collections(chroma_server)

        report = memory.forget("ana")
        assert report.messages == 2 and report.file_rewritten
        assert memory.users() == ["bob"] and memory.recall("hiking in Sintra", "ana").items == []
        assert collection_name(COLLECTION, "ana") not in _collections(chroma_server)

        with Memory.open(settings=settings) as replica:  # a second process on the same servers
            assert replica.users() == ["bob"]
            assert "m2" in replica.recall("hiking in Sintra", "bob", k=5).sources()
    finally:
        memory.stores.index.reset()  # the server outlives this test
        memory.close()
    assert not (tmp_path / "memfold-store").exists()


def test_one_url_without_the_other_is_refused(pg_cluster, monkeypatch):
    monkeypatch.setenv("MEMFOLD_DATABASE_URL", pg_cluster.url())
    monkeypatch.delenv("MEMFOLD_CHROMA_URL", raising=False)
    with pytest.raises(ConfigError, match="go together"):
        Memory.open(settings=Settings.from_env(embedder="hashing", backend="offline"))
