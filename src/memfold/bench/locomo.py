"""Load the LoCoMo benchmark (Maharana et al., ACL 2024) into :mod:`memfold.bench.dataset` records.

The file is a JSON list of conversations. Quirks handled here, all seen in the public data:

* sessions are the keys matching ``^session_\\d+$``; ``session_N_date_time`` keys can
  outnumber them (dates of sessions that have no turns);
* evidence ids may be joined by ``;`` or spaces in one string, and may read ``D:11:26`` or
  ``D30:05`` (normalised to ``D11:26`` / ``D30:5``); a few point at turns that do not exist:
  they stay in the denominator of the metric (a miss) and are counted;
* category 5 (adversarial) carries ``adversarial_answer`` instead of ``answer``;
* some turns carry ``blip_caption`` (a description of a shared image): it goes to
  ``Message.meta["blip_caption"]`` and ``Message.indexed_text()`` appends it.

Each conversation becomes one user (user_id = sample_id); a turn becomes a Message with
msg_id = dia_id, session_id = "session_N", ts = the session's date plus one second per turn
so that turn order is unambiguous. Questions are asked at ``now`` = the last turn's time.

The data is CC BY-NC 4.0: it is read from a path given at run time, never copied.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
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

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_EVIDENCE_ID = re.compile(r"^D:?(\d+):(\d+)$", re.IGNORECASE)
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y")


def normalise_dia_id(raw: str) -> str:
    """``D:11:26`` -> ``D11:26``, ``D30:05`` -> ``D30:5``; anything else is returned stripped."""
    token = raw.strip()
    match = _EVIDENCE_ID.match(token)
    if not match:
        return token
    return f"D{int(match.group(1))}:{int(match.group(2))}"


def normalise_evidence(evidence: Any) -> list[str]:
    """Split joined ids, normalise each, drop blanks and repeats (order kept)."""
    if evidence is None:
        return []
    raw_items = [evidence] if isinstance(evidence, str) else list(evidence)
    seen: dict[str, None] = {}
    for raw in raw_items:
        for token in _EVIDENCE_SPLIT.split(str(raw)):
            if token.strip():
                seen.setdefault(normalise_dia_id(token), None)
    return list(seen)


def parse_session_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` -> an aware UTC datetime."""
    cleaned = " ".join(text.split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    raise MalformedInputError(f"unreadable LoCoMo session date {text!r}",
                              hint='expected e.g. "1:56 pm on 8 May, 2023"')


def session_numbers(conversation: dict[str, Any]) -> list[int]:
    """Numbers N of the ``session_N`` turn lists, ascending (date keys are ignored)."""
    numbers = [int(m.group(1)) for key in conversation if (m := _SESSION_KEY.match(key))]
    return sorted(numbers)


def _turn_message(turn: dict[str, Any], user_id: str, session: int, ts: datetime) -> Message:
    meta = {}
    caption = turn.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        meta["blip_caption"] = caption.strip()
    text = turn.get("text") or ""
    if not text.strip() and meta:
        text = "(shared an image)"  # an image-only turn: the caption carries its content
    return Message(msg_id=normalise_dia_id(str(turn["dia_id"])), user_id=user_id,
                   session_id=f"session_{session}", speaker=str(turn["speaker"]), role="user",
                   text=text, ts=ts, meta=meta)


def conversation_messages(sample: dict[str, Any]) -> list[Message]:
    """Every turn of one LoCoMo sample as a Message, in session and turn order."""
    user_id = str(sample["sample_id"])
    conversation = sample["conversation"]
    messages: list[Message] = []
    for number in session_numbers(conversation):
        date_text = conversation.get(f"session_{number}_date_time")
        if not date_text:
            raise MalformedInputError(f"{user_id}: session_{number} has no session_{number}_date_time")
        start = parse_session_date(date_text)
        for index, turn in enumerate(conversation[f"session_{number}"]):
            try:
                messages.append(_turn_message(turn, user_id, number, start + timedelta(seconds=index)))
            except (KeyError, ValidationError) as exc:
                raise MalformedInputError(f"{user_id}: session_{number} turn {index + 1}: {exc}") from exc
    return messages


def _question(item: dict[str, Any], user_id: str, now: datetime | None) -> BenchQuestion:
    category_number = item.get("category")
    category = LOCOMO_CATEGORIES.get(category_number, UNCATEGORISED) if isinstance(
        category_number, int) else UNCATEGORISED
    answer = item.get("answer", item.get("adversarial_answer"))
    return BenchQuestion(question=str(item["question"]), user_id=user_id,
                         evidence=normalise_evidence(item.get("evidence")), category=category,
                         now=now, answer=None if answer is None else str(answer))


def load_sample(sample: dict[str, Any]) -> BenchConversation:
    messages = conversation_messages(sample)
    user_id = str(sample["sample_id"])
    now = max((m.ts for m in messages), default=None)
    questions = [_question(item, user_id, now) for item in sample.get("qa", [])]
    return BenchConversation(user_id=user_id, messages=messages, questions=questions)


def load_locomo(path: str | Path, conversations: int | None = None) -> BenchDataset:
    """Read a LoCoMo JSON file; ``conversations`` keeps only the first N samples."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise MalformedInputError(f"cannot read LoCoMo file {path}: {exc}", path=str(path)) from exc
    if not isinstance(raw, list):
        raise MalformedInputError(f"{path}: expected a JSON list of conversations", path=str(path))
    samples = raw if conversations is None else raw[:conversations]
    try:
        loaded = [load_sample(sample) for sample in samples]
    except KeyError as exc:
        raise MalformedInputError(f"{path}: a conversation lacks the key {exc}", path=str(path)) from exc
    return BenchDataset(name=path.name, conversations=loaded)
