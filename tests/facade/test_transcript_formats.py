"""Issue 17, a new user's first hour: transcript formats are detected by content. A JSONL
file that starts with a ``#`` comment or a UTF-8 BOM is JSONL; a JSON array of message
objects is a message array (not a LoCoMo file); LoCoMo JSON is still LoCoMo."""

from __future__ import annotations

import json

import pytest

from memfold.embed import HashingEmbedder
from memfold.errors import MalformedInputError
from memfold.memory import Memory
from memfold.transcripts import detect_format

MESSAGES = [{"msg_id": "m1", "user_id": "ana", "text": "I live in Lisbon.", "ts": "2026-03-02T09:00:00Z"},
            {"msg_id": "m2", "user_id": "ana", "text": "I work as a nurse.", "ts": "2026-03-02T09:05:00Z"}]


def _jsonl(prefix: bytes) -> bytes:
    return prefix + b"".join(json.dumps(m).encode() + b"\n" for m in MESSAGES)


@pytest.mark.parametrize("prefix", [b"", b"# exported by my app\n", b"\xef\xbb\xbf",
                                    b"\xef\xbb\xbf# comment\n\n", b"\n\n# a\n# b\n"],
                         ids=["plain", "comment", "bom", "bom+comment", "blank+comments"])
def test_jsonl_with_a_comment_or_bom_is_jsonl(tmp_path, prefix):
    path = tmp_path / "t.jsonl"
    path.write_bytes(_jsonl(prefix))
    assert detect_format(path) == "jsonl"
    memory = Memory.in_memory(embedder=HashingEmbedder())
    report = memory.ingest_file(path)
    assert report.accepted == 2 and not report.rejected
    memory.close()


def test_a_json_array_of_messages_is_ingested(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps([*MESSAGES, "not an object"]))
    assert detect_format(path) == "messages"
    memory = Memory.in_memory(embedder=HashingEmbedder())
    report = memory.ingest_file(path)
    assert report.accepted == 2 and [r.position for r in report.rejected] == [3]
    memory.close()


def test_locomo_json_is_still_locomo(tmp_path):
    path = tmp_path / "l.json"
    path.write_text(json.dumps([{"sample_id": "c1", "conversation": {}}]))
    assert detect_format(path) == "locomo"


def test_a_file_of_only_comments_says_so(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("# nothing here\n\n")
    with pytest.raises(MalformedInputError, match="no records"):
        detect_format(path)
