"""Memory.explain: "how do you know I'm vegetarian?" answered from the changelog, with
every change's time and the source messages quoted (router extraction, not hand-written facts)."""

from __future__ import annotations

from memfold.memory import Memory
from memfold.stores.retention import RetentionPolicy

from .conftest import USER, at, enforce

VEGETARIAN = "I'm vegetarian."
PESCATARIAN = "I eat fish now, I'm pescatarian."


def ingest_diet(memory: Memory) -> str:
    """The two statements, three weeks apart; returns the key the router stored them under."""
    memory.ingest({"msg_id": "m1", "user_id": USER, "text": VEGETARIAN, "ts": at(0).isoformat()})
    memory.ingest({"msg_id": "m2", "user_id": USER, "text": PESCATARIAN, "ts": at(21).isoformat()})
    [fact] = [f for f in memory.profile(USER) if f.value == "pescatarian"]
    return fact.key


def test_explain_lists_every_change_with_its_time_and_quoted_sources(memory: Memory) -> None:
    key = ingest_diet(memory)
    explanation = memory.explain(USER, "user", key)

    assert explanation.current is not None and explanation.current.value == "pescatarian"
    assert explanation.current.sources == ["m2"]
    steps = [(c.action, c.old_value, c.new_value, c.sources, c.changed_at) for c in explanation.changes]
    assert steps == [("add", None, "vegetarian", ["m1"], at(0)),
                     ("update", "vegetarian", "pescatarian", ["m2"], at(21))]
    assert {m.msg_id: m.text for m in explanation.evidence} == {"m1": VEGETARIAN, "m2": PESCATARIAN}

    text = explanation.render()
    assert text.splitlines()[0] == f"user.{key} = 'pescatarian'"
    assert "2025-03-01 09:00 add by router" in text
    assert "2025-03-22 09:00 update by router: 'vegetarian' -> 'pescatarian'" in text
    assert f'[m1] 2025-03-01 user: "{VEGETARIAN}"' in text
    assert f'[m2] 2025-03-22 user: "{PESCATARIAN}"' in text


def test_explain_after_expiry_shows_the_retirement_and_keeps_the_evidence(memory: Memory) -> None:
    key = ingest_diet(memory)
    enforce(memory, RetentionPolicy(ttl_by_key={key: "30d"}), at(60))
    explanation = memory.explain(USER, "user", key)
    assert explanation.current is None
    assert [c.action for c in explanation.changes] == ["add", "update", "expire"]
    last = explanation.changes[-1]
    assert (last.actor, last.old_value, last.changed_at) == ("retention", "pescatarian", at(60))
    assert {m.msg_id for m in explanation.evidence} == {"m1", "m2"}
    assert "expire by retention" in explanation.render()
    [row] = memory.stores.archive.list(USER, kinds=["evicted_fact"])
    assert '1 March 2025: set to "vegetarian"' in row.text
    assert '22 March 2025: changed from "vegetarian" to "pescatarian"' in row.text
    assert set(row.sources) == {"m1", "m2"}


def test_explain_of_an_unknown_key_is_empty(memory: Memory) -> None:
    ingest_diet(memory)
    explanation = memory.explain(USER, "user", "shoe_size")
    assert explanation.current is None and explanation.changes == [] and explanation.evidence == []
    assert explanation.render() == "user.shoe_size: no current value"


def test_explain_is_per_user(memory: Memory) -> None:
    ingest_diet(memory)
    assert memory.explain("someone_else", "user", "diet").changes == []
