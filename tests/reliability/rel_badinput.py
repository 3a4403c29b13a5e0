"""Bad input through ``Memory.ingest_file`` (JSONL) and ``Memory.ingest_many``.

Each bad case sits between valid lines: it must get a clear error naming its line (or
its field), the valid input around it must still be stored, and nothing of the bad case
may be stored anywhere (message, archive row, vector, fact, event, document, fold state).
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import rel_harness as h

from memfold.errors import InvalidInputError
from memfold.memory import Memory

USER = "ana"


def _ok(msg_id: str, n: int, **extra: Any) -> dict[str, Any]:
    return {"msg_id": msg_id, "user_id": USER, "text": f"My favorite fruit number {n} is mango.",
            "ts": (h.T0 + timedelta(minutes=n)).isoformat(), **extra}


def _bad(ident: str, n: int, **changes: Any) -> dict[str, Any]:
    record = _ok(ident, n)
    for key, value in changes.items():
        if value is _DROP:
            record.pop(key)
        else:
            record[key] = value
    return record


_DROP = object()
BIG = "word " * (2 * 1024 * 1024)  # 10 MB of text

# (name, raw line bytes, words the error must contain: the field or the reason)
LINE_CASES: list[tuple[str, bytes, tuple[str, ...]]] = [
    ("truncated JSON", b'{"msg_id": "b1", "user_id": "ana", "text": "hi"', ("invalid JSON",)),
    ("trailing garbage", b'{"msg_id": "b2"} xyz', ("invalid JSON",)),
    ("single quotes", b"{'msg_id': 'b3'}", ("invalid JSON",)),
    ("JSON array line", b'["b4", "ana", "hello"]', ("JSON object",)),
    ("JSON string line", b'"just a string"', ("JSON object",)),
    ("JSON number line", b"42", ("JSON object",)),
    ("JSON null line", b"null", ("JSON object",)),
    ("invalid UTF-8",
     b'{"msg_id": "b8", "user_id": "ana", "text": "caf\xe9 \xff", "ts": "2024-03-01T09:00:00Z"}',
     ("UTF-8",)),
    ("deeply nested JSON", b'{"msg_id": "b9", "text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
     ("line",)),
    ("NaN literal",
     b'{"msg_id": "b10", "user_id": "ana", "text": NaN, "ts": "2024-03-01T09:00:00Z"}',
     ("text",)),
]

# (name, record, field the error must name)
RECORD_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("missing msg_id", _bad("x", 1, msg_id=_DROP), "msg_id"),
    ("missing text", _bad("c2", 2, text=_DROP), "text"),
    ("missing ts", _bad("c3", 3, ts=_DROP), "ts"),
    ("missing user_id", _bad("c4", 4, user_id=_DROP), "user_id"),
    ("text is a number", _bad("c5", 5, text=12345), "text"),
    ("text is a list", _bad("c6", 6, text=["a", "b"]), "text"),
    ("text is an object", _bad("c7", 7, text={"a": 1}), "text"),
    ("msg_id is a number", _bad("c8", 8, msg_id=8), "msg_id"),
    ("empty text", _bad("c9", 9, text=""), "text"),
    ("blank text", _bad("c10", 10, text="   \n\t "), "text"),
    ("NUL in text", _bad("c11", 11, text="hello\x00world"), "text"),
    ("naive timestamp", _bad("c12", 12, ts="2024-03-01T09:00:00"), "ts"),
    ("future timestamp", _bad("c13", 13, ts="2099-01-01T00:00:00Z"), "ts"),
    ("unparseable timestamp", _bad("c14", 14, ts="last tuesday"), "ts"),
    ("unknown role", _bad("c15", 15, role="system"), "role"),
    ("unknown field", _bad("c16", 16, colour="red"), "colour"),
    ("meta not an object", _bad("c17", 17, meta="x"), "meta"),
    ("meta value not a string", _bad("c18", 18, meta={"n": 1}), "meta"),
    ("control character in msg_id", _bad("c19\x01", 19), "msg_id"),
    ("msg_id too long", _bad("c" * 300, 20), "msg_id"),
    ("empty user_id", _bad("c21", 21, user_id=""), "user_id"),
    ("null session_id", _bad("c22", 22, session_id=None), "session_id"),
    ("lone surrogate in text", _bad("c23", 23, text="bad \ud800 surrogate"), "text"),
    ("10 MB message", _bad("c24", 24, text=BIG), "text"),
]


def _encode(record: dict[str, Any]) -> bytes:
    return json.dumps(record).encode()


def write_file(path: Path) -> tuple[dict[int, tuple[str, tuple[str, ...]]], list[str]]:
    """A JSONL file alternating valid lines and bad cases; returns line -> case, valid ids."""
    lines: list[bytes] = []
    expected: dict[int, tuple[str, tuple[str, ...]]] = {}
    valid: list[str] = []
    cases = [(n, raw, words) for n, raw, words in LINE_CASES]
    cases += [(n, _encode(rec), (field,)) for n, rec, field in RECORD_CASES]
    cases += [("duplicate msg_id, other text", _encode(_ok("ok0", 500, text="something else")),
               ("msg_id",)),
              ("identical duplicate line", _encode(_ok("ok1", 1)), ("duplicate",))]
    for number, (name, raw, words) in enumerate(cases):
        valid.append(f"ok{number}")
        lines.append(_encode(_ok(f"ok{number}", number)))
        expected[len(lines) + 1] = (name, words)
        lines.append(raw)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return expected, valid


def _stored_ids(memory: Memory) -> set[str]:
    db = memory.stores.db
    ids = {r[0] for r in db.fetchall("SELECT msg_id FROM messages")}
    for table in ("archive", "profile", "events", "documents"):
        ids |= {s for (sources,) in db.fetchall(f"SELECT sources FROM {table}") for s in sources}
    return ids


def file_cases(memory: Memory, root: Path) -> dict[str, Any]:
    path = root / "bad.jsonl"
    expected, valid = write_file(path)
    report = memory.ingest_file(path)
    by_line = {r.position: r for r in report.rejected}
    unclear = []
    for line, (name, words) in expected.items():
        rejection = by_line.get(line)
        text = rejection.error if rejection else ""
        if rejection is None or f"line {line}" not in text or not all(w in text for w in words):
            unclear.append({"case": name, "line": line, "error": text or "NOT REJECTED"})
    stored = _stored_ids(memory)
    return {"file_cases": len(expected), "file_rejected": len(report.rejected),
            "file_unclear_or_missing": unclear, "valid_lines": len(valid),
            "valid_lines_stored": len(set(valid) & stored),
            "bad_ids_stored": sorted(stored - set(valid))[:10]}


def whole_file_cases(memory: Memory, root: Path) -> dict[str, Any]:
    """Files that cannot be read at all: one clear InvalidInputError, nothing stored."""
    files = {"empty file": b"", "unknown format": b"hello there\nthis is not jsonl\n",
             "broken LoCoMo JSON": b'[{"sample_id": "x", "conversation": ',
             "LoCoMo without conversation": b'[{"sample_id": "x"}]',
             "binary": b"\x89PNG\r\n\x1a\n\x00\x00"}
    outcomes = {}
    before = memory.stores.log.count()
    for name, data in files.items():
        path = root / f"{name.replace(' ', '_')}.txt"
        path.write_bytes(data)
        try:
            memory.ingest_file(path)
            outcomes[name] = "ACCEPTED"
        except InvalidInputError as exc:
            outcomes[name] = str(exc)
    try:
        memory.ingest_file(root / "does-not-exist.jsonl")
        outcomes["missing file"] = "ACCEPTED"
    except InvalidInputError as exc:
        outcomes["missing file"] = str(exc)
    return {"whole_file_cases": len(outcomes), "whole_file_errors": outcomes,
            "whole_file_not_rejected": sum(v == "ACCEPTED" for v in outcomes.values()),
            "whole_file_rows_stored": memory.stores.log.count() - before}


def many_cases(memory: Memory) -> dict[str, Any]:
    """ingest_many with Python objects: rejections name the position and the field."""
    items: list[Any] = [_ok("many-ok0", 900)]
    expected: dict[int, str] = {}
    for _name, record, field in RECORD_CASES:
        expected[len(items) + 1] = field
        items.append(record)
        items.append(_ok(f"many-ok{len(items)}", 900 + len(items)))
    for junk in (None, "a string", 42, ["list"]):
        expected[len(items) + 1] = "message"
        items.append(junk)
    report = memory.ingest_many(items)
    by_pos = {r.position: r for r in report.rejected}
    unclear = [{"position": p, "field": f,
                "error": by_pos[p].error if p in by_pos else "NOT REJECTED"}
               for p, f in expected.items()
               if p not in by_pos or (f != "message" and f not in by_pos[p].error)]
    return {"many_cases": len(expected), "many_rejected": len(report.rejected),
            "many_unclear_or_missing": unclear, "many_valid_accepted": report.accepted}


def bad_input(root: str) -> dict[str, Any]:
    root_path = Path(root)
    store = root_path / "store"
    memory = Memory.open(store, h.settings(store))
    result = {**file_cases(memory, root_path), **whole_file_cases(memory, root_path),
              **many_cases(memory)}
    result["cases_total"] = result["file_cases"] + result["whole_file_cases"] + result["many_cases"]
    result.update({k: v for k, v in h.audit(memory).items()
                   if k not in ("messages", "archive_rows")})
    memory.close()
    return result
