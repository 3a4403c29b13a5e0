"""Load LongMemEval_S (Wu et al., ICLR 2025) into :mod:`memfold.bench.dataset` records.

The file is a JSON list (optionally gzipped) of questions; each question has its own
haystack of ~50 sessions (``haystack_session_ids``, ``haystack_dates``,
``haystack_sessions``: lists of ``{"role", "content", "has_answer"?}`` turns), the
sessions that hold the answer (``answer_session_ids``), a ``question_type`` and a
``question_date``. Here:

* each question becomes one conversation (user_id = ``lme-<question_id>``, a fresh store);
* a turn becomes a Message with msg_id ``<session_id>#<turn index>``, speaker "User" or
  "Assistant", ts = the session's date plus one minute per turn; empty turns are skipped;
* the evidence is the ``has_answer`` turns (turn-level metrics), ``answer_session_ids`` the
  session-level evidence; the category is the question type;
* abstention questions (``_abs`` ids) are left out, as the paper's retrieval metrics do;
* a knowledge-update question's newest evidence is its latest ``has_answer`` turn, and the
  values it replaced are the ``has_answer`` turns of earlier sessions.

The data is read from the path given at run time and never copied.
"""

from __future__ import annotations

import gzip
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from memfold.bench.dataset import BenchConversation, BenchDataset, BenchQuestion
from memfold.errors import MalformedInputError
from memfold.models import Message

UPDATE_TYPE = "knowledge-update"


def parse_date(text: str) -> datetime:
    """``"2023/05/30 (Tue) 23:42"`` -> an aware datetime (UTC: the data names no zone)."""
    day, _, rest = text.partition(" (")
    clock = rest.split(") ", 1)[-1] if rest else "00:00"
    try:
        return datetime.strptime(f"{day.strip()} {clock.strip()}", "%Y/%m/%d %H:%M").replace(tzinfo=timezone.utc)
    except ValueError as exc:
        raise MalformedInputError(f"unreadable LongMemEval date {text!r}",
                                  hint='expected e.g. "2023/05/30 (Tue) 23:42"') from exc


def haystack_messages(record: dict[str, Any], user_id: str) -> list[Message]:
    """Every non-empty turn of a question's haystack, in session order."""
    messages: list[Message] = []
    for session_id, date, turns in zip(record["haystack_session_ids"], record["haystack_dates"],
                                       record["haystack_sessions"]):
        start = parse_date(date)
        for index, turn in enumerate(turns):
            if not str(turn.get("content", "")).strip():
                continue
            role = "assistant" if turn.get("role") == "assistant" else "user"
            messages.append(Message(msg_id=f"{session_id}#{index}", user_id=user_id,
                                    session_id=str(session_id), role=role,
                                    speaker="Assistant" if role == "assistant" else "User",
                                    text=str(turn["content"]), ts=start + timedelta(minutes=index)))
    return messages


def _update_evidence(messages: list[Message], evidence: list[str]) -> tuple[str | None, list[str]]:
    """(the latest evidence turn, the evidence turns of earlier sessions)."""
    by_id = {m.msg_id: m for m in messages}
    present = [by_id[e] for e in evidence if e in by_id]
    if not present:
        return None, []
    newest = max(present, key=lambda m: m.ts)
    return newest.msg_id, [m.msg_id for m in present if m.session_id != newest.session_id]


def load_record(record: dict[str, Any]) -> BenchConversation:
    user_id = f"lme-{record['question_id']}"
    messages = haystack_messages(record, user_id)
    evidence = [m.msg_id for m in messages if _has_answer(record, m.msg_id)]
    newest, replaced = (None, [])
    if record.get("question_type") == UPDATE_TYPE:
        newest, replaced = _update_evidence(messages, evidence)
    question = BenchQuestion(question=str(record["question"]), user_id=user_id, evidence=evidence,
                             category=str(record.get("question_type") or "uncategorised"),
                             now=parse_date(record["question_date"]), answer=str(record.get("answer", "")),
                             evidence_sessions=[str(s) for s in record.get("answer_session_ids", [])],
                             newest_evidence=newest, replaced_evidence=replaced)
    return BenchConversation(user_id=user_id, messages=messages, questions=[question])


def _has_answer(record: dict[str, Any], msg_id: str) -> bool:
    session_id, _, index = msg_id.rpartition("#")
    position = record["haystack_session_ids"].index(session_id)
    return bool(record["haystack_sessions"][position][int(index)].get("has_answer"))


def select(records: list[dict[str, Any]], per_type: int | None = None, limit: int | None = None,
           types: set[str] | None = None) -> list[dict[str, Any]]:
    """Non-abstention questions; ``per_type`` keeps the first N of each type (file order)."""
    kept = [r for r in records if not str(r.get("question_id", "")).endswith("_abs")
            and (not types or r.get("question_type") in types)]
    if per_type:
        counts: dict[str, int] = {}
        chosen = []
        for record in kept:
            kind = str(record.get("question_type"))
            if counts.get(kind, 0) < per_type:
                counts[kind] = counts.get(kind, 0) + 1
                chosen.append(record)
        kept = chosen
    return kept[:limit] if limit else kept


def read_records(path: Path) -> list[dict[str, Any]]:
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            raw = json.load(handle)
    except (OSError, json.JSONDecodeError, EOFError) as exc:
        raise MalformedInputError(f"cannot read LongMemEval file {path}: {exc}", path=str(path)) from exc
    if not isinstance(raw, list):
        raise MalformedInputError(f"{path}: expected a JSON list of questions", path=str(path))
    return raw


def load_longmemeval(path: str | Path, *, per_type: int | None = None, limit: int | None = None,
                     types: set[str] | None = None) -> BenchDataset:
    """Read a LongMemEval_S file (``.json`` or ``.json.gz``) into one conversation per question.

    A malformed question is skipped and named in ``BenchDataset.skipped`` (the run goes on)."""
    path = Path(path)
    conversations, skipped = [], []
    for number, record in enumerate(select(read_records(path), per_type, limit, types), start=1):
        try:
            conversations.append(load_record(record))
        except (KeyError, TypeError, ValueError, AttributeError, ValidationError, MalformedInputError) as exc:
            skipped.append(f"question {number} ({record.get('question_id', '?')}): "
                           f"{type(exc).__name__}: {exc}")
    return BenchDataset(name=path.name, conversations=conversations, skipped=skipped)
