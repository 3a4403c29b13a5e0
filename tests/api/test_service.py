"""The REST service over a real loopback socket: keys and their scopes, limits, health,
errors as JSON, and the OpenAPI document."""

from __future__ import annotations

import threading

import httpx
import pytest

from memfold.client import MemoryClient
from memfold.errors import (
    AuthenticationError,
    PermissionDeniedError,
    RateLimitedError,
    RequestTooLargeError,
    ServerUnavailableError,
)
from memfold.service.app import create_app
from memfold.service.server import running_in_thread

from .conftest import msg, open_store


def test_no_key_is_401_and_an_unknown_key_is_401(keyed_server):
    url, _ = keyed_server
    for key in (None, "wrong"):
        with MemoryClient(url, api_key=key) as client, pytest.raises(AuthenticationError):
            client.recall("hello", "alice")


def test_a_key_scoped_to_alice_gets_403_for_bob_on_every_user_route(keyed_server):
    url, memory = keyed_server
    memory.ingest(msg("b1", "Bob's secret: the safe code is in the drawer.", user="bob"))
    with MemoryClient(url, api_key="key-a") as alice:
        calls = [lambda: alice.recall("safe", "bob"), lambda: alice.context("safe", "bob"),
                 lambda: alice.search("safe", "bob"), lambda: alice.profile("bob"),
                 lambda: alice.profile_history("bob"), lambda: alice.explain("bob", "user", "job"),
                 lambda: alice.events("bob"), lambda: alice.episodes("bob"),
                 lambda: alice.semantic("bob"), lambda: alice.fold("bob"),
                 lambda: alice.set_fact("bob", "job", "x", sources=["b1"]),
                 lambda: alice.delete_fact("bob", "job"), lambda: alice.remove_message("bob", "b1"),
                 lambda: alice.forget("bob"), lambda: list(alice.export("bob")),
                 lambda: alice.ingest(msg("b2", "I am bob now", user="bob"))]
        for call in calls:
            with pytest.raises(PermissionDeniedError):
                call()
    assert memory.stats()["users"]["bob"]["messages"] == 1  # nothing was changed


def test_a_batch_with_one_foreign_message_stores_nothing(keyed_server):
    url, memory = keyed_server
    with MemoryClient(url, api_key="key-a") as alice, pytest.raises(PermissionDeniedError):
        alice.ingest_many([msg("a1", "I like tea.", user="alice"), msg("x1", "hi", user="bob")])
    assert "alice" not in memory.users()


def test_a_scoped_key_sees_only_its_users_in_listings(keyed_server):
    url, memory = keyed_server
    memory.ingest(msg("a1", "I like green tea.", user="alice"))
    memory.ingest(msg("b1", "I like coffee.", user="bob"))
    with MemoryClient(url, api_key="key-a") as alice, MemoryClient(url, api_key="key-admin") as admin:
        assert alice.users() == ["alice"]
        assert set(alice.stats()["users"]) == {"alice"}
        assert {r["data"]["user_id"] for r in alice.export()} == {"alice"}
        assert set(admin.users()) == {"alice", "bob"}


def test_errors_are_json_with_the_class_name(keyed_server):
    url, _ = keyed_server
    headers = {"Authorization": "Bearer key-a"}
    response = httpx.put(f"{url}/v1/profile/facts", headers=headers,
                         json={"user_id": "alice", "key": "diet", "value": "vegan", "sources": []})
    assert response.status_code == 422
    assert response.json()["error"]["type"] == "EvidenceRequiredError"
    response = httpx.post(f"{url}/v1/recall", headers=headers, json={"user_id": "alice"})
    assert response.status_code == 422 and "query" in response.json()["error"]["message"]
    response = httpx.get(f"{url}/v1/nowhere", headers=headers)
    assert response.status_code == 404 and "error" in response.json()


def test_a_naive_timestamp_is_refused_with_422(keyed_server):
    url, _ = keyed_server
    response = httpx.get(f"{url}/v1/events", headers={"X-API-Key": "key-a"},
                         params={"user_id": "alice", "since": "2024-05-01T00:00:00"})
    assert response.status_code == 422


def test_a_body_over_the_limit_is_413_and_nothing_is_stored(tmp_path):
    memory = open_store(tmp_path)
    with running_in_thread(create_app(memory, max_request_bytes=2_000)) as url:
        big = [msg(f"m{i}", "x " * 200, user="ana") for i in range(20)]
        with MemoryClient(url) as client, pytest.raises(RequestTooLargeError):
            client.ingest_many(big)
        chunked = httpx.post(f"{url}/v1/messages/batch", content=iter([b'{"messages": [', b" " * 3_000]),
                             headers={"content-type": "application/json"})
        assert chunked.status_code == 413
    assert memory.users() == []
    memory.close()


def test_the_rate_limit_answers_429_with_retry_after(tmp_path):
    memory = open_store(tmp_path)
    # one token per 100 s: the bucket cannot refill while the test runs, however slow the machine
    with running_in_thread(create_app(memory, rate=0.01, burst=3)) as url:
        statuses = [httpx.get(f"{url}/v1/users").status_code for _ in range(6)]
        assert statuses == [200, 200, 200, 429, 429, 429]
        limited = httpx.get(f"{url}/v1/users")
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        with MemoryClient(url) as client, pytest.raises(RateLimitedError):
            client.users()
    memory.close()


def test_health_and_readiness(tmp_path):
    memory = open_store(tmp_path)
    with running_in_thread(create_app(memory)) as url:
        assert httpx.get(f"{url}/healthz").json() == {"status": "ok"}
        assert httpx.get(f"{url}/readyz").status_code == 200
        memory.close()  # a closed store is alive but not ready
        assert httpx.get(f"{url}/healthz").status_code == 200
        assert httpx.get(f"{url}/readyz").status_code == 503
        with MemoryClient(url) as client, pytest.raises(ServerUnavailableError):
            client.health()


def test_an_unreachable_server_is_server_unavailable():
    with MemoryClient("http://127.0.0.1:9", timeout=2) as client, pytest.raises(ServerUnavailableError):
        client.users()


def test_reads_answer_while_writes_are_in_flight(tmp_path):
    memory = open_store(tmp_path)
    memory.ingest(msg("seed", "I live in Lisbon.", user="ana"))
    with running_in_thread(create_app(memory)) as url:
        errors: list[BaseException] = []

        def write(n: int) -> None:
            with MemoryClient(url) as client:
                for i in range(15):
                    try:
                        client.ingest(msg(f"w{n}-{i}", f"Note {i} from writer {n}.", user="ana", minutes=i))
                    except BaseException as exc:  # collected and re-raised below, in the test thread
                        errors.append(exc)

        writers = [threading.Thread(target=write, args=(n,)) for n in range(3)]
        for thread in writers:
            thread.start()
        with MemoryClient(url) as reader:
            answers = [reader.recall("Where do I live?", "ana") for _ in range(10)]
        for thread in writers:
            thread.join()
        assert not errors
        assert all(any("seed" in item.sources for item in a.items) for a in answers)
    assert memory.stats()["users"]["ana"]["messages"] == 46
    memory.close()


def test_every_route_is_in_the_openapi_document_with_a_summary(keyed_server):
    url, _ = keyed_server
    document = httpx.get(f"{url}/openapi.json").json()
    operations = [op for path in document["paths"].values() for op in path.values()]
    assert len(operations) >= 20
    assert all(op.get("summary") for op in operations)


def test_concurrent_single_message_ingests_each_get_their_own_answer(tmp_path):
    """Group commit: requests that wait for the write lock are stored together, but each
    request still gets its own decision, or its own 422 for a bad message."""
    memory = open_store(tmp_path)
    with running_in_thread(create_app(memory)) as url:
        answers: dict[str, int] = {}
        decisions: dict[str, str] = {}

        def send(n: int) -> None:
            with httpx.Client(base_url=url, timeout=60) as client:
                for i in range(6):
                    body = msg(f"c{n}-{i}", f"Client {n} note {i}: I bought {i} apples.", user="ana", minutes=i)
                    if i == 3:
                        body.pop("ts")  # a bad one in the middle
                    response = client.post("/v1/messages", json=body)
                    answers[body["msg_id"]] = response.status_code
                    if response.status_code == 200:
                        decisions[body["msg_id"]] = response.json()["msg_id"]

        threads = [threading.Thread(target=send, args=(n,)) for n in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(set(answers.values())) == [200, 422]
    assert all(code == 422 for key, code in answers.items() if key.endswith("-3"))
    assert all(decisions[key] == key for key, code in answers.items() if code == 200)
    stored = {r["data"]["msg_id"] for r in memory.export("ana") if r["type"] == "message"}
    assert stored == {key for key, code in answers.items() if code == 200}
    memory.close()
