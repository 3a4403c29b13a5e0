"""Transactions: all-or-nothing across stores, re-entrant, and safe under 16 threads."""

from __future__ import annotations

import threading

import pytest
from stores_helpers import event, fact, item, message, scratch

from memfold.errors import DuplicateMessageError, MemfoldError, StoreClosedError
from memfold.stores import Stores


class Boom(Exception):
    pass


def test_rollback_leaves_nothing_partial(stores: Stores) -> None:
    stores.log.append([message("m0")])
    stores.profile.upsert(fact("city", "Austin", "m0"))
    with pytest.raises(Boom), stores.db.transaction():
        stores.log.append([message("m1", minutes=1)])
        stores.profile.upsert(fact("city", "Boston", "m1"))
        stores.events.append([event("e1", sources=("m1",))])
        stores.archive.add([item("a1", sources=("m1",))])
        stores.scratchpad.put(scratch("t", "k", 1))
        raise Boom
    assert stores.log.exists("ana", ["m0", "m1"]) == {"m0"}
    assert stores.profile.get("ana", "user", "city").value == "Austin"  # type: ignore[union-attr]
    assert len(stores.profile.history("ana")) == 1
    assert stores.events.count() == 0 and stores.archive.count() == 0
    assert stores.scratchpad.items("ana", "t") == []


def test_nested_blocks_join_the_outer_transaction(stores: Stores) -> None:
    with pytest.raises(Boom), stores.db.transaction():
        with stores.db.transaction():
            stores.log.append([message("m1")])
        assert stores.log.count() == 1  # visible inside the outer block
        raise Boom
    assert stores.log.count() == 0


def test_a_store_error_inside_the_block_rolls_back_everything(stores: Stores) -> None:
    stores.log.append([message("m1", "original")])
    with pytest.raises(DuplicateMessageError), stores.db.transaction():
        stores.archive.add([item("a1")])
        stores.log.append([message("m1", "changed")])
    assert stores.archive.count() == 0


def test_committed_block_is_kept(stores: Stores) -> None:
    with stores.db.transaction():
        stores.log.append([message("m1")])
        stores.archive.add([item("a1")])
    assert stores.log.count() == 1 and stores.archive.count() == 1


def test_use_after_close_raises(stores: Stores) -> None:
    stores.db.close()
    with pytest.raises(StoreClosedError):
        stores.log.count()
    with pytest.raises(StoreClosedError), stores.db.transaction():
        pass


def test_sixteen_threads_lose_no_profile_update(stores: Stores) -> None:
    threads, writes = 16, 15
    keys = ["city", "job", "pet"]
    barrier = threading.Barrier(threads)
    failures: list[BaseException] = []

    def writer(n: int) -> None:
        barrier.wait()
        try:
            for w in range(writes):
                key = keys[(n + w) % len(keys)]
                stores.profile.upsert(fact(key, f"v{n}-{w}", f"m{n}-{w}"), actor=f"t{n}")
        except MemfoldError as exc:  # collected: a thread's failure must fail the test
            failures.append(exc)

    workers = [threading.Thread(target=writer, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []
    history = stores.profile.history("ana")
    assert len(history) == threads * writes  # every write is a distinct value: one row each
    for key in keys:
        rows = [c for c in history if c.key == key]
        assert rows[0].action == "add" and all(c.action == "update" for c in rows[1:])
        # the changelog is a chain: each row's old value is the previous row's new value
        assert all(b.old_value == a.new_value for a, b in zip(rows, rows[1:]))
        current = stores.profile.get("ana", "user", key)
        assert current is not None and current.value == rows[-1].new_value
