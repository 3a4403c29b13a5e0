"""Knowledge updates in recall and context: a newer value ranks above the one it replaced."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.models import ProfileChange, RecallItem
from memfold.retrieval.context import ContextBuilder
from memfold.retrieval.updates import mark_superseded, newest_first_within_topics, superseded_sources

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
