"""Contracts of the event log, document store, archive log, fold store, scratchpad and
knowledge store."""

from __future__ import annotations

import numpy as np
import pytest
from stores_helpers import T0, at, chunk, event, item, kb_doc, scratch

from memfold.errors import InvalidInputError
from memfold.models import Episode, FoldState, Note, SemanticMemory
from memfold.stores import Stores

# -- events -----------------------------------------------------------------------------


def test_events_range_is_half_open_and_oldest_first(stores: Stores) -> None:
    stores.events.append([event("e3", days=3), event("e1", days=1), event("e2", days=2)])
    assert [e.event_id for e in stores.events.range("ana")] == ["e1", "e2", "e3"]
    assert [e.event_id for e in stores.events.range("ana", start=at(days=2))] == ["e2", "e3"]
    assert [e.event_id for e in stores.events.range("ana", end=at(days=2))] == ["e1"]
    assert [e.event_id for e in stores.events.range("ana", limit=1)] == ["e1"]


def test_events_round_trip_and_subject_filter(stores: Stores) -> None:
    original = event("e1", "Mel adopted a cat", subject="mel", sources=("m1", "m2"))
    stores.events.append([original, event("e2")])
    assert stores.events.range("ana", subject="mel") == [original]
    assert stores.events.count("ana") == 2 and stores.events.count() == 2


def test_event_reappend_replaces(stores: Stores) -> None:
    stores.events.append([event("e1", "first")])
    stores.events.append([event("e1", "second")])
    assert [e.text for e in stores.events.range("ana")] == ["second"]


def test_events_delete_by_source_and_user(stores: Stores) -> None:
    stores.events.append([event("e1", sources=("m1",)), event("e2", sources=("m2", "m3")),
                          event("e3", sources=("m4",)), event("e1", user="bob")])
    assert stores.events.delete_by_source("ana", ["m3", "m4"]) == 2
    assert [e.event_id for e in stores.events.range("ana")] == ["e1"]
    assert stores.events.delete_by_source("ana", []) == 0
    assert stores.events.delete_user("ana") == 1
    assert stores.events.count("bob") == 1


# -- documents ----------------------------------------------------------------------------


def test_documents_get_and_list_in_order(stores: Stores) -> None:
    stores.documents.add([chunk("c2", index=1), chunk("c1", index=0), chunk("x", doc_id="d0")])
    assert [c.chunk_id for c in stores.documents.get("ana", "d1")] == ["c1", "c2"]
    assert [c.chunk_id for c in stores.documents.list("ana")] == ["x", "c1", "c2"]
    assert stores.documents.get("ana", "d1")[0] == chunk("c1", index=0)


def test_documents_by_sources_reads_only_the_cited_layers_of_that_user(stores: Stores) -> None:
    stores.documents.add([chunk("l2", layer=2, sources=("m1",)), chunk("l4", index=1, layer=4, sources=("m1", "m9")),
                          chunk("raw", layer=1, sources=("m1",)), chunk("other", doc_id="d2", layer=2, sources=("m2",)),
                          chunk("l2", user="bob", layer=2, sources=("m1",))])
    assert [c.chunk_id for c in stores.documents.by_sources("ana", ["m1"], min_layer=2)] == ["l2", "l4"]
    assert [c.chunk_id for c in stores.documents.by_sources("ana", ["m9", "m2"])] == ["l4", "other"]
    assert stores.documents.by_sources("ana", []) == []
    assert [c.user_id for c in stores.documents.by_sources("bob", ["m1"])] == ["bob"]


def test_documents_delete(stores: Stores) -> None:
    stores.documents.add([chunk("c1", sources=("m1",)), chunk("c2", index=1, sources=("m2",)),
                          chunk("c1", user="bob")])
    assert stores.documents.delete_by_source("ana", ["m2"]) == 1
    assert [c.chunk_id for c in stores.documents.list("ana")] == ["c1"]
    assert stores.documents.delete_user("ana") == 1
    assert len(stores.documents.list("bob")) == 1


# -- archive ------------------------------------------------------------------------------


def test_archive_round_trip_and_kinds(stores: Stores) -> None:
    original = item("a1", kind="fact", days=None)
    stores.archive.add([original, item("a2")])
    assert stores.archive.get("ana", ["a1"]) == [original]
    assert [i.item_id for i in stores.archive.list("ana", kinds=["message"])] == ["a2"]
    assert [i.item_id for i in stores.archive.list("ana")] == ["a1", "a2"]
    assert stores.archive.list("ana", kinds=[]) == []


def test_archive_indexed_flag(stores: Stores) -> None:
    stores.archive.add([item("a1"), item("a2"), item("a3")])
    assert stores.archive.count_unindexed() == 3
    stores.archive.mark_indexed(["a1", "a2", "ghost"])
    assert [i.item_id for i in stores.archive.unindexed()] == ["a3"]
    stores.archive.add([item("a1", "new key text")])  # re-adding marks the row unindexed again
    assert {i.item_id for i in stores.archive.unindexed()} == {"a1", "a3"}
    assert len(stores.archive.unindexed(limit=1)) == 1
    stores.archive.mark_all_unindexed()
    assert stores.archive.count_unindexed() == 3
    assert stores.archive.all_ids() == {"a1", "a2", "a3"}


def test_archive_delete_returns_ids(stores: Stores) -> None:
    stores.archive.add([item("a1", sources=("m1",)), item("a2", sources=("m2", "m1")),
                        item("a3", sources=("m3",)), item("b1", user="bob", sources=("m1",))])
    assert sorted(stores.archive.delete_by_source("ana", ["m1"])) == ["a1", "a2"]
    assert stores.archive.delete_user("ana") == ["a3"]
    assert stores.archive.count() == 1 and stores.archive.count("bob") == 1


def test_archive_get_never_crosses_users(stores: Stores) -> None:
    stores.archive.add([item("b1", user="bob")])
    assert stores.archive.get("ana", ["b1"]) == []


def test_archive_texts_are_the_rows_texts_of_that_user_only(stores: Stores) -> None:
    rows = [item("a1"), item("a2", sources=("m2",)), item("b1", user="bob")]
    stores.archive.add(rows)
    texts = stores.archive.texts("ana", ["a1", "a2", "b1", "missing"])
    assert texts == {r.item_id: r.text for r in rows[:2]}
    assert stores.archive.texts("ana", []) == {}
    assert stores.archive.texts("bob", ["a1"]) == {}


# -- fold state -----------------------------------------------------------------------------


def _state(user: str = "ana", folds: int = 1) -> FoldState:
    note = Note(text="likes tea", sources=["m1"], importance=0.9, updated_at=T0)
    episode = Episode(episode_id=1, user_id=user, turn_range=(0, 9), summary="talked",
                      notes=[note], sources=["m1"], started_at=T0, ended_at=at(5))
    return FoldState(user_id=user, episodes=[episode], folds=folds,
                     semantic=SemanticMemory(user_id=user, facts=[note], updated_at=T0))


class _Abort(Exception):
    pass


def test_a_loaded_fold_state_is_always_the_committed_one(stores: Stores) -> None:
    stores.folds.save(_state(folds=1))
    assert stores.folds.load("ana").folds == 1
    assert stores.folds.load("ana") == stores.folds.load("ana")  # a second read (cached or not)
    try:
        with stores.db.transaction():
            stores.folds.save(_state(folds=2))
            assert stores.folds.load("ana").folds == 2  # the transaction sees its own write
            raise _Abort
    except _Abort:
        pass
    assert stores.folds.load("ana").folds == 1  # rolled back: never the parsed state of the write
    stores.folds.save(_state(folds=3))
    assert stores.folds.load("ana").folds == 3
    stores.folds.delete_user("ana")
    assert stores.folds.load("ana") is None


def test_fold_state_round_trip_and_overwrite(stores: Stores) -> None:
    assert stores.folds.load("ana") is None
    stores.folds.save(_state(folds=1))
    stores.folds.save(_state(folds=2))
    assert stores.folds.load("ana") == _state(folds=2)
    assert stores.folds.delete_user("ana") == 1 and stores.folds.load("ana") is None
    assert stores.folds.delete_user("ana") == 0


# -- scratchpad -----------------------------------------------------------------------------


def test_scratchpad_is_per_user_and_task_and_clears(stores: Stores) -> None:
    stores.scratchpad.put(scratch("t1", "plan", ["step 1", "step 2"], kind="plan"))
    stores.scratchpad.put(scratch("t1", "result", {"rows": 3}, minutes=1, kind="result"))
    stores.scratchpad.put(scratch("t1", "plan", ["step 1 done"], minutes=2, kind="plan"))
    stores.scratchpad.put(scratch("t2", "note", "other task"))
    stores.scratchpad.put(scratch("t1", "note", "bob's own t1", user="bob"))
    items = stores.scratchpad.items("ana", "t1")
    assert [(i.key, i.value) for i in items] == [("plan", ["step 1 done"]), ("result", {"rows": 3})]
    assert items[0].written_at == at(minutes=2) and items[0].kind == "plan"
    assert [(t.user_id, t.task_id, t.items) for t in stores.scratchpad.tasks()] == [
        ("ana", "t1", 2), ("ana", "t2", 1), ("bob", "t1", 1)]
    assert stores.scratchpad.clear("ana", "t1") == 2
    assert stores.scratchpad.items("ana", "t1") == []
    assert [t.task_id for t in stores.scratchpad.tasks("ana")] == ["t2"]
    assert [i.value for i in stores.scratchpad.items("bob", "t1")] == ["bob's own t1"]


def test_scratchpad_expires_idle_tasks_and_erases_a_user(stores: Stores) -> None:
    stores.scratchpad.put(scratch("old", "k", 1, minutes=0))
    stores.scratchpad.put(scratch("live", "k", 1, minutes=0))
    stores.scratchpad.put(scratch("live", "k2", 2, minutes=30))
    stores.scratchpad.put(scratch("t", "k", 3, user="bob", minutes=5))
    expired = stores.scratchpad.expire(at(minutes=10))
    assert [(t.user_id, t.task_id) for t in expired] == [("ana", "old"), ("bob", "t")]
    assert [t.task_id for t in stores.scratchpad.tasks()] == ["live"]
    assert stores.scratchpad.delete_user("ana") == 2 and stores.scratchpad.tasks() == []


def test_scratchpad_refuses_values_that_are_not_json(stores: Stores) -> None:
    with pytest.raises(InvalidInputError):
        stores.scratchpad.put(scratch("t1", "bad", object()))
    assert stores.scratchpad.items("ana", "t1") == []


# -- knowledge base ---------------------------------------------------------------------------


def _unit(n: int, dim: int = 4) -> np.ndarray:
    return np.eye(dim, dtype=np.float32)[:n]


def test_knowledge_documents_round_trip_with_vectors(stores: Stores) -> None:
    doc, chunks = kb_doc("guide", "install it", "configure it")
    other, other_chunks = kb_doc("faq", "ask", namespace="support")
    assert stores.knowledge.replace(doc, chunks, _unit(2)) == 0
    stores.knowledge.replace(other, other_chunks, _unit(1))
    assert stores.knowledge.document("manual", "guide") == doc
    assert stores.knowledge.documents() == [doc, other]
    assert stores.knowledge.documents("support") == [other]
    assert stores.knowledge.chunks("manual") == chunks
    found, vectors = stores.knowledge.vectors("manual")
    assert found == chunks and np.array_equal(vectors, _unit(2))
    assert stores.knowledge.vectors("nothing")[0] == []


def test_a_new_version_replaces_every_chunk_and_vector(stores: Stores) -> None:
    stores.knowledge.replace(*kb_doc("guide", "old one", "old two", "old three"), _unit(3))
    doc, chunks = kb_doc("guide", "new one", version=2)
    assert stores.knowledge.replace(doc, chunks, _unit(1)) == 3
    found, vectors = stores.knowledge.vectors("manual")
    assert [c.text for c in found] == ["new one"] and vectors.shape == (1, 4)
    assert stores.knowledge.document("manual", "guide").version == 2  # type: ignore[union-attr]


def test_a_failed_replacement_keeps_the_old_version(stores: Stores) -> None:
    stores.knowledge.replace(*kb_doc("guide", "old one"), _unit(1))
    doc, chunks = kb_doc("guide", "new one", "new two", version=2)
    with pytest.raises(InvalidInputError):
        stores.knowledge.replace(doc, chunks, _unit(1))  # one vector for two chunks
    assert [c.text for c in stores.knowledge.chunks("manual")] == ["old one"]
    assert stores.knowledge.document("manual", "guide").version == 1  # type: ignore[union-attr]


def test_removing_a_document_or_a_namespace_removes_its_rows(stores: Stores) -> None:
    stores.knowledge.replace(*kb_doc("guide", "a", "b"), _unit(2))
    stores.knowledge.replace(*kb_doc("faq", "c"), _unit(1))
    stores.knowledge.replace(*kb_doc("faq", "d", namespace="support"), _unit(1))
    assert stores.knowledge.remove("manual", "guide") == (["guide"], 2)
    assert [c.doc_id for c in stores.knowledge.chunks("manual")] == ["faq"]
    assert stores.knowledge.remove("manual") == (["faq"], 1)
    assert stores.knowledge.documents("manual") == [] and stores.knowledge.vectors("manual")[0] == []
    assert [d.namespace for d in stores.knowledge.documents()] == ["support"]
    assert stores.knowledge.remove("manual") == ([], 0)


def test_archive_id_of_another_user_is_refused(stores: Stores) -> None:
    stores.archive.add([item("shared", "ana's words", user="ana")])
    with pytest.raises(InvalidInputError):
        stores.archive.add([item("shared", "bob's words", user="bob")])
    assert stores.archive.get("ana", ["shared"])[0].key_text == "ana's words"
    assert stores.archive.count("bob") == 0


def test_repeated_ids_inside_one_batch_keep_the_last(stores: Stores) -> None:
    stores.events.append([event("e1", "first"), event("e1", "last")])
    stores.documents.add([chunk("c1", index=0), chunk("c1", index=5)])
    stores.archive.add([item("a1", "first"), item("a1", "last")])
    assert [e.text for e in stores.events.range("ana")] == ["last"]
    assert [c.index for c in stores.documents.list("ana")] == [5]
    assert [i.key_text for i in stores.archive.list("ana")] == ["last"]


def test_large_batches_round_trip(stores: Stores) -> None:
    items = [item(f"a{n}", f"words {n}", sources=(f"m{n}", "shared"), days=None if n % 2 else n)
             for n in range(1500)]
    stores.archive.add(items)
    assert stores.archive.list("ana") == items
    assert len(stores.archive.delete_by_source("ana", ["shared"])) == 1500
