"""Crash-safety harness for folds: kill -9 a process mid-fold, then read the state back.

A child process (``python -m memfold.compaction.crashcheck child DIR SEED BATCHES``) feeds
deterministic batches through a :class:`ConversationManager` and, per batch, saves the
new FoldState and the archive rows it emitted in ONE DuckDB transaction, printing
``ack N`` after each commit. The parent kills it with SIGKILL at a random moment, opens
the database and checks that the state read back equals the state after the last
acknowledged batch or after the one that was in flight, and that the archive rows are
exactly those of the same batches (state and rows land together or not at all).

Used by tests/compaction (a few runs, marked slow) and benchmarks/compaction.py (50 runs).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from pydantic import BaseModel

from memfold.compaction.base import FoldSettings
from memfold.compaction.manager import ConversationManager
from memfold.models import FoldState, Message
from memfold.tokens import WhitespaceCounter

USER = "crash-user"
_T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
_WORDS = ("invoice budget server Lisbon March deploy because must failed Alice Bruno report "
          "garden meeting decided port").split()


class CrashRun(BaseModel):
    acked: int  # batches acknowledged before the kill
    recovered: int | None  # batch index the recovered state matches (None: matches neither)
    archive_consistent: bool
    ok: bool


def _settings() -> FoldSettings:
    return FoldSettings(l1_max_turns=6, l2_max_episodes=3, min_turns_before_fold=0)


def _manager() -> ConversationManager:
    return ConversationManager(settings=_settings(), counter=WhitespaceCounter())


def batches(seed: int, count: int, size: int = 8) -> list[list[Message]]:
    rng = random.Random(seed)
    out, index = [], 0
    for _ in range(count):
        batch = []
        for _ in range(size):
            words = [rng.choice(_WORDS) for _ in range(rng.randint(4, 14))]
            text = " ".join(words).capitalize() + f" {rng.randint(1, 999)}."
            batch.append(Message(msg_id=f"c{index}", user_id=USER, speaker=rng.choice(["Ann", "Bob"]),
                                 text=text, ts=_T0 + timedelta(minutes=index)))
            index += 1
        out.append(batch)
    return out


def expected(seed: int, count: int) -> tuple[list[FoldState], list[set[str]]]:
    """States after 0..count batches, and the archive ids written up to each."""
    manager = _manager()
    state = manager.new_state(USER)
    states, archives, ids = [state], [set()], set()
    for batch in batches(seed, count):
        outcome = manager.add(state, batch)
        state = outcome.state
        ids = ids | {a.item_id for a in outcome.archive}
        states.append(state)
        archives.append(ids)
    return states, archives


def child(directory: Path, seed: int, count: int) -> None:
    from memfold.stores.duckdb import DuckDBArchiveLog, DuckDBDatabase, DuckDBFoldStore

    db = DuckDBDatabase(directory / "fold.duckdb")
    folds, archive = DuckDBFoldStore(db), DuckDBArchiveLog(db)
    manager = _manager()
    for number, batch in enumerate(batches(seed, count), start=1):
        state = folds.load(USER) or manager.new_state(USER)
        outcome = manager.add(state, batch)
        with db.transaction():
            folds.save(outcome.state)
            archive.add(outcome.archive)
        print(f"ack {number}", flush=True)


def run_once(directory: Path, seed: int, count: int = 20) -> CrashRun:
    """Start a child, SIGKILL it after a random number of acks (+ a random delay), check."""
    rng = random.Random(seed)
    target = rng.randint(1, count - 2)
    proc = subprocess.Popen([sys.executable, "-m", "memfold.compaction.crashcheck", "child",
                             str(directory), str(seed), str(count)],
                            stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    acked = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("ack "):
            acked = int(line.split()[1])
        if acked >= target:
            time.sleep(rng.uniform(0.0, 0.25))  # land anywhere in the next batch
            break
    proc.send_signal(signal.SIGKILL)
    rest = proc.communicate()[0] or ""
    acked = max([acked] + [int(x.split()[1]) for x in rest.splitlines() if x.startswith("ack ")])
    return _check(directory, seed, count, acked)


def _check(directory: Path, seed: int, count: int, acked: int) -> CrashRun:
    from memfold.stores.duckdb import DuckDBArchiveLog, DuckDBDatabase, DuckDBFoldStore

    states, archives = expected(seed, count)
    db = DuckDBDatabase(directory / "fold.duckdb")
    try:
        state = DuckDBFoldStore(db).load(USER) or states[0]
        ids = {a.item_id for a in DuckDBArchiveLog(db).list(USER)}
    finally:
        db.close()
    candidates = [i for i in (acked, acked + 1) if i < len(states)]
    recovered = next((i for i in candidates if states[i] == state), None)
    consistent = recovered is not None and ids == archives[recovered]
    return CrashRun(acked=acked, recovered=recovered, archive_consistent=consistent,
                    ok=recovered is not None and consistent)


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "child":
    child(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
