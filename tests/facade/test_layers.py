"""The scratchpad (one task) and the knowledge base (no user) through the facade: what each
layer keeps, for how long, and who reads it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from memfold.config import Settings
from memfold.embed import HashingEmbedder
from memfold.errors import InvalidInputError, NotStoredError
from memfold.memory import Memory
from memfold.models import ScratchItem, utcnow

from .conftest import msg

GRANTS = {"*": ["manual"], "ana": ["internal"]}


def _memory(**extra) -> Memory:
    settings = Settings(embedder="hashing", backend="offline", knowledge_grants=GRANTS, **extra)
    return Memory.in_memory(settings, embedder=HashingEmbedder())


def _everything_but_the_scratchpad(memory: Memory) -> str:
    """Every other layer of every user as one text: log, profile, events, documents, archive,
    fold state (L1-L3), the vector index's ids and the knowledge base."""
    stores = memory.stores
    parts = []
    for user in memory.users():
        parts += [m.model_dump_json() for m in stores.log.list(user)]
        parts += [f.model_dump_json() for f in stores.profile.list(user)]
        parts += [c.model_dump_json() for c in stores.profile.history(user)]
        parts += [e.model_dump_json() for e in stores.events.range(user)]
        parts += [d.model_dump_json() for d in stores.documents.list(user)]
        parts += [a.model_dump_json() for a in stores.archive.list(user)]
        state = stores.folds.load(user)
        parts.append(state.model_dump_json() if state else "")
        parts += sorted(stores.index.ids(user))
    parts += [d.model_dump_json() for d in stores.knowledge.documents()]
    parts += [c.text for ns in {d.namespace for d in stores.knowledge.documents()}
              for c in stores.knowledge.chunks(ns)]
    return "\n".join(parts)


# -- scratchpad -----------------------------------------------------------------------------

_step = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(["plan", "result", "call"])),
    st.tuples(st.just("talk"), st.integers(0, 3)),
    st.tuples(st.just("end"), st.none()),
    st.tuples(st.just("fold"), st.none()),
)


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_step, min_size=1, max_size=25))
def test_a_scratchpad_item_never_leaves_its_task(steps):
    memory = _memory()
    task, written, burned, turn = 0, {}, set(), 0
    try:
        for action, arg in steps:
            if action == "write":
                canary = f"zqxcanary{len(written) + len(burned)}x"
                memory.task_write("ana", f"t{task}", f"{arg}{len(written)}", f"{canary} partial result",
                                  kind="result")
                written[canary] = task
            elif action == "talk":
                turn += 1
                memory.ingest(msg(f"m{turn}", f"Planning step {arg}: book the hotel near the station.",
                                  minutes=turn, role=["user", "assistant", "tool", "document"][arg]))
            elif action == "fold":
                memory.fold("ana")
            else:
                memory.end_task("ana", f"t{task}")
                burned |= set(written)
                written, task = {}, task + 1
            others = _everything_but_the_scratchpad(memory)
            assert not any(c in others for c in [*written, *burned])
            later = memory.context("partial result canary", "ana", 4000, task_id=f"t{task}")
            shown = later.system + json.dumps(later.messages)
            assert not any(c in shown for c in burned)  # a later task never sees an ended one
            assert all(c in shown for c in written)  # the open task's own notes are in its context
            assert not any(c in memory.context("partial result", "ana", 4000).system for c in written)
    finally:
        memory.close()


def test_the_task_handle_writes_reads_and_burns_on_exit():
    with _memory() as memory:
        with memory.task("ana", "trip") as task:
            task.write("plan", ["flights", "hotel"], kind="plan")
            task.write("flights", {"cheapest": "TP 1234"}, kind="result")
            task.write("plan", ["hotel"], kind="plan")  # an overwrite keeps its place
            assert task.values() == {"plan": ["hotel"], "flights": {"cheapest": "TP 1234"}}
            assert [t.task_id for t in memory.tasks("ana")] == ["trip"]
            assert memory.tasks("bob") == [] and memory.task_read("bob", "trip").items == []
            section = {s.name: s.items for s in task.context("book it").sections}
            assert section["task"] == 2
        assert memory.task_read("ana", "trip").items == [] and memory.tasks("ana") == []


def test_promote_keeps_one_item_with_its_provenance():
    with _memory() as memory:
        memory.task_write("ana", "t1", "finding", "The Lisbon office moved to Avenida da Liberdade.",
                          kind="result")
        memory.task_write("ana", "t1", "scratch", "zqxdiscarded intermediate")
        decision = memory.promote("ana", "t1", "finding")
        memory.end_task("ana", "t1")
        [stored] = memory.stores.log.get("ana", [decision.msg_id])
        assert stored.role == "tool" and stored.meta["promoted_from_task"] == "t1"
        assert stored.meta["scratch_key"] == "finding" and stored.meta["scratch_kind"] == "result"
        assert decision.msg_id in memory.recall("Where did the Lisbon office move?", "ana").sources()
        assert "zqxdiscarded" not in _everything_but_the_scratchpad(memory)
        with pytest.raises(NotStoredError):
            memory.promote("ana", "t1", "scratch")  # the task ended: too late


def test_tasks_left_open_expire():
    with _memory(task_ttl_seconds=60) as memory:
        old = utcnow() - timedelta(minutes=5)
        memory.stores.scratchpad.put(ScratchItem(user_id="ana", task_id="stale", key="k", value=1,
                                                 written_at=old))
        assert memory.task_read("ana", "stale").items == []  # reads as burned at once
        assert memory.tasks("ana") == []
        sections = memory.context("k", "ana", 1000, task_id="stale").sections
        assert "task" not in {s.name for s in sections}
        assert [t.task_id for t in memory.stores.scratchpad.tasks()] == ["stale"]  # reads never write
        memory.task_write("ana", "live", "k", 2)  # a write burns what expired
        memory.task_write("ana", "other", "k", 3)
        assert {t.task_id for t in memory.stores.scratchpad.tasks()} == {"live", "other"}
        expired = memory.expire_tasks(now=utcnow() + timedelta(minutes=2))
        assert {t.task_id for t in expired} == {"live", "other"} and memory.stores.scratchpad.tasks() == []


def test_bad_scratchpad_input_is_refused_and_loses_nothing():
    with _memory() as memory:
        memory.task_write("ana", "t1", "k", "kept")
        for bad in [dict(value=object()), dict(kind="diary"), dict(key=" k"), dict(task_id="")]:
            args = {"key": "k2", "value": "v", "kind": "note", "task_id": "t1", **bad}
            with pytest.raises(InvalidInputError):
                memory.task_write("ana", args.pop("task_id"), args.pop("key"), args.pop("value"), **args)
        assert memory.task(
            "ana", "t1").values() == {"k": "kept"}


# -- knowledge base -------------------------------------------------------------------------

_MANUAL = ("The router restarts when the reset button is held for ten seconds. "
           "Firmware updates install overnight and keep every setting. ")


def test_knowledge_is_recalled_in_its_own_section_with_its_version():
    with _memory() as memory:
        memory.add_knowledge("manual", [{"doc_id": "router", "text": _MANUAL * 40, "title": "Router"}])
        memory.ingest(msg("m1", "I bought the router last week."))
        result = memory.recall("how do I reset the router button", "ana", k=3)
        assert result.knowledge and all(i.store == "knowledge" for i in result.knowledge)
        assert result.knowledge[0].meta == {"namespace": "manual", "doc_id": "router", "version": 1,
                                            "chunk": result.knowledge[0].meta["chunk"]}
        assert all(i.store != "knowledge" for i in result.items)
        ctx = memory.context("how do I reset the router button", "ana", 1500)
        assert "## Knowledge base" in ctx.system and "manual/router v1" in ctx.system
        assert any(i.store == "knowledge" for i in ctx.items)


@hsettings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["guide", "faq"]), st.booleans()), min_size=1, max_size=12))
def test_a_replaced_or_removed_version_is_never_recalled(steps):
    memory = _memory()
    current: dict[str, str] = {}
    retired: set[str] = set()
    try:
        for n, (doc_id, remove) in enumerate(steps):
            if remove and doc_id in current:
                memory.remove_knowledge("manual", doc_id)
                retired.add(current.pop(doc_id))
            else:
                canary = f"zqxversion{n}x"
                memory.add_knowledge("manual", [{"doc_id": doc_id, "text": f"{canary} {_MANUAL * 3}"}])
                if doc_id in current:
                    retired.add(current[doc_id])
                current[doc_id] = canary
            query = "reset button firmware " + " ".join(current.values())
            found = memory.search_knowledge(query, "manual", k=50)
            seen = " ".join(i.text for i in found) + memory.context(query, "ana", 4000).system
            assert not any(c in seen for c in retired)
            assert {i.meta["doc_id"] for i in found} == set(current)
            assert {d.doc_id: d.version for d in memory.knowledge("manual")}.keys() == current.keys()
            assert not any(c in _everything_but_the_scratchpad(memory) for c in retired)
    finally:
        memory.close()


def test_readding_the_same_text_keeps_the_version_and_new_text_bumps_it():
    with _memory() as memory:
        first = memory.add_knowledge("manual", [{"doc_id": "guide", "text": _MANUAL}])
        again = memory.add_knowledge("manual", [{"doc_id": "guide", "text": _MANUAL}])
        changed = memory.add_knowledge("manual", [{"doc_id": "guide", "text": _MANUAL + " New step."}])
        assert [d.version for d in first.added] == [1] and again.unchanged == ["guide"]
        assert [d.version for d in changed.added] == [2] and changed.replaced == ["guide"]
        assert {c.version for c in memory.stores.knowledge.chunks("manual")} == {2}


def test_users_read_only_the_namespaces_granted_to_them():
    with _memory() as memory:
        text = "zqxWHO escalation policy: page the on-call engineer after fifteen minutes. " * 5
        memory.add_knowledge("manual", [{"doc_id": "policy", "text": text.replace("WHO", "public")}])
        memory.add_knowledge("internal", [{"doc_id": "policy", "text": text.replace("WHO", "internal")}])
        memory.add_knowledge("secret", [{"doc_id": "policy", "text": text.replace("WHO", "secret")}])
        query = "escalation policy on-call engineer"

        def seen(user: str) -> str:
            found = memory.recall(query, user, k=20).knowledge
            return " ".join(i.text for i in found) + memory.context(query, user, 4000).system

        assert "zqxpublic" in seen("ana") and "zqxinternal" in seen("ana")
        assert "zqxpublic" in seen("bob") and "zqxinternal" not in seen("bob")
        assert "zqxsecret" not in seen("ana") + seen("bob")  # granted to nobody


def test_user_memories_never_enter_a_namespace_and_forget_leaves_it():
    with _memory() as memory:
        memory.add_knowledge("manual", [{"doc_id": "guide", "text": _MANUAL * 5}])
        before = (memory.knowledge(), memory.stores.knowledge.chunks("manual"))
        memory.ingest_many([msg("m1", "zqxuser " + _MANUAL * 5, role="document"),
                            msg("m2", "My router is in the attic.", minutes=1)])
        memory.task_write("ana", "t1", "k", "zqxuser note")
        memory.fold("ana")
        assert (memory.knowledge(), memory.stores.knowledge.chunks("manual")) == before
        report = memory.forget("ana")
        assert report.task_items == 1 and memory.stores.scratchpad.tasks() == []
        assert (memory.knowledge(), memory.stores.knowledge.chunks("manual")) == before
        assert memory.recall("reset button", "bob").knowledge
        assert memory.stats()["knowledge"] == {"manual": {"documents": 1, "chunks": len(before[1])}}


def test_forget_on_disk_keeps_the_namespace_and_burns_the_scratchpads(tmp_path):
    settings = Settings(store=tmp_path / "store", embedder="hashing", backend="offline",
                        knowledge_grants=GRANTS)
    with Memory.open(settings=settings) as memory:
        memory.add_knowledge("manual", [{"doc_id": "guide", "text": _MANUAL * 5}])
        memory.ingest(msg("m1", "I live in Porto."))
        memory.task_write("ana", "t1", "k", "zqxscratchcanary")
        memory.task_write("bob", "t1", "k", "bob's note")
        assert memory.forget("ana").task_items == 1
    raw = b"".join(p.read_bytes() for p in (tmp_path / "store").rglob("*") if p.is_file())
    assert b"zqxscratchcanary" not in raw
    with Memory.open(settings=settings) as memory:
        assert [d.doc_id for d in memory.knowledge("manual")] == ["guide"]
        assert memory.task_read("bob", "t1").items[0].value == "bob's note"
        assert memory.search_knowledge("reset button", "manual")


def test_bad_knowledge_input_is_refused_and_stores_nothing():
    with _memory() as memory:
        memory.add_knowledge("manual", [{"doc_id": "kept", "text": _MANUAL}])
        bad_batches = [[{"doc_id": "new", "text": _MANUAL}, {"doc_id": "empty", "text": "  "}],
                       [{"doc_id": "a", "text": "x"}, {"doc_id": "a", "text": "y"}],
                       [{"text": "no id"}], "just a string", [{"doc_id": "x", "text": "t", "extra": 1}]]
        for batch in bad_batches:
            with pytest.raises(InvalidInputError):
                memory.add_knowledge("manual", batch)
        with pytest.raises(InvalidInputError):
            memory.add_knowledge(" manual", [{"doc_id": "x", "text": "t"}])
        with pytest.raises(NotStoredError):
            memory.remove_knowledge("manual", "missing")
        with pytest.raises(NotStoredError):
            memory.remove_knowledge("nothing-here")
        assert [d.doc_id for d in memory.knowledge()] == ["kept"]


def test_export_and_import_carry_both_layers(tmp_path):
    with _memory() as memory:
        memory.add_knowledge("manual", [{"doc_id": "guide", "text": _MANUAL * 5, "title": "Guide"}])
        memory.add_knowledge("manual", [{"doc_id": "guide", "text": _MANUAL * 6, "title": "Guide"}])
        memory.ingest(msg("m1", "I live in Porto."))
        memory.task_write("ana", "t1", "plan", ["a", "b"], kind="plan")
        path = tmp_path / "export.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in memory.export()))
        user_only = list(memory.export("ana"))
        assert {r["type"] for r in user_only} >= {"task_item"}
        assert not {"knowledge_doc", "knowledge_chunk"} & {r["type"] for r in user_only}
        with _memory() as other:
            counts = other.import_file(path)
            assert counts["knowledge_doc"] == 1 and counts["task_item"] == 1
            assert other.knowledge() == memory.knowledge()
            assert other.stores.knowledge.chunks("manual") == memory.stores.knowledge.chunks("manual")
            assert other.task_read("ana", "t1").items == memory.task_read("ana", "t1").items
            assert other.search_knowledge("reset button", "manual")[0].meta["version"] == 2
