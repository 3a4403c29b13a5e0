"""Reading transcripts from files: the ingest JSONL format, and LoCoMo JSON detection.

The JSONL format is one message object per line::

    {"msg_id": "m1", "user_id": "ana", "session_id": "s1", "speaker": "Ana",
     "role": "user", "text": "I moved to Porto last week.", "ts": "2026-03-20T08:05:00Z"}

``role`` is user | assistant | tool | document; ``session_id``, ``speaker``, ``role`` and
``meta`` are optional. A bad line becomes a :class:`Rejection` naming the line and the
field; the other lines are still read. Blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memfold.errors import MalformedInputError
from memfold.models import IngestReport, Rejection

if TYPE_CHECKING:
    from collections.abc import Callable

    from memfold.api import MemoryAPI

MAX_LINE_BYTES = 16 * 1024 * 1024


def detect_format(path: Path) -> str:
    """'jsonl', 'messages' (a JSON array of message objects) or 'locomo' (a JSON list of
    conversations with sample_id and conversation), decided by content: a UTF-8 BOM,
    blank lines and ``#`` comment lines before the first record are skipped."""
    try:
        with path.open("rb") as handle:
            head = handle.read(65536)
    except OSError as exc:
        raise MalformedInputError(f"cannot read {path}: {exc.strerror}", path=str(path)) from exc
    head = _first_content(head.removeprefix(b"\xef\xbb\xbf"))
    if not head:
        raise MalformedInputError(f"{path} has no records", path=str(path))
    if head.startswith(b"["):
        return "locomo" if _looks_like_locomo(head) else "messages"
    if head.startswith(b"{"):
        return "jsonl"
    raise MalformedInputError(f"{path}: unknown format (expected JSONL messages, a JSON array of "
                              "messages, or LoCoMo JSON)", path=str(path), hint="see README: Ingest format")


def _first_content(head: bytes) -> bytes:
    """``head`` from its first line that is neither blank nor a ``#`` comment."""
    offset = 0
    for line in head.splitlines(keepends=True):
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            return head[offset:].lstrip()
        offset += len(line)
    return b""


def _looks_like_locomo(head: bytes) -> bool:
    # LoCoMo conversations carry "sample_id" and "conversation" keys near the start
    return b'"sample_id"' in head or b'"conversation"' in head


def read_jsonl(path: Path, *, user_id: str | None = None) -> Iterator[tuple[int, dict[str, Any] | Rejection]]:
    """Yield (line number, message dict) or (line number, Rejection) for every non-blank line."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise MalformedInputError(f"cannot read {path}: {exc.strerror}", path=str(path)) from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 BOM (Windows editors)
            if not raw.strip() or raw.lstrip().startswith(b"#"):
                continue
            yield number, _parse_line(raw, number, user_id)


def _parse_line(raw: bytes, number: int, user_id: str | None) -> dict[str, Any] | Rejection:
    if len(raw) > MAX_LINE_BYTES:
        return Rejection(position=number, error=f"line {number}: {len(raw)} bytes, over {MAX_LINE_BYTES}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Rejection(position=number, error=f"line {number}: invalid UTF-8 at byte {exc.start}")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        return Rejection(position=number, error=f"line {number}: invalid JSON ({exc.msg} at column {exc.colno})")
    except RecursionError:  # json recurses per nesting level: a hostile line must not end the file
        return Rejection(position=number, error=f"line {number}: invalid JSON (nested too deeply)")
    except ValueError as exc:  # e.g. an integer over Python's 4,300-digit conversion limit
        return Rejection(position=number, error=f"line {number}: unreadable JSON value ({exc})")
    if not isinstance(record, dict):
        return Rejection(position=number, error=f"line {number}: expected a JSON object, got {type(record).__name__}")
    if user_id:
        record["user_id"] = user_id
    return record


def load_messages(path: Path, *, user_id: str | None = None) -> tuple[list[tuple[int, dict[str, Any]]], list[Rejection]]:
    """Every message of a transcript file as (line or turn number, record), and the rejected lines."""
    kind = detect_format(path)
    if kind == "messages":
        return _load_array(path, user_id)
    if kind == "locomo":
        from memfold.bench.locomo import load_locomo

        records: list[tuple[int, dict[str, Any]]] = []
        for conversation in load_locomo(path).conversations:
            for message in conversation.messages:
                record = message.model_dump()
                if user_id:
                    record["user_id"] = user_id
                records.append((len(records) + 1, record))
        return records, []
    good: list[tuple[int, dict[str, Any]]] = []
    bad: list[Rejection] = []
    for number, parsed in read_jsonl(path, user_id=user_id):
        if isinstance(parsed, Rejection):
            bad.append(parsed)
        else:
            good.append((number, parsed))
    return good, bad


def _load_array(path: Path, user_id: str | None) -> tuple[list[tuple[int, dict[str, Any]]], list[Rejection]]:
    """A JSON array of message objects; positions are 1-based indices in the array."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise MalformedInputError(f"{path}: not a readable JSON array ({exc})", path=str(path)) from exc
    if not isinstance(data, list):
        raise MalformedInputError(f"{path}: expected a JSON array of messages", path=str(path))
    good: list[tuple[int, dict[str, Any]]] = []
    bad: list[Rejection] = []
    for number, item in enumerate(data, start=1):
        if not isinstance(item, dict):
            bad.append(Rejection(position=number, error=f"item {number}: expected a JSON object, "
                                                        f"got {type(item).__name__}"))
            continue
        good.append((number, {**item, "user_id": user_id} if user_id else item))
    return good, bad


def ingest_transcript(memory: MemoryAPI, path: Path, *, user_id: str | None = None,
                      progress: Callable[[int], None] | None = None,
                      on_total: Callable[[int], None] | None = None) -> IngestReport:
    """Read a transcript here and store it through ``memory`` (embedded or remote): the
    report's rejections name the file's line numbers, bad lines included."""
    records, bad_lines = load_messages(path, user_id=user_id)
    if on_total:
        on_total(len(records))
    report = memory.ingest_many([record for _, record in records], progress=progress)
    lines = [number for number, _ in records]
    rejected = [r.model_copy(update={"position": lines[r.position - 1],
                                     "error": f"line {lines[r.position - 1]}: {r.error}"})
                for r in report.rejected]
    rejected = sorted([*bad_lines, *rejected], key=lambda r: r.position)
    return report.model_copy(update={"rejected": rejected})
