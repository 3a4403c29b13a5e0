"""The LoCoMo loader: sessions, timestamps, captions, categories and evidence-id quirks."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memfold.bench.dataset import missing_evidence
from memfold.bench.locomo import (
    load_locomo,
    load_sample,
    normalise_dia_id,
    normalise_evidence,
    parse_session_date,
    session_numbers,
)
from memfold.errors import MalformedInputError

from .conftest import synthetic_sample


@pytest.mark.parametrize(("raw", "expected"), [
    ("D1:3", "D1:3"), ("D:11:26", "D11:26"), ("D30:05", "D30:5"), (" d2:007 ", "D2:7"),
    ("S3", "S3"),  # not a dia_id: kept as is, so it can only miss
])
def test_normalise_dia_id(raw: str, expected: str) -> None:
    assert normalise_dia_id(raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    (["D8:6; D9:17"], ["D8:6", "D9:17"]),
    (["D9:1 D4:4 D4:6"], ["D9:1", "D4:4", "D4:6"]),
    (["D:11:26", "D11:26"], ["D11:26"]),  # the same turn twice counts once
    ("D30:05", ["D30:5"]),
    ([], []),
    (None, []),
])
def test_normalise_evidence(raw: object, expected: list[str]) -> None:
    assert normalise_evidence(raw) == expected


def test_parse_session_date_is_aware_utc() -> None:
    assert parse_session_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert parse_session_date("12:04 am on 1 January, 2024").hour == 0


def test_unreadable_date_is_malformed_input() -> None:
    with pytest.raises(MalformedInputError):
        parse_session_date("yesterday-ish")


def test_sessions_are_found_by_turn_keys_not_date_keys() -> None:
    conversation = synthetic_sample()["conversation"]
    assert session_numbers(conversation) == [1, 2]


def test_turns_become_messages_in_order() -> None:
    conversation = load_sample(synthetic_sample("conv-x"))
    ids = [m.msg_id for m in conversation.messages]
    assert ids == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    first, second = conversation.messages[:2]
    assert first.user_id == "conv-x" and first.speaker == "Ana" and first.role == "user"
    assert first.session_id == "session_1"
    assert first.ts == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert second.ts - first.ts == timedelta(seconds=1)
    timestamps = [m.ts for m in conversation.messages]
    assert timestamps == sorted(timestamps) and len(set(timestamps)) == len(timestamps)


def test_blip_caption_goes_to_meta_and_indexed_text() -> None:
    captioned = load_sample(synthetic_sample()).messages[2]
    assert captioned.meta == {"blip_caption": "a photo of a dog on a riverside path"}
    assert "riverside path" in captioned.indexed_text()
    assert "riverside" not in captioned.text


def test_questions_carry_category_names_answers_and_now() -> None:
    conversation = load_sample(synthetic_sample())
    questions = conversation.questions
    assert [q.category for q in questions] == [
        "single-hop", "multi-hop", "temporal", "adversarial", "open-domain"]
    assert questions[3].answer == "nothing"  # category 5: adversarial_answer
    assert questions[1].evidence == ["D1:1", "D1:3"]
    assert questions[2].evidence == ["D2:1", "D2:2"]
    last = conversation.messages[-1].ts
    assert all(q.now == last for q in questions)


def test_missing_evidence_is_counted() -> None:
    assert missing_evidence(load_sample(synthetic_sample())) == 1  # D9:9


def test_load_locomo_limits_conversations(locomo_file) -> None:  # type: ignore[no-untyped-def]
    dataset = load_locomo(locomo_file, conversations=1)
    assert [c.user_id for c in dataset.conversations] == ["conv-a"]
    assert dataset.question_count == 5 and dataset.message_count == 5


def test_load_locomo_rejects_non_list(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.json"
    path.write_text('{"not": "a list"}')
    with pytest.raises(MalformedInputError):
        load_locomo(path)
