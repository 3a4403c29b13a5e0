"""Erasure: after ``forget(user)`` not one byte of that user's canary (or user id) is left in
any file under the store directory (DuckDB file and WAL, every Chroma file), while the
other users' data is unchanged and still searchable, before and after a reopen. Also
measures what ``forget`` costs against the size of the store."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import rel_harness as h

from memfold.memory import Memory

FOLD = {"l1_max_turns": 8, "min_turns_before_fold": 0, "l2_max_episodes": 3}
_TEMPLATES = (
    ("user", "My favorite color is {c}."),
    ("user", "Last Tuesday I flew to {c} for a conference."),
    ("document", "Contract {c}: payment terms net 30, signed by both parties."),
    ("tool", "Lookup {c}: 3 results found."),
    ("user", "We talked about {c} again over dinner."),
)


def _messages(user: str, canary: str, count: int, rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for n in range(count):
        role, template = _TEMPLATES[n % len(_TEMPLATES)] if n % 3 == 0 else rng.choice(_TEMPLATES)
        out.append({"msg_id": f"m{n}", "user_id": user, "role": role, "speaker": "Sam",
                    "session_id": f"s{n // 50}", "text": template.format(c=canary),
                    "ts": (h.T0 + timedelta(minutes=n)).isoformat()})
    return out


def _footprint(memory: Memory, user: str) -> dict[str, int]:
    return {"messages": memory.stores.log.count(user), "facts": len(memory.profile(user)),
            "events": memory.stores.events.count(user),
            "archive": memory.stores.archive.count(user),
            "vectors": len(memory.stores.index.ids(user))}


def _searchable(memory: Memory, users: dict[str, str]) -> int:
    """Users whose own canary still comes back from a dense search."""
    return sum(any(canary in item.text for item in memory.search(canary, user, k=5))
               for user, canary in users.items())


def _time_parts(memory: Memory) -> dict[str, float]:
    """Time the two file rewrites inside forget (wrapped on this instance only)."""
    spent: dict[str, float] = {}

    def timed(name: str, work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            started = time.perf_counter()
            try:
                work()
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - started
        return run

    db, index = memory.stores.db, memory.stores.index
    db.rewrite_file = timed("duckdb_rewrite", db.rewrite_file)  # type: ignore[attr-defined]
    index.purge_log = timed("chroma_purge", index.purge_log)  # type: ignore[attr-defined]
    return spent


def erase_one(root: Path, per_user: int, users: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    store = root / f"store-{per_user}"
    tenants = {f"user-{uuid.UUID(int=rng.getrandbits(128)).hex[:12]}":
               f"cnry{uuid.UUID(int=rng.getrandbits(128)).hex[:16]}" for _ in range(users)}
    victim, canary = next(iter(tenants.items()))
    others = {u: c for u, c in tenants.items() if u != victim}
    memory = Memory.open(store, h.settings(store, **FOLD))
    for user, word in tenants.items():
        memory.ingest_many(_messages(user, word, per_user, rng))
    memory.stores.db.checkpoint()  # type: ignore[attr-defined]
    before = {u: _footprint(memory, u) for u in others}
    present = sum(h.store_bytes_with(store, canary.encode()).values())
    store_bytes = sum(f.stat().st_size for f in store.rglob("*") if f.is_file())
    parts = _time_parts(memory)
    report = memory.forget(victim)
    after_forget = {"canary": h.store_bytes_with(store, canary.encode()),
                    "user_id": h.store_bytes_with(store, victim.encode())}
    changed = sum(_footprint(memory, u) != before[u] for u in others)
    searchable = _searchable(memory, others)
    memory.close()
    memory = Memory.open(store, h.settings(store, **FOLD))
    reopened = {"canary": h.store_bytes_with(store, canary.encode()),
                "user_id": h.store_bytes_with(store, victim.encode())}
    result = {
        "messages_total": per_user * users, "store_bytes_before": store_bytes,
        "canary_occurrences_before": present, "forget_seconds": round(report.seconds, 3),
        "forget_parts_seconds": {k: round(v, 3) for k, v in parts.items()},
        "forgotten": report.model_dump(exclude={"user_id", "seconds"}),
        "canary_bytes_after": sum(after_forget["canary"].values())
        + sum(reopened["canary"].values()),
        "user_id_bytes_after": sum(after_forget["user_id"].values())
        + sum(reopened["user_id"].values()),
        "files_with_canary_after": sorted({*after_forget["canary"], *reopened["canary"]}),
        "files_with_user_id_after": sorted({*(f"after forget: {k}" for k, v in after_forget["user_id"].items() if v),
                                            *(f"after reopen: {k}" for k, v in reopened["user_id"].items() if v)}),
        "victim_rows_after": _footprint(memory, victim),
        "other_users": len(others), "other_users_changed": changed,
        "other_users_searchable": searchable,
        "other_users_searchable_after_reopen": _searchable(memory, others),
        "users_after": len(memory.users()),
    }
    memory.close()
    return result


def erasure(root: str, sizes: tuple[int, ...] = (40,), users: int = 3,
            seed: int = 0) -> dict[str, Any]:
    """``sizes`` are messages per user; one store per size."""
    rows = [erase_one(Path(root), size, users, seed + n) for n, size in enumerate(sizes)]
    return {"runs": rows,
            "canary_bytes_after": sum(r["canary_bytes_after"] for r in rows),
            "user_id_bytes_after": sum(r["user_id_bytes_after"] for r in rows),
            "other_users_changed": sum(r["other_users_changed"] for r in rows),
            "other_users_not_searchable": sum(2 * r["other_users"] - r["other_users_searchable"]
                                              - r["other_users_searchable_after_reopen"]
                                              for r in rows),
            "forget_cost": [{"messages": r["messages_total"],
                             "store_mb": round(r["store_bytes_before"] / 2**20, 2),
                             "seconds": r["forget_seconds"], **r["forget_parts_seconds"]}
                            for r in rows]}
