"""Reads after writes, with the reads done first: DuckDB keeps what a read of a user's rows
returned (profile, newest message, archive count, fold state) until a write touches that
user. Every store must answer these the same way; the DuckDB one is the one that can fail."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stores_helpers import fact, item, message

from memfold.models import FoldState, SemanticMemory
from memfold.stores import Stores


class Boom(Exception):
    pass


def newest(stores: Stores, user: str = "ana") -> str | None:
    found = stores.log.list(user, newest_first=True, limit=1)
    return found[0].msg_id if found else None


def state(user: str, turns: int) -> FoldState:
    return FoldState(user_id=user, semantic=SemanticMemory(user_id=user), total_turns_seen=turns)


def test_the_profile_read_before_a_write_is_not_served_after_it(stores: Stores) -> None:
    stores.log.append([message("m1"), message("m2", minutes=1)])
    assert stores.profile.list("ana") == []
    stores.profile.upsert(fact("city", "Austin", "m1"))
    assert [f.value for f in stores.profile.list("ana")] == ["Austin"]
    stores.profile.upsert(fact("city", "Boston", "m2", minutes=1))
    assert [f.value for f in stores.profile.list("ana")] == ["Boston"]
    assert [f.value for f in stores.profile.list("ana", "user")] == ["Boston"]
    assert stores.profile.list("ana", "mom") == []
    stores.profile.delete("ana", "user", "city")
    assert stores.profile.list("ana") == []


def test_a_rolled_back_write_leaves_the_values_read_before_it(stores: Stores) -> None:
    stores.log.append([message("m1")])
    stores.profile.upsert(fact("city", "Austin", "m1"))
    stores.archive.add([item("a1")])
    stores.folds.save(state("ana", 1))
    before = (stores.profile.list("ana"), newest(stores), stores.archive.count("ana"),
              stores.folds.load("ana"))
    with pytest.raises(Boom), stores.db.transaction():
        stores.log.append([message("m2", minutes=5)])
        stores.profile.upsert(fact("city", "Boston", "m2", minutes=5))
        stores.archive.add([item("a2", sources=("m2",))])
        stores.folds.save(state("ana", 2))
        # the transaction reads its own writes
        assert newest(stores) == "m2" and stores.archive.count("ana") == 2
        assert stores.folds.load("ana").total_turns_seen == 2  # type: ignore[union-attr]
        assert [f.value for f in stores.profile.list("ana")] == ["Boston"]
        raise Boom
    after = (stores.profile.list("ana"), newest(stores), stores.archive.count("ana"),
             stores.folds.load("ana"))
    assert after == before


def test_the_newest_message_follows_appends_and_deletes(stores: Stores) -> None:
    stores.log.append([message("m1", minutes=10)])
    assert newest(stores) == "m1"
    stores.log.append([message("m0", minutes=5)])  # older: the newest stays
    assert newest(stores) == "m1"
    stores.log.append([message("m2", minutes=10)])  # same time, stored later: it is newer
    assert newest(stores) == "m2"
    stores.log.append([message("m2", minutes=10)])  # the same message again: a no-op
    assert newest(stores) == "m2"
    stores.log.delete("ana", ["m2"])
    assert newest(stores) == "m1"
    stores.log.delete_user("ana")
    assert newest(stores) is None


def test_counts_and_fold_state_follow_writes(stores: Stores) -> None:
    assert stores.archive.count("ana") == 0 and stores.folds.load("ana") is None
    stores.archive.add([item("a1"), item("a2", sources=("m2",))])
    assert stores.archive.count("ana") == 2
    stores.archive.add([item("a1", "other words")])  # re-added under its id: no new row
    assert stores.archive.count("ana") == 2
    stores.archive.delete_by_source("ana", ["m2"])
    assert stores.archive.count("ana") == 1
    stores.folds.save(state("ana", 3))
    assert stores.folds.load("ana").total_turns_seen == 3  # type: ignore[union-attr]
    stores.folds.delete_user("ana")
    assert stores.folds.load("ana") is None
    stores.archive.delete_user("ana")
    assert stores.archive.count("ana") == 0


def test_one_users_write_does_not_change_what_another_reads(stores: Stores) -> None:
    stores.log.append([message("m1"), message("b1", user="bo")])
    stores.profile.upsert(fact("city", "Austin", "b1", user="bo"))
    assert [f.value for f in stores.profile.list("bo")] == ["Austin"]
    stores.profile.upsert(fact("city", "Lima", "m1"))
    assert [f.value for f in stores.profile.list("bo")] == ["Austin"]
    assert [f.value for f in stores.profile.list("ana")] == ["Lima"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["ana", "bo"]), st.integers(0, 5),
                          st.sampled_from(["append", "delete", "fact", "rollback"])),
                min_size=1, max_size=12))
def test_reads_always_match_a_fresh_read_of_the_database(ops: list[tuple[str, int, str]]) -> None:
    """Invariant: whatever the order of writes, rollbacks and reads, what the DuckDB store
    answers is what the database holds (a fresh store object on the same file reads it)."""
    from memfold.stores import duckdb_stores
    from memfold.stores.duckdb import DuckDBDatabase
    from memfold.stores.memory import InMemoryVectorIndex

    stores = duckdb_stores(DuckDBDatabase(":memory:"), InMemoryVectorIndex())
    try:
        for n, (user, minutes, op) in enumerate(ops):
            _apply(stores, user, minutes, op, n)
            for who in ("ana", "bo"):
                fresh = stores.db.fetchall(
                    "SELECT msg_id FROM messages WHERE user_id = ? ORDER BY ts DESC, seq DESC "
                    "LIMIT 1", [who])
                assert newest(stores, who) == (fresh[0][0] if fresh else None)
                values = [r[0] for r in stores.db.fetchall(
                    "SELECT value FROM profile WHERE user_id = ? ORDER BY subject, key", [who])]
                assert [f.value for f in stores.profile.list(who)] == values
    finally:
        stores.close()


def _apply(stores: Stores, user: str, minutes: int, op: str, n: int) -> None:
    if op == "append":
        stores.log.append([message(f"m{n}", user=user, minutes=minutes)])
    elif op == "delete":
        ids = [m.msg_id for m in stores.log.list(user)]
        stores.log.delete(user, ids[-1:])
    elif op == "fact":
        stores.log.append([message(f"m{n}", user=user, minutes=minutes)])
        stores.profile.upsert(fact("city", f"c{n}", f"m{n}", user=user, minutes=minutes))
    else:
        with pytest.raises(Boom), stores.db.transaction():
            stores.log.append([message(f"m{n}", user=user, minutes=minutes + 10)])
            stores.profile.upsert(fact("city", f"r{n}", f"m{n}", user=user))
            raise Boom


def test_a_reader_during_a_write_never_sees_or_keeps_it_uncommitted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A reader thread reads while the writer's transaction is open: it gets the committed
    profile, and once the writer commits, every read gets the new one."""
    from memfold.stores import duckdb_stores
    from memfold.stores.duckdb import DuckDBDatabase
    from memfold.stores.memory import InMemoryVectorIndex

    stores = duckdb_stores(DuckDBDatabase(tmp_path / "m.duckdb"), InMemoryVectorIndex())
    try:
        stores.log.append([message("m1"), message("m2", minutes=1)])
        stores.profile.upsert(fact("city", "Austin", "m1"))
        written, read = threading.Event(), threading.Event()
        seen: list[str] = []

        def reader() -> None:
            written.wait(10)
            seen.append(stores.profile.list("ana")[0].value)  # while the write is open
            read.set()

        thread = threading.Thread(target=reader)
        thread.start()
        with stores.db.transaction():
            stores.profile.upsert(fact("city", "Boston", "m2", minutes=1))
            written.set()
            assert read.wait(10)
        thread.join(10)
        assert seen == ["Austin"]
        assert stores.profile.list("ana")[0].value == "Boston"
    finally:
        stores.close()
