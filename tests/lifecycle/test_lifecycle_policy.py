"""RetentionPolicy: durations, which rule applies to a fact, and the pure selections."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from memfold.errors import ConfigError
from memfold.models import ProfileFact
from memfold.stores.retention import (
    RetentionPolicy,
    describe_duration,
    policy_from_settings,
    select_evicted,
    select_expired,
)

from .conftest import T0, USER, at


def fact(key: str, value: str = "v", *, hours: float = 0, category: str | None = None,
         subject: str = "user") -> ProfileFact:
    return ProfileFact(user_id=USER, subject=subject, key=key, value=value, sources=["m1"],
                       updated_at=at(hours=hours), category=category)


@pytest.mark.parametrize(("text", "expected"), [
    ("7d", timedelta(days=7)), ("12h", timedelta(hours=12)), ("1d12h", timedelta(hours=36)),
    ("2w", timedelta(days=14)), ("90s", timedelta(seconds=90)), ("30m", timedelta(minutes=30)),
    ("1.5h", timedelta(minutes=90)), ("P7D", timedelta(days=7)), (3600, timedelta(hours=1)),
    (timedelta(days=3), timedelta(days=3)),
])
def test_ttl_durations_parse(text: object, expected: timedelta) -> None:
    policy = RetentionPolicy(ttl_by_key={"mood": text}, default_ttl=text)
    assert policy.ttl_by_key["mood"] == expected
    assert policy.default_ttl == expected


@pytest.mark.parametrize("bad", ["0d", "-1d", "soon", "seven days", 0, -5])
def test_bad_ttl_is_refused(bad: object) -> None:
    with pytest.raises(ValidationError):
        RetentionPolicy(ttl_by_key={"mood": bad})


def test_unknown_setting_and_negative_cap_are_refused() -> None:
    with pytest.raises(ValidationError):
        RetentionPolicy(max_fact=10)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        RetentionPolicy(max_facts=-1)


def test_policy_from_settings_translates_errors() -> None:
    assert policy_from_settings({"ttl_by_key": {"mood": "7d"}, "max_facts": 5}) == RetentionPolicy(
        ttl_by_key={"mood": timedelta(days=7)}, max_facts=5)
    assert policy_from_settings(None) == RetentionPolicy()
    with pytest.raises(ConfigError, match="max_facts"):
        policy_from_settings({"max_facts": "many"})


def test_default_policy_forgets_nothing() -> None:
    assert not RetentionPolicy().is_active()
    assert RetentionPolicy(max_facts=0).is_active()
    assert RetentionPolicy(categories={"mood": "transient"}).is_active() is False


def test_most_specific_ttl_wins() -> None:
    policy = RetentionPolicy(
        ttl_by_key={"plan:trip": "1d", "plan": "2d"}, ttl_by_category={"transient": "3d"},
        categories={"mood": "transient"}, default_ttl="4d")
    assert policy.ttl_for(fact("plan:trip")) == (timedelta(days=1), "key 'plan:trip'")
    assert policy.ttl_for(fact("plan:dinner")) == (timedelta(days=2), "key 'plan'")
    assert policy.ttl_for(fact("mood")) == (timedelta(days=3), "category 'transient'")
    assert policy.ttl_for(fact("job", category="transient")) == (timedelta(days=3), "category 'transient'")
    assert policy.ttl_for(fact("name")) == (timedelta(days=4), "the default")
    assert RetentionPolicy().ttl_for(fact("name")) is None


def test_stored_category_beats_the_mapping() -> None:
    policy = RetentionPolicy(ttl_by_category={"transient": "1d"}, categories={"mood": "stable"})
    assert policy.ttl_for(fact("mood")) is None
    assert policy.ttl_for(fact("mood", category="transient")) is not None


def test_expiry_counts_from_the_last_statement_and_includes_the_boundary() -> None:
    policy = RetentionPolicy(ttl_by_key={"mood": "7d"})
    facts = [fact("mood", hours=0)]
    assert select_expired(facts, policy, T0 + timedelta(days=7) - timedelta(seconds=1)) == []
    [(expired, reason)] = select_expired(facts, policy, T0 + timedelta(days=7))
    assert expired.key == "mood"
    assert "TTL 7d" in reason and "key 'mood'" in reason


def test_lru_order_uses_reads_and_statements_with_a_deterministic_tie_break() -> None:
    facts = [fact("a", hours=0), fact("b", hours=1), fact("c", hours=2), fact("d", hours=2)]
    accessed = {("user", "a"): at(hours=5), ("user", "b"): None}
    doomed = [f.key for f, _ in select_evicted(facts, accessed, 2)]
    assert doomed == ["b", "c"]  # a was read last; c and d tie on time, c sorts first
    assert select_evicted(facts, accessed, 4) == []
    assert select_evicted(facts, accessed, None) == []
    assert [f.key for f, _ in select_evicted(facts, accessed, 0)] == ["b", "c", "d", "a"]


def test_describe_duration() -> None:
    assert describe_duration(timedelta(days=7)) == "7d"
    assert describe_duration(timedelta(hours=36, seconds=5)) == "1d12h5s"
