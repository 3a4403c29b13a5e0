"""Retention through the Memory facade, on the in-memory stores and on a real store
directory: retired facts stay recallable, reads decide what is least recently used."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from memfold.config import Settings
from memfold.memory import Memory
from memfold.models import ProfileFact
from memfold.stores.retention import RetentionPolicy, RetentionReport

from .conftest import USER, at, enforce, open_memory


def remember(memory: Memory, msg_id: str, key: str, value: str, when: datetime) -> None:
    """A stored message stating the value but not naming the key, and the fact it
    evidences (written as a client would with set_fact, at a chosen time)."""
    decision = memory.ingest({"msg_id": msg_id, "user_id": USER, "text": f"it's {value}, don't forget",
                              "ts": when.isoformat()})
    assert decision.facts == []  # the router wrote nothing itself: the profile holds only ours
    with memory.stores.db.transaction():
        memory.stores.profile.upsert(ProfileFact(user_id=USER, key=key, value=value, sources=[msg_id],
                                                 updated_at=when), reason="test", actor="user")


DISTRACTORS = ("my code review is on Friday", "the locker room at the gym was cold")


def distract(memory: Memory) -> None:
    """Messages sharing one word each with "what is my locker code"."""
    for n, text in enumerate(DISTRACTORS):
        memory.ingest({"msg_id": f"d{n}", "user_id": USER, "text": text, "ts": at(hours=n + 1).isoformat()})


def test_an_expired_fact_stays_recallable(memory: Memory) -> None:
    remember(memory, "m1", "locker_code", "zebra 4711", at(0))
    distract(memory)
    before = memory.recall("what is my locker code", USER, now=at(1))
    assert before.items[0].store == "profile" and "zebra 4711" in before.items[0].text

    report = enforce(memory, RetentionPolicy(ttl_by_key={"locker_code": "7d"}), at(10))
    assert [r.key for r in report.expired] == ["locker_code"]
    assert memory.profile(USER) == []

    hits = memory.search("what is my locker code", USER, k=3)
    assert hits[0].meta["kind"] == "evicted_fact" and "zebra 4711" in hits[0].text
    assert "History: 1 March 2025" in hits[0].text
    # k=2 against two messages that each share a word with the question: the message only
    # says "zebra 4711", so the archived fact is what lifts it into the top two
    after = memory.recall("what is my locker code", USER, now=at(10), k=2)
    assert "profile" not in [item.store for item in after.items]
    [found] = [item for item in after.items if "zebra 4711" in item.text]
    assert found.sources == ["m1"]


def test_a_deleted_fact_is_not_recallable_by_its_key(memory: Memory) -> None:
    """The contrast to the test above: delete_fact (destruction) leaves only the message,
    which does not name the key, so the archive row is what keeps an expired fact findable."""
    remember(memory, "m1", "locker_code", "zebra 4711", at(0))
    distract(memory)
    memory.delete_fact(USER, "locker_code")
    after = memory.recall("what is my locker code", USER, now=at(10), k=2)
    assert [item.text for item in after.items if "zebra" in item.text] == []
    assert sorted(item.text for item in after.items) == sorted(DISTRACTORS)


def test_reads_keep_a_fact_and_the_least_recently_used_is_evicted(memory: Memory) -> None:
    remember(memory, "m1", "locker_code", "zebra 4711", at(hours=0))
    remember(memory, "m2", "favourite_colour", "teal", at(hours=1))
    remember(memory, "m3", "shoe_size", "44", at(hours=2))
    recalled = memory.recall("what is my locker code", USER, now=at(hours=3))
    assert any(item.store == "profile" and item.meta["key"] == "locker_code" for item in recalled.items)
    assert memory.stores.profile.last_accessed(USER)[("user", "locker_code")] == at(hours=3)

    report = enforce(memory, RetentionPolicy(max_facts=2), at(hours=4))
    # locker_code was stated first but read last: favourite_colour is the least recently used
    assert [r.key for r in report.evicted] == ["favourite_colour"]
    assert sorted(f.key for f in memory.profile(USER)) == ["locker_code", "shoe_size"]
    found = memory.recall("what's my favourite colour", USER, now=at(hours=5), k=1)
    assert "teal" in found.items[0].text and found.items[0].sources == ["m2"]
    assert memory.search("favourite colour", USER, k=1)[0].meta["kind"] == "evicted_fact"


def test_the_changelog_and_explain_show_the_eviction(memory: Memory) -> None:
    remember(memory, "m1", "locker_code", "zebra 4711", at(0))
    remember(memory, "m2", "shoe_size", "44", at(1))
    enforce(memory, RetentionPolicy(max_facts=1), at(2))
    history = memory.profile_history(USER, "user", "locker_code")
    assert [(c.action, c.actor) for c in history] == [("add", "user"), ("evict", "retention")]
    assert history[-1].old_value == "zebra 4711" and history[-1].changed_at == at(2)
    explanation = memory.explain(USER, "user", "locker_code")
    assert explanation.current is None
    assert [c.action for c in explanation.changes] == ["add", "evict"]
    assert "evict by retention" in explanation.render()


def test_retired_facts_are_indexed_again_after_a_crash_before_indexing(tmp_path: Path) -> None:
    settings = Settings(store=tmp_path / "store", embedder="hashing", backend="offline", fact_tagger=False)
    with Memory.open(settings=settings) as memory:
        remember(memory, "m1", "locker_code", "zebra 4711", at(0))
        report = enforce(memory, RetentionPolicy(ttl_by_key={"locker_code": "1d"}), at(5), index=False)
        assert memory.stores.archive.count_unindexed() == 1  # committed, not yet in Chroma
    with Memory.open(settings=settings) as memory:  # opening indexes what is missing
        assert memory.profile(USER) == []
        hits = memory.search("locker code zebra", USER, k=3)
        assert hits[0].item_id == report.archived[0].item_id
        assert "zebra 4711" in hits[0].text


# on disk, forget rewrites the DuckDB file and Chroma's log (about 5 s): slow
@pytest.mark.parametrize("kind", ["in_memory", pytest.param("disk", marks=pytest.mark.slow)])
def test_forget_still_destroys_retired_facts(kind: str, tmp_path: Path) -> None:
    with open_memory(kind, tmp_path) as memory:
        remember(memory, "m1", "locker_code", "zebra 4711", at(0))
        report = enforce(memory, RetentionPolicy(max_facts=0), at(1))
        assert memory.stores.archive.list(USER, kinds=["evicted_fact"])
        assert report.archived[0].item_id in memory.stores.index.ids(USER)
        memory.forget(USER)
        assert memory.stores.archive.list(USER) == []
        assert memory.profile_history(USER) == []
        assert memory.stores.index.ids(USER) == set()


def test_removing_the_source_message_removes_the_archived_fact(memory: Memory) -> None:
    remember(memory, "m1", "locker_code", "zebra 4711", at(0))
    enforce(memory, RetentionPolicy(max_facts=0), at(1))
    counts = memory.remove_message(USER, "m1")
    assert counts["archive_items"] >= 2  # the message row and the evicted_fact row
    assert memory.stores.archive.list(USER, kinds=["evicted_fact"]) == []
    assert all("zebra" not in item.text for item in memory.search("locker code zebra", USER, k=5))


# -- the facade's own entry points (skipped until memory.py calls retention) ----------

_WIRED = hasattr(Memory, "enforce_retention")


@pytest.mark.skipif(not _WIRED, reason="Memory.enforce_retention is not wired yet")
def test_memory_enforce_retention_uses_the_settings_policy() -> None:
    settings = Settings(embedder="hashing", backend="offline", fact_tagger=False,
                        retention={"ttl_by_key": {"locker_code": "1d"}})
    with Memory.in_memory(settings) as memory:
        remember(memory, "m1", "locker_code", "zebra 4711", at(0))
        report = memory.enforce_retention(USER, now=at(3))
        assert isinstance(report, RetentionReport) and [r.key for r in report.expired] == ["locker_code"]
        hits = memory.search("locker code zebra", USER, k=1)
        assert hits[0].meta["kind"] == "evicted_fact"


@pytest.mark.skipif(not _WIRED, reason="Memory.enforce_retention is not wired yet")
def test_ingest_keeps_the_profile_under_the_cap() -> None:
    settings = Settings(embedder="hashing", backend="offline", retention={"max_facts": 1})
    with Memory.in_memory(settings) as memory:
        memory.ingest({"msg_id": "m1", "user_id": USER, "text": "I'm vegetarian.", "ts": at(0).isoformat()})
        memory.ingest({"msg_id": "m2", "user_id": USER, "text": "I live in Lisbon.", "ts": at(1).isoformat()})
        assert len(memory.profile(USER)) == 1
        evicted = memory.stores.archive.list(USER, kinds=["evicted_fact"])
        assert len(evicted) == 1 and "vegetarian" in evicted[0].text
        assert any(item.item_id == evicted[0].item_id for item in memory.search("vegetarian diet", USER, k=5))


def test_every_evicted_fact_is_found_by_search(memory: Memory) -> None:
    values = {"locker_code": "zebra 4711", "shoe_size": "44", "favourite_colour": "teal",
              "bike": "red fixie", "dentist": "Dr Okafor", "wifi_password": "moonbeam"}
    for n, (key, value) in enumerate(values.items()):
        remember(memory, f"m{n}", key, value, at(hours=n))
    report = enforce(memory, RetentionPolicy(max_facts=2), at(1))
    assert len(report.evicted) == 4 and len(memory.profile(USER)) == 2
    for retired in report.evicted:
        hits = memory.search(f"user {retired.key.replace('_', ' ')}: {retired.value}", USER, k=3)
        assert hits[0].item_id == retired.item_id and values[retired.key] in hits[0].text
