"""Invariants of enforcement over random histories of statements, reads and enforcements:
the profile never exceeds the cap, no retired fact is lost (its value and sources are in
the archive even after its key was retired again), LRU order holds, the changelog and
the report agree with the stores."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfold.models import ProfileFact
from memfold.stores import Stores
from memfold.stores.retention import RetentionPolicy, RetentionReport, enforce_retention, evicted_item_id

from .conftest import T0, USER, make_stores, message

KEYS = ("mood", "hobby:chess", "plan:trip")  # few keys: a key is often retired twice
SUBJECTS = ("user", "Caroline")

operations = st.lists(st.one_of(
    st.tuples(st.just("state"), st.sampled_from(SUBJECTS), st.sampled_from(KEYS), st.integers(0, 30)),
    st.tuples(st.just("touch"), st.sampled_from(SUBJECTS), st.sampled_from(KEYS), st.integers(0, 30)),
    st.tuples(st.just("enforce"), st.just(""), st.just(""), st.integers(0, 30)),
), max_size=30)

policies = st.builds(
    RetentionPolicy,
    max_facts=st.none() | st.integers(0, 5),
    ttl_by_key=st.dictionaries(st.sampled_from(("mood", "hobby", "plan:trip")),
                               st.integers(1, 72).map(lambda h: timedelta(hours=h)), max_size=2),
)


@dataclass
class World:
    """Drives one store through a history and remembers every fact ever retired."""

    stores: Stores
    policy: RetentionPolicy
    clock: datetime = T0
    statements: int = 0
    retired: list[tuple[ProfileFact, str]] = field(default_factory=list)

    def state(self, subject: str, key: str) -> None:
        self.statements += 1
        msg_id = f"m{self.statements}"
        fact = ProfileFact(user_id=USER, subject=subject, key=key, value=f"value {self.statements}",
                           sources=[msg_id], updated_at=self.clock)
        with self.stores.db.transaction():
            self.stores.log.append([message(msg_id, f"about {key}", self.clock)])
            self.stores.profile.upsert(fact)

    def touch(self, subject: str, key: str) -> None:
        self.stores.profile.touch(USER, subject, key, self.clock)

    def enforce(self) -> RetentionReport:
        before = {(f.subject, f.key): f for f in self.stores.profile.list(USER)}
        used = self.stores.profile.last_accessed(USER)
        changes = len(self.stores.profile.history(USER))
        with self.stores.db.transaction():
            report = enforce_retention(self.stores, USER, now=self.clock, policy=self.policy)
        check_report(self, report, before, used, changes)
        self.retired += [(before[(r.subject, r.key)], r.action) for r in report.retired]
        return report


def check_report(world: World, report: RetentionReport, before: dict, used: dict, changes: int) -> None:
    stores, policy = world.stores, world.policy
    after = {(f.subject, f.key): f for f in stores.profile.list(USER)}
    gone = {(r.subject, r.key) for r in report.retired}
    if policy.max_facts is not None:
        assert len(after) <= policy.max_facts
    assert set(after) == set(before) - gone and all(after[k] == before[k] for k in after)
    assert report.remaining == (len(after) if policy.is_active() else None)
    new_rows = stores.profile.history(USER)[changes:]
    assert sorted((c.subject, c.key, c.action, c.actor) for c in new_rows) == sorted(
        (r.subject, r.key, r.action, "retention") for r in report.retired)
    for r in report.expired:
        ttl, _ = policy.ttl_for(before[(r.subject, r.key)])
        assert world.clock - r.updated_at >= ttl
    for k, fact in after.items():  # nothing past its TTL survives
        rule = policy.ttl_for(fact)
        assert rule is None or world.clock - fact.updated_at < rule[0]
    if report.evicted and after:  # LRU: every evicted fact was used no later than any survivor
        newest_evicted = max(r.last_used_at for r in report.evicted)
        oldest_kept = min(max(f.updated_at, used.get(k) or f.updated_at) for k, f in after.items())
        assert newest_evicted <= oldest_kept


def check_nothing_lost(world: World) -> None:
    rows = {row.item_id: row for row in world.stores.archive.list(USER, kinds=["evicted_fact"])}
    assert len(rows) == len({(f.subject, f.key) for f, _ in world.retired})
    for fact, _ in world.retired:
        row = rows[evicted_item_id(USER, fact.subject, fact.key)]
        assert f'"{fact.value}"' in row.text  # the history quotes every value the key held
        assert re.search(rf"{re.escape(fact.value)}(?!\d)", row.key_text)  # and the key embeds it
        assert set(fact.sources) <= set(row.sources)
        assert row.subject == fact.subject and row.kind == "evicted_fact"


def check_invariants(stores: Stores, policy: RetentionPolicy, ops: list) -> World:
    world = World(stores, policy)
    for name, subject, key, hours in ops:
        world.clock += timedelta(hours=hours)
        if name == "state":
            world.state(subject, key)
        elif name == "touch":
            world.touch(subject, key)
        else:
            world.enforce()
    world.enforce()
    check_nothing_lost(world)
    return world


@settings(max_examples=150, deadline=None)
@given(policy=policies, ops=operations)
def test_invariants_on_the_reference_store(policy: RetentionPolicy, ops: list) -> None:
    check_invariants(make_stores("memory"), policy, ops)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy=policies, ops=operations)
def test_invariants_on_duckdb(policy: RetentionPolicy, ops: list) -> None:
    stores = make_stores("duckdb")
    try:
        check_invariants(stores, policy, ops)
    finally:
        stores.close()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy=policies, ops=operations)
def test_invariants_on_duckdb_quick(policy: RetentionPolicy, ops: list) -> None:
    stores = make_stores("duckdb")
    try:
        check_invariants(stores, policy, ops)
    finally:
        stores.close()


def test_the_property_harness_does_retire_facts() -> None:
    """Guard against a vacuous property: a known history retires and archives facts."""
    ops = [("state", "user", "mood", 0), ("state", "user", "job", 1), ("state", "Caroline", "job", 1),
           ("enforce", "", "", 1), ("state", "user", "mood", 1), ("enforce", "", "", 100)]
    world = check_invariants(make_stores("memory"), RetentionPolicy(max_facts=1, ttl_by_key={"mood": "1d"}), ops)
    # cap 1 at 3h evicts mood then user.job (least recently used); mood, stated again, expires at 104h
    assert [(f.subject, f.key, f.value, a) for f, a in world.retired] == [
        ("user", "mood", "value 1", "evict"), ("user", "job", "value 2", "evict"),
        ("user", "mood", "value 4", "expire")]
    assert [f.key for f in world.stores.profile.list(USER)] == ["job"]
    assert {action for _, action in world.retired} == {"evict", "expire"}
