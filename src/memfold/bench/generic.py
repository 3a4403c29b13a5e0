"""The generic benchmark format, for users' own transcripts.

* messages: the ingest JSONL format, one ``Message`` JSON object per line
  (msg_id, user_id, session_id, speaker, role, text, ts ISO-8601 with timezone, meta?);
* questions: JSONL of ``{"question", "evidence": [msg_id, ...], "user_id", "category"?, "now"?}``.

Without a messages file the questions run against an existing store (its messages are not
read, so evidence ids cannot be checked for existence).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from memfold.bench.dataset import (
    LOCOMO_CATEGORIES,
    UNCATEGORISED,
    BenchConversation,
    BenchDataset,
    BenchQuestion,
)
from memfold.errors import MalformedInputError
from memfold.models import Message


def _json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise MalformedInputError(f"cannot read {path}: {exc}", path=str(path)) from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MalformedInputError(f"{path}:{number}: not JSON: {exc.msg}", line=number,
                                      path=str(path)) from exc
        if not isinstance(value, dict):
            raise MalformedInputError(f"{path}:{number}: expected a JSON object", line=number,
                                      path=str(path))
        yield number, value


def load_messages(path: str | Path) -> list[Message]:
    path = Path(path)
    messages = []
    for number, value in _json_lines(path):
        try:
            messages.append(Message.model_validate(value))
        except ValidationError as exc:
            raise MalformedInputError(f"{path}:{number}: invalid message: {exc.errors()[0]['msg']}",
                                      line=number, path=str(path)) from exc
    return messages


def _category(value: Any) -> str:
    if value is None:
        return UNCATEGORISED
    if isinstance(value, int) and value in LOCOMO_CATEGORIES:
        return LOCOMO_CATEGORIES[value]
    return str(value)


def load_questions(path: str | Path) -> list[BenchQuestion]:
    path = Path(path)
    questions = []
    for number, value in _json_lines(path):
        value = dict(value)
        value["category"] = _category(value.get("category"))
        if isinstance(value.get("evidence"), str):
            value["evidence"] = [value["evidence"]]
        try:
            questions.append(BenchQuestion.model_validate(value))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise MalformedInputError(f"{path}:{number}: invalid question ({where}): {error['msg']}",
                                      line=number, path=str(path)) from exc
    return questions


def build_dataset(questions: list[BenchQuestion], messages: list[Message] | None,
                  name: str) -> BenchDataset:
    """One conversation per user_id; questions without ``now`` get the user's last message time."""
    users = list(dict.fromkeys([q.user_id for q in questions] + [m.user_id for m in messages or []]))
    conversations = []
    for user_id in users:
        own = [m for m in messages or [] if m.user_id == user_id]
        last = max((m.ts for m in own), default=None)
        asked = [q if q.now is not None or last is None else q.model_copy(update={"now": last})
                 for q in questions if q.user_id == user_id]
        conversations.append(BenchConversation(user_id=user_id, messages=own, questions=asked))
    return BenchDataset(name=name, conversations=conversations)


def load_generic(questions_path: str | Path, messages_path: str | Path | None = None) -> BenchDataset:
    questions = load_questions(questions_path)
    messages = load_messages(messages_path) if messages_path is not None else None
    return build_dataset(questions, messages, name=Path(questions_path).name)
