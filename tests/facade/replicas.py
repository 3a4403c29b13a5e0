"""`memfold serve` replicas on one PostgreSQL database and one Chroma server, as
subprocesses (a test helper, also used by benchmarks/replicas.py).

Each replica gets its own working directory (the default store directory, unused on the
PostgreSQL deployment, stays apart) and a loopback port chosen before it starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path



def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def memfold_argv() -> list[str]:
    script = Path(sys.executable).with_name("memfold")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "memfold"]


def server_env(database_url: str | None, chroma_url: str | None, *,
               embedder: str | None = "hashing") -> dict[str, str]:
    """The environment of a replica: no inherited MEMFOLD_* settings or API key, the
    offline backend, the servers' URLs (none: the embedded store directory)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFOLD_")}
    env.pop("ANTHROPIC_API_KEY", None)
    env["MEMFOLD_BACKEND"] = "offline"
    if embedder:
        env["MEMFOLD_EMBEDDER"] = embedder
    if database_url and chroma_url:
        env.update(MEMFOLD_DATABASE_URL=database_url, MEMFOLD_CHROMA_URL=chroma_url)
    return env


class Replica:
    """One `memfold serve` process; ``url`` once ``start()`` saw ``/readyz`` answer."""

    def __init__(self, workdir: Path, env: dict[str, str], *, store: Path | None = None) -> None:
        self.workdir = workdir
        self.env = env
        self.store = store
        self.log = workdir / "serve.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self, timeout: float = 120.0) -> float:
        """Start it and wait until it is ready; the seconds that took."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        port = free_port()
        store = ["--store", str(self.store)] if self.store else []
        argv = [*memfold_argv(), *store, "serve", "--port", str(port), "--rate-limit", "0"]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(argv, cwd=self.workdir, env=self.env, stdout=log,
                                         stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{port}"
        self._wait_ready(started + timeout)
        return time.perf_counter() - started

    def _wait_ready(self, deadline: float) -> None:
        from memfold.client import wait_until_ready
        from memfold.errors import ServerUnavailableError

        try:
            wait_until_ready(self.url, timeout=max(0.0, deadline - time.perf_counter()),
                             alive=lambda: self.proc is None or self.proc.poll() is None)
        except ServerUnavailableError as exc:
            tail = self.log.read_text(errors="replace")[-3000:]
            self.kill9()
            raise RuntimeError(f"the replica at {self.url} never became ready ({exc}):\n{tail}") from exc

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill9(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM (graceful), SIGKILL after ``timeout``; the exit code (None: killed)."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill9()
            return None
