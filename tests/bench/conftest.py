"""Fixtures for the benchmark tests: a tiny synthetic LoCoMo-shaped conversation (never the
real data, which is CC BY-NC) and the generic JSONL pair."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

REAL_LOCOMO = Path("/work/shared/data/locomo/locomo-dev.json")


def synthetic_sample(sample_id: str = "conv-test") -> dict[str, Any]:
    """Two sessions, a date key without a session, a caption, and every evidence-id quirk."""
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a beagle called Pixel."},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! Where do you walk him?"},
                {"speaker": "Ana", "dia_id": "D1:3", "text": "Mostly along the river in Porto.",
                 "blip_caption": "a photo of a dog on a riverside path", "img_url": ["x"]},
            ],
            "session_2_date_time": "10:05 am on 2 June, 2023",
            "session_2": [
                {"speaker": "Ben", "dia_id": "D2:1", "text": "I started learning the cello."},
                {"speaker": "Ana", "dia_id": "D2:2", "text": "Cello is hard, good luck with it."},
            ],
            "session_3_date_time": "9:00 am on 1 July, 2023",  # a date with no session turns
        },
        "qa": [
            {"question": "What is the name of Ana's dog?", "answer": "Pixel",
             "evidence": ["D1:1"], "category": 4},
            {"question": "Where does Ana walk the dog?", "answer": "Porto",
             "evidence": ["D1:1; D1:3"], "category": 1},
            {"question": "What instrument does Ben play?", "answer": "cello",
             "evidence": ["D:2:1", "D2:02"], "category": 2},
            {"question": "What did Ana say about a cat?", "adversarial_answer": "nothing",
             "evidence": ["D9:9"], "category": 5},
            {"question": "What does Ben think?", "answer": "unknown", "evidence": [], "category": 3},
        ],
    }


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo-synthetic.json"
    path.write_text(json.dumps([synthetic_sample("conv-a"), synthetic_sample("conv-b")]))
    return path


@pytest.fixture
def generic_files(tmp_path: Path) -> tuple[Path, Path]:
    messages = [
        {"msg_id": "m1", "user_id": "u1", "session_id": "s1", "speaker": "Ana", "role": "user",
         "text": "My sister Lucia lives in Lisbon.", "ts": "2024-03-01T10:00:00Z"},
        {"msg_id": "m2", "user_id": "u1", "session_id": "s1", "speaker": "Ana", "role": "user",
         "text": "I play chess on Sundays.", "ts": "2024-03-01T10:01:00+01:00"},
        {"msg_id": "m3", "user_id": "u1", "session_id": "s2", "speaker": "Ana", "role": "user",
         "text": "The dentist appointment moved to Friday.", "ts": "2024-03-05T09:00:00Z",
         "meta": {"blip_caption": "a calendar"}},
    ]
    questions = [
        {"question": "Where does Lucia live?", "evidence": ["m1"], "category": "single-hop",
         "user_id": "u1"},
        {"question": "When do I play chess?", "evidence": ["m2", "m404"], "user_id": "u1",
         "now": "2024-03-06T00:00:00Z"},
    ]
    msg_path = tmp_path / "messages.jsonl"
    q_path = tmp_path / "questions.jsonl"
    msg_path.write_text("\n".join(json.dumps(m) for m in messages) + "\n")
    q_path.write_text("\n".join(json.dumps(q) for q in questions) + "\n\n")
    return msg_path, q_path
