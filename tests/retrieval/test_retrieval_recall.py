"""Recall: store routing, sources, deduplication, subject awareness, time ranges, isolation."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.errors import InvalidInputError
from memfold.timeexpr import resolve_query_range

from .conftest import T0, Harness, make_messages

NOW = T0 + timedelta(days=10)


def test_reads_without_a_user_are_rejected(harness: Harness) -> None:
    for user_id in ("", "  ", None):
        with pytest.raises(InvalidInputError):
            harness.retriever.recall("anything", user_id, now=NOW)  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError):
            harness.retriever.search("anything", user_id)  # type: ignore[arg-type]


def test_fact_question_reads_the_profile_and_touches_what_it_returns(harness: Harness) -> None:
    harness.ingest(make_messages("ana", ["My dog is called Rex", "nice weather today"]))
    harness.add_fact("ana", "dog_name", "Rex", "m0")
    result = harness.retriever.recall("What is my dog's name?", "ana", now=NOW)
    assert result.intents["fact"] > result.intents["temporal"]
    top = result.items[0]
    assert top.store == "profile" and top.sources == ["m0"] and "Rex" in top.text
    assert harness.stores.profile.last_accessed("ana")[("user", "dog_name")] == NOW


def test_every_recalled_source_exists_in_the_conversation_log(harness: Harness) -> None:
    harness.ingest(make_messages("ana", ["I like jazz", "We saw a concert", "The band was loud", "ok"]))
    harness.add_fact("ana", "music", "jazz", "m0")
    harness.add_event("ana", "e1", "saw a concert", T0, "m1")
    result = harness.retriever.recall("what concert did we see and what music do I like?", "ana", now=NOW, k=10)
    sources = result.sources()
    assert sources and harness.stores.log.exists("ana", sources) == set(sources)


def test_items_with_overlapping_sources_are_deduplicated(harness: Harness) -> None:
    harness.ingest(make_messages("ana", ["I moved to Austin in May", "Austin is hot"]))
    harness.add_fact("ana", "home_city", "Austin", "m0")
    result = harness.retriever.recall("Where do I live, Austin?", "ana", now=NOW, k=10)
    flat = [s for item in result.items for s in item.sources]
    assert len(flat) == len(set(flat))
    # best score first, except where a newer statement was moved above the one it restates
    plain = [i.score for i in result.items if not {"restated_at", "superseded_at"} & set(i.meta)]
    assert plain == sorted(plain, reverse=True)
    moved = [i for i in result.items if "restated_at" in i.meta]
    assert all(i.occurred_at is not None and i.occurred_at.isoformat() < i.meta["restated_at"] for i in moved)


def test_the_person_a_question_names_ranks_first(harness: Harness) -> None:
    harness.ingest(make_messages("ana", ["I went hiking on Sunday", "I went hiking on Sunday too"],
                                 speakers=["Maria", "Jon"]))
    for name, expected in (("Jon", "m1"), ("Maria", "m0")):
        result = harness.retriever.recall(f"Where did {name} go hiking?", "ana", now=NOW)
        assert result.items[0].sources == [expected]
        assert result.items[0].subject == name


def test_temporal_question_uses_the_range_resolved_against_now(harness: Harness) -> None:
    last_week = NOW - timedelta(days=7)
    harness.ingest(make_messages("ana", ["went to the dentist", "went to the dentist again"],
                                 start=last_week - timedelta(days=30), step=timedelta(days=30)))
    harness.add_event("ana", "old", "went to the dentist", last_week - timedelta(days=30), "m0")
    harness.add_event("ana", "new", "went to the dentist again", last_week, "m1")
    query = "What did I do last week?"
    result = harness.retriever.recall(query, "ana", now=NOW)
    assert result.time_range == resolve_query_range(query, NOW)
    assert result.intents["temporal"] == max(result.intents.values())
    assert result.items[0].sources == ["m1"]
    assert result.now == NOW
    # the same question asked a month later points at another week
    later = harness.retriever.recall(query, "ana", now=NOW + timedelta(days=30))
    assert later.time_range != result.time_range


def test_search_is_dense_only_over_the_archive(harness: Harness) -> None:
    harness.ingest(make_messages("ana", ["red apples and green pears", "the train was late"]))
    items = harness.retriever.search("red apples", "ana", k=5)
    assert items[0].sources == ["m0"] and all(i.store == "archive" for i in items)
    assert items[0].score >= items[-1].score


texts = st.lists(st.sampled_from(["apple pie", "river boat", "piano lesson", "garden party", "rocket launch",
                                  "my cat", "I live in Oslo"]), min_size=1, max_size=6)


@settings(max_examples=20, deadline=None)
@given(texts, texts, st.sampled_from(["apple", "where do I live?", "what happened last week?", "my cat"]))
def test_no_read_path_returns_another_users_memory(ana: list[str], bo: list[str], query: str) -> None:
    harness = Harness()
    harness.ingest(make_messages("ana", ana, prefix="a"))
    harness.ingest(make_messages("bo", bo, prefix="b"))
    harness.add_fact("bo", "home_city", "Oslo", "b0")
    harness.add_event("bo", "eb", "apple pie party", NOW - timedelta(days=7), "b0")
    now = datetime(2024, 3, 14, tzinfo=timezone.utc)
    recalled = harness.retriever.recall(query, "ana", now=now, k=20).items
    searched = harness.retriever.search(query, "ana", k=20)
    for item in recalled + searched:
        assert all(source.startswith("a") for source in item.sources)


def test_a_time_only_question_recalls_what_was_said_in_that_range(harness: Harness) -> None:
    old = make_messages("ana", ["bought new running shoes"], start=NOW - timedelta(days=40), prefix="old")
    recent = make_messages("ana", ["booked the plumber for Tuesday"], start=NOW - timedelta(days=7), prefix="new")
    harness.ingest(old + recent)
    result = harness.retriever.recall("What did we discuss last week?", "ana", now=NOW, k=1)
    assert result.items[0].sources == ["new0"]
