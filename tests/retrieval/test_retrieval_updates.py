"""Knowledge updates in recall and context: a newer value ranks above the one it replaced."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.models import ProfileChange, RecallItem
from memfold.retrieval.context import ContextBuilder
from memfold.retrieval.updates import (
    asks_about_the_past,
    mark_superseded,
    newest_first_within_topics,
    signals_change,
    signals_transition,
    statement_links,
    successor_links,
    successors_above,
    superseded_sources,
)

from .conftest import T0, Harness, make_messages

DAY = timedelta(days=1)


def _change(key: str, old: str | None, new: str | None, source: str, day: int) -> ProfileChange:
    return ProfileChange(change_id=f"c{day}", user_id="ana", subject="user", key=key,
                         action="add" if old is None else "update", old_value=old, new_value=new,
                         sources=[source], changed_at=T0 + day * DAY)


def _item(source: str, score: float, day: int, text: str = "I work at a place", store: str = "archive",
          subject: str = "user") -> RecallItem:
    return RecallItem(store=store, text=text, score=score, sources=[source], occurred_at=T0 + day * DAY,
                      subject=subject, item_id=source)


def test_changelog_supersedes_the_old_values_evidence_only() -> None:
    changes = [_change("employer", None, "Northern Bean", "m1", 0),
               _change("employer", "Northern Bean", "Acme", "m5", 30),
               _change("diet", None, "vegan", "m2", 1)]
    found = superseded_sources(changes, {("user", "employer"): {"m5"}, ("user", "diet"): {"m2"}})
    assert set(found) == {"m1"}
    assert found["m1"].at == T0 + 30 * DAY and "m5" in found["m1"].by


def test_a_value_said_again_in_other_case_supersedes_nothing() -> None:
    changes = [_change("hobby:basketball", None, "Basketball", "m1", 0),
               _change("hobby:basketball", "Basketball", "basketball", "m9", 30),
               _change("likes:jazz", None, "jazz", "m2", 1),
               _change("likes:jazz", "jazz", None, "m3", 2)]
    found = superseded_sources(changes, {("user", "hobby:basketball"): {"m9"}})
    assert set(found) == {"m2"}  # a deletion still retires its evidence


def test_a_superseded_item_is_marked_and_drops_below_its_replacement() -> None:
    changes = [_change("employer", None, "Northern Bean", "m1", 0),
               _change("employer", "Northern Bean", "Acme", "m5", 30)]
    superseded = superseded_sources(changes, {("user", "employer"): {"m5"}})
    items = [_item("m1", 2.0, 0), _item("m3", 1.5, 10), _item("m5", 1.2, 30), _item("m7", 1.0, 40)]
    ranked = mark_superseded(items, superseded)
    assert [i.sources[0] for i in ranked] == ["m3", "m5", "m1", "m7"]
    assert ranked[2].meta["superseded_at"].startswith((T0 + 30 * DAY).date().isoformat())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0.01, max_value=3.0), min_size=2, max_size=12),
       st.data())
def test_a_superseded_item_never_outranks_its_replacement(scores: list[float], data: st.DataObject) -> None:
    n = len(scores)
    old, new = data.draw(st.sampled_from([(i, j) for i in range(n) for j in range(n) if i != j]))
    changes = [_change("job", None, "barista", f"m{old}", 0), _change("job", "barista", "developer", f"m{new}", 5)]
    superseded = superseded_sources(changes, {("user", "job"): {f"m{new}"}})
    items = sorted((_item(f"m{i}", s, i) for i, s in enumerate(scores)), key=lambda it: -it.score)
    ranked = [it.sources[0] for it in mark_superseded(items, superseded)]
    assert sorted(ranked) == sorted(f"m{i}" for i in range(n))  # nothing lost, nothing added
    assert ranked.index(f"m{new}") < ranked.index(f"m{old}")


def test_a_topic_restated_later_ranks_newest_first_and_only_reorders() -> None:
    terms = {"korean", "restaurants", "tried"}
    items = [_item("a", 2.0, 0, "I tried three korean restaurants"), _item("x", 1.9, 3, "pasta tonight"),
             _item("b", 1.8, 40, "now I tried four korean restaurants"),
             _item("c", 1.0, 50, "korean restaurants tried, five")]  # too weak: not the same statement
    ranked = newest_first_within_topics(items, terms, lambda t: t.lower().split(), band=0.75)
    assert [i.sources[0] for i in ranked] == ["b", "x", "a", "c"]
    assert ranked[2].meta["restated_at"].startswith((T0 + 40 * DAY).date().isoformat())
    other_subject = [items[0], items[2].model_copy(update={"subject": "Bob"})]
    assert newest_first_within_topics(other_subject, terms, lambda t: t.lower().split()) == other_subject


def test_where_do_i_work_puts_the_current_employer_first_in_recall_and_context() -> None:
    harness = Harness()
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    messages = make_messages("ana", ["I work as a barista at Northern Bean.", "Lovely weather today.",
                                     "I now work as a junior developer at Acme Software."],
                             start=start, step=timedelta(days=30))
    harness.ingest(messages)
    harness.stores.profile.upsert(_fact("Northern Bean", "m0", messages[0].ts))
    harness.stores.profile.upsert(_fact("Acme Software", "m2", messages[2].ts))
    now = messages[-1].ts + DAY
    items = harness.retriever.recall("Where do I work?", "ana", now=now, k=5).items
    order = [s for it in items for s in it.sources]
    assert order.index("m2") < order.index("m0")
    old = next(it for it in items if it.sources == ["m0"])
    assert "superseded_at" in old.meta
    context = ContextBuilder(harness.retriever, harness.counter).build("Where do I work?", "ana", 400, now=now)
    assert "Acme Software" in context.system
    assert "Northern Bean" not in context.system or "superseded" in context.system


def _fact(value: str, source: str, when: datetime):
    from memfold.models import ProfileFact

    return ProfileFact(user_id="ana", subject="user", key="employer", value=value, sources=[source],
                       updated_at=when)


# -- successors: a later statement that restates an earlier one ------------------------------

def _unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def _links(items: list[RecallItem], vectors: dict[str, np.ndarray]) -> list[tuple[int, int]]:
    return successor_links(items, vectors, similarity=0.6, gap=timedelta(hours=2))


def test_a_close_later_statement_with_a_new_number_is_the_successor() -> None:
    items = [_item("m1", 2.0, 0, "I lead a team of five engineers"),
             _item("m2", 1.5, 3, "The weather was lovely on the coast"),
             _item("m3", 0.9, 40, "We hired two more, so there are seven of us")]
    vectors = {"m1": _unit(1, 0.2, 0), "m2": _unit(0, 0, 1), "m3": _unit(0.9, 0.4, 0)}
    assert _links(items, vectors) == [(0, 2)]
    ranked = successors_above(items, _links(items, vectors))
    assert [i.sources[0] for i in ranked] == ["m3", "m1", "m2"]  # directly above what it restates
    assert ranked[1].meta["restated_at"].startswith((T0 + 40 * DAY).date().isoformat())
    assert [i.score for i in ranked] == [0.9, 2.0, 1.5]  # scores are kept


def test_a_later_look_alike_without_change_evidence_does_not_demote_the_answer() -> None:
    # "my sister lives in Madrid" and, later, a close statement about someone else that
    # states no change and no new number: the older statement keeps its rank
    items = [_item("m1", 2.0, 0, "My sister lives in Madrid with her husband"),
             _item("m2", 1.2, 50, "My cousin lives in Seville with his wife")]
    vectors = {"m1": _unit(1, 0.3, 0), "m2": _unit(1, 0.35, 0.05)}
    assert _links(items, vectors) == []
    assert successors_above(items, []) == items


def test_successor_links_need_the_same_speaker_a_later_conversation_and_close_vectors() -> None:
    old = _item("m1", 2.0, 0, "I drink four cups of coffee a day")
    close = {"m1": _unit(1, 0.1, 0), "m2": _unit(1, 0.15, 0)}
    later = _item("m2", 1.0, 30, "I'm down to one cup now")
    assert _links([old, later], close) == [(0, 1)]
    assert _links([old, later.model_copy(update={"subject": "Bob"})], close) == []  # someone else
    same_talk = later.model_copy(update={"occurred_at": old.occurred_at + timedelta(minutes=5)})
    assert _links([old, same_talk], close) == []  # one conversation: neither is the later one
    assert _links([old, later], {"m1": _unit(1, 0, 0), "m2": _unit(0, 1, 0)}) == []  # another topic
    assert _links([later, old], close) == [(1, 0)]  # the later one is found wherever it ranks


def test_change_evidence_is_a_change_word_or_a_new_number() -> None:
    assert signals_change("I work at the bakery", "I don't work there anymore")
    assert signals_change("I go twice a week", "I go four times a week")
    assert signals_change("The rent is 1,250 a month", "From next month it's 1,390")
    assert not signals_change("My sister lives in Madrid", "My brother lives in Valencia")
    assert not signals_change("It costs 40 a month", "It costs 40 a month, which is fine")


def test_a_question_about_a_past_moment_keeps_the_ranking() -> None:
    assert asks_about_the_past("What was my first car?")
    assert asks_about_the_past("When did I move to Lisbon?")
    assert not asks_about_the_past("What was the amount I was pre-approved for when I got my mortgage?")
    assert not asks_about_the_past("How often did I play before? How often do I play now?")
    assert not asks_about_the_past("How many did I buy in the first three months?")
    assert not asks_about_the_past("Where do I work?")


@st.composite
def _linked_items(draw: st.DrawFn) -> tuple[list[RecallItem], list[tuple[int, int]]]:
    n = draw(st.integers(min_value=2, max_value=12))
    days = draw(st.lists(st.integers(min_value=0, max_value=60), min_size=n, max_size=n))
    items = [_item(f"m{i}", 3.0 - i * 0.1, day) for i, day in enumerate(days)]
    pairs = [(i, j) for i in range(n) for j in range(n) if days[j] > days[i]]
    links = draw(st.lists(st.sampled_from(pairs), max_size=10, unique=True)) if pairs else []
    return items, links


@settings(max_examples=300, deadline=None)
@given(_linked_items())
def test_a_restated_item_never_outranks_its_successor(case: tuple[list[RecallItem], list[tuple[int, int]]]) -> None:
    items, links = case
    ranked = [it.sources[0] for it in successors_above(items, links)]
    assert sorted(ranked) == sorted(it.sources[0] for it in items)  # nothing lost, nothing added
    for old, new in links:
        assert ranked.index(items[new].sources[0]) < ranked.index(items[old].sources[0])
    linked = {i for link in links for i in link}
    alone = [it.sources[0] for i, it in enumerate(items) if i not in linked]
    assert [s for s in ranked if s in alone] == alone  # items without a link keep their order


@settings(max_examples=200, deadline=None)
@given(_linked_items(), st.data())
def test_a_superseded_fact_never_outranks_its_replacement_after_both_signals(
        case: tuple[list[RecallItem], list[tuple[int, int]]], data: st.DataObject) -> None:
    # recall applies the inferred successor links first and the changelog last
    items, links = case
    n = len(items)
    old, new = data.draw(st.sampled_from([(i, j) for i in range(n) for j in range(n) if i != j]))
    changes = [_change("job", None, "barista", f"m{old}", 0), _change("job", "barista", "developer", f"m{new}", 5)]
    superseded = superseded_sources(changes, {("user", "job"): {f"m{new}"}})
    ranked = [it.sources[0] for it in mark_superseded(successors_above(items, links), superseded)]
    assert ranked.index(f"m{new}") < ranked.index(f"m{old}")


def test_recall_puts_a_successor_that_shares_no_query_word_above_the_old_statement() -> None:
    harness = Harness()
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    messages = make_messages("ana", ["My commute to the office is twenty minutes by bike every day.",
                                     "Lovely weather for a picnic in the park today.",
                                     "Since the move my commute to the office is fifty minutes by train every day."],
                             start=start, step=timedelta(days=30))
    harness.ingest(messages)
    query = "How long does getting to work take me?"
    now = messages[-1].ts + DAY
    items = harness.retriever.recall(query, "ana", now=now, k=5).items
    order = [s for it in items for s in it.sources]
    assert order.index("m2") < order.index("m0")
    assert next(it for it in items if it.sources == ["m0"]).meta["restated_at"].startswith(
        messages[2].ts.date().isoformat())
    past = harness.retriever.recall("How long was my commute at first?", "ana", now=now, k=5).items
    assert all("restated_at" not in it.meta for it in past)  # a past moment: no reordering


# -- statement links: a later turn that reports a change of the speaker's own state ----------

def _statement_links(items: list[RecallItem], vectors: dict[int, np.ndarray]) -> list[tuple[int, int]]:
    from memfold.llm.facts import states_own_state

    return statement_links(items, vectors, similarity=0.2, gap=timedelta(hours=2), states=states_own_state)


def test_a_loosely_related_later_statement_with_a_transition_verb_is_linked() -> None:
    items = [_item("m1", 2.0, 0, "I rent a one-bed in Bristol near the station"),
             _item("m2", 1.0, 40, "we finally got the keys to the flat in Cardiff")]
    loose = {0: _unit(1, 0.9, 0), 1: _unit(1, -0.6, 0.8)}  # cosine about 0.3: below the successor bar
    assert _links(items, {"m1": loose[0], "m2": loose[1]}) == []
    assert _statement_links(items, loose) == [(0, 1)]
    assert [i.sources[0] for i in successors_above(items, _statement_links(items, loose))] == ["m2", "m1"]


def test_statement_links_skip_questions_other_people_and_unrelated_vectors() -> None:
    old = _item("m1", 2.0, 0, "I live in Lyon")
    loose = {0: _unit(1, 0.9, 0), 1: _unit(1, -0.6, 0.8)}
    for text in ("how do I find a new flat?", "my sister just moved to Oslo"):
        assert _statement_links([old, _item("m2", 1.0, 40, text)], loose) == []
    moved = _item("m2", 1.0, 40, "we finally moved to Cardiff")
    assert _statement_links([old, moved], {0: _unit(1, 0, 0), 1: _unit(0, 1, 0)}) == []  # another topic
    assert _statement_links([old, moved.model_copy(update={"subject": "Bob"})], loose) == []
    profile = _item("m1", 3.0, 0, "user location: Lyon", store="profile")
    assert _statement_links([profile, moved], loose) == [(0, 1)]  # a value stands for its message


def test_transition_verbs_report_a_change() -> None:
    assert signals_transition("I play guitar", "sold the guitar and started cello lessons")
    assert signals_transition("I'm 29", "turned thirty on saturday")
    assert not signals_transition("I live in Lyon", "I love the food here")
