"""Per-user BM25: stemming, the derived window key, incremental extension, invalidation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.models import RouteDecision
from memfold.retrieval.indexing import archive_items
from memfold.retrieval.lexical import Analyzer, LexicalIndex
from memfold.stores import Stores

from .conftest import Harness, make_messages


def test_analyzer_stems_and_drops_function_words() -> None:
    assert Analyzer().tokens("When did they go hiking in the mountains?") == ["go", "hike", "mountain"]


def _ids_for(harness: Harness, user_id: str, msg_ids: list[str]) -> dict[str, str]:
    return {i.item_id: i.sources[0] for i in harness.stores.archive.list(user_id)
            if i.sources[0] in msg_ids and i.kind == "message"}


def test_window_key_finds_a_turn_by_its_neighbours_words(harness: Harness) -> None:
    harness.ingest(make_messages("ana", ["Have you ever tried pottery?", "Yes! I loved it", "The weather is nice"]))
    hits = harness.retriever.lexical.search("ana", "pottery", 10)
    names = _ids_for(harness, "ana", ["m0", "m1", "m2"])
    assert [names[i] for i, _ in hits.own] == ["m0"]
    # "Yes! I loved it" has no word of the query but sits next to the turn that does
    assert {names[i] for i, _ in hits.window} == {"m0", "m1"}


def test_window_does_not_cross_a_long_pause(harness: Harness) -> None:
    first = make_messages("ana", ["Have you tried pottery?"])
    later = make_messages("ana", ["Sure"], start=first[0].ts + timedelta(days=3), prefix="n")
    harness.ingest(first)
    harness.ingest(later)
    hits = harness.retriever.lexical.search("ana", "pottery", 10)
    assert len(hits.window) == 1


def test_extend_matches_a_full_rebuild(harness: Harness) -> None:
    texts = ["we planned a trip to Lisbon", "flights were cheap", "I booked the hotel", "Lisbon was sunny"]
    harness.retriever.lexical.search("ana", "warm up", 5)  # build the (empty) index first
    for n, text in enumerate(texts):
        harness.ingest(make_messages("ana", [text], prefix=f"b{n}-"))
    incremental = harness.retriever.lexical.search("ana", "Lisbon hotel trip", 10)
    rebuilt = LexicalIndex(harness.stores.archive).search("ana", "Lisbon hotel trip", 10)
    assert incremental == rebuilt
    assert len(incremental.own) == 3


def test_a_row_re_added_under_its_id_replaces_the_old_one_without_a_rebuild(harness: Harness) -> None:
    from memfold.models import ArchiveItem

    harness.ingest(make_messages("ana", ["we planned a trip to Lisbon", "hello there"]))
    lexical = harness.retriever.lexical
    lexical.search("ana", "warm up", 5)
    built = lexical._users["ana"]
    [old] = [i for i in harness.stores.archive.list("ana") if "Lisbon" in i.text]
    new = ArchiveItem.model_validate({**old.model_dump(), "text": "we planned a trip to Porto",
                                      "key_text": "we planned a trip to Porto"})
    harness.stores.archive.add([new])
    lexical.extend([new])
    assert lexical.search("ana", "Lisbon", 5).own == []  # the old version never scores again
    assert [i for i, _ in lexical.search("ana", "Porto", 5).own] == [old.item_id]
    assert lexical._users["ana"] is built and len(built) == harness.stores.archive.count("ana")
    rebuilt = LexicalIndex(harness.stores.archive).search("ana", "trip Porto hello", 10)
    assert [i for i, _ in lexical.search("ana", "trip Porto hello", 10).own] == [i for i, _ in rebuilt.own]


def test_a_deleted_row_is_not_found_after_the_count_changes(harness: Harness) -> None:
    harness.ingest(make_messages("ana", ["my passport number is secret", "hello"]))
    assert harness.retriever.lexical.search("ana", "passport", 5).own
    harness.stores.archive.delete_by_source("ana", ["m0"])
    assert harness.retriever.lexical.search("ana", "passport", 5).own == []


words = st.sampled_from(["apple", "river", "piano", "garden", "rocket", "violin", "castle", "tiger"])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(words, min_size=1, max_size=4).map(" ".join), min_size=1, max_size=6),
       st.lists(st.lists(words, min_size=1, max_size=4).map(" ".join), min_size=1, max_size=6), words)
def test_lexical_search_never_returns_another_users_rows(ana_texts: list[str], bo_texts: list[str],
                                                         query: str) -> None:
    stores = Stores.in_memory()
    for user_id, texts in (("ana", ana_texts), ("bo", bo_texts)):
        messages = make_messages(user_id, texts)
        stores.archive.add(archive_items(messages, [RouteDecision(msg_id=m.msg_id, kind="NONE") for m in messages],
                                         previous=None))
    index = LexicalIndex(stores.archive)
    ana_ids = {i.item_id for i in stores.archive.list("ana")}
    hits = index.search("ana", query, 20)
    assert {i for i, _ in hits.own + hits.window} <= ana_ids
    assert bool(hits.own) == any(query in t.split() for t in ana_texts)


def test_extraction_rows_are_left_to_the_dense_index(harness: Harness) -> None:
    from memfold.models import FactExtraction

    [message] = make_messages("ana", ["I moved to Austin"])
    decision = RouteDecision(msg_id="m0", kind="FACT", facts=[FactExtraction(key="home_city", value="Austin")])
    harness.ingest([message], [decision])
    kinds = {i.item_id: i.kind for i in harness.stores.archive.list("ana")}
    hits = harness.retriever.lexical.search("ana", "Austin", 10)
    assert [kinds[i] for i, _ in hits.own] == ["message"]
    assert sorted(kinds.values()) == ["fact", "message"]
    # and the memory is still found through its extraction's words by recall
    assert harness.retriever.recall("home city", "ana").items[0].sources == ["m0"]


def test_recall_ranks_with_the_stores_own_bm25_when_they_compute_one() -> None:
    from memfold.embed import HashingEmbedder
    from memfold.errors import ConfigError
    from memfold.retrieval.recall import RecallSettings, Retriever

    stores = Stores.in_memory()
    stores.lexical = LexicalIndex(stores.archive)  # stands in for PostgreSQL's (same protocol)
    assert Retriever(stores, HashingEmbedder()).lexical is stores.lexical
    # the store linked its windows with its own gap: recall must not assume another
    stores.lexical = LexicalIndex(stores.archive, window_gap=timedelta(hours=1))
    with pytest.raises(ConfigError, match="window"):
        Retriever(stores, HashingEmbedder(), settings=RecallSettings(window_gap_hours=2.0))
