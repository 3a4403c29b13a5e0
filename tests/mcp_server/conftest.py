"""Helpers for the MCP tests: start `python -m memfold.mcp_server` as a real subprocess and
talk to it with the SDK's own client (stdio, or streamable HTTP on a loopback port).

The fast tests run the server with the hashing embedder and the offline backend
(MEMFOLD_EMBEDDER / MEMFOLD_BACKEND); the slow one uses the default embedder.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

FAST_ENV = {"MEMFOLD_EMBEDDER": "hashing", "MEMFOLD_BACKEND": "offline"}
SERVER = [sys.executable, "-m", "memfold.mcp_server"]
TOOLS = {"remember", "recall", "context", "profile", "explain", "forget"}
CALL_TIMEOUT = 90  # seconds for one whole session: start-up imports take 2-4 s, more under load


def stdio_params(store: Path, *args: str, user: str = "u1",
                 env: dict[str, str] | None = None) -> StdioServerParameters:
    """The server as an MCP client such as Claude Desktop starts it (the SDK passes only a
    minimal environment through, plus ``env``)."""
    return StdioServerParameters(command=SERVER[0], args=[*SERVER[1:], "--store", str(store),
                                                          "--user", user, *args],
                                 env=FAST_ENV if env is None else env, cwd=str(store.parent))


def run_session(server: StdioServerParameters | str,
                steps: Callable[[Client], Awaitable[Any]]) -> Any:
    """Connect with the SDK's Client (stdio subprocess or HTTP URL), run ``steps``, hang up."""
    async def session() -> Any:
        with anyio.fail_after(CALL_TIMEOUT):
            async with Client(server) as client:
                return await steps(client)

    return anyio.run(session)


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content


def error_text(result: Any) -> str:
    assert result.is_error, result.structured_content
    return " ".join(block.text for block in result.content)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited with {process.returncode}: {process.stderr.read()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port} after {CALL_TIMEOUT} s")


@contextmanager
def http_server(store: Path, user: str = "u1") -> Iterator[tuple[str, subprocess.Popen]]:
    """`memfold mcp --transport http` on a free loopback port; stopped with SIGTERM."""
    port = free_port()
    env = {**os.environ, **FAST_ENV, "MEMFOLD_USER": user}
    env.pop("ANTHROPIC_API_KEY", None)
    process = subprocess.Popen([*SERVER, "--store", str(store), "--transport", "http",
                                "--port", str(port)], env=env, cwd=store.parent,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_port(port, process, time.monotonic() + CALL_TIMEOUT)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def read_json_resource(result: Any) -> dict[str, Any]:
    (content,) = result.contents
    assert content.mime_type == "application/json"
    return json.loads(content.text)
