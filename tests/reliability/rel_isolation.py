"""Tenant isolation: every user carries a canary word in facts, events, documents, tool
output and chat; randomized reads on every read path (queries often name ANOTHER user's
canary) must never show another user's canary or user id. Users share msg_ids on purpose
(``m0``, ``m1``, ... for everyone) so a lookup by id alone would leak."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rel_harness as h

from memfold.errors import InvalidInputError
from memfold.memory import Memory

FOLD = {"l1_max_turns": 6, "min_turns_before_fold": 0, "l2_max_episodes": 3}
_SEEDS = (
    ("user", "My nickname is {c}."),
    ("user", "My favorite snack is {c} crackers."),
    ("user", "Yesterday I visited the {c} market with my brother."),
    ("user", "I work at {c} Labs as an engineer."),
    ("document", "Reference sheet {c}: invoices are due on the 5th; the {c} account is shared."),
    ("tool", "Weather lookup for {c}: sunny, 21 degrees."),
    ("assistant", "Noted, {c} it is."),
    ("user", "We decided to use {c} for the garden project."),
)


def _dump(value: Any) -> str:
    if hasattr(value, "model_dump_json"):
        return value.model_dump_json()
    if isinstance(value, list | tuple):
        return "[" + ",".join(_dump(v) for v in value) + "]"
    return json.dumps(value, default=str)


def read_paths(memory: Memory) -> dict[str, Callable[[str, str], str]]:
    """Every read of the facade as (user, query) -> output text (the echoed query left out)."""
    return {
        "recall": lambda u, q: _dump(memory.recall(q, u).items),
        "context": lambda u, q: (lambda c: c.system + _dump(c.messages) + _dump(c.items))(
            memory.context(q, u, budget_tokens=1500)),
        "profile": lambda u, q: _dump(memory.profile(u)),
        "profile_history": lambda u, q: _dump(memory.profile_history(u)),
        "events": lambda u, q: _dump(memory.events(u)),
        "search": lambda u, q: _dump(memory.search(q, u)),
        "episodes": lambda u, q: _dump(memory.episodes(u)),
        "semantic": lambda u, q: _dump(memory.semantic(u)),
        "export": lambda u, q: _dump(list(memory.export(u))),
        "explain": lambda u, q: _dump(memory.explain(u, "user", _some_key(memory, u))),
    }


def _some_key(memory: Memory, user: str) -> str:
    facts = memory.profile(user)
    return facts[0].key if facts else "nickname"


def _seed(memory: Memory, users: dict[str, str], rng: random.Random, rounds: int) -> None:
    for n in range(rounds):
        batch = []
        for user, canary in users.items():
            role, template = _SEEDS[n % len(_SEEDS)]
            batch.append({"msg_id": f"m{n}", "user_id": user, "role": role,
                          "speaker": "Sam" if role == "user" else role,
                          "text": template.format(c=canary),
                          "ts": h.T0.replace(day=1 + n % 27).isoformat()})
        rng.shuffle(batch)
        memory.ingest_many(batch)


def unscoped_reads_rejected(memory: Memory) -> dict[str, int]:
    """Every read path called without a user (None, "", blanks): which calls were NOT rejected.

    ``export(None)`` is the documented whole-store export (``memfold export`` with no user),
    so it is reported apart from the per-user reads."""
    accepted: list[str] = []
    calls = 0
    for name, read in read_paths(memory).items():
        for missing in (None, "", "   "):
            calls += 1
            try:
                read(missing, "anything")  # type: ignore[arg-type]
                accepted.append(f"{name}({missing!r})")
            except InvalidInputError:
                pass
    admin = [a for a in accepted if a == "export(None)"]
    return {"unscoped_read_calls": calls,
            "unscoped_reads_not_rejected": len(accepted) - len(admin),
            "unscoped_not_rejected": accepted, "whole_store_export_allowed": bool(admin)}


def isolation(root: str, operations: int = 300, seed: int = 0, users: int = 5,
              embedder: str = "hashing") -> dict[str, Any]:
    rng = random.Random(seed)
    store = Path(root) / "store"
    memory = Memory.open(store, h.settings(store, embedder, **FOLD))
    tenants = {f"tenant-{uuid.UUID(int=rng.getrandbits(128)).hex[:10]}":
               f"cnry{uuid.UUID(int=rng.getrandbits(128)).hex[:12]}" for _ in range(users)}
    _seed(memory, tenants, rng, rounds=12)
    paths = read_paths(memory)
    leaks: list[dict[str, str]] = []
    per_path = {name: 0 for name in paths}
    own_seen = writes = 0
    next_id = 100
    for _ in range(operations):
        user = rng.choice(list(tenants))
        if rng.random() < 0.05:  # keep writing while reading
            _seed_one(memory, user, tenants[user], next_id, rng)
            next_id, writes = next_id + 1, writes + 1
            continue
        name = rng.choice(list(paths))
        query = rng.choice([tenants[rng.choice(list(tenants))], "what is my nickname",
                            "where did I go yesterday", rng.choice(list(tenants))])
        output = paths[name](user, query)
        per_path[name] += 1
        own_seen += tenants[user] in output
        for other, canary in tenants.items():
            if other != user and (canary in output or other in output):
                leaks.append({"path": name, "reader": user, "leaked": other})
    result = {"embedder": embedder, "operations": operations,
              "reads": sum(per_path.values()), "writes": writes,
              "reads_per_path": per_path, "leaks": len(leaks), "leak_examples": leaks[:5],
              "reads_showing_own_canary": own_seen, **unscoped_reads_rejected(memory)}
    memory.close()
    return result


def _seed_one(memory: Memory, user: str, canary: str, number: int, rng: random.Random) -> None:
    role, template = rng.choice(_SEEDS)
    memory.ingest({"msg_id": f"m{number}", "user_id": user, "role": role, "speaker": "Sam",
                   "text": template.format(c=canary),
                   "ts": h.T0.replace(month=4, day=1 + number % 27).isoformat()})
