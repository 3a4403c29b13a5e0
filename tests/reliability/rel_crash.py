"""Crash scenarios run inside the zygote (see :mod:`harness`): every worker is a forked
process that is ``kill -9``-ed, then a fresh forked process reopens the store and audits it.

Each scenario function takes ``runs`` (or ``tries``), a ``seed`` and a ``root`` directory,
and returns plain figures (JSON-ready); the tests assert on them, the benchmark records them.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path
from typing import Any

import rel_harness as h

# Imported here so that forked workers start with everything loaded (the zygote's point),
# including what Memory imports lazily: every worker then runs one consistent snapshot of
# the code even while the files change on disk.
import memfold.compaction.scrub  # noqa: F401
import memfold.config  # noqa: F401
import memfold.embed.precomputed  # noqa: F401
import memfold.llm.base  # noqa: F401
import memfold.llm.offline  # noqa: F401
import memfold.retrieval.context  # noqa: F401
import memfold.retrieval.indexing  # noqa: F401
import memfold.router.apply  # noqa: F401
import memfold.stores.sync  # noqa: F401
from memfold.compaction.manager import ConversationManager  # noqa: F401
from memfold.errors import MemfoldError, StoreLockedError
from memfold.memory import Memory
from memfold.retrieval.recall import Retriever  # noqa: F401
from memfold.router import Router  # noqa: F401
from memfold.stores import open_stores
from memfold.stores.chroma import ChromaVectorIndex  # noqa: F401
from memfold.stores.duckdb import DuckDBDatabase  # noqa: F401

FOLD = {"l1_max_turns": 4, "min_turns_before_fold": 0, "l2_max_episodes": 2}


def _sum(rows: list[dict[str, Any]], key: str) -> int:
    return sum(int(r.get(key, 0)) for r in rows)


# -- 1. kill -9 at random points during ingest_many -----------------------------------------


def _ingest_until_killed(store: Path, acks: Path, run: int, seed: int, ready: int) -> None:
    memory = Memory.open(store, h.settings(store))
    os.write(ready, b"r")
    rng = random.Random(seed)
    for number in range(10_000):
        messages = h.batch(rng, f"r{run}b{number}", rng.randint(1, 40), run * 10_000 + number * 50)
        report = memory.ingest_many(messages)
        if report.rejected:
            raise RuntimeError(f"unexpected rejections: {report.rejected[:3]}")
        h.append_line(acks, [[m["user_id"], m["msg_id"]] for m in messages])  # acknowledged


def _audit_child(out: Path, store: Path, acks: Path, fold: dict[str, Any],
                 check_turns: bool) -> None:
    started = time.perf_counter()
    try:
        memory = Memory.open(store, h.settings(store, **fold))
    except MemfoldError as exc:
        h.write_json(out, {"opened": False, "error": str(exc)})
        return
    opened = time.perf_counter() - started
    acked = {tuple(pair) for line in h.read_lines(acks) for pair in line}
    stored = {tuple(r) for r in memory.stores.db.fetchall("SELECT user_id, msg_id FROM messages")}
    report = h.audit(memory, check_turns=check_turns)
    memory.close()
    h.write_json(out, {"opened": True, "open_seconds": opened, "acked": len(acked),
                       "lost": len(acked - stored), **report})


def _kill_after_ready(target: Any, args: tuple[Any, ...], delay: float) -> dict[str, Any]:
    read, write = os.pipe()
    pid = h.fork(target, *args, write)
    os.close(write)
    ready = h.wait_ready(read)
    os.close(read)
    if ready:
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
    status = h.wait(pid)
    return {"ready": ready, "killed": status == -signal.SIGKILL, "status": status}


def kill_ingest(runs: int, seed: int, root: str, max_delay: float = 1.5,
                min_delay: float = 0.0) -> dict[str, Any]:
    """Kill -9 a worker looping over ingest_many at a random moment; audit after each kill."""
    rng = random.Random(seed)
    store, acks = Path(root) / "store", Path(root) / "acks.jsonl"
    rows = []
    for run in range(runs):
        kill = _kill_after_ready(_ingest_until_killed, (store, acks, run, rng.randrange(1 << 30)),
                                 rng.uniform(min_delay, max_delay))
        rows.append({**kill, **h.run_in_child(_audit_child, store, acks, {}, True)})
    return _summarise(rows, runs)


def _summarise(rows: list[dict[str, Any]], runs: int) -> dict[str, Any]:
    keys = ("lost", "messages_without_archive", "orphan_archive_rows", "orphan_profile_rows",
            "orphan_profile_changes_rows", "orphan_events_rows", "orphan_documents_rows",
            "fold_refs_to_missing_messages", "fold_turns_mismatch", "index_missing",
            "index_orphans")
    last = rows[-1] if rows else {}
    return {"runs": runs, "killed": sum(r["killed"] for r in rows),
            "opened_cleanly": sum(bool(r.get("opened")) for r in rows),
            "open_errors": [r.get("error") for r in rows if not r.get("opened")][:5],
            "acknowledged_messages": last.get("acked", 0),
            "stored_messages": last.get("messages", 0),
            "max_reopen_seconds": round(max((r.get("open_seconds", 0) for r in rows), default=0),
                                        3),
            **{k: _sum(rows, k) for k in keys}}


# -- 2. kill -9 between the DuckDB commit and the vector index ----------------------------------

VARIANTS = ("before_index", "mid_index", "before_vector_delete", "forget_before_vector_delete")


def _arm(memory: Memory, variant: str) -> None:
    """Wrap (in this worker only) the step right after the DuckDB commit so it SIGKILLs us."""
    if variant == "before_index":
        memory._index = lambda *args, **kwargs: h.die()  # type: ignore[method-assign]
        return
    index = memory.stores.index
    if variant == "mid_index":
        upsert = index.upsert
        index.upsert = (  # type: ignore[method-assign]
            lambda items, vectors: (upsert(items, vectors), h.die()))
    else:
        index.delete = lambda ids: h.die()  # type: ignore[method-assign]


def _crash_after_commit(store: Path, acks: Path, run: int, seed: int, variant: str) -> None:
    rng = random.Random(seed)
    memory = Memory.open(store, h.settings(store))
    for number in range(rng.randint(1, 3)):
        messages = h.batch(rng, f"r{run}b{number}", rng.randint(1, 20), run * 10_000 + number * 50)
        memory.ingest_many(messages)
        h.append_line(acks, [[m["user_id"], m["msg_id"]] for m in messages])
    victim = f"gone{run}x"
    memory.ingest_many(h.batch(rng, f"r{run}v", 3, run * 10_000 + 900, users=[victim]))
    _arm(memory, variant)
    if variant in ("before_index", "mid_index"):
        memory.ingest_many(h.batch(rng, f"r{run}k", rng.randint(1, 20), run * 10_000 + 950))
    elif variant == "before_vector_delete":
        user, msg_id = rng.choice(h.read_lines(acks)[-1])
        h.append_line(acks.with_suffix(".removed"), [user, msg_id])  # intent, before the call
        memory.remove_message(user, msg_id)
    else:
        h.append_line(acks.with_suffix(".forgotten"), victim)
        memory.forget(victim)
    raise RuntimeError(f"variant {variant} did not crash")


def _before_sync(store: Path) -> dict[str, int]:
    """What the crash left, seen without the open-time sync: unindexed rows, orphan vectors."""
    stores = open_stores(store)
    try:
        archive, index = stores.archive.all_ids(), stores.index.ids()
        return {"unindexed_before_reopen": stores.archive.count_unindexed(),
                "orphans_before_reopen": len(index - archive)}
    finally:
        stores.close()


def _audit_after_commit_child(out: Path, store: Path, acks: Path) -> None:
    before = _before_sync(store)
    memory = Memory.open(store, h.settings(store))
    removed = {tuple(x) for x in h.read_lines(acks.with_suffix(".removed"))}
    acked = {tuple(p) for line in h.read_lines(acks) for p in line} - removed
    stored = {tuple(r) for r in memory.stores.db.fetchall("SELECT user_id, msg_id FROM messages")}
    report = h.audit(memory, check_turns=False)
    forgotten = h.read_lines(acks.with_suffix(".forgotten"))
    leftovers = _retry_forget(memory, store, forgotten[-1]) if forgotten else 0
    memory.close()
    h.write_json(out, {"opened": True, "acked": len(acked), "lost": len(acked - stored),
                       "removed_still_stored": len(removed & stored), **before, **report,
                       "forgotten_bytes_after_retry": leftovers})


def _retry_forget(memory: Memory, store: Path, victim: str) -> int:
    """A forget that died never returned, so the caller runs it again: then no byte is left."""
    memory.forget(victim)
    return sum(h.store_bytes_with(store, f"{victim}".encode()).values())


def kill_after_commit(runs: int, seed: int, root: str) -> dict[str, Any]:
    """Crash right after the DuckDB commit (index upsert / vector delete never happen)."""
    rng = random.Random(seed)
    store, acks = Path(root) / "store", Path(root) / "acks.jsonl"
    rows = []
    for run in range(runs):
        variant = VARIANTS[run % len(VARIANTS)]
        worker = h.fork(_crash_after_commit, store, acks, run, rng.randrange(1 << 30), variant)
        status = h.wait(worker)
        result = h.run_in_child(_audit_after_commit_child, store, acks)
        rows.append({"variant": variant, "killed": status == -signal.SIGKILL, **result})
    summary = _summarise(rows, runs)
    summary.update({
        "variants": {v: sum(r["variant"] == v for r in rows) for v in VARIANTS},
        "runs_with_unindexed_rows_before_reopen":
            sum(r.get("unindexed_before_reopen", 0) > 0 for r in rows),
        "runs_with_orphan_vectors_before_reopen":
            sum(r.get("orphans_before_reopen", 0) > 0 for r in rows),
        "removed_still_stored": _sum(rows, "removed_still_stored"),
        "forgotten_bytes_after_retry": _sum(rows, "forgotten_bytes_after_retry")})
    return summary


# -- 3. kill -9 during a fold -------------------------------------------------------------------


def _fold_until_killed(store: Path, log: Path, run: int, seed: int, ready: int) -> None:
    memory = Memory.open(store, h.settings(store, **FOLD))
    save = memory.stores.folds.save

    def logged_save(state: Any) -> None:  # the state about to be written, before its commit
        h.append_line(log, {"t": "pending", "user": state.user_id, "digest": h.digest(state)})
        save(state)

    memory.stores.folds.save = logged_save  # type: ignore[method-assign]
    os.write(ready, b"r")
    rng = random.Random(seed)
    for number in range(10_000):
        user = rng.choice(("ana", "ben"))
        if rng.random() < 0.2:
            memory.fold(user)
        else:
            report = memory.ingest_many(h.batch(rng, f"f{seed}-{number}", rng.randint(1, 3),
                                                run * 10_000 + number * 5, users=[user]))
            if report.rejected:
                raise RuntimeError(f"unexpected rejections: {report.rejected[:3]}")
        state = memory.fold_state(user)
        h.append_line(log, {"t": "ack", "user": user, "digest": h.digest(state),
                            "folds": state.folds})


def _fold_candidates(log: list[dict[str, Any]], user: str) -> tuple[str | None, set[str]]:
    """The last acknowledged digest of ``user`` and the digests written since (in flight)."""
    last, pending = None, set()
    for entry in log:
        if entry["user"] != user:
            continue
        if entry["t"] == "ack":
            last, pending = entry["digest"], set()
        else:
            pending.add(entry["digest"])
    return last, pending


def _audit_fold_child(out: Path, store: Path, log_path: Path) -> None:
    memory = Memory.open(store, h.settings(store, **FOLD))
    log = h.read_lines(log_path)
    result = {"opened": True, "unreadable": 0, "equals_last": 0, "equals_in_flight": 0,
              "neither": 0, "folds": 0}
    for user in ("ana", "ben"):
        last, pending = _fold_candidates(log, user)
        try:
            state = memory.stores.folds.load(user)
        except (MemfoldError, ValueError):
            result["unreadable"] += 1
            continue
        found = h.digest(state) if state is not None else None
        result["folds"] += state.folds if state is not None else 0
        key = ("equals_last" if found == last
               else "equals_in_flight" if found in pending else "neither")
        result[key] += 1
    result.update(h.audit(memory, check_turns=True))
    memory.close()
    h.write_json(out, result)


def kill_fold(runs: int, seed: int, root: str, max_delay: float = 1.5,
              min_delay: float = 0.0) -> dict[str, Any]:
    """Kill -9 a worker that ingests (folding every few turns) and folds by hand."""
    rng = random.Random(seed)
    store, log = Path(root) / "store", Path(root) / "folds.jsonl"
    rows = []
    for run in range(runs):
        kill = _kill_after_ready(_fold_until_killed, (store, log, run, rng.randrange(1 << 30)),
                                 rng.uniform(min_delay, max_delay))
        rows.append({**kill, **h.run_in_child(_audit_fold_child, store, log)})
    return {"runs": runs, "killed": sum(r["killed"] for r in rows),
            "opened_cleanly": sum(bool(r.get("opened")) for r in rows),
            "user_states_checked": 2 * runs,
            **{k: _sum(rows, k) for k in ("unreadable", "equals_last", "equals_in_flight",
                                          "neither",
                                          "fold_refs_to_missing_messages", "fold_turns_mismatch",
                                          "orphan_archive_rows", "messages_without_archive")},
            "folds_in_final_state": rows[-1].get("folds", 0) if rows else 0}


# -- 4. a second writer is refused --------------------------------------------------------------


def _hold(store: Path, ready: int) -> None:
    memory = Memory.open(store, h.settings(store))
    memory.ingest_many(h.batch(random.Random(0), "held", 5, 0))
    os.write(ready, b"r")
    time.sleep(3600)


def _try_open(out: Path, store: Path, read_only: bool) -> None:
    started = time.perf_counter()
    try:
        memory = Memory.open(store, h.settings(store), read_only=read_only)
    except StoreLockedError as exc:
        h.write_json(out, {"refused": True, "seconds": time.perf_counter() - started,
                           "error": str(exc), "pid": exc.pid})
        return
    except MemfoldError as exc:
        h.write_json(out, {"refused": False, "other_error": str(exc)})
        return
    memory.close()
    h.write_json(out, {"refused": False, "silent_success": True,
                       "seconds": time.perf_counter() - started})


def second_writer(tries: int, root: str) -> dict[str, Any]:
    """A live writer holds the store; every other open (writer or reader) must be refused
    quickly with an error naming the holder's PID. Then the holder is killed -9 and the
    store must open again (the OS released the lock)."""
    store = Path(root) / "store"
    read, write = os.pipe()
    holder = h.fork(_hold, store, write)
    os.close(write)
    if not h.wait_ready(read):
        raise RuntimeError("the holder never opened the store")
    rows = [h.run_in_child(_try_open, store, n % 4 == 3) for n in range(tries)]
    os.kill(holder, signal.SIGKILL)
    h.wait(holder)
    after = h.run_in_child(_try_open, store, False)
    times = sorted(r["seconds"] for r in rows if r.get("refused"))
    return {"tries": tries, "read_only_tries": sum(n % 4 == 3 for n in range(tries)),
            "refused": len(times),
            "silent_successes": sum(bool(r.get("silent_success")) for r in rows),
            "other_errors": [r["other_error"] for r in rows if "other_error" in r][:3],
            "named_holder_pid": sum(r.get("pid") == holder and str(holder) in r.get("error", "")
                                    for r in rows),
            "refusal_seconds_median": round(times[len(times) // 2], 4) if times else None,
            "refusal_seconds_max": round(times[-1], 4) if times else None,
            "example_error": next((r["error"] for r in rows if r.get("refused")), None),
            "opens_after_holder_killed": bool(after.get("silent_success"))}
