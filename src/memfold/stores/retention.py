"""Forgetting for the profile: time-to-live, a size cap with LRU eviction, and archival.

The profile is injected whole into prompts, so it must not grow without bound (spec:
"Self-Maintained User Profile", problem 3). A deployment picks its rules in a
:class:`RetentionPolicy`:

* **explicit delete** by the user stays ``Memory.delete_fact`` (nothing here);
* **TTL** per key (``{"mood": "7d"}``; a multi-valued base key such as ``"plan"`` covers
  ``plan:trip_to_rome``), per category, or a default. A fact's age is the time since it
  was last *stated* (``updated_at``; restating the same value refreshes it); reads do not
  extend a TTL, because a mood read yesterday is still a mood stated a week ago;
* **a cap** on the number of facts per user: the least recently *used* facts go first,
  where a fact's last use is the later of its last read (``ProfileStore.touch``, done by
  recall) and its last statement.

Forgetting here is not destruction (``Memory.forget`` / ``remove_message`` destroy):
Letta-style, a retired fact moves to the vector archive as one ``evicted_fact`` row
stating the fact and its history from the changelog, with dates, citing the fact's
sources and those of its history, so recall still finds it. The profile row is deleted
with a changelog row (action ``expire`` or ``evict``, actor ``retention``, the rule as
the reason).

Archive ids: one ``evicted_fact`` row per (user, subject, key), id
``evicted_fact-<hash(user, subject, key)>``. A key retired a second time (after being
stated again) *replaces* its row; nothing is lost, because the changelog is append-only
and the new row's history contains every earlier value and the earlier retirement, and
its sources are a superset. One row per key also bounds what forgetting adds to the
archive by the number of distinct keys ever held, and keeps recall from returning two
near-identical rows for one fact. Replaying the same enforcement writes the same row.

:func:`enforce_retention` opens no transaction of its own beyond a re-entrant
``stores.db.transaction()`` block: called inside the caller's transaction it commits or
rolls back with it. The archive rows it adds are unindexed until the caller syncs the
vector index (and tells the retriever's BM25 about them).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memfold.errors import ConfigError, InvalidInputError
from memfold.models import ArchiveItem, Message, ProfileChange, ProfileFact
from memfold.retrieval.indexing import describe_date, fact_sentence
from memfold.stores import Stores
from memfold.stores._common import as_utc, merge_sources

RETENTION_ACTOR = "retention"
RetireAction = Literal["expire", "evict"]

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(w|d|h|m|s)", re.IGNORECASE)
_DURATION = re.compile(r"^\s*(?:\d+(?:\.\d+)?\s*[wdhms]\s*)+$", re.IGNORECASE)
_UNIT_SECONDS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(value: Any) -> Any:
    """``"7d"``, ``"12h"``, ``"1d12h"``, ``"2w"`` -> timedelta; other values pass through
    to pydantic (a timedelta, seconds as a number, ISO 8601 ``"P7D"``)."""
    if isinstance(value, str) and _DURATION.match(value):
        seconds = sum(float(n) * _UNIT_SECONDS[u.lower()] for n, u in _DURATION_PART.findall(value))
        return timedelta(seconds=seconds)
    return value


def describe_duration(value: timedelta) -> str:
    """timedelta(days=7) -> ``"7d"``; the largest units that divide it exactly."""
    seconds = int(value.total_seconds())
    parts = []
    for unit in ("d", "h", "m", "s"):
        amount, seconds = divmod(seconds, _UNIT_SECONDS[unit])
        if amount:
            parts.append(f"{amount}{unit}")
    return "".join(parts) or "0s"


def base_key(key: str) -> str:
    """``"plan:trip_to_rome"`` -> ``"plan"`` (multi-valued keys store one key per value)."""
    return key.partition(":")[0]


class RetentionPolicy(BaseModel):
    """Which profile facts a deployment forgets, and when. The default forgets nothing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ttl_by_key: dict[str, timedelta] = Field(default_factory=dict)
    ttl_by_category: dict[str, timedelta] = Field(default_factory=dict)
    default_ttl: timedelta | None = None
    # key (or base key) -> category, for facts stored without one (the router sets none)
    categories: dict[str, str] = Field(default_factory=dict)
    max_facts: int | None = Field(default=None, ge=0)  # per user, all subjects together

    @field_validator("ttl_by_key", "ttl_by_category", mode="before")
    @classmethod
    def _parse_ttls(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {name: parse_duration(ttl) for name, ttl in value.items()}
        return value

    @field_validator("default_ttl", mode="before")
    @classmethod
    def _parse_default(cls, value: Any) -> Any:
        return parse_duration(value)

    @field_validator("ttl_by_key", "ttl_by_category")
    @classmethod
    def _positive_ttls(cls, value: dict[str, timedelta]) -> dict[str, timedelta]:
        for name, ttl in value.items():
            if ttl <= timedelta(0):
                raise ValueError(f"TTL for {name!r} must be positive, got {ttl}")
        return value

    @field_validator("default_ttl")
    @classmethod
    def _positive_default(cls, value: timedelta | None) -> timedelta | None:
        if value is not None and value <= timedelta(0):
            raise ValueError(f"default_ttl must be positive, got {value}")
        return value

    def is_active(self) -> bool:
        """False for a policy with no rule (enforcement then reads nothing)."""
        return bool(self.ttl_by_key or self.ttl_by_category or self.default_ttl is not None
                    or self.max_facts is not None)

    def category_of(self, fact: ProfileFact) -> str | None:
        mapped = self.categories.get(fact.key) or self.categories.get(base_key(fact.key))
        return fact.category or mapped

    def ttl_for(self, fact: ProfileFact) -> tuple[timedelta, str] | None:
        """The TTL that applies to ``fact`` and the rule it comes from; the most specific
        rule wins: exact key, then base key, then category, then the default."""
        for name in dict.fromkeys((fact.key, base_key(fact.key))):
            if name in self.ttl_by_key:
                return self.ttl_by_key[name], f"key {name!r}"
        category = self.category_of(fact)
        if category is not None and category in self.ttl_by_category:
            return self.ttl_by_category[category], f"category {category!r}"
        if self.default_ttl is not None:
            return self.default_ttl, "the default"
        return None


def policy_from_settings(values: Mapping[str, Any] | RetentionPolicy | None) -> RetentionPolicy:
    """``Settings.retention`` (a dict) -> a policy; bad values raise ConfigError."""
    if isinstance(values, RetentionPolicy):
        return values
    try:
        return RetentionPolicy.model_validate(dict(values or {}))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "retention"
        raise ConfigError(f"retention.{where}: {first.get('msg')}",
                          hint='e.g. {"ttl_by_key": {"mood": "7d"}, "max_facts": 200}') from exc


class RetiredFact(BaseModel):
    """One fact that left the profile, and where it went."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: str
    key: str
    value: str
    action: RetireAction
    reason: str
    updated_at: datetime  # when the fact was last stated
    last_used_at: datetime  # the later of its last read and last statement
    item_id: str  # the evicted_fact archive row that now holds it


class RetentionReport(BaseModel):
    """What one enforcement did for one user."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_id: str
    now: datetime
    expired: list[RetiredFact] = Field(default_factory=list)
    evicted: list[RetiredFact] = Field(default_factory=list)
    archived: list[ArchiveItem] = Field(default_factory=list)  # for the retriever, after commit
    changes: list[ProfileChange] = Field(default_factory=list)
    remaining: int | None = None  # facts left; None when the policy has no rule (nothing read)

    @property
    def retired(self) -> list[RetiredFact]:
        return [*self.expired, *self.evicted]


# -- choosing what to retire (pure) -----------------------------------------------------

def last_used(fact: ProfileFact, accessed: datetime | None) -> datetime:
    """A fact is used when it is stated and when it is read."""
    return fact.updated_at if accessed is None else max(fact.updated_at, as_utc(accessed))


def select_expired(facts: Sequence[ProfileFact], policy: RetentionPolicy,
                   now: datetime) -> list[tuple[ProfileFact, str]]:
    """Facts whose TTL has run out at ``now``, with the reason to log."""
    out = []
    for fact in facts:
        rule = policy.ttl_for(fact)
        if rule is None:
            continue
        ttl, source = rule
        if now - fact.updated_at >= ttl:
            out.append((fact, f"expired: TTL {describe_duration(ttl)} ({source}) since it was "
                              f"last stated on {fact.updated_at:%Y-%m-%d %H:%M}"))
    return out


def select_evicted(facts: Sequence[ProfileFact],
                   accessed: Mapping[tuple[str, str], datetime | None],
                   max_facts: int | None) -> list[tuple[ProfileFact, str]]:
    """The least recently used facts beyond ``max_facts``, least recent first (ties: the
    older statement, then subject and key, so the choice is deterministic)."""
    if max_facts is None or len(facts) <= max_facts:
        return []
    def used(fact: ProfileFact) -> datetime:
        return last_used(fact, accessed.get((fact.subject, fact.key)))

    ranked = sorted(facts, key=lambda f: (used(f), f.updated_at, f.subject, f.key))
    doomed = ranked[: len(facts) - max_facts]
    return [(f, f"evicted: the profile holds more than {max_facts} facts and this one was the "
                f"least recently used (last used {used(f):%Y-%m-%d %H:%M})") for f in doomed]


# -- the archive row --------------------------------------------------------------------

def evicted_item_id(user_id: str, subject: str, key: str) -> str:
    """One archive id per (user, subject, key): a second retirement replaces the row."""
    digest = hashlib.blake2b(f"{user_id}\x1fevicted_fact\x1f{subject}\x1f{key}".encode(),
                             digest_size=12).hexdigest()
    return f"evicted_fact-{digest}"


def describe_change(change: ProfileChange) -> str:
    """One changelog row in words: ``1 December 2025: set to "vegetarian"``."""
    when = describe_date(change.changed_at)
    old, new = _quote(change.old_value), _quote(change.new_value)
    if change.action == "add":
        return f"{when}: set to {new}"
    if change.action == "update":  # old_value is None when source removal scrubbed it
        return f"{when}: changed from {old} to {new}" if change.old_value else f"{when}: set to {new}"
    verb = {"delete": f"deleted by {change.actor}", "expire": "expired from the profile",
            "evict": "evicted from the profile"}[change.action]
    return f"{when}: {old} {verb}" if change.old_value is not None else f"{when}: {verb}"


def archived_fact(fact: ProfileFact, history: Sequence[ProfileChange], *, reason: str,
                  now: datetime) -> ArchiveItem:
    """The ``evicted_fact`` row: the fact, why and when it left the profile, its history."""
    sentence = fact_sentence(fact.subject, fact.key, fact.value)
    lines = [describe_change(c) for c in history]
    text = (f"{sentence} (last stated {describe_date(fact.updated_at)}). No longer in the profile "
            f"since {describe_date(now)} ({reason}).")
    if lines:
        text += " History: " + "; ".join(lines) + "."
    earlier = [v for v in dict.fromkeys(c.new_value for c in history if c.new_value)
               if v != fact.value]
    key_text = sentence + (f"; earlier: {', '.join(earlier)}" if earlier else "")
    sources = merge_sources(fact.sources, [s for c in history for s in c.sources])
    return ArchiveItem(item_id=evicted_item_id(fact.user_id, fact.subject, fact.key),
                       user_id=fact.user_id, kind="evicted_fact", text=text, key_text=key_text,
                       sources=sources, subject=fact.subject, occurred_at=fact.updated_at)


def _quote(value: str | None) -> str:
    return f'"{value}"' if value is not None else "nothing"


# -- enforcement ------------------------------------------------------------------------

def enforce_retention(stores: Stores, user_id: str, *, now: datetime,
                      policy: RetentionPolicy) -> RetentionReport:
    """Expire facts past their TTL, then evict the least recently used beyond the cap;
    each retired fact moves to the archive. Runs in the caller's transaction (re-entrant)."""
    now = _aware(now)
    if not policy.is_active():
        return RetentionReport(user_id=user_id, now=now)
    with stores.db.transaction():
        facts = stores.profile.list(user_id)
        expired = select_expired(facts, policy, now)
        gone = {(f.subject, f.key) for f, _ in expired}
        survivors = [f for f in facts if (f.subject, f.key) not in gone]
        over_cap = policy.max_facts is not None and len(survivors) > policy.max_facts
        # read times matter only when something leaves (the common pass changes nothing)
        accessed = stores.profile.last_accessed(user_id) if expired or over_cap else {}
        evicted = select_evicted(survivors, accessed, policy.max_facts)
        history = _history_by_key(stores, user_id) if expired or evicted else {}
        retired = _Retirements(stores, now, history, accessed)
        for fact, reason in expired:
            retired.retire(fact, reason, "expire")
        for fact, reason in evicted:
            retired.retire(fact, reason, "evict")
        stores.archive.add(retired.items)
    return RetentionReport(user_id=user_id, now=now, expired=retired.facts["expire"],
                           evicted=retired.facts["evict"], archived=retired.items,
                           changes=retired.changes, remaining=len(survivors) - len(evicted))


def enforce_for_batch(stores: Stores, messages: Sequence[Message], *,
                      policy: RetentionPolicy) -> list[RetentionReport]:
    """After an ingest batch, inside its transaction: enforce for every user the batch
    touched, at that user's newest message time. The conversation's clock, not the wall
    clock, so that replaying a transcript forgets what living it would have, and a batch
    never expires the facts it has just stated. Reports only for users it changed."""
    if not policy.is_active():
        return []
    newest: dict[str, datetime] = {}
    for message in messages:
        newest[message.user_id] = max(newest.get(message.user_id, message.ts), message.ts)
    reports = [enforce_retention(stores, user_id, now=now, policy=policy)
               for user_id, now in newest.items()]
    return [report for report in reports if report.retired]


@dataclass
class _Retirements:
    """Moves facts out of the profile one by one and keeps what the report lists."""

    stores: Stores
    now: datetime
    history: dict[tuple[str, str], list[ProfileChange]]
    accessed: Mapping[tuple[str, str], datetime | None]
    items: list[ArchiveItem] = field(default_factory=list)
    changes: list[ProfileChange] = field(default_factory=list)
    facts: dict[str, list[RetiredFact]] = field(default_factory=lambda: {"expire": [], "evict": []})

    def retire(self, fact: ProfileFact, reason: str, action: RetireAction) -> None:
        slot = (fact.subject, fact.key)
        item = archived_fact(fact, self.history.get(slot, []), reason=reason, now=self.now)
        change = self.stores.profile.delete(fact.user_id, fact.subject, fact.key, reason=reason,
                                            actor=RETENTION_ACTOR, action=action, at=self.now)
        self.items.append(item)
        if change is not None:
            self.changes.append(change)
        self.facts[action].append(RetiredFact(
            subject=fact.subject, key=fact.key, value=fact.value, action=action, reason=reason,
            updated_at=fact.updated_at, last_used_at=last_used(fact, self.accessed.get(slot)),
            item_id=item.item_id))


def _history_by_key(stores: Stores, user_id: str) -> dict[tuple[str, str], list[ProfileChange]]:
    grouped: dict[tuple[str, str], list[ProfileChange]] = {}
    for change in stores.profile.history(user_id):
        grouped.setdefault((change.subject, change.key), []).append(change)
    return grouped


def _aware(now: datetime) -> datetime:
    if not isinstance(now, datetime) or now.tzinfo is None or now.tzinfo.utcoffset(now) is None:
        raise InvalidInputError("now must be a timezone-aware datetime",
                                hint="e.g. datetime.now(timezone.utc)")
    return as_utc(now)
