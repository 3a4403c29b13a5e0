"""Request-size and request-rate limits.

* :class:`BodySizeLimit` is ASGI middleware: a declared ``Content-Length`` over the cap is
  refused before the body is read, and a chunked body is read up to the cap and refused
  past it, so no request makes the server buffer more than the cap.
* :class:`RateLimiter` is a token bucket per API key (``rate`` requests per second, bursts
  of ``burst``); an empty bucket is HTTP 429 with ``Retry-After``.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from memfold.errors import RateLimitedError, RequestTooLargeError
from memfold.service.errors import error_body

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodySizeLimit:
    """Refuse request bodies over ``max_bytes`` with HTTP 413 and a memfold error body."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await _send_too_large(send, self.max_bytes)
            return
        if declared is None and _header(scope, b"transfer-encoding") is not None:
            # chunked: read it here, up to the cap, then replay it to the app
            body = await _read_capped(receive, self.max_bytes)
            if body is None:
                await _send_too_large(send, self.max_bytes)
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, send)


async def _read_capped(receive: Receive, max_bytes: int) -> bytes | None:
    chunks: list[bytes] = []
    seen = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        seen += len(chunk)
        if seen > max_bytes:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, then: Receive) -> Receive:
    sent = False

    async def receive() -> MutableMapping[str, Any]:
        nonlocal sent
        if sent:  # after the body: whatever the connection says next (a disconnect)
            return await then()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _header(scope: Scope, wanted: bytes) -> bytes | None:
    for name, value in scope.get("headers", ()):
        if name == wanted:
            return bytes(value)
    return None


def _content_length(scope: Scope) -> int | None:
    value = _header(scope, b"content-length")
    try:
        return None if value is None else int(value)
    except ValueError:
        return None


async def _send_too_large(send: Send, max_bytes: int) -> None:
    body = json.dumps(error_body(RequestTooLargeError(
        f"request body over the server's limit of {max_bytes} bytes"))).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class RateLimiter:
    """A token bucket per key name; ``rate <= 0`` turns the limit off."""

    def __init__(self, rate: float, burst: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # name -> (tokens, last refill)
        self._lock = threading.Lock()

    def take(self, name: str) -> None:
        if self.rate <= 0:
            return
        with self._lock:
            now = self._clock()
            tokens, last = self._buckets.get(name, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens < 1.0:
                self._buckets[name] = (tokens, now)
                wait = math.ceil((1.0 - tokens) / self.rate)
                error = RateLimitedError(f"over {self.rate:g} requests/s for this key")
                error.retry_after = max(1, wait)  # type: ignore[attr-defined]
                raise error
            self._buckets[name] = (tokens - 1.0, now)
