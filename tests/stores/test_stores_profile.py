"""ProfileStore contract: evidence required, overwrite + changelog, source merge, erasure."""

from __future__ import annotations

import pytest
from stores_helpers import at, fact

from memfold.errors import EvidenceRequiredError
from memfold.models import ProfileChange
from memfold.stores import Stores


def test_first_write_adds_with_changelog_row(stores: Stores) -> None:
    change = stores.profile.upsert(fact("city", "Austin", "m1"), reason="said so", actor="router")
    assert change is not None and change.action == "add" and change.new_value == "Austin"
    assert stores.profile.get("ana", "user", "city") == fact("city", "Austin", "m1")
    assert stores.profile.history("ana") == [change]
    assert change.changed_at == at(0)  # stamped with the fact's time (the message time)


def test_write_without_sources_is_refused(stores: Stores) -> None:
    unsupported = fact("city", "Austin").model_copy(update={"sources": []})
    with pytest.raises(EvidenceRequiredError):
        stores.profile.upsert(unsupported)
    assert stores.profile.get("ana", "user", "city") is None
    assert stores.profile.history("ana") == []


def test_overwrite_logs_old_and_new_value(stores: Stores) -> None:
    stores.profile.upsert(fact("diet", "vegetarian", "m1"))
    change = stores.profile.upsert(fact("diet", "eats meat", "m7", minutes=5), reason="changed")
    assert change is not None and change.action == "update"
    assert (change.old_value, change.new_value) == ("vegetarian", "eats meat")
    assert change.sources == ["m7"]
    current = stores.profile.get("ana", "user", "diet")
    assert current is not None and current.value == "eats meat" and current.sources == ["m7"]
    assert [c.action for c in stores.profile.history("ana", "user", "diet")] == ["add", "update"]


def test_same_value_merges_sources_without_changelog_row(stores: Stores) -> None:
    stores.profile.upsert(fact("city", "Austin", "m1"))
    assert stores.profile.upsert(fact("city", "Austin", "m4", "m1", minutes=3)) is None
    current = stores.profile.get("ana", "user", "city")
    assert current is not None and current.sources == ["m1", "m4"]
    assert current.updated_at == at(3)
    assert len(stores.profile.history("ana")) == 1


def test_category_is_kept_when_an_update_has_none(stores: Stores) -> None:
    stores.profile.upsert(fact("city", "Austin", "m1", category="location"))
    stores.profile.upsert(fact("city", "Boston", "m2"))
    current = stores.profile.get("ana", "user", "city")
    assert current is not None and current.category == "location"


def test_list_is_sorted_and_filters_by_subject(stores: Stores) -> None:
    stores.profile.upsert(fact("pet", "dog", "m1", subject="mel"))
    stores.profile.upsert(fact("city", "Austin", "m1"))
    stores.profile.upsert(fact("age", "30", "m1"))
    assert [(f.subject, f.key) for f in stores.profile.list("ana")] == [
        ("mel", "pet"), ("user", "age"), ("user", "city")]
    assert [f.key for f in stores.profile.list("ana", "mel")] == ["pet"]


def test_delete_logs_the_removed_value(stores: Stores) -> None:
    stores.profile.upsert(fact("city", "Austin", "m1"))
    change = stores.profile.delete("ana", "user", "city", sources=["m9"], reason="user asked",
                                   at=at(60))
    assert isinstance(change, ProfileChange)
    assert (change.action, change.old_value, change.new_value) == ("delete", "Austin", None)
    assert change.changed_at == at(60) and change.actor == "user"
    assert stores.profile.get("ana", "user", "city") is None
    assert stores.profile.delete("ana", "user", "city") is None  # already gone
    assert [c.action for c in stores.profile.history("ana")] == ["add", "delete"]


def test_evict_action_is_recorded(stores: Stores) -> None:
    stores.profile.upsert(fact("city", "Austin", "m1"))
    change = stores.profile.delete("ana", "user", "city", action="evict", actor="compaction")
    assert change is not None and change.action == "evict" and change.actor == "compaction"


def test_touch_records_last_access(stores: Stores) -> None:
    stores.profile.upsert(fact("city", "Austin", "m1"))
    stores.profile.upsert(fact("age", "30", "m1"))
    stores.profile.touch("ana", "user", "city", at(90))
    stores.profile.touch("ana", "user", "missing", at(90))  # a no-op, not an error
    assert stores.profile.last_accessed("ana") == {("user", "city"): at(90), ("user", "age"): None}


def test_delete_by_source_removes_facts_and_their_words_from_the_log(stores: Stores) -> None:
    stores.profile.upsert(fact("city", "Austin", "m1"))
    stores.profile.upsert(fact("city", "Boston", "m3", minutes=5))
    stores.profile.upsert(fact("age", "30", "m2"))
    assert stores.profile.delete_by_source("ana", ["m1"]) == 0  # the current city cites m3
    history = stores.profile.history("ana", "user", "city")
    assert [(c.old_value, c.new_value) for c in history] == [(None, "Boston")]
    assert stores.profile.delete_by_source("ana", ["m3"]) == 1
    assert stores.profile.get("ana", "user", "city") is None
    assert [f.key for f in stores.profile.list("ana")] == ["age"]


def test_restore_writes_rows_as_given(stores: Stores) -> None:
    stores.profile.upsert(fact("city", "Austin", "m1"))
    stores.profile.upsert(fact("city", "Boston", "m2", minutes=1))
    facts, changes = stores.profile.list("ana"), stores.profile.history("ana")
    stores.profile.delete_user("ana")
    stores.profile.restore(facts, changes)
    stores.profile.restore(facts, changes)  # importing twice adds nothing
    assert stores.profile.list("ana") == facts
    assert stores.profile.history("ana") == changes


def test_delete_user_removes_facts_and_changelog(stores: Stores) -> None:
    stores.profile.upsert(fact("city", "Austin", "m1"))
    stores.profile.upsert(fact("city", "Lima", "m1", user="bob"))
    assert stores.profile.delete_user("ana") == 1
    assert stores.profile.list("ana") == [] and stores.profile.history("ana") == []
    assert len(stores.profile.history("bob")) == 1
