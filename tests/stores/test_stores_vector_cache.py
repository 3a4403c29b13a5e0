"""The in-process cache of recent users' vectors (stores/vector_cache.py) answers what the
index behind it would: after loads, writes, deletes, resets, evictions and failed writes,
and when a write lands while a user is being loaded."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stores_helpers import item

from memfold.embed import HashingEmbedder
from memfold.errors import VectorIndexError
from memfold.models import ArchiveItem
from memfold.stores.memory import InMemoryVectorIndex
from memfold.stores.vector_cache import CachedVectorIndex

EMBEDDER = HashingEmbedder()
WORDS = ["puppy", "hiking", "Lisbon", "coffee", "violin", "garden", "train", "salsa"]


def _vec(text: str) -> np.ndarray:
    return EMBEDDER.embed([text])[0]


def _rows(user: str, ids: Sequence[str], text: str = "", kind: str = "message") -> list[ArchiveItem]:
    return [item(i, text or f"{i} {WORDS[sum(map(ord, i)) % len(WORDS)]}", user=user, kind=kind) for i in ids]


def _put(index: object, rows: list[ArchiveItem]) -> None:
    index.upsert(rows, EMBEDDER.embed([r.key_text for r in rows]))  # type: ignore[attr-defined]


def _same(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> bool:
    """The same hits in the same order, scores equal to float32 rounding."""
    return [i for i, _ in got] == [i for i, _ in want] and all(
        abs(a - b) < 1e-5 for (_, a), (_, b) in zip(got, want))


class CountingIndex(InMemoryVectorIndex):
    """The reference index, counting the reads that reach it."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0
        self.queries = 0

    def user_vectors(self, user_id: str):  # type: ignore[no-untyped-def]
        self.loads += 1
        return super().user_vectors(user_id)

    def query(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.queries += 1
        return super().query(*args, **kwargs)


def test_reads_after_the_first_are_answered_from_memory() -> None:
    inner = CountingIndex()
    cache = CachedVectorIndex(inner)
    _put(cache, _rows("ana", ["a1", "a2", "a3"]))
    q = _vec("a1 puppy")
    first = cache.query("ana", q, 3)
    expected = inner.query("ana", q, 3)
    assert [i for i, _ in first] == [i for i, _ in expected]
    assert [s for _, s in first] == pytest.approx([s for _, s in expected], abs=1e-6)
    for _ in range(5):
        assert cache.query("ana", q, 3) == first
    assert cache.vectors("ana", ["a2", "zz"]).keys() == {"a2"}
    assert inner.loads == 1 and inner.queries == 1  # the one query above was the test's own


def test_writes_after_a_load_reach_the_held_vectors() -> None:
    inner = InMemoryVectorIndex()
    cache = CachedVectorIndex(inner)
    _put(cache, _rows("ana", ["a1", "a2"]))
    cache.query("ana", _vec("x"), 5)  # loaded
    _put(cache, _rows("ana", ["a3"], "violin lessons"))
    _put(cache, _rows("ana", ["a1"], "violin lessons again", kind="fact"))  # replaced
    q = _vec("violin lessons")
    assert _same(cache.query("ana", q, 5), inner.query("ana", q, 5))
    assert [i for i, _ in cache.query("ana", q, 5, kinds=["fact"])] == ["a1"]
    cache.delete(["a3", "nope"])
    assert {i for i, _ in cache.query("ana", q, 5)} == {"a1", "a2"}
    cache.reset()
    assert cache.query("ana", q, 5) == [] and cache.cached_bytes == 0


def test_users_stay_apart_in_memory() -> None:
    cache = CachedVectorIndex(InMemoryVectorIndex())
    _put(cache, _rows("ana", ["a1"], "puppy"))
    _put(cache, _rows("bob", ["b1"], "puppy"))
    assert [i for i, _ in cache.query("ana", _vec("puppy"), 5)] == ["a1"]
    assert cache.vectors("ana", ["b1"]) == {}
    assert [i for i, _ in cache.query("bob", _vec("puppy"), 5)] == ["b1"]


def test_least_recently_read_users_are_evicted_past_the_budget() -> None:
    inner = CountingIndex()
    one_user = 4 * 384 * 4 + 4 * 120  # a loaded user's 4 rows, and their ids
    cache = CachedVectorIndex(inner, max_bytes=2 * one_user + 100)
    for user in ("u1", "u2", "u3"):
        _put(cache, _rows(user, [f"{user}-{n}" for n in range(4)]))
    q = _vec("puppy")
    for user in ("u1", "u2", "u1", "u3"):  # u2 was read least recently when u3 arrives
        cache.query(user, q, 2)
    assert inner.loads == 3 and cache.cached_bytes <= cache.max_bytes
    cache.query("u1", q, 2)
    assert inner.loads == 3
    cache.query("u2", q, 2)
    assert inner.loads == 4


def test_a_user_bigger_than_the_budget_is_read_but_not_kept() -> None:
    inner = CountingIndex()
    cache = CachedVectorIndex(inner, max_bytes=1000)
    _put(cache, _rows("ana", ["a1", "a2"]))
    q = _vec("a1")
    assert _same(cache.query("ana", q, 2), inner.query("ana", q, 2))
    cache.query("ana", q, 2)
    assert inner.loads == 2 and cache.cached_bytes == 0


class FailingIndex(InMemoryVectorIndex):
    """Writes one user's rows, then fails: a partial write of a batch of several users."""

    fail = False

    def upsert(self, items: Sequence[ArchiveItem], embeddings: np.ndarray) -> None:
        if self.fail:
            super().upsert(items[:1], embeddings[:1])
            raise VectorIndexError("the index process exited during upsert")
        super().upsert(items, embeddings)


def test_a_failed_write_makes_its_users_read_again() -> None:
    inner = FailingIndex()
    cache = CachedVectorIndex(inner)
    _put(cache, _rows("ana", ["a1"]))
    cache.query("ana", _vec("x"), 5)
    inner.fail = True
    with pytest.raises(VectorIndexError):
        _put(cache, _rows("ana", ["a2", "a3"], "salsa night"))
    inner.fail = False
    q = _vec("salsa night")
    assert _same(cache.query("ana", q, 5), inner.query("ana", q, 5))  # a2 is there, a3 is not
    assert {i for i, _ in cache.query("ana", q, 5)} == {"a1", "a2"}


class GatedIndex(InMemoryVectorIndex):
    """``user_vectors`` reads, then waits until the test lets it return (a slow load)."""

    def __init__(self) -> None:
        super().__init__()
        self.read = threading.Event()
        self.release = threading.Event()
        self.gated = False

    def user_vectors(self, user_id: str):  # type: ignore[no-untyped-def]
        found = super().user_vectors(user_id)
        if self.gated:
            self.read.set()
            assert self.release.wait(10)
        return found


@pytest.mark.parametrize("write", ["upsert", "delete", "reset"])
def test_a_write_during_a_load_is_never_lost(write: str) -> None:
    inner = GatedIndex()
    cache = CachedVectorIndex(inner)
    _put(cache, _rows("ana", ["a1", "a2"], "hiking boots"))
    inner.gated = True
    q = _vec("hiking boots")
    answers: list[list[tuple[str, float]]] = []
    reader = threading.Thread(target=lambda: answers.append(cache.query("ana", q, 5)))
    reader.start()
    assert inner.read.wait(10)  # the load has read the old rows and not yet returned
    if write == "upsert":
        _put(cache, _rows("ana", ["a3"], "hiking boots"))
    elif write == "delete":
        cache.delete(["a1"])
    else:
        cache.reset()
    inner.release.set()
    reader.join(10)
    inner.gated = False
    expected = {i for i, _ in inner.query("ana", q, 5)}
    assert {i for i, _ in answers[0]} == expected  # the stale load answered from the index
    assert {i for i, _ in cache.query("ana", q, 5)} == expected  # and was not kept


OPS = st.lists(st.tuples(st.sampled_from(["put", "delete", "query", "reset"]),
                         st.sampled_from(["ana", "bob"]),
                         st.lists(st.sampled_from([f"r{n}" for n in range(6)]), min_size=1, max_size=3),
                         st.sampled_from(WORDS)), max_size=25)


@settings(max_examples=60, deadline=None)
@given(ops=OPS, budget=st.sampled_from([0, 20_000, 10**9]))
def test_the_cache_answers_what_the_index_would(ops: list, budget: int) -> None:
    """Any sequence of writes and reads, any budget: the same hits, scores and vectors."""
    reference, inner = InMemoryVectorIndex(), InMemoryVectorIndex()
    cache = CachedVectorIndex(inner, max_bytes=budget)
    for op, user, ids, word in ops:
        rows = _rows(user, [f"{user}:{i}" for i in ids], f"{word} {ids[0]}")
        if op == "put":
            _put(reference, rows)
            _put(cache, rows)
        elif op == "delete":
            reference.delete([r.item_id for r in rows])
            cache.delete([r.item_id for r in rows])
        elif op == "reset":
            reference.reset()
            cache.reset()
        q = _vec(word)
        got, want = cache.query(user, q, 4), reference.query(user, q, 4)
        assert [i for i, _ in got] == [i for i, _ in want] or sorted(s for _, s in got) == pytest.approx(
            sorted(s for _, s in want), abs=1e-6)  # equal scores may come in another order
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
        wanted = [f"{u}:r{n}" for u in ("ana", "bob") for n in range(6)]
        assert cache.vectors(user, wanted).keys() == reference.vectors(user, wanted).keys()


def test_a_writer_store_directory_has_the_cache(tmp_path: Path) -> None:
    from memfold.stores import open_stores

    stores = open_stores(tmp_path / "store", vector_cache_bytes=1 << 20)
    try:
        assert isinstance(stores.index, CachedVectorIndex)
        _put(stores.index, _rows("ana", ["a1"], "puppy"))
        assert stores.index.query("ana", _vec("puppy"), 1)[0][0] == "a1"
    finally:
        stores.close()
    reader = open_stores(tmp_path / "store", read_only=True, vector_cache_bytes=1 << 20)
    try:
        assert not isinstance(reader.index, CachedVectorIndex)  # a reader never sees writes
    finally:
        reader.close()
    off = open_stores(tmp_path / "store", vector_cache_bytes=0)
    try:
        assert not isinstance(off.index, CachedVectorIndex)
    finally:
        off.close()
