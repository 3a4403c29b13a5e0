"""16 threads in one process share one Memory: ingest for mixed users, overwrite the same
profile keys, read while others write. Nothing may surface as an error, no write may be
lost, and the profile changelog must hold every change a thread was told it made."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import rel_harness as h

from memfold.memory import Memory
from memfold.models import ProfileChange

SHARED_USER = "shared"
KEYS = ("city", "employer", "diet")


class _Ledger:
    """What the threads were told: ingested ids, returned changes, and any error."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ingested: set[tuple[str, str]] = set()
        self.changes: list[ProfileChange] = []
        self.errors: list[str] = []

    def add(self, attr: str, value: Any) -> None:
        with self.lock:
            target = getattr(self, attr)
            target.add(value) if isinstance(target, set) else target.append(value)


def _worker(memory: Memory, ledger: _Ledger, thread: int, iterations: int, seed: int,
            start: threading.Barrier) -> None:
    rng = random.Random(seed * 1000 + thread)
    start.wait()
    for i in range(iterations):
        user = h.USERS[(thread + i) % len(h.USERS)]
        try:
            msg = h.message(user, f"t{thread}-{i}", thread * 1000 + i, rng)
            memory.ingest_many([msg])
            ledger.add("ingested", (user, msg["msg_id"]))
            change = memory.set_fact(SHARED_USER, KEYS[(thread + i) % len(KEYS)], f"v{thread}-{i}",
                                     sources=["seed"])
            if change is not None:
                ledger.add("changes", change)
            if i % 2:
                memory.recall("where does she live", user)
                memory.profile(SHARED_USER)
        except Exception as exc:  # noqa: BLE001 - counting ANY error a caller would see is the test
            ledger.add("errors", f"thread {thread} step {i}: {type(exc).__name__}: {exc}")


def _chain_breaks(history: list[ProfileChange]) -> int:
    """Rows whose old_value is not the previous row's new_value (a lost update)."""
    breaks = 0
    previous: dict[str, str | None] = {}
    for change in history:
        if change.old_value != previous.get(change.key):
            breaks += 1
        previous[change.key] = change.new_value
    return breaks


def threads(root: str, n_threads: int = 16, iterations: int = 5, seed: int = 0) -> dict[str, Any]:
    store = Path(root) / "store"
    memory = Memory.open(store, h.settings(store))
    memory.ingest({"msg_id": "seed", "user_id": SHARED_USER, "text": "ok thanks",
                   "ts": h.T0.isoformat()})
    ledger, start = _Ledger(), threading.Barrier(n_threads)
    began = time.perf_counter()
    workers = [threading.Thread(target=_worker, args=(memory, ledger, t, iterations, seed, start))
               for t in range(n_threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    seconds = time.perf_counter() - began
    history = [c for c in memory.profile_history(SHARED_USER) if c.key in KEYS]
    logged = {c.change_id for c in history}
    stored = {tuple(r) for r in memory.stores.db.fetchall("SELECT user_id, msg_id FROM messages")}
    final = {f.key: f.value for f in memory.profile(SHARED_USER)}
    last = {c.key: c.new_value for c in history}
    result = {
        "threads": n_threads, "iterations": iterations, "seconds": round(seconds, 2),
        "errors": len(ledger.errors), "error_examples": ledger.errors[:3],
        "ingested": len(ledger.ingested), "lost_messages": len(ledger.ingested - stored),
        "profile_changes_returned": len(ledger.changes),
        "changes_missing_from_history": len({c.change_id for c in ledger.changes} - logged),
        "history_rows_nobody_made": len(logged - {c.change_id for c in ledger.changes}),
        "lost_updates": _chain_breaks(history),
        "final_value_not_last_change": sum(final.get(k) != v for k, v in last.items()),
        **{k: v for k, v in h.audit(memory).items()
           if k.startswith(("orphan", "index", "messages_without"))},
    }
    memory.close()
    return result
