"""Knowledge updates through the facade: a later statement that contradicts a stored fact
replaces its value, and the changelog keeps both the old and the new one."""

from __future__ import annotations

from memfold.memory import Memory

from .conftest import msg


def _values(memory: Memory, key: str) -> list[str | None]:
    rows = memory.profile_history("ana", "user", key)
    return [value for row in rows for value in (row.old_value, row.new_value)]


def test_a_changed_diet_holds_the_new_value_and_keeps_the_old(memory: Memory) -> None:
    memory.ingest(msg("m1", "I'm vegetarian."))
    memory.ingest(msg("m2", "Actually I'm not vegetarian anymore, I eat chicken and fish now.",
                      minutes=60))
    [diet] = [f for f in memory.profile("ana", "user") if f.key == "diet"]
    assert diet.value == "omnivore" and diet.sources == ["m2"]  # the vocabulary value
    values = _values(memory, "diet")
    assert "vegetarian" in values and diet.value in values
    assert [row.action for row in memory.profile_history("ana", "user", "diet")] == [
        "add", "update"]


def test_a_new_job_updates_job_and_employer(memory: Memory) -> None:
    memory.ingest(msg("m1", "I work as a barista at Northern Bean."))
    memory.ingest(msg("m2", "I now work as a junior developer at Acme Software.", minutes=60))
    facts = {f.key: f.value for f in memory.profile("ana", "user")}
    assert facts["job"] == "junior developer"
    assert facts["employer"] == "Acme Software"
    assert {"Northern Bean", "Acme Software"} <= set(_values(memory, "employer"))
    assert {"barista", "junior developer"} <= set(_values(memory, "job"))


def test_a_move_updates_the_location_instead_of_deleting_it(memory: Memory) -> None:
    memory.ingest(msg("m1", "I live in Berlin."))
    memory.ingest(msg("m2", "I no longer live in Berlin, I moved to Lisbon.", minutes=60))
    facts = {f.key: f.value for f in memory.profile("ana", "user")}
    assert facts["location"] == "Lisbon"
    history = memory.profile_history("ana", "user", "location")
    assert [(h.action, h.old_value, h.new_value) for h in history] == [
        ("add", None, "Berlin"), ("update", "Berlin", "Lisbon")]
