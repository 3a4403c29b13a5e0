"""The scratchpad and knowledge-base methods, on ``Memory`` and on ``MemoryClient``: same
records, same errors. The knowledge base needs a key for every user over REST."""

from __future__ import annotations

import pytest

from memfold.client import MemoryClient
from memfold.errors import InvalidInputError, NotStoredError, PermissionDeniedError
from memfold.models import KnowledgeReport, ScratchItem, TaskEnd, TaskState

from .conftest import msg

_TEXT = "The backup job runs at 02:00 and keeps thirty daily snapshots of every volume. " * 6


def test_a_task_is_written_read_and_burned(api, user):
    item = api.task_write(user, "t1", "plan", ["one", "two"], kind="plan")
    assert isinstance(item, ScratchItem) and item.value == ["one", "two"]
    api.task_write(user, "t1", "call", {"tool": "search", "args": {"q": "flights"}}, kind="tool_call")
    state = api.task_read(user, "t1")
    assert isinstance(state, TaskState) and [i.key for i in state.items] == ["plan", "call"]
    assert state.expires_at is not None
    assert [t.task_id for t in api.tasks(user)] == ["t1"]
    ctx = api.context("what is the plan", user, 800, task_id="t1")
    assert "task" in {s.name for s in ctx.sections} and any(i.store == "task" for i in ctx.items)
    assert "task" not in {s.name for s in api.context("what is the plan", user, 800).sections}
    assert {r["type"] for r in api.export(user)} == {"task_item"}
    end = api.end_task(user, "t1")
    assert isinstance(end, TaskEnd) and end.items == 2
    assert api.task_read(user, "t1").items == [] and api.tasks(user) == []


def test_the_task_handle_works_on_both(api, user):
    with api.task(user, "t2") as task:  # type: ignore[attr-defined]
        task.write("found", "The invoice is overdue by 12 days.", kind="result")
        decision = task.promote("found")
    assert api.task_read(user, "t2").items == []
    exported = [r["data"] for r in api.export(user) if r["type"] == "message"]
    assert [m["msg_id"] for m in exported] == [decision.msg_id] == ["task:t2:found"]
    assert exported[0]["meta"]["promoted_from_task"] == "t2"


def test_scratchpad_errors_are_the_same_class(api, user):
    with pytest.raises(InvalidInputError):
        api.task_write(user, "t1", "k", "v", kind="diary")
    with pytest.raises(InvalidInputError):
        api.task_write(user, "", "k", "v")
    with pytest.raises(NotStoredError):
        api.promote(user, "never", "k")
    assert api.tasks(user) == []


def test_knowledge_is_added_versioned_searched_and_removed(api, user):
    namespace = f"ns-{user}"
    report = api.add_knowledge(namespace, [{"doc_id": "backup", "text": _TEXT, "title": "Backups"}])
    assert isinstance(report, KnowledgeReport) and [d.version for d in report.added] == [1]
    again = api.add_knowledge(namespace, [{"doc_id": "backup", "text": _TEXT + " Restores take an hour."}])
    assert again.replaced == ["backup"] and [d.version for d in api.knowledge(namespace)] == [2]
    found = api.search_knowledge("when does the backup job run", namespace, k=3)
    assert found and {i.meta["version"] for i in found} == {2}
    assert all(i.store == "knowledge" and i.meta["namespace"] == namespace for i in found)
    removed = api.remove_knowledge(namespace)
    assert removed.removed == ["backup"] and api.knowledge(namespace) == []
    with pytest.raises(NotStoredError):
        api.remove_knowledge(namespace, "backup")
    with pytest.raises(InvalidInputError):
        api.add_knowledge(namespace, [{"doc_id": "empty", "text": " "}])
    assert api.knowledge(namespace) == []


def test_a_granted_namespace_reaches_recall_and_context(api, user):
    api.add_knowledge("contract-kb", [{"doc_id": f"backup-{user}", "text": _TEXT}])
    api.ingest(msg("r1", "I run the storage cluster.", user="reader"))
    result = api.recall("when does the backup job run", "reader", k=5)
    assert any(i.meta["doc_id"] == f"backup-{user}" for i in result.knowledge)
    assert api.recall("when does the backup job run", user, k=5).knowledge == []  # not granted
    assert "contract-kb/" in api.context("when does the backup job run", "reader", 1500).system
    api.remove_knowledge("contract-kb", f"backup-{user}")


def test_the_knowledge_base_needs_a_key_for_every_user(keyed_server):
    url, memory = keyed_server
    with MemoryClient(url, api_key="key-a") as scoped:
        with pytest.raises(PermissionDeniedError):
            scoped.add_knowledge("manual", [{"doc_id": "d", "text": _TEXT}])
        with pytest.raises(PermissionDeniedError):
            scoped.knowledge()
        scoped.task_write("alice", "t", "k", "mine")  # a task is the user's own: scoped is enough
        with pytest.raises(PermissionDeniedError):
            scoped.task_read("bob", "t")
    with MemoryClient(url, api_key="key-admin") as admin:
        admin.add_knowledge("manual", [{"doc_id": "d", "text": _TEXT}])
        assert [d.doc_id for d in admin.knowledge()] == ["d"]
        assert {r["type"] for r in admin.export()} >= {"knowledge_doc", "knowledge_chunk", "task_item"}
