"""The scale-out deployment through the facade: MEMFOLD_DATABASE_URL + MEMFOLD_CHROMA_URL
select PostgreSQL and a Chroma server (the session's throwaway ones, tests/pg_cluster.py);
a Memory built from them ingests, recalls and forgets a user, and a second Memory on the
same servers (another replica) sees the same data."""

from __future__ import annotations

import json
from collections.abc import Iterator

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


def _lexical_ids(memory: Memory, user: str, query: str) -> set[str]:
    """The messages BM25 finds for ``query`` (own key), as recall's lexical step sees them."""
    hits = memory.retriever.lexical.search(user, query, 20)
    rows = memory.stores.archive.get(user, [i for i, _ in hits.own])
    return {source for row in rows for source in row.sources}


@pytest.fixture
def replicas(pg_cluster, chroma_server, monkeypatch, tmp_path) -> Iterator[tuple[Memory, Memory]]:
    """Two Memory objects on one fresh schema and the Chroma server: two replicas."""
    monkeypatch.chdir(tmp_path)
    settings = _server_settings(pg_cluster, chroma_server, monkeypatch)
    one, two = Memory.open(settings=settings), Memory.open(settings=settings)
    yield one, two
    one.stores.index.reset()  # the server outlives this test
    one.close()
    two.close()


def test_two_replicas_see_each_others_writes_and_removals_in_lexical_search(replicas):
    one, two = replicas
    assert one.retriever.lexical is one.stores.lexical  # the database's BM25, no own index
    one.ingest_many([msg("m1", "We adopted a greyhound called Pixel.", user="ana"),
                     msg("m2", "The weather was grey all week.", user="ana", minutes=1),
                     msg("b1", "My greyhound Pixel won a race.", user="bob")])
    assert _lexical_ids(two, "ana", "greyhound Pixel") == {"m1"}  # written by the other
    # one row out, one in: the same count, so a count check could not tell
    one.remove_message("ana", "m1")
    one.ingest(msg("m3", "We started pottery classes.", user="ana", minutes=2))
    assert _lexical_ids(two, "ana", "greyhound Pixel") == set()
    assert _lexical_ids(two, "ana", "pottery classes") == {"m3"}
    assert "m3" in two.recall("pottery classes", "ana", k=5).sources()
    assert _lexical_ids(one, "bob", "greyhound") == {"b1"}  # bob's row stays bob's


def test_an_interrupted_forget_is_finished_by_the_next_replica_to_open(replicas, pg_cluster):
    one, two = replicas
    one.ingest_many([msg("m1", "I live in Lisbon.", user=u) for u in ("ana", "bob")])
    # what forget() notes first: a replica killed right after leaves only this behind
    one.stores.db.mark_forget_pending("ana", pending=True)
    assert two.stores.db.forgets_pending() == ["ana"]
    assert two.finish_pending_erasures() == ["ana"]  # what Memory.open runs first
    assert one.users() == ["bob"] and one.stores.db.forgets_pending() == []
    assert _lexical_ids(one, "ana", "Lisbon") == set()
    assert _lexical_ids(one, "bob", "Lisbon") == {"m1"}


def test_an_import_through_one_replica_is_searchable_through_another(replicas, tmp_path):
    one, two = replicas
    one.ingest_many([msg("m1", "Our kayak trip to the fjords was wet.", user="ana")])
    exported = tmp_path / "ana.jsonl"
    exported.write_text("".join(json.dumps(r) + "\n" for r in one.export("ana")))
    one.forget("ana")
    assert _lexical_ids(two, "ana", "kayak fjords") == set()
    one.import_file(exported)
    assert _lexical_ids(two, "ana", "kayak fjords") == {"m1"}
