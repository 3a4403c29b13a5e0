"""Run the REST app on uvicorn, and say so in the store directory.

While a server owns a store it writes ``STORE/server.json`` (``url``, ``pid``); the CLI
reads it to send its commands to the server instead of failing on the store lock. The
file is removed on a clean shutdown; one left by a killed server names a dead pid, which
readers check (``discover``).

Shutdown (SIGINT/SIGTERM) is graceful: uvicorn stops accepting connections, lets the
requests in flight finish (up to ``grace_s``), and only then does the caller close the store.
Every acknowledged write had committed before its answer was sent, so none is lost.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memfold.errors import ConfigError

SERVER_FILE = "server.json"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before uvicorn starts so the real port is known."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                          hint="choose another --port, or stop the process using it") from exc
    sock.listen(2048)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _uvicorn_server(app: Any, *, grace_s: float, log_level: str) -> Any:
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            # uvicorn re-raises the signal once it has drained, which would kill the
            # process before the store is closed; a requested stop is a clean exit (0)
            self._captured_signals.clear()

    config = uvicorn.Config(app, log_level=log_level, timeout_graceful_shutdown=grace_s,
                            access_log=False, lifespan="off")
    return Server(config)


def serve(app: Any, sock: socket.socket, *, store: Path | None = None, grace_s: float = 30.0,
          log_level: str = "info") -> None:
    """Serve until SIGINT/SIGTERM; announce the URL in ``store`` while running."""
    server = _uvicorn_server(app, grace_s=grace_s, log_level=log_level)
    with announced(store, url_of(sock)):
        server.run(sockets=[sock])


@contextmanager
def announced(store: Path | None, url: str) -> Iterator[None]:
    path = None if store is None else Path(store) / SERVER_FILE
    if path is not None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"url": url, "pid": os.getpid()}))
        os.replace(tmp, path)
    try:
        yield
    finally:
        if path is not None:
            path.unlink(missing_ok=True)


def discover(store: Path) -> str | None:
    """The URL of the live server that owns ``store``, if one does."""
    path = Path(store) / SERVER_FILE
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    pid, url = data.get("pid"), data.get("url")
    if not isinstance(pid, int) or not isinstance(url, str) or not _alive(pid):
        return None
    return url


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


@contextmanager
def running_in_thread(app: Any, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve ``app`` on a real loopback socket in a background thread (tests, benchmarks)."""
    sock = bind(host, port)
    server = _uvicorn_server(app, grace_s=5.0, log_level="warning")
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        _wait_started(server, thread)
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def _wait_started(server: Any, thread: threading.Thread) -> None:
    import time

    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise ConfigError("the memfold server thread did not start")
        time.sleep(0.01)
