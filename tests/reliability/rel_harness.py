"""Shared machinery of the reliability suite and ``benchmarks/reliability.py``.

Crash tests need many short-lived processes that import memfold (about 8 s of imports
on the 2-core machine: chromadb, duckdb, numpy). A *zygote* process imports everything
once and then ``fork()``s a fresh worker per run, before any store is opened, so every
worker is a real separate process (own DuckDB connection, own Chroma client, own
``flock``) that can be ``kill -9``-ed, and time measured inside a worker excludes import
time. The zygote speaks JSON lines on stdin/stdout::

    {"scenario": "kill_ingest", "kwargs": {"runs": 3, "seed": 1, "root": "/tmp/x"}}
    -> {"ok": true, "result": {...figures...}}

This module holds the zygote (client and server), the fork/ack/audit helpers and the
message generator; the scenarios live in :mod:`crash` (subprocess) and the in-process
modules next to it.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import select
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
USERS = ("ana", "ben", "cy")

# Templates chosen to exercise every route (fact, event, document, none); no benchmark text.
_TEMPLATES = (
    ("user", "I moved to {city} last month."),
    ("user", "My favorite color is {color}."),
    ("user", "We went hiking near {city} on Saturday."),
    ("user", "My sister works as a {job} in {city}."),
    ("assistant", "That sounds great, tell me more about {city}."),
    ("user", "ok thanks"),
    ("tool", "Search result: {city} has a population of {n} and a {color} flag."),
    ("document", "Notes on {city}: the old town is walkable; trams run every {n} minutes."),
)
_CITIES = ("Porto", "Lyon", "Kyoto", "Tallinn", "Quito", "Accra", "Perth", "Bergen")
_COLORS = ("teal", "amber", "violet", "olive", "crimson")
_JOBS = ("nurse", "welder", "pilot", "chemist")


def settings(store: Path | str, embedder: str = "hashing", **fold: Any) -> Any:
    """Offline settings with optional fold overrides; the hashing embedder unless told
    ``embedder="minilm-q8"`` / ``"minilm"`` (the slow tests and the benchmark's real-model runs)."""
    from memfold.config import Settings

    return Settings(store=Path(store), embedder=embedder, backend="offline", fold=dict(fold))


def message(user: str, msg_id: str, minute: int, rng: random.Random, *,
            extra: str = "") -> dict[str, Any]:
    role, template = rng.choice(_TEMPLATES)
    text = template.format(city=rng.choice(_CITIES), color=rng.choice(_COLORS),
                           job=rng.choice(_JOBS), n=rng.randint(2, 99))
    return {"msg_id": msg_id, "user_id": user, "session_id": f"s{minute // 500}",
            "speaker": user.title() if role == "user" else role, "role": role,
            "text": f"{text} {extra}".strip(), "ts": (T0 + timedelta(minutes=minute)).isoformat()}


def batch(rng: random.Random, tag: str, size: int, minute: int,
          users: Iterable[str] = USERS) -> list[dict[str, Any]]:
    """``size`` messages with ids ``{tag}-{n}``, spread over ``users``, one minute apart."""
    users = list(users)
    return [message(rng.choice(users), f"{tag}-{n}", minute + n, rng) for n in range(size)]


def digest(state: Any) -> str:
    return hashlib.sha256(state.model_dump_json().encode()).hexdigest()[:16]


# -- acknowledgement files ----------------------------------------------------------------


def append_line(path: Path, record: Any) -> None:
    """One write + fsync per line: a kill leaves at most a torn last line."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(record) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def read_lines(path: Path) -> list[Any]:
    """Complete (newline-terminated) lines only: a torn last line was never acknowledged."""
    if not path.exists():
        return []
    *complete, _torn = path.read_bytes().split(b"\n")
    return [json.loads(line) for line in complete if line.strip()]


def write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


# -- forking workers ----------------------------------------------------------------------


def fork(target: Callable[..., Any], *args: Any) -> int:
    """Run ``target(*args)`` in a forked child (stdout -> stderr, so the protocol stays clean)."""
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        os.dup2(2, 1)
        target(*args)
    except BaseException:  # noqa: BLE001 - a child must report and exit, whatever happened
        traceback.print_exc()
        code = 1
    finally:
        os._exit(code)


def wait(pid: int, timeout: float = 120.0) -> int:
    """Exit status of ``pid`` (negative: killed by that signal); kill -9 after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def wait_ready(fd: int, timeout: float = 120.0) -> bool:
    """True once the worker wrote its ready byte; False if it died or timed out first."""
    ready, _, _ = select.select([fd], [], [], timeout)
    return bool(ready) and os.read(fd, 1) == b"r"


def run_in_child(target: Callable[..., Any], *args: Any, timeout: float = 300.0) -> dict[str, Any]:
    """Run ``target(out_path, *args)`` in a child and return the JSON it wrote to out_path."""
    out = Path(f"/tmp/memfold-rel-{os.getpid()}-{time.monotonic_ns()}.json")
    status = wait(fork(target, out, *args), timeout)
    try:
        result = json.loads(out.read_text()) if out.exists() else {}
    finally:
        out.unlink(missing_ok=True)
    result.setdefault("child_status", status)
    return result


def die() -> None:
    """SIGKILL this process now (the crash a test injects)."""
    os.kill(os.getpid(), signal.SIGKILL)


# -- auditing a store ---------------------------------------------------------------------


def audit(memory: Any, *, check_turns: bool = True) -> dict[str, Any]:
    """Cross-store invariants of an open Memory: no row without its message, every message
    with its archive row, fold state matching the log, vector index equal to the archive."""
    db = memory.stores.db
    stored = {(u, m) for u, m in db.fetchall("SELECT user_id, msg_id FROM messages")}
    archived = db.fetchall("SELECT user_id, item_id, kind, sources FROM archive")
    own_rows = {(u, s[0]) for u, _, kind, s in archived
                if kind in ("message", "document") and len(s) == 1}
    report = {"messages": len(stored), "archive_rows": len(archived),
              "messages_without_archive": len(stored - own_rows),
              "orphan_archive_rows": sum(1 for u, _, _, s in archived if not _cited(u, s, stored))}
    for table in ("profile", "profile_changes", "events", "documents"):
        rows = db.fetchall(f"SELECT user_id, sources FROM {table}")
        report[f"orphan_{table}_rows"] = sum(1 for u, s in rows if not _cited(u, s, stored))
    report.update(_audit_folds(memory, stored, check_turns))
    in_index, in_archive = memory.stores.index.ids(), {i for _, i, _, _ in archived}
    report["index_missing"] = len(in_archive - in_index)
    report["index_orphans"] = len(in_index - in_archive)
    return report


def _cited(user: str, sources: Iterable[str], stored: set[tuple[str, str]]) -> bool:
    return all((user, s) in stored for s in sources)


def _audit_folds(memory: Any, stored: set[tuple[str, str]], check_turns: bool) -> dict[str, int]:
    from memfold.models import FoldState

    bad_refs = turn_mismatch = 0
    counts: dict[str, int] = {}
    for user, _ in stored:
        counts[user] = counts.get(user, 0) + 1
    for user, raw in memory.stores.db.fetchall("SELECT user_id, state FROM fold_state"):
        state = FoldState.model_validate_json(raw)
        refs = [m.msg_id for m in state.working] + [s for e in state.episodes for s in e.sources]
        bad_refs += sum(1 for r in refs if (user, r) not in stored)
        if check_turns and state.total_turns_seen != counts.get(user, 0):
            turn_mismatch += 1
    return {"fold_refs_to_missing_messages": bad_refs, "fold_turns_mismatch": turn_mismatch}


def store_bytes_with(directory: Path, needle: bytes) -> dict[str, int]:
    """Files under ``directory`` whose raw bytes contain ``needle`` -> occurrences."""
    found = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            count = path.read_bytes().count(needle)
            if count:
                found[str(path.relative_to(directory))] = count
    return found


# -- the zygote ---------------------------------------------------------------------------


class Zygote:
    """Client of a zygote subprocess (``python rel_harness.py serve``)."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, str(HERE / "rel_harness.py"), "serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env, cwd=str(HERE))
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if line.strip() != "ready":
            raise RuntimeError(f"zygote failed to start: {line!r}")

    def run(self, scenario: str, **kwargs: Any) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"scenario": scenario, "kwargs": kwargs}) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if not reply["ok"]:
            raise RuntimeError(f"scenario {scenario} failed in the zygote:\n{reply['error']}")
        return reply["result"]

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def serve() -> None:
    """Import everything once, then run scenario requests read from stdin."""
    sys.path.insert(0, str(HERE))
    import rel_crash as crash  # imports memfold, chromadb, duckdb, compaction, router, retrieval

    print("ready", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            scenario = getattr(crash, request["scenario"])
            reply = {"ok": True, "result": scenario(**request["kwargs"])}
        except Exception:  # noqa: BLE001 - reported to the client, which raises
            reply = {"ok": False, "error": traceback.format_exc()}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__" and sys.argv[1:] == ["serve"]:
    serve()
