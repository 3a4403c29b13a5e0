"""VectorIndex contract, run against the exact numpy index and against Chroma (a directory
of its own, and a Chroma server)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from stores_helpers import item

from memfold.embed import HashingEmbedder
from memfold.errors import InvalidInputError, StoreClosedError, StoreCorruptError, VectorIndexError
from memfold.models import ArchiveItem
from memfold.stores.base import VectorIndex
from memfold.stores.chroma import ChromaVectorIndex

TEXTS = {
    "a1": "I adopted a golden retriever puppy",
    "a2": "my sister lives in Lisbon",
    "a3": "we went hiking in the Alps",
    "a4": "the puppy chewed my shoes",
}


def _items(user: str = "ana", prefix: str = "") -> list[ArchiveItem]:
    kinds = {"a1": "message", "a2": "fact", "a3": "event", "a4": "message"}
    return [item(prefix + i, text, user=user, kind=kinds[i]) for i, text in TEXTS.items()]


def _fill(index: VectorIndex, embedder: HashingEmbedder, items: list[ArchiveItem]) -> None:
    index.upsert(items, embedder.embed([i.key_text for i in items]))


def test_query_ranks_by_cosine_similarity(index: VectorIndex, embedder: HashingEmbedder) -> None:
    items = _items()
    _fill(index, embedder, items)
    query = embedder.embed(["golden retriever puppy"])[0]
    hits = index.query("ana", query, k=2)
    assert [h[0] for h in hits][0] == "a1"
    expected = float(embedder.embed([TEXTS["a1"]])[0] @ query)
    assert hits[0][1] == pytest.approx(expected, abs=1e-4)
    assert hits[0][1] >= hits[1][1]


def test_query_filters_user_and_kinds(index: VectorIndex, embedder: HashingEmbedder) -> None:
    _fill(index, embedder, _items("ana"))
    _fill(index, embedder, _items("bob", prefix="b-"))
    query = embedder.embed(["puppy"])[0]
    assert {h[0] for h in index.query("ana", query, k=10)} == set(TEXTS)
    assert {h[0] for h in index.query("bob", query, k=10)} == {f"b-{i}" for i in TEXTS}
    assert {h[0] for h in index.query("ana", query, k=10, kinds=["fact", "event"])} == {"a2", "a3"}
    assert index.query("ana", query, k=10, kinds=[]) == []
    assert index.query("nobody", query, k=10) == []
    assert index.query("ana", query, k=0) == []


def test_vectors_returns_the_stored_unit_vectors_of_one_users_rows(index: VectorIndex,
                                                                    embedder: HashingEmbedder) -> None:
    _fill(index, embedder, _items("ana"))
    _fill(index, embedder, _items("bob", prefix="b-"))
    found = index.vectors("ana", ["a1", "a4", "b-a1", "missing"])
    assert set(found) == {"a1", "a4"}  # another user's row and an unknown id are not returned
    expected = embedder.embed([TEXTS["a1"]])[0]
    assert float(found["a1"] @ expected) == pytest.approx(1.0, abs=1e-4)
    assert index.vectors("ana", []) == {}
    assert index.vectors("nobody", ["a1"]) == {}


def test_user_vectors_returns_every_row_of_one_user(index: VectorIndex,
                                                    embedder: HashingEmbedder) -> None:
    _fill(index, embedder, _items("ana"))
    _fill(index, embedder, _items("bob", prefix="b-"))
    ids, matrix, kinds = index.user_vectors("ana")
    assert sorted(ids) == sorted(TEXTS) and len(matrix) == len(ids) == len(kinds)
    by_id = dict(zip(ids, zip(kinds, matrix)))
    assert by_id["a2"][0] == "fact" and by_id["a1"][0] == "message"
    expected = embedder.embed([TEXTS["a3"]])[0]
    assert float(by_id["a3"][1] @ expected) == pytest.approx(1.0, abs=1e-4)
    assert index.user_vectors("nobody")[0] == []


def test_upsert_is_idempotent_and_replaces(index: VectorIndex, embedder: HashingEmbedder) -> None:
    items = _items()
    _fill(index, embedder, items)
    _fill(index, embedder, items)
    assert index.count() == 4
    moved = [item("a2", "golden retriever puppy", kind="fact")]
    _fill(index, embedder, moved)
    top = index.query("ana", embedder.embed(["golden retriever puppy"])[0], k=1)
    assert top[0][0] == "a2" and top[0][1] == pytest.approx(1.0, abs=1e-4)


def test_delete_ids_count_reset(index: VectorIndex, embedder: HashingEmbedder) -> None:
    _fill(index, embedder, _items("ana"))
    _fill(index, embedder, _items("bob", prefix="b-"))
    assert index.ids("bob") == {f"b-{i}" for i in TEXTS}
    index.delete(["a1", "a1", "missing"])
    assert index.ids("ana") == {"a2", "a3", "a4"} and index.count() == 7
    assert len(index.ids()) == 7
    index.reset()
    assert index.count() == 0 and index.ids() == set()
    _fill(index, embedder, _items())  # usable after a reset
    assert index.count() == 4


def test_wrong_embedding_shape_is_refused(index: VectorIndex) -> None:
    with pytest.raises(InvalidInputError):
        index.upsert(_items(), np.zeros((2, 8), dtype=np.float32))


def test_chroma_persists_across_reopen(tmp_path: Path, embedder: HashingEmbedder) -> None:
    first = ChromaVectorIndex(tmp_path / "chroma")
    _fill(first, embedder, _items())
    first.close()
    first.close()  # idempotent
    with pytest.raises(StoreClosedError):
        first.count()
    again = ChromaVectorIndex(tmp_path / "chroma")
    assert again.count() == 4
    assert again.query("ana", embedder.embed(["hiking in the Alps"])[0], k=1)[0][0] == "a3"


def test_chroma_stores_no_text_and_no_default_embedder(tmp_path: Path,
                                                       embedder: HashingEmbedder) -> None:
    index = ChromaVectorIndex(tmp_path / "chroma")
    _fill(index, embedder, _items())
    documents, metadatas = [], []
    for collection in index._all():  # noqa: SLF001 - one collection per user
        stored = collection.get(include=["documents", "metadatas"])
        documents += stored["documents"]
        metadatas += stored["metadatas"]
    assert documents == [None] * 4
    assert all(set(meta) <= {"user_id", "kind", "occurred_at"} for meta in metadatas)
    files = [p for p in (tmp_path / "chroma").rglob("*") if p.is_file()]
    assert not any(b"golden retriever" in p.read_bytes() for p in files)


def test_chroma_batches_above_the_max_batch_size(tmp_path: Path) -> None:
    index = ChromaVectorIndex(tmp_path / "chroma")
    index._max_batch = 7  # noqa: SLF001  (the real limit is ~5,000; keep the test fast)
    items = [item(f"x{n}", f"text {n}") for n in range(20)]
    vectors = np.eye(20, 16, dtype=np.float32) + 0.01
    index.upsert(items, vectors)
    assert index.count() == 20 and len(index.ids("ana")) == 20
    index.delete([f"x{n}" for n in range(15)])
    assert index.count() == 5


def test_chroma_errors_are_translated(tmp_path: Path, embedder: HashingEmbedder) -> None:
    index = ChromaVectorIndex(tmp_path / "chroma")
    _fill(index, embedder, _items())
    with pytest.raises(VectorIndexError) as caught:
        index.query("ana", np.ones(7, dtype=np.float32), k=1)  # wrong dimension
    assert caught.value.__cause__ is not None


@pytest.mark.slow  # the rebuild runs in a fresh interpreter (imports chromadb: ~5 s)
def test_chroma_purge_log_leaves_no_trace_of_deleted_vectors(tmp_path: Path,
                                                             embedder: HashingEmbedder) -> None:
    index = ChromaVectorIndex(tmp_path / "chroma")
    dim = 16
    secret = np.full((40, dim), 0.25, dtype=np.float32)  # unit length already: stored as given
    secret[:, 0] += np.arange(40, dtype=np.float32) * 1e-3  # distinct ids, same byte run mostly
    pattern = np.full(8, 0.25, dtype=np.float32).tobytes()
    canary = f"canary{uuid.uuid4().hex[:12]}"
    index.upsert([item(f"{canary}:{n}", user=canary) for n in range(40)], secret)
    kept = [item(f"ana:{n}") for n in range(30)]
    index.upsert(kept, np.eye(30, dim, dtype=np.float32) + 0.5)
    index.delete([f"{canary}:{n}" for n in range(40)])
    files = lambda: [p for p in (tmp_path / "chroma").rglob("*") if p.is_file()]  # noqa: E731
    # delete alone leaves the id, the user id and the vector in Chroma's files
    assert any(canary.encode() in p.read_bytes() for p in files())
    assert any(pattern in p.read_bytes() for p in files())
    index.purge_log()
    assert not any(canary.encode() in p.read_bytes() for p in files())
    assert [str(p) for p in files() if pattern in p.read_bytes()] == []
    assert index.ids() == {i.item_id for i in kept}
    top = index.query("ana", (np.eye(30, dim, dtype=np.float32) + 0.5)[3], k=1)
    assert top[0][0] == "ana:3"


def test_chroma_keeps_each_user_in_its_own_collection(tmp_path: Path, embedder: HashingEmbedder) -> None:
    index = ChromaVectorIndex(tmp_path / "chroma")
    _fill(index, embedder, _items())
    by_collection = {c.name: {m["user_id"] for m in c.get(include=["metadatas"])["metadatas"]}
                     for c in index._all()}  # noqa: SLF001
    assert all(len(users) == 1 for users in by_collection.values())
    assert len(by_collection) == len({u for users in by_collection.values() for u in users})
    assert index.query("nobody-here", embedder.embed(["hiking"])[0], k=5) == []


def test_chroma_refuses_a_collection_that_names_another_owner(tmp_path: Path,
                                                              embedder: HashingEmbedder) -> None:
    """Queries skip per-hit metadata, so the collection's owner is what keeps users apart."""
    from memfold.stores.chroma import COLLECTION, collection_name

    index = ChromaVectorIndex(tmp_path / "chroma")
    index._client.get_or_create_collection(  # noqa: SLF001 (a tampered directory)
        collection_name(COLLECTION, "ana"), embedding_function=None, metadata={"memfold_user": "bob"})
    try:
        with pytest.raises(StoreCorruptError, match="belongs to 'bob'"):
            index.query("ana", embedder.embed(["hiking"])[0], k=5)
    finally:
        index.close()


def test_chroma_server_recovers_a_collection_another_replica_dropped(
        chroma_server: Any, embedder: HashingEmbedder) -> None:
    from memfold.stores.chroma import collection_name

    prefix = f"t{uuid.uuid4().hex[:12]}"
    one, two = (ChromaVectorIndex(client=chroma_server.client(), collection=prefix) for _ in "12")
    try:
        _fill(one, embedder, _items())
        _fill(two, embedder, _items(user="bob", prefix="b"))
        assert two.query("ana", embedder.embed(["puppy"])[0], k=1)  # `two` caches ana's collection
        one.delete(list(TEXTS))
        one.purge_log()  # a forget on `one`: ana's collection, now empty, is dropped
        names = {c.name for c in one._client.list_collections()}  # noqa: SLF001
        assert collection_name(prefix, "ana") not in names
        assert collection_name(prefix, "bob") in names
        _fill(two, embedder, _items())  # `two`'s handle is stale: reopened, not an error
        assert one.ids("ana") == set(TEXTS) and one.ids("bob") == {"b" + i for i in TEXTS}
    finally:
        one.reset()
        one.close()
        two.close()


def test_an_unreachable_chroma_server_is_a_vector_index_error() -> None:
    from memfold.stores.chroma import http_client

    with pytest.raises(VectorIndexError, match="MEMFOLD_CHROMA_URL"):
        http_client("http://127.0.0.1:9")  # the discard port: nothing listens
    with pytest.raises(InvalidInputError):
        http_client("localhost:8000")
