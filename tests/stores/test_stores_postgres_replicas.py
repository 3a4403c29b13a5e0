"""Two processes ("replicas") on one PostgreSQL database, at the store layer: index sync
claims its rows (a replica never marks indexed a row another one re-added meanwhile, and
two syncs never index the same row at once), and ``db.run`` replays a transaction that a
deadlock aborted. The facade-level replica tests are in tests/facade/test_replicas.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest
from pg_cluster import PostgresCluster
from stores_helpers import item

from memfold.embed.hashing import HashingEmbedder
from memfold.errors import WriteConflictError
from memfold.stores import Stores
from memfold.stores.memory import InMemoryVectorIndex
from memfold.stores.postgres import connect, postgres_stores
from memfold.stores.sync import sync_index


class GatedEmbedder:
    """The hashing embedder, but ``embed`` waits until ``gate`` is set (a slow model)."""

    def __init__(self) -> None:
        self.base = HashingEmbedder()
        self.name, self.dim = self.base.name, self.base.dim
        self.entered = threading.Event()
        self.gate = threading.Event()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.entered.set()
        assert self.gate.wait(20), "the test never opened the gate"
        return self.base.embed(texts)


def _replicas(cluster: PostgresCluster) -> tuple[Stores, Stores]:
    """Two store sets on one fresh schema sharing one vector index (the Chroma server)."""
    schema = cluster.new_schema()
    index = InMemoryVectorIndex()
    return (postgres_stores(connect(cluster.conninfo(schema)), index),
            postgres_stores(connect(cluster.conninfo(schema)), index))


def _in_thread(work: object) -> threading.Thread:
    thread = threading.Thread(target=work)  # type: ignore[arg-type]
    thread.start()
    return thread


def _score(stores: Stores, text: str, item_id: str) -> float:
    [vector] = HashingEmbedder().embed([text])
    return dict(stores.index.query("ana", vector, 5)).get(item_id, 0.0)


def test_a_row_re_added_while_another_replica_indexes_it_gets_its_new_text_indexed(
        pg_cluster: PostgresCluster) -> None:
    one, two = _replicas(pg_cluster)
    with one, two:
        one.archive.add([item("x", "the old text about Lisbon")])
        slow = GatedEmbedder()
        syncing = _in_thread(lambda: sync_index(one, slow))
        assert slow.entered.wait(10)  # `one` holds its claim on x and embeds the old text
        re_add = _in_thread(lambda: two.archive.add([item("x", "the new text about Porto")]))
        time.sleep(0.3)
        assert re_add.is_alive()  # the re-add waits for the claim: it cannot be marked over
        slow.gate.set()
        syncing.join(20)
        re_add.join(20)
        assert two.archive.count_unindexed() == 1  # queued again, with its new text
        assert sync_index(two, HashingEmbedder()).indexed == 1
        assert _score(two, "the new text about Porto", "x") == pytest.approx(1.0, abs=1e-5)


def test_two_replicas_syncing_at_once_never_index_the_same_rows(pg_cluster: PostgresCluster) -> None:
    one, two = _replicas(pg_cluster)
    with one, two:
        one.archive.add([item("a", "first row"), item("b", "second row")])
        slow = GatedEmbedder()
        syncing = _in_thread(lambda: sync_index(one, slow))
        assert slow.entered.wait(10)
        started = time.perf_counter()
        report = sync_index(two, HashingEmbedder())  # skips the claimed rows, does not wait
        assert report.indexed == 0 and time.perf_counter() - started < 5
        slow.gate.set()
        syncing.join(20)
        assert one.archive.count_unindexed() == 0 and one.index.count() == 2


def test_run_replays_the_transaction_a_deadlock_aborted(pg_cluster: PostgresCluster) -> None:
    one, two = _replicas(pg_cluster)
    attempts: list[str] = []
    both_hold_one_lock = threading.Barrier(2, timeout=10)

    def crossing(stores: Stores, first: str, second: str) -> None:
        attempts.append(first)
        stores.db.advisory_lock(first)  # type: ignore[attr-defined]
        if attempts.count(first) == 1:  # the first attempt: wait until the other holds its lock
            both_hold_one_lock.wait()
        stores.db.advisory_lock(second)  # type: ignore[attr-defined]

    with one, two:
        threads = [_in_thread(lambda: one.db.run(lambda: crossing(one, "a", "b"))),  # type: ignore[attr-defined]
                   _in_thread(lambda: two.db.run(lambda: crossing(two, "b", "a")))]  # type: ignore[attr-defined]
        for thread in threads:
            thread.join(30)
        assert sorted(attempts) in (["a", "a", "b"], ["a", "b", "b"])  # one replayed, both done

        def always_deadlocks() -> None:
            attempts.append("x")
            raise WriteConflictError("deadlock detected")

        with pytest.raises(WriteConflictError):
            one.db.run(always_deadlocks, retries=2)  # type: ignore[attr-defined]
        assert attempts.count("x") == 3
