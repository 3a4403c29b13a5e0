"""enforce_retention on the stores (in-memory reference and DuckDB): TTL, LRU, archival,
the changelog, transactions."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memfold.errors import InvalidInputError
from memfold.stores import Stores
from memfold.stores.retention import (
    RETENTION_ACTOR,
    RetentionPolicy,
    enforce_for_batch,
    enforce_retention,
    evicted_item_id,
)

from .conftest import USER, at, message, state


def evicted_rows(stores: Stores, user: str = USER) -> list:
    return stores.archive.list(user, kinds=["evicted_fact"])


def test_expired_fact_moves_to_the_archive_with_its_history(stores: Stores) -> None:
    first = state(stores, "mood", "cheerful", at(0))
    second = state(stores, "mood", "grumpy", at(2))
    state(stores, "name", "Ana", at(0))
    policy = RetentionPolicy(ttl_by_key={"mood": "7d"})
    report = enforce_retention(stores, USER, now=at(10), policy=policy)

    assert [(r.key, r.value, r.action) for r in report.expired] == [("mood", "grumpy", "expire")]
    assert report.evicted == [] and report.remaining == 1
    assert [f.key for f in stores.profile.list(USER)] == ["name"]
    [row] = evicted_rows(stores)
    assert row.item_id == report.expired[0].item_id == evicted_item_id(USER, "user", "mood")
    assert row.kind == "evicted_fact" and row.subject == "user" and row.occurred_at == at(2)
    assert "user mood: grumpy" in row.text
    assert '1 March 2025: set to "cheerful"' in row.text
    assert '3 March 2025: changed from "cheerful" to "grumpy"' in row.text
    assert "No longer in the profile since 11 March 2025" in row.text
    assert set(row.sources) == {first, second}
    assert "grumpy" in row.key_text and "cheerful" in row.key_text
    assert report.archived == [row]


def test_the_changelog_records_the_expiry(stores: Stores) -> None:
    state(stores, "mood", "grumpy", at(0))
    enforce_retention(stores, USER, now=at(8), policy=RetentionPolicy(ttl_by_key={"mood": "7d"}))
    last = stores.profile.history(USER, "user", "mood")[-1]
    assert (last.action, last.actor, last.old_value, last.new_value) == ("expire", RETENTION_ACTOR, "grumpy", None)
    assert last.changed_at == at(8)
    assert "TTL 7d" in last.reason and "key 'mood'" in last.reason


def test_a_fact_whose_ttl_has_not_run_out_stays(stores: Stores) -> None:
    state(stores, "mood", "grumpy", at(0))
    state(stores, "mood", "grumpy", at(5))  # restating refreshes the TTL
    report = enforce_retention(stores, USER, now=at(10), policy=RetentionPolicy(ttl_by_key={"mood": "7d"}))
    assert report.retired == [] and report.archived == []
    assert [f.value for f in stores.profile.list(USER)] == ["grumpy"]
    assert evicted_rows(stores) == []
    assert [c.action for c in stores.profile.history(USER)] == ["add"]


def test_reads_do_not_extend_a_ttl(stores: Stores) -> None:
    state(stores, "mood", "grumpy", at(0))
    stores.profile.touch(USER, "user", "mood", at(6))
    report = enforce_retention(stores, USER, now=at(8), policy=RetentionPolicy(ttl_by_key={"mood": "7d"}))
    assert [r.key for r in report.expired] == ["mood"]


def test_the_cap_evicts_the_least_recently_used(stores: Stores) -> None:
    state(stores, "hobby:chess", "chess", at(0))
    state(stores, "hobby:golf", "golf", at(1))
    state(stores, "hobby:yoga", "yoga", at(2))
    stores.profile.touch(USER, "user", "hobby:chess", at(3))  # read: chess is now the most recent
    report = enforce_retention(stores, USER, now=at(4), policy=RetentionPolicy(max_facts=2))

    assert [(r.key, r.action) for r in report.evicted] == [("hobby:golf", "evict")]
    assert report.evicted[0].last_used_at == at(1)
    assert sorted(f.key for f in stores.profile.list(USER)) == ["hobby:chess", "hobby:yoga"]
    [row] = evicted_rows(stores)
    assert "user hobby:golf: golf" in row.text
    last = stores.profile.history(USER, "user", "hobby:golf")[-1]
    assert (last.action, last.actor) == ("evict", RETENTION_ACTOR)
    assert "more than 2 facts" in last.reason


def test_expiry_runs_before_the_cap(stores: Stores) -> None:
    state(stores, "mood", "tired", at(0))
    state(stores, "job", "nurse", at(1))
    state(stores, "location", "Lisbon", at(2))
    policy = RetentionPolicy(ttl_by_key={"mood": "1d"}, max_facts=2)
    report = enforce_retention(stores, USER, now=at(3), policy=policy)
    assert [r.key for r in report.expired] == ["mood"]
    assert report.evicted == []  # the expiry already brought the profile under the cap
    assert report.remaining == 2 == len(stores.profile.list(USER))


def test_a_policy_without_rules_reads_and_changes_nothing(stores: Stores) -> None:
    state(stores, "mood", "grumpy", at(0))
    report = enforce_retention(stores, USER, now=at(900), policy=RetentionPolicy())
    assert report.remaining is None and report.retired == []
    assert len(stores.profile.list(USER)) == 1


def test_enforcement_rolls_back_with_the_callers_transaction(stores: Stores) -> None:
    state(stores, "mood", "grumpy", at(0))
    with pytest.raises(RuntimeError), stores.db.transaction():
        report = enforce_retention(stores, USER, now=at(9), policy=RetentionPolicy(ttl_by_key={"mood": "1d"}))
        assert report.expired  # done inside the transaction...
        raise RuntimeError("the batch failed")
    assert [f.key for f in stores.profile.list(USER)] == ["mood"]  # ...and undone with it
    assert evicted_rows(stores) == []
    assert [c.action for c in stores.profile.history(USER)] == ["add"]


def test_a_key_retired_twice_keeps_one_row_with_every_value(stores: Stores) -> None:
    policy = RetentionPolicy(ttl_by_key={"diet": "7d"})
    m1 = state(stores, "diet", "vegetarian", at(0))
    enforce_retention(stores, USER, now=at(8), policy=policy)
    m2 = state(stores, "diet", "vegan", at(20))
    second = enforce_retention(stores, USER, now=at(30), policy=policy)
    [row] = evicted_rows(stores)
    assert row.item_id == second.archived[0].item_id
    assert "user diet: vegan" in row.text and '"vegetarian"' in row.text
    assert "9 March 2025" in row.text and "expired from the profile" in row.text  # the first expiry
    assert {m1, m2} <= set(row.sources)
    actions = [c.action for c in stores.profile.history(USER, "user", "diet")]
    assert actions == ["add", "expire", "add", "expire"]


def test_enforcement_is_per_user(stores: Stores) -> None:
    state(stores, "mood", "grumpy", at(0))
    state(stores, "mood", "sleepy", at(0), user="bo")
    enforce_retention(stores, USER, now=at(9), policy=RetentionPolicy(ttl_by_key={"mood": "1d"}))
    assert stores.profile.list(USER) == []
    assert [f.value for f in stores.profile.list("bo")] == ["sleepy"]
    assert evicted_rows(stores, "bo") == []


def test_subjects_other_than_the_user_count_toward_the_cap(stores: Stores) -> None:
    state(stores, "job", "chef", at(0), subject="Caroline")
    state(stores, "job", "nurse", at(1))
    report = enforce_retention(stores, USER, now=at(2), policy=RetentionPolicy(max_facts=1))
    assert [(r.subject, r.key) for r in report.evicted] == [("Caroline", "job")]
    [row] = evicted_rows(stores)
    assert row.subject == "Caroline" and "Caroline job: chef" in row.text


def test_now_must_carry_a_timezone(stores: Stores) -> None:
    with pytest.raises(InvalidInputError):
        enforce_retention(stores, USER, now=datetime(2025, 3, 1), policy=RetentionPolicy(max_facts=1))
    other_zone = at(9).astimezone(timezone(timedelta(hours=5)))
    state(stores, "mood", "grumpy", at(0))
    report = enforce_retention(stores, USER, now=other_zone, policy=RetentionPolicy(ttl_by_key={"mood": "1d"}))
    assert report.now == at(9) and report.now.utcoffset() == timedelta(0)


def test_enforce_for_batch_uses_each_users_newest_message_time(stores: Stores) -> None:
    state(stores, "mood", "grumpy", at(0))
    state(stores, "mood", "sleepy", at(0), user="bo")
    state(stores, "job", "baker", at(0), user="cy")
    batch = [message("a1", "hi", at(3)), message("a2", "hello", at(9)), message("b1", "yo", at(1), user="bo"),
             message("c1", "hey", at(30), user="cy")]
    policy = RetentionPolicy(ttl_by_key={"mood": "2d"})
    reports = enforce_for_batch(stores, batch, policy=policy)
    # ana's clock is day 9 (mood expires), bo's is day 1 (it stays), cy has no mood: no report
    assert [(r.user_id, r.now, [f.key for f in r.expired]) for r in reports] == [(USER, at(9), ["mood"])]
    assert [f.value for f in stores.profile.list("bo")] == ["sleepy"]
    assert enforce_for_batch(stores, batch, policy=RetentionPolicy()) == []
