"""An Anthropic client whose HTTP goes to a scripted in-process handler (no network)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import anthropic
import httpx2

from memfold.models import Message

Handler = Callable[[httpx2.Request], httpx2.Response]
T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)


def reply(text: str, status: int = 200) -> httpx2.Response:
    return httpx2.Response(status, json={
        "id": "msg_test", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10}})


def error(status: int, kind: str) -> httpx2.Response:
    return httpx2.Response(status, json={"type": "error", "error": {"type": kind, "message": kind}})


class ScriptedAPI:
    """Answers requests in order from a script; records every request body."""

    def __init__(self, *answers: httpx2.Response | Handler) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        answer = self.answers.pop(0)
        return answer(request) if callable(answer) else answer

    def client(self) -> anthropic.Anthropic:
        return anthropic.Anthropic(api_key="test", max_retries=0,
                                   http_client=httpx2.Client(transport=httpx2.MockTransport(self)))


def message(text: str, *, msg_id: str = "m1", speaker: str = "user", role: str = "user") -> Message:
    return Message(msg_id=msg_id, user_id="u1", speaker=speaker, role=role, text=text, ts=T0)


def tool_reply(name: str, arguments: dict[str, Any]) -> httpx2.Response:
    """A structured-output answer: the model called the forced tool with ``arguments``."""
    return httpx2.Response(200, json={
        "id": "msg_test", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": arguments}],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10}})
