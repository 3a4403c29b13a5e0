"""Two `memfold serve` replicas on one PostgreSQL database and one Chroma server (the
session's throwaway ones), driven over HTTP the way a load balancer would: concurrent
writes for the same users through both (nothing lost, duplicated or folded twice, the
changelog unbroken), kill -9 of one replica mid-ingest (no acknowledged write lost),
isolation between users, and a forget through one replica seen by the other."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold.client import MemoryClient
from memfold.errors import MemfoldError
from memfold.stores import Stores
from memfold.stores.chroma import ChromaVectorIndex, http_client
from memfold.stores.postgres import connect, postgres_stores

from .replicas import Replica, server_env

CITIES = ("Lisbon", "Porto", "Madrid", "Berlin", "Paris", "Rome", "Oslo", "Vienna")
COLORS = ("green", "blue", "red", "yellow", "purple")
CLIENTS = 16


@pytest.fixture(scope="module")
def deployment(pg_cluster, chroma_server, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """Two replicas on a fresh schema; the test module's users are its own."""
    database_url = pg_cluster.url(pg_cluster.new_schema())
    env = server_env(database_url, chroma_server.url)
    root = tmp_path_factory.mktemp("replicas")
    replicas = [Replica(root / f"replica{i}", env) for i in range(2)]
    starting = [threading.Thread(target=r.start) for r in replicas]
    for thread in starting:
        thread.start()
    for thread in starting:
        thread.join()
    yield {"replicas": replicas, "database_url": database_url, "chroma_url": chroma_server.url}
    for replica in replicas:
        replica.stop()
    _reset_index(chroma_server.url)  # the Chroma server outlives this module


def _reset_index(chroma_url: str) -> None:
    index = ChromaVectorIndex(client=http_client(chroma_url))
    index.reset()
    index.close()


def _stores(deployment: dict[str, Any]) -> Stores:
    """The deployment's stores, read directly (no sync runs, unlike Memory.open)."""
    return postgres_stores(connect(deployment["database_url"]),
                           ChromaVectorIndex(client=http_client(deployment["chroma_url"])))


def _message(user: str, n: int) -> dict[str, Any]:
    texts = (f"I live in {CITIES[n % len(CITIES)]}.",
             f"My favorite color is {COLORS[n % len(COLORS)]}.",
             f"We talked about the weather and the trains today, note {n}.")
    return {"msg_id": f"{user}-m{n}", "user_id": user, "session_id": "s1", "speaker": "Ana",
            "text": texts[n % len(texts)], "ts": f"2024-01-{1 + n // 600:02d}T10:{n // 60 % 10:02d}:"
            f"{n % 60:02d}Z"}


def _ingest_through(replicas: list[Replica], messages: list[dict[str, Any]],
                    acked: dict[str, str], stop: threading.Event | None = None, *,
                    batch: int = 1) -> Counter[str]:
    """CLIENTS threads, each on one replica (alternating), ingest ``messages`` one by one
    (or ``batch`` at a time, mixing users); the ids answered 2xx go to ``acked``; returns
    the error kinds."""
    errors: Counter[str] = Counter()
    lock = threading.Lock()
    queue = [messages[i:i + batch] for i in range(0, len(messages), batch)][::-1]

    def send(remote: MemoryClient, group: list[dict[str, Any]]) -> None:
        if batch == 1:
            remote.ingest(group[0])
            return
        report = remote.ingest_many(group)
        assert report.accepted + report.duplicates == len(group), report

    def client(number: int) -> None:
        with MemoryClient(replicas[number % len(replicas)].url, timeout=60) as remote:
            while not (stop is not None and stop.is_set()):
                with lock:
                    if not queue:
                        return
                    group = queue.pop()
                try:
                    send(remote, group)
                except MemfoldError as exc:
                    with lock:
                        errors[type(exc).__name__] += 1
                    continue
                with lock:
                    acked.update((m["msg_id"], m["user_id"]) for m in group)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def _stored_ids(url: str, users: set[str]) -> dict[str, Counter[str]]:
    with MemoryClient(url, timeout=60) as remote:
        return {user: Counter(r["data"]["msg_id"] for r in remote.export(user)
                              if r["type"] == "message") for user in sorted(users)}


def _check_changelog(remote: MemoryClient, user: str) -> None:
    """Per key, the changes form one unbroken chain ending at the current value: an update
    lost to a race would leave two changes starting from the same old value."""
    current = {(f.subject, f.key): f.value for f in remote.profile(user)}
    chains: dict[tuple[str, str], list[Any]] = {}
    for change in remote.profile_history(user):
        chains.setdefault((change.subject, change.key), []).append(change)
    assert set(current) <= set(chains), "a fact without its changelog row"
    for key, changes in chains.items():
        previous = None
        for change in changes:
            assert change.old_value == previous, (user, key, [(c.old_value, c.new_value) for c in changes])
            previous = change.new_value
        assert previous == current.get(key), (user, key)


def _wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


@pytest.mark.parametrize("batch", [
    pytest.param(20, id="batches-of-20"),  # 100 requests, each locking several users
    pytest.param(1, id="one-per-request", marks=pytest.mark.slow)])  # 2,000 requests: ~45 s
def test_2000_concurrent_writes_for_overlapping_users_through_two_replicas(
        deployment, batch: int) -> None:
    replicas = deployment["replicas"]
    users = [f"w{batch}.{u}" for u in range(8)]
    messages = [_message(users[n % len(users)], n // len(users)) for n in range(2000)]
    random.Random(19).shuffle(messages)
    acked: dict[str, str] = {}
    errors = _ingest_through(replicas, messages, acked, batch=batch)
    assert not errors and len(acked) == 2000

    stored = _stored_ids(replicas[1].url, set(users))
    assert sum(len(c) for c in stored.values()) == 2000  # 0 lost
    assert all(n == 1 for c in stored.values() for n in c.values())  # 0 duplicated
    with MemoryClient(replicas[0].url) as remote:
        for user in users:
            facts = remote.profile(user)
            assert len({(f.subject, f.key) for f in facts}) == len(facts)
            assert {"location", "favorite:color"} <= {f.key for f in facts}
            _check_changelog(remote, user)
    with _stores(deployment) as stores:
        for user in users:  # every message entered compaction exactly once: no double fold
            assert stores.folds.load(user).total_turns_seen == 250
        assert _wait_until(lambda: stores.archive.count_unindexed() == 0)
        assert stores.index.count() == stores.archive.count()


def test_kill_9_of_one_replica_mid_ingest_loses_no_acknowledged_write(deployment) -> None:
    replicas = deployment["replicas"]
    users = [f"k{u}" for u in range(6)]
    messages = [_message(users[n % len(users)], n // len(users)) for n in range(3000)]
    acked: dict[str, str] = {}
    stop = threading.Event()
    load = threading.Thread(target=_ingest_through, args=(replicas, messages, acked, stop))
    load.start()
    time.sleep(2.0)
    victim = replicas[0]
    before = len(acked)
    victim.kill9()
    time.sleep(1.0)  # the survivor keeps taking writes
    stop.set()
    load.join()
    assert before > 0 and len(acked) > before
    stored = _stored_ids(replicas[1].url, set(users))
    lost = [m for m, user in acked.items() if not stored[user][m]]
    assert lost == []
    assert all(n == 1 for c in stored.values() for n in c.values())
    victim.start()  # the restarted replica's open reconciles the index with the database
    with _stores(deployment) as stores:
        assert _wait_until(lambda: stores.archive.count_unindexed() == 0)
        for user in users:
            assert stores.folds.load(user).total_turns_seen == sum(stored[user].values())


def test_users_never_see_each_other_through_either_replica(deployment) -> None:
    replicas = deployment["replicas"]
    rng = random.Random(7)
    users = [f"iso{u}" for u in range(10)]
    token = {user: f"zq{rng.randrange(10**8):08d}" for user in users}
    messages = [{"msg_id": f"{user}-{n}", "user_id": user, "session_id": "s", "speaker": "X",
                 "text": f"My code word is {token[user]} and I live in {CITIES[n % 8]}.",
                 "ts": f"2024-02-01T10:00:{n:02d}Z"} for user in users for n in range(12)]
    rng.shuffle(messages)
    acked: dict[str, str] = {}
    assert not _ingest_through(replicas, messages, acked)
    for _ in range(60):
        asker, owner = rng.sample(users, 2)
        with MemoryClient(rng.choice(replicas).url) as remote:
            seen = [item.text for item in remote.recall(f"code word {token[owner]}", asker, k=20).items]
            seen += [f.value for f in remote.profile(asker)]
            seen += [i.text for i in remote.search(token[owner], asker, k=20)]
            assert seen and not any(token[owner] in text for text in seen)


def test_forget_through_one_replica_is_seen_by_the_other(deployment) -> None:
    one, two = deployment["replicas"]
    messages = [_message(user, n) for user in ("fa", "fb") for n in range(30)]
    acked: dict[str, str] = {}
    assert not _ingest_through([one, two], messages, acked)
    with MemoryClient(one.url) as first, MemoryClient(two.url) as second:
        assert second.recall("where do I live", "fa").items  # warms the other's caches
        report = first.forget("fa")
        assert report.messages == 30
        assert "fa" not in second.users()
        assert second.profile("fa") == [] and second.recall("where do I live", "fa").items == []
        assert second.search("Lisbon", "fa") == [] and list(second.export("fa")) == []
        assert len(second.profile("fb")) > 0  # the other user is untouched
        second.ingest(_message("fa", 100))  # a new message after the forget: a fresh start
        assert [r["data"]["msg_id"] for r in first.export("fa") if r["type"] == "message"] == ["fa-m100"]
