"""Load benchmark of `memfold serve`: 16 concurrent clients over real HTTP (issue 18).

    .venv/bin/python benchmarks/load_http.py                  # 10,000 messages, 60 s phases
    .venv/bin/python benchmarks/load_http.py --quick          # 1,000 messages, 10 s phases
    .venv/bin/python benchmarks/load_http.py --quick --embedder hashing --out /tmp/x.json

The store: LoCoMo dev turns read from ``--locomo`` (never copied: CC BY-NC), each
conversation's transcript stored under several user ids (``conv-26.0``, ``conv-26.1``, ...,
msg_ids prefixed by the user id) until ``--messages``; every user keeps the tail of its
transcript back, and those turns are the NEW messages the load ingests, one per request
(an assistant storing a conversation turn by turn). Questions are the conversation's
LoCoMo QA questions. The store is built once with `memfold ingest` (default embedder
unless ``--embedder``) into ``--store-cache`` and copied to a temporary directory per run.

The server is a real `memfold serve --port 0 --rate-limit 0` subprocess (no rate limit:
the load itself is measured, not the limiter); each client thread has its own
``MemoryClient`` (its own connection). After one recall and one context per user (warm-up),
the phases, each with the server's CPU, this load generator's and the machine's sampled:

1. open loop at ``--rate`` (40 req/s) for ``--seconds``: request i is due at t0 + i/rate and
   goes to whichever client is free; its latency runs from the due time (no coordinated
   omission). Mix: 30% ingest of one new message, 50% recall (k=10), 20% context (budget
   1,000 tokens). Then the same at the same rate with the reads only (no ingest);
2. flat out for ``--flat-seconds``: each client sends its next request when the last one
   answered, the acceptance mix and then the reads only: throughput and what limits it;
3. open loop, the acceptance mix, at 70% of the throughput phase 2 measured for it;
4. crash: 80% ingest / 20% recall flat out, ``kill -9`` of the server after ``--kill-after``
   seconds, a restart on the same store, then every acknowledged msg_id is looked up; the
   unacknowledged ingests are sent again, as a client that saw no answer would.

After the load phases and again after the restart, every msg_id whose ingest answered 2xx
is looked up in ``export(user)``: lost (absent) and duplicated ids are counted.

JSON (--out, default benchmarks/results/load_http.json): commit, load averages before and
after, store, mix, config, per-phase latency percentiles / throughput / errors / CPU,
writes, crash, goal.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from memfold.bench.locomo import load_locomo
from memfold.bench.metrics import percentile
from memfold.bench.report import run_metadata, write_json
from memfold.client import MemoryClient
from memfold.errors import MemfoldError

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "load_http.json"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "memfold-load-http-cache"
OPS = ("ingest", "recall", "context")
MIX = {"ingest": 0.3, "recall": 0.5, "context": 0.2}
READS_MIX = {"ingest": 0.0, "recall": 5 / 7, "context": 2 / 7}  # the same reads, no writes
CRASH_MIX = {"ingest": 0.8, "recall": 0.2, "context": 0.0}
CONTEXT_BUDGET = 1000
RECALL_K = 10
BUSY_LOAD = 2.5  # 1-minute load average above which the 2-core machine counts as busy
GOAL_RECALL_P95_MS = 80.0


# -- the data ---------------------------------------------------------------------------


@dataclass
class Corpus:
    """The initial store, and per user the held-back turns and the questions."""

    stored: list[dict[str, Any]]
    held_back: dict[str, list[dict[str, Any]]]
    questions: dict[str, list[str]]
    copies: int


def as_user(message: Any, user_id: str) -> dict[str, Any]:
    """A LoCoMo turn as a message of ``user_id`` (msg_ids made unique per user; replicas.py too)."""
    record = message.model_dump(mode="json")
    if not record.get("meta"):
        record.pop("meta", None)
    record.update(user_id=user_id, msg_id=f"{user_id}:{message.msg_id}")
    return record


def build_corpus(locomo: Path, messages: int, reserve: int) -> Corpus:
    """``messages`` stored turns over enough copies that ``reserve`` turns stay held back."""
    dataset = load_locomo(locomo)
    total = dataset.message_count
    copies = max(1, math.ceil((messages + reserve) / total))
    users = [(f"{conv.user_id}.{copy}", conv)
             for copy in range(copies) for conv in dataset.conversations]
    share = messages / (total * copies)
    kept = {user: int(len(conv.messages) * share) for user, conv in users}
    for user, _ in users[: messages - sum(kept.values())]:  # the rounding remainder, one each
        kept[user] += 1
    corpus = Corpus(stored=[], held_back={}, questions={}, copies=copies)
    for user, conv in users:
        turns = [as_user(m, user) for m in conv.messages]
        corpus.stored.extend(turns[: kept[user]])
        corpus.held_back[user] = turns[kept[user]:]
        corpus.questions[user] = [q.question for q in conv.questions]
    return corpus


class Workload:
    """Thread-safe source of operations, new messages and questions."""

    def __init__(self, corpus: Corpus, seed: int) -> None:
        self._pending = {user: list(reversed(turns)) for user, turns in corpus.held_back.items()}
        self._turns = corpus.held_back
        self._questions = corpus.questions
        self._users = sorted(corpus.held_back)
        self.users = tuple(self._users)
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self.reused = 0

    def next_message(self) -> dict[str, Any]:
        with self._lock:
            users = [u for u in self._users if self._pending[u]]
            if users:
                return self._pending[self._rng.choice(users)].pop()
            self.reused += 1  # held-back turns ran out: one stored again under a new msg_id
            user = self._rng.choice([u for u in self._users if self._turns[u]])
            turn = self._turns[user][self.reused % len(self._turns[user])]
        return {**turn, "msg_id": f"{turn['msg_id']}#again{self.reused}"}

    def questions_of(self, user: str) -> list[str]:
        return self._questions[user]

    def question(self, rng: random.Random) -> tuple[str, str]:
        user = rng.choice(self._users)
        return user, rng.choice(self._questions[user])


def pick_op(rng: random.Random, mix: dict[str, float]) -> str:
    return rng.choices(OPS, weights=[mix[op] for op in OPS])[0]


# -- the store --------------------------------------------------------------------------


def memfold_argv() -> list[str]:
    script = Path(sys.executable).with_name("memfold")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "memfold"]


def clean_env() -> dict[str, str]:
    """Default settings: no MEMFOLD_* overrides, the offline backend (no API key)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFOLD_")}
    env.pop("ANTHROPIC_API_KEY", None)
    return env


def global_options(store: Path, embedder: str | None) -> list[str]:
    return ["--store", str(store), *(["--embedder", embedder] if embedder else [])]


def cached_store(corpus: Corpus, args: argparse.Namespace) -> tuple[Path, dict[str, Any]]:
    """The pristine store for these settings, built with `memfold ingest` on first use."""
    name = f"locomo-{len(corpus.stored)}-x{corpus.copies}-{args.embedder or 'default'}"
    home = args.store_cache / name
    info_path = home / "info.json"
    if info_path.is_file():
        return home / "store", json.loads(info_path.read_text())
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    info = _ingest_corpus(corpus, home, args.embedder)
    info_path.write_text(json.dumps(info, indent=2))
    return home / "store", info


def _ingest_corpus(corpus: Corpus, home: Path, embedder: str | None) -> dict[str, Any]:
    transcript = home / "transcript.jsonl"  # a temp file outside the repo (the data's licence)
    transcript.write_text("".join(json.dumps(m) + "\n" for m in corpus.stored))
    print(f"[load_http] building the store: {len(corpus.stored)} messages with "
          f"`memfold ingest` ({embedder or 'default embedder'}) ...", flush=True)
    started = time.perf_counter()
    argv = [*memfold_argv(), *global_options(home / "store", embedder), "ingest", str(transcript),
            "--json"]
    done = subprocess.run(argv, env=clean_env(), capture_output=True, text=True)
    seconds = time.perf_counter() - started
    transcript.unlink()
    if done.returncode != 0:
        raise SystemExit(f"building the store failed:\n{done.stderr[-3000:]}")
    report = json.loads(done.stdout)
    return {"messages": len(corpus.stored), "accepted": report.get("accepted"),
            "users": len(corpus.held_back), "copies_of_each_conversation": corpus.copies,
            "build_seconds": round(seconds, 1),
            "build_msg_per_s": round(len(corpus.stored) / seconds, 1),
            "embedder": store_embedder(home / "store"),
            "built": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def store_embedder(store: Path) -> str:
    """The embedder name the store records (what the server checks on open)."""
    import duckdb

    with duckdb.connect(str(store / "memfold.duckdb"), read_only=True) as db:
        row = db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
    return row[0] if row else "unknown"


# -- the server -------------------------------------------------------------------------


class Server:
    """A `memfold serve` subprocess on ``store``; its URL comes from ``STORE/server.json``."""

    def __init__(self, store: Path, embedder: str | None, log: Path) -> None:
        self.store, self.embedder, self.log = store, embedder, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 600.0) -> float:
        """Start and wait until ``/readyz`` answers; the seconds that took."""
        started = time.perf_counter()
        argv = [*memfold_argv(), *global_options(self.store, self.embedder), "serve",
                "--port", "0", "--rate-limit", "0"]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(argv, env=clean_env(), stdout=log,
                                         stderr=subprocess.STDOUT)
        deadline = started + timeout
        self.url = self._wait_announced(deadline)
        self._wait_ready(deadline)
        return time.perf_counter() - started

    def _wait_announced(self, deadline: float) -> str:
        """The URL in server.json once it names this process (a killed server's file stays)."""
        path = self.store / "server.json"
        while time.perf_counter() < deadline:
            self._check_running()
            try:
                announced = json.loads(path.read_text())
            except (OSError, ValueError):
                announced = {}
            if announced.get("pid") == self.pid:
                return str(announced["url"])
            time.sleep(0.1)
        raise SystemExit(f"the server did not announce itself in {path}")

    def _wait_ready(self, deadline: float) -> None:
        from memfold.client import wait_until_ready
        from memfold.errors import ServerUnavailableError

        try:
            wait_until_ready(self.url, timeout=max(0.0, deadline - time.perf_counter()),
                             alive=lambda: self.proc is None or self.proc.poll() is None)
        except ServerUnavailableError as exc:
            self._check_running()  # exited: its log says why
            raise SystemExit(f"the server at {self.url} never became ready ({exc})") from exc

    def _check_running(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            tail = self.log.read_text(errors="replace")[-3000:]
            raise SystemExit(f"memfold serve exited with {self.proc.returncode}:\n{tail}")

    def kill9(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        assert self.proc is not None
        self.proc.wait()

    def stop(self, timeout: float = 60.0) -> dict[str, Any]:
        """SIGTERM (graceful shutdown); whether the process exited 0 and removed server.json."""
        assert self.proc is not None
        started = time.perf_counter()
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill9()
            code = None
        return {"signal": "SIGTERM", "exit_code": code,
                "seconds": round(time.perf_counter() - started, 2),
                "server_json_removed": not (self.store / "server.json").exists()}


# -- recording requests -----------------------------------------------------------------


@dataclass
class Sample:
    op: str
    start: float  # perf_counter when it was due (open loop) or sent (closed loop)
    latency_s: float
    queued_s: float  # how late it was sent: every client was busy when it fell due
    error: str | None = None


@dataclass
class Recorder:
    """Every request's outcome, and the msg_ids whose ingest was (or was not) acknowledged."""

    samples: list[Sample] = field(default_factory=list)
    acked: dict[str, str] = field(default_factory=dict)      # msg_id -> user_id
    unacked: dict[str, tuple[str, float, dict[str, Any]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, sample: Sample, message: dict[str, Any] | None) -> None:
        with self.lock:
            self.samples.append(sample)
            if message is None:
                return
            if sample.error is None:
                self.acked[message["msg_id"]] = message["user_id"]
            else:
                self.unacked[message["msg_id"]] = (message["user_id"], sample.start, message)


def send(client: MemoryClient, op: str, workload: Workload, rng: random.Random,
         due: float, recorder: Recorder) -> Sample:
    """One request; latency from ``due``; a MemfoldError (HTTP or transport) is an error."""
    message = workload.next_message() if op == "ingest" else None
    user, question = workload.question(rng)
    error = None
    sent = time.perf_counter()
    try:
        if message is not None:
            client.ingest(message)
        elif op == "recall":
            client.recall(question, user, k=RECALL_K)
        else:
            client.context(question, user, budget_tokens=CONTEXT_BUDGET)
    except MemfoldError as exc:
        error = f"{type(exc).__name__}: {str(exc)[:200]}"
    sample = Sample(op, due, time.perf_counter() - due, sent - due, error)
    recorder.add(sample, message)
    return sample


def summarise(samples: list[Sample], seconds: float) -> dict[str, Any]:
    """Per operation and overall: count, errors, rate, latency percentiles (ms)."""
    groups = {op: [s for s in samples if s.op == op] for op in OPS}
    groups["all"] = samples
    table = {}
    for name, group in groups.items():
        if not group:
            continue
        ms = [s.latency_s * 1000 for s in group if s.error is None]
        table[name] = {"requests": len(group), "errors": sum(s.error is not None for s in group),
                       "per_s": round(len(group) / seconds, 2),
                       **{f"p{q}_ms": round(percentile(ms, q), 1) for q in (50, 95, 99)},
                       "max_ms": round(max(ms, default=0.0), 1)}
    return table


def first_errors(samples: list[Sample], limit: int = 5) -> list[str]:
    return [s.error for s in samples if s.error][:limit]


# -- CPU --------------------------------------------------------------------------------


def _busy_seconds(times: Any) -> float:
    busy = ("user", "system", "nice", "irq", "softirq", "steal")  # not idle, not iowait
    return sum(getattr(times, name, 0.0) for name in busy)


def _thread_times(process: psutil.Process) -> dict[int, float]:
    try:
        return {t.id: t.user_time + t.system_time for t in process.threads()}
    except psutil.Error:
        return {}


def _children_busy(process: psutil.Process) -> float:
    """CPU of the server's live children (its vector-index process)."""
    try:
        children = process.children(recursive=True)
    except psutil.Error:
        return 0.0
    total = 0.0
    for child in children:
        try:
            total += _busy_seconds(child.cpu_times())
        except psutil.Error:
            pass  # exited in between
    return total


class CpuMonitor:
    """CPU used during a phase by the server (total, and its busiest thread: one thread near
    100% would be a single-thread bottleneck; its child processes count as the server too and
    are also shown apart), by this load generator (it shares the cores) and by the whole
    machine (so: by everyone else too)."""

    def __init__(self, server_pid: int) -> None:
        self.server = psutil.Process(server_pid)
        self.me = psutil.Process()
        self.per_second: list[float] = []
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> CpuMonitor:
        self._start = (time.perf_counter(), _busy_seconds(self.server.cpu_times()),
                       _busy_seconds(self.me.cpu_times()), _busy_seconds(psutil.cpu_times()))
        self._children0 = _children_busy(self.server)
        self._threads = _thread_times(self.server)
        self.load_at_start = load_average()
        self._sampler.start()
        return self

    def _sample(self) -> None:
        self.server.cpu_percent(None)
        while not self._stop.wait(1.0):
            try:
                self.per_second.append(round(self.server.cpu_percent(None), 1))
            except psutil.Error:  # the server was killed (crash phase)
                return

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._sampler.join()

    def result(self) -> dict[str, Any]:
        wall, server0, me0, machine0 = self._start
        wall = time.perf_counter() - wall
        children = _children_busy(self.server) - self._children0
        server = _busy_seconds(self.server.cpu_times()) - server0 + children
        me = _busy_seconds(self.me.cpu_times()) - me0
        machine = _busy_seconds(psutil.cpu_times()) - machine0
        def pct(seconds: float) -> float:
            return round(100 * seconds / wall, 1)

        out: dict[str, Any] = {"cores": psutil.cpu_count(), "seconds": round(wall, 1),
                               "load_avg_at_start": self.load_at_start,
                               "load_generator_cpu_pct": pct(me), "machine_cpu_pct": pct(machine),
                               "server_cpu_pct": pct(server),
                               "server_child_processes_cpu_pct": pct(children),
                               "other_processes_cpu_pct": pct(machine - server - me),
                               "server_cpu_pct_per_second": self.per_second}
        after = _thread_times(self.server)
        used = [after[t] - self._threads.get(t, 0.0) for t in after]
        out["server_threads"] = len(after)
        out["server_busiest_thread_cpu_pct"] = pct(max(used, default=0.0))
        return out


def saturation_cause(cpu: dict[str, Any], writes: dict[str, Any] | None) -> str:
    """What the figures of a flat-out phase say about its limit (a reading, not a proof)."""
    capacity = 100.0 * cpu["cores"]
    server, machine = cpu["server_cpu_pct"], cpu["machine_cpu_pct"]
    gen = cpu["load_generator_cpu_pct"]
    shares = (f"server {server:.0f}%, load generator {gen:.0f}%, other processes "
              f"{cpu['other_processes_cpu_pct']:.0f}% of {capacity:.0f}%")
    if writes and writes["clients_inside_ingest_mean"] >= 0.5 * writes["clients"]:
        return (f"the serialised write path: one ingest at a time, "
                f"~{writes['ms_per_write_if_serialised']:.0f} ms each "
                f"({writes['ingests_per_s']:.1f}/s), {writes['clients_inside_ingest_mean']:.1f} "
                f"of {writes['clients']} clients inside an ingest call on average ({shares})")
    if machine >= 0.9 * capacity:
        return f"CPU: all {cpu['cores']} cores busy ({shares})"
    if 80.0 <= server <= 125.0:
        return (f"one core: the server uses ~one core while {capacity - machine:.0f}% stays idle "
                f"({shares}): serialised Python (the GIL)")
    return f"not CPU ({shares}): waiting on locks or I/O"


# -- the phases -------------------------------------------------------------------------


def run_threads(count: int, work: Callable[[int], None]) -> None:
    threads = [threading.Thread(target=work, args=(n,), name=f"client-{n}") for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def open_loop(url: str, workload: Workload, args: argparse.Namespace, recorder: Recorder,
              mix: dict[str, float], rate: float) -> float:
    """``rate`` requests/s for ``args.seconds``, request i due at t0 + i/rate; wall seconds
    until the last one answered."""
    total = int(rate * args.seconds)
    plan = random.Random(args.seed)
    ops = [pick_op(plan, mix) for _ in range(total)]
    taken = iter(range(total))
    take_lock = threading.Lock()
    t0 = time.perf_counter() + 0.2

    def client_loop(n: int) -> None:
        rng = random.Random(args.seed * 1000 + n)
        with MemoryClient(url, timeout=args.timeout) as client:
            while True:
                with take_lock:
                    i = next(taken, None)
                if i is None:
                    return
                due = t0 + i / rate
                time.sleep(max(0.0, due - time.perf_counter()))
                send(client, ops[i], workload, rng, due, recorder)

    run_threads(args.clients, client_loop)
    return time.perf_counter() - t0


def closed_loop(url: str, workload: Workload, args: argparse.Namespace, recorder: Recorder, *,
                seconds: float, mix: dict[str, float], stop: threading.Event, seed: int) -> float:
    """Each client sends its next request when the last one answered; wall seconds."""
    t0 = time.perf_counter()
    deadline = t0 + seconds

    def client_loop(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        with MemoryClient(url, timeout=args.timeout) as client:
            while time.perf_counter() < deadline and not stop.is_set():
                send(client, pick_op(rng, mix), workload, rng, time.perf_counter(), recorder)

    run_threads(args.clients, client_loop)
    return time.perf_counter() - t0


def lateness(samples: list[Sample]) -> dict[str, Any]:
    """How far behind schedule requests were sent (all clients busy): the open loop's honesty."""
    queued = [s.queued_s * 1000 for s in samples]
    return {"sent_more_than_50ms_late": sum(q > 50 for q in queued),
            "p99_send_delay_ms": round(percentile(queued, 99), 1),
            "max_send_delay_ms": round(max(queued, default=0.0), 1)}


def phase_open(server: Server, workload: Workload, args: argparse.Namespace,
               mix: dict[str, float], rate: float) -> tuple[dict[str, Any], Recorder]:
    recorder = Recorder()
    print(f"[load_http] open loop, {rate:g} req/s for {args.seconds:g} s "
          f"({mix_text(mix)}) ...", flush=True)
    with CpuMonitor(server.pid) as cpu:
        wall = open_loop(server.url, workload, args, recorder, mix, rate)
    figures = cpu.result()
    figures["server_cpu_ms_per_request"] = cpu_per_request(figures, len(recorder.samples))
    achieved = len(recorder.samples) / wall
    return {"mix": mix_text(mix), "target_rate_per_s": rate, "requests": len(recorder.samples),
            "seconds_until_all_answered": round(wall, 1), "achieved_per_s": round(achieved, 2),
            # offered more than the server answers: the queue grows for the whole phase, and
            # the percentiles grow with the phase's length rather than describe a steady state
            "overloaded": achieved < 0.95 * rate,
            "latency": summarise(recorder.samples, wall), "schedule": lateness(recorder.samples),
            "first_errors": first_errors(recorder.samples), "cpu": figures}, recorder


def phase_flat(server: Server, workload: Workload, args: argparse.Namespace,
               mix: dict[str, float]) -> tuple[dict[str, Any], Recorder]:
    recorder = Recorder()
    print(f"[load_http] flat out, {args.clients} closed-loop clients for {args.flat_seconds:g} s "
          f"({mix_text(mix)}) ...", flush=True)
    with CpuMonitor(server.pid) as cpu:
        wall = closed_loop(server.url, workload, args, recorder, seconds=args.flat_seconds, mix=mix,
                           stop=threading.Event(), seed=args.seed + 1)
    figures, writes = cpu.result(), write_path(recorder.samples, wall, args.clients)
    figures["server_cpu_ms_per_request"] = cpu_per_request(figures, len(recorder.samples))
    return {"mix": mix_text(mix), "seconds": round(wall, 1),
            "throughput_per_s": round(len(recorder.samples) / wall, 2),
            "latency": summarise(recorder.samples, wall),
            "first_errors": first_errors(recorder.samples), "cpu": figures, "write_path": writes,
            "saturation_limit": saturation_cause(figures, writes)}, recorder


def cpu_per_request(cpu: dict[str, Any], requests: int) -> float | None:
    if not requests or "server_cpu_pct" not in cpu:
        return None
    return round(cpu["server_cpu_pct"] * 10 * cpu["seconds"] / requests, 1)


# Shown in this order: the acceptance mix and the same reads without writes, open loop at
# --rate and flat out; then the acceptance mix open loop at 70% of its own saturation.
LOAD_PHASES = ("open_loop", "open_loop_reads_only", "flat_out", "flat_out_reads_only",
               "open_loop_below_saturation")
BELOW_SATURATION = 0.7


def load_phases(server: Server, workload: Workload, args: argparse.Namespace,
                results: dict[str, Any]) -> dict[str, str]:
    """Run the load phases into ``results``; the msg_ids acknowledged, with their users."""
    def below_saturation() -> tuple[dict[str, Any], Recorder]:
        rate = round(BELOW_SATURATION * results["flat_out"]["throughput_per_s"], 1)
        return phase_open(server, workload, args, MIX, rate)

    plan: dict[str, Callable[[], tuple[dict[str, Any], Recorder]]] = {
        "open_loop": lambda: phase_open(server, workload, args, MIX, args.rate),
        "open_loop_reads_only": lambda: phase_open(server, workload, args, READS_MIX, args.rate),
        "flat_out": lambda: phase_flat(server, workload, args, MIX),
        "flat_out_reads_only": lambda: phase_flat(server, workload, args, READS_MIX),
        "open_loop_below_saturation": below_saturation}
    acked: dict[str, str] = {}
    for name in LOAD_PHASES:
        results[name], recorder = plan[name]()
        acked.update(recorder.acked)
    return acked


def write_path(samples: list[Sample], wall: float, clients: int) -> dict[str, Any] | None:
    """Writes run one at a time: at saturation one write takes 1/throughput, and by Little's
    law throughput x mean latency clients are inside an ingest call at any moment."""
    ingests = [s for s in samples if s.op == "ingest" and s.error is None]
    if not ingests:
        return None
    per_s = len(ingests) / wall
    mean_latency = sum(s.latency_s for s in ingests) / len(ingests)
    return {"ingests_per_s": round(per_s, 2), "ms_per_write_if_serialised": round(1000 / per_s, 1),
            "clients_inside_ingest_mean": round(per_s * mean_latency, 1), "clients": clients}


# -- acknowledged writes ----------------------------------------------------------------


def stored_ids(url: str, users: set[str], timeout: float) -> dict[str, Counter[str]]:
    """Per user, how many times each msg_id is stored (``export``: the message records)."""
    stored: dict[str, Counter[str]] = {}
    with MemoryClient(url, timeout=timeout) as client:
        for user in sorted(users):
            stored[user] = Counter(record["data"]["msg_id"] for record in client.export(user)
                                   if record["type"] == "message")
    return stored


def missing(ids: dict[str, str], stored: dict[str, Counter[str]]) -> list[str]:
    return sorted(m for m, user in ids.items() if not stored.get(user, Counter())[m])


def duplicated(stored: dict[str, Counter[str]]) -> list[str]:
    return sorted(m for counts in stored.values() for m, n in counts.items() if n > 1)


def verify_writes(url: str, acked: dict[str, str], timeout: float) -> dict[str, Any]:
    """Every acknowledged msg_id stored exactly once."""
    stored = stored_ids(url, set(acked.values()), timeout)
    lost, twice = missing(acked, stored), duplicated(stored)
    return {"acked": len(acked), "found": len(acked) - len(lost), "lost": len(lost),
            "lost_ids": lost[:20], "duplicated": len(twice), "duplicated_ids": twice[:20]}


def store_counts(url: str, timeout: float) -> dict[str, Any]:
    with MemoryClient(url, timeout=timeout) as client:
        stats = client.stats()
    users = stats.get("users", {})
    return {"users": len(users), "messages": sum(u.get("messages", 0) for u in users.values()),
            "archive_items": sum(u.get("archive", 0) for u in users.values()),
            "vectors": stats.get("vectors"), "bytes": stats.get("total_bytes")}


# -- phase 3: kill -9 -------------------------------------------------------------------


def load_then_kill(server: Server, workload: Workload, args: argparse.Namespace,
                   recorder: Recorder) -> float:
    """Ingest-heavy flat-out load; ``kill -9`` of the server after ``args.kill_after`` s.
    Returns the kill time (perf_counter)."""
    stop = threading.Event()
    cap = args.kill_after + 30.0  # the clients stop at the kill, this only bounds a hang
    load = threading.Thread(target=closed_loop, args=(server.url, workload, args, recorder),
                            kwargs={"seconds": cap, "mix": CRASH_MIX, "stop": stop,
                                    "seed": args.seed + 2})
    load.start()
    time.sleep(args.kill_after)
    killed_at = time.perf_counter()
    server.kill9()
    stop.set()
    load.join()
    return killed_at


def split_at_kill(recorder: Recorder, killed_at: float) -> dict[str, Any]:
    """Requests answered before the kill, cut by it (in flight) and refused after it."""
    done = [s for s in recorder.samples if s.start + s.latency_s < killed_at]
    cut = [s for s in recorder.samples if s.start < killed_at <= s.start + s.latency_s]
    return {"answered_before_kill": len(done),
            "errors_before_kill": sum(s.error is not None for s in done),
            "first_errors_before_kill": first_errors(done),
            "in_flight_at_kill": len(cut), "in_flight_ok": sum(s.error is None for s in cut),
            "sent_after_kill": sum(s.start >= killed_at for s in recorder.samples)}


def phase_crash(server: Server, workload: Workload, args: argparse.Namespace,
                acked_before: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    recorder = Recorder()
    print(f"[load_http] crash: {mix_text(CRASH_MIX)} flat out, kill -9 after "
          f"{args.kill_after:g} s, restart ...", flush=True)
    killed_pid = server.pid
    killed_at = load_then_kill(server, workload, args, recorder)
    stale = (server.store / "server.json").exists()
    restart_s = server.start()
    acked = {**acked_before, **recorder.acked}
    unacked = {m: user for m, (user, _, _) in recorder.unacked.items()}
    stored = stored_ids(server.url, set(acked.values()) | set(unacked.values()), args.timeout)
    lost, absent_unacked = missing(acked, stored), missing(unacked, stored)
    figures = {"killed_pid": killed_pid, "kill_after_s": args.kill_after, "mix": CRASH_MIX,
               **split_at_kill(recorder, killed_at), "server_json_left_by_killed_server": stale,
               "restart_to_ready_s": round(restart_s, 1),
               "acked_in_this_phase": len(recorder.acked), "acked_all_phases": len(acked),
               "acked_found_after_restart": len(acked) - len(lost), "acked_lost": len(lost),
               "lost_ids": lost[:20], "unacked": len(unacked),
               "unacked_present_after_restart": len(unacked) - len(absent_unacked),
               "unacked_absent_after_restart": len(absent_unacked),
               "duplicated_after_restart": len(duplicated(stored))}
    figures["retry_of_unacked"] = retry_unacked(server.url, recorder, args.timeout)
    acked.update(figures["retry_of_unacked"].pop("acked"))
    return figures, acked


def retry_unacked(url: str, recorder: Recorder, timeout: float) -> dict[str, Any]:
    """Send every unacknowledged ingest again, as a client that saw no answer would; a
    transport failure (the connection dropped) gets one more try, an HTTP error does not."""
    acked: dict[str, str] = {}
    errors: Counter[str] = Counter()
    with MemoryClient(url, timeout=timeout) as client:
        for msg_id, (user, _, message) in sorted(recorder.unacked.items()):
            for attempt in (1, 2):
                error = _try_ingest(client, message)
                if error is None:
                    acked[msg_id] = user
                    break
                errors[f"attempt {attempt}: {error}"] += 1
                if "HTTP failure" not in error:
                    break
    return {"retried": len(recorder.unacked), "ok": len(acked), "error_kinds": dict(errors),
            "acked": acked}


def _try_ingest(client: MemoryClient, message: dict[str, Any]) -> str | None:
    try:
        client.ingest(message)
    except MemfoldError as exc:
        return f"{type(exc).__name__}: {str(exc)[:120]}"
    return None


# -- the run ----------------------------------------------------------------------------


def warm_up(url: str, workload: Workload, timeout: float) -> float:
    """One recall and one context per user before measuring: the first query of a user
    loads its lexical index, as it would once in a long-running server."""
    started = time.perf_counter()
    rng = random.Random(0)
    with MemoryClient(url, timeout=timeout) as client:
        for user in sorted(workload.users):
            question = rng.choice(workload.questions_of(user))
            client.recall(question, user, k=RECALL_K)
            client.context(question, user, budget_tokens=CONTEXT_BUDGET)
    return time.perf_counter() - started


def short_commit() -> str | None:
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]



def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 1,000 messages, 10 s phases, kill after 3 s")
    parser.add_argument("--messages", type=int,
                        help="stored messages before the load (default 10,000)")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO,
                        help="LoCoMo JSON (read, never copied)")
    parser.add_argument("--embedder",
                        help="memfold --embedder for the store and server (default: memfold's)")
    parser.add_argument("--store-cache", type=Path, default=DEFAULT_CACHE,
                        help="where built stores are kept between runs (outside the repo)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent client threads")
    parser.add_argument("--rate", type=float, default=40.0, help="open-loop combined requests/s")
    parser.add_argument("--seconds", type=float, help="open-loop phase length (default 60)")
    parser.add_argument("--flat-seconds", type=float, help="flat-out phase length (default 60)")
    parser.add_argument("--kill-after", type=float,
                        help="seconds of crash-phase load before kill -9 (default 10)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="client timeout per request (s)")
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON result file")
    parser.add_argument("--keep-store", action="store_true",
                        help="leave the run's store copy (and server.log) on disk")
    args = parser.parse_args(argv)
    defaults = (1000, 10.0, 10.0, 3.0) if args.quick else (10_000, 60.0, 60.0, 10.0)
    for name, value in zip(("messages", "seconds", "flat_seconds", "kill_after"), defaults):
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def mix_text(mix: dict[str, float]) -> str:
    return ", ".join(f"{100 * mix[op]:.0f}% {op}" for op in OPS if mix[op])


def table(results: dict[str, Any]) -> str:
    """The printed summary: one row per phase and operation."""
    lines = [f"{'phase':<28}{'op':<9}{'requests':>9}{'errors':>7}{'req/s':>8}"
             f"{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}"]
    for name in LOAD_PHASES:
        for op, row in results[name]["latency"].items():
            ms = "".join(f"{row[key]:>9.1f}" for key in ("p50_ms", "p95_ms", "p99_ms", "max_ms"))
            lines.append(f"{name:<28}{op:<9}{row['requests']:>9}{row['errors']:>7}"
                         f"{row['per_s']:>8.1f}{ms}")
    lines.append(f"mix: {results['config']['mix_text']}; open-loop latency runs from each "
                 "request's scheduled time")
    for name in ("open_loop", "open_loop_reads_only", "open_loop_below_saturation"):
        phase = results[name]
        lines.append(f"{name}: {phase['target_rate_per_s']:g} req/s offered, "
                     f"{phase['achieved_per_s']:g} answered/s"
                     + (" (overloaded: the queue grew all phase)" if phase["overloaded"] else ""))
    for name in ("flat_out", "flat_out_reads_only"):
        lines.append(f"{name}: {results[name]['throughput_per_s']:.1f} req/s; "
                     f"limit: {results[name]['saturation_limit']}")
    lines += crash_lines(results)
    goal = results["goal"]
    lines += [f"goal recall p95 <= {GOAL_RECALL_P95_MS:g} ms at {goal['rate_per_s']:g} req/s: "
              f"acceptance mix {goal['recall_p95_ms']} ms, "
              f"reads only {goal['recall_p95_ms_reads_only']} ms",
              f"load average before {results['load_avg_before']} after {results['load_avg_after']}"
              + (" (machine busy)" if results["machine_busy"] else "")]
    return "\n".join(lines)


def crash_lines(results: dict[str, Any]) -> list[str]:
    writes, crash, final = (results["writes_after_load"], results["crash"],
                            results["writes_after_restart_and_retry"])
    retry = crash["retry_of_unacked"]
    return [f"acknowledged writes after the load phases: {writes['acked']} acked, "
            f"{writes['found']} found, {writes['lost']} lost, {writes['duplicated']} duplicated",
            f"kill -9 after {crash['kill_after_s']:g} s: {crash['acked_all_phases']} acked writes, "
            f"{crash['acked_lost']} lost after the restart "
            f"({crash['restart_to_ready_s']} s to ready); {crash['in_flight_at_kill']} requests "
            f"in flight, {crash['unacked']} ingests unacknowledged "
            f"({crash['unacked_present_after_restart']} stored anyway)",
            f"retry of the unacknowledged: {retry['ok']} ok of {retry['retried']}, "
            f"errors {retry['error_kinds']}",
            f"in the end: {final['acked']} acked, {final['lost']} lost, "
            f"{final['duplicated']} duplicated"]


def prepare(args: argparse.Namespace, work: Path) -> tuple[Corpus, Path, dict[str, Any]]:
    """The corpus, and a fresh copy of the cached pristine store in ``work``."""
    corpus = build_corpus(args.locomo, args.messages, reserve=max(1500, args.messages // 2))
    pristine, info = cached_store(corpus, args)
    store = work / "store"
    shutil.copytree(pristine, store, ignore=shutil.ignore_patterns("server.json"))
    return corpus, store, info


def run_phases(server: Server, workload: Workload, args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"server_start_to_ready_s": round(server.start(), 1)}
    results["store_at_start"] = store_counts(server.url, args.timeout)
    results["warm_up_s"] = round(warm_up(server.url, workload, args.timeout), 1)
    acked = load_phases(server, workload, args, results)
    results["writes_after_load"] = verify_writes(server.url, acked, args.timeout)
    results["crash"], acked = phase_crash(server, workload, args, acked)
    results["writes_after_restart_and_retry"] = verify_writes(server.url, acked, args.timeout)
    results["store_at_end"] = store_counts(server.url, args.timeout)
    results["graceful_stop"] = server.stop()
    results["held_back_turns_reused"] = workload.reused
    return results


def header(args: argparse.Namespace, info: dict[str, Any],
           load_before: list[float]) -> dict[str, Any]:
    return {"benchmark": "load_http", "commit": short_commit(), **run_metadata(),
            "command": " ".join([Path(sys.executable).name, *sys.argv]),
            "load_avg_before": load_before,
            "config": {"clients": args.clients, "rate": args.rate, "open_loop_s": args.seconds,
                       "flat_out_s": args.flat_seconds, "kill_after_s": args.kill_after,
                       "quick": args.quick, "mix": MIX, "mix_text": mix_text(MIX),
                       "reads_only_mix_text": mix_text(READS_MIX),
                       "crash_mix_text": mix_text(CRASH_MIX), "recall_k": RECALL_K,
                       "context_budget_tokens": CONTEXT_BUDGET,
                       "server": "memfold serve --port 0 --rate-limit 0",
                       "client": "memfold.client.MemoryClient, one per client thread",
                       "seed": args.seed},
            "store": {**info, "source": "LoCoMo dev turns (read from --locomo, not copied); "
                                        "each conversation under several user ids"}}


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    load_before = load_average()
    work = Path(tempfile.mkdtemp(prefix="memfold-load-http-"))
    try:
        corpus, store, info = prepare(args, work)
        results = header(args, info, load_before)
        server = Server(store, args.embedder, work / "server.log")
        try:
            results.update(run_phases(server, Workload(corpus, args.seed), args))
        finally:
            if server.proc is not None and server.proc.poll() is None:
                server.kill9()
    finally:
        if not args.keep_store:
            shutil.rmtree(work, ignore_errors=True)
    finish(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.out, results)
    print(table(results))
    print(f"[load_http] wrote {args.out}")


def finish(results: dict[str, Any]) -> None:
    """Load average after, the busy flag and the goal."""
    results["load_avg_after"] = load_average()
    highest = max(results["load_avg_before"][0], results["load_avg_after"][0])
    results["machine_busy"] = highest > BUSY_LOAD
    results["machine_busy_note"] = (
        f"busy: 1-minute load average above {BUSY_LOAD} (2 cores) before or after the run (the "
        "figure after includes this benchmark's own load); other_processes_cpu_pct per phase is "
        "the CPU that neither the server nor this load generator used")
    results["other_processes_cpu_pct_by_phase"] = {
        name: results[name]["cpu"].get("other_processes_cpu_pct") for name in LOAD_PHASES}
    recall = results["open_loop"]["latency"].get("recall", {})
    reads_only = results["open_loop_reads_only"]["latency"].get("recall", {})
    results["goal"] = {"recall_p95_ms": recall.get("p95_ms"), "target_ms": GOAL_RECALL_P95_MS,
                       "recall_p95_ms_reads_only": reads_only.get("p95_ms"),
                       "stored_messages": results["store_at_start"]["messages"],
                       "rate_per_s": results["config"]["rate"],
                       "met": _within_goal(recall), "met_reads_only": _within_goal(reads_only)}


def _within_goal(row: dict[str, Any]) -> bool:
    return row.get("p95_ms") is not None and row["p95_ms"] <= GOAL_RECALL_P95_MS


if __name__ == "__main__":
    main()
