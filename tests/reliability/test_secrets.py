"""Issue 17 item 6: secrets and identifiers. Passwords, PINs, national ids, card numbers,
account numbers and API keys are never a profile fact or an L3 note, the message is
flagged, and ``context()`` / ``recall`` show them redacted by default (configurable);
the raw log keeps what the user said. The sentences were written for this test."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memfold.config import Settings
from memfold.embed import HashingEmbedder
from memfold.errors import InvalidInputError
from memfold.memory import Memory
from memfold.sensitive import SECRET_FLAG, find_secrets, redact

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
SECRET_TURNS = {
    "s1": ("my bank password is hunter2", ["hunter2"]),
    "s2": ("my SSN is 078-05-1120 and my PIN is 4921", ["078-05-1120", "4921"]),
    "s3": ("The code for the front door keypad? My PIN: 7731, don't tell anyone.", ["7731"]),
    "s4": ("I pay with card 4111 1111 1111 1111 usually.", ["4111 1111 1111 1111"]),
    "s5": ("Our API key is sk-ant-api03-Zq8x7Vb2Nm4Lk9Jh6Gf5Ds3", ["sk-ant-api03-Zq8x7Vb2Nm4Lk9Jh6Gf5Ds3"]),
    "s6": ("My IBAN is GB82 WEST 1234 5698 7654 32 for the refund.", ["GB82 WEST 1234 5698 7654 32"]),
}
ORDINARY = ["I moved to Lisbon last spring and I really love the tram rides along the river.",
            "My password is too short, I need a longer one before the bank locks me out again.",
            "I work as a nurse at Santa Maria hospital, mostly night shifts in cardiology.",
            "We decided to take the train to Porto because the bus takes far too long.",
            "My sister Rita is a violinist who plays with the Gulbenkian orchestra.",
            "I prefer window seats on long trains, and an aisle seat on planes."]
POSITIVES = ["wifi password: Blue-Fox-77", "the alarm code is 4455 and my PIN is 1234",
             "passport number is X1234567", "my social security number is 123-45-6789",
             "token = ghp_abcdefghijklmnopqrstuvwxyz0123456789", "AWS key AKIAABCDEFGHIJKLMNOP",
             "visa 4012 8888 8888 1881 exp 10/28", "passcode is swordfish"]
NEGATIVES = ["I need to reset my password", "The token is expired", "I forgot my passcode again",
             "call me at 555-123-4567", "we met on 2023-05-08 at 10:30", "order 1234 5678 9012 3456",
             "my PIN number is required at the bank", "I ran 21 km in 1:58:30"]


FOLD = {"l1_max_turns": 4, "min_turns_before_fold": 0, "l2_max_episodes": 2}  # L3 fills up


def _memory(**context) -> Memory:
    settings = Settings(embedder="hashing", backend="offline", context=context, fold=FOLD)
    return Memory.in_memory(settings, embedder=HashingEmbedder())


def _ingest(memory: Memory) -> None:
    secret = [(i, t) for i, (t, _) in SECRET_TURNS.items()]
    ordinary = [(f"o{n}", t) for n, t in enumerate(ORDINARY)]
    turns = [turn for pair in zip(secret, ordinary) for turn in pair] + secret[len(ordinary):]
    for n, (msg_id, text) in enumerate(turns):  # one by one, as an assistant ingests turns
        memory.ingest({"msg_id": msg_id, "user_id": "ana", "speaker": "Ana", "role": "user",
                       "text": text, "ts": (T0 + timedelta(minutes=n)).isoformat()})
    memory.fold("ana")


def _values() -> list[str]:
    return [v for _, values in SECRET_TURNS.values() for v in values]


def _prompt(memory: Memory, query: str) -> str:
    context = memory.context(query, "ana", budget_tokens=2000)
    return context.system + "\n".join(m["content"] for m in context.messages) + " ".join(
        i.text for i in context.items)


def test_secrets_never_become_profile_facts_or_l3_notes_and_are_flagged():
    memory = _memory()
    _ingest(memory)
    facts = " ".join(f"{f.key}={f.value}" for f in memory.profile("ana"))
    semantic = memory.semantic("ana")
    l3 = " ".join(n.text for n in [*semantic.facts, *semantic.patterns, *semantic.history])
    assert semantic.facts, "L3 must have distilled something, or this test proves nothing"
    for value in _values():
        assert value not in facts and value not in l3
    for msg_id, (text, _) in SECRET_TURNS.items():
        assert SECRET_FLAG in memory.route({"msg_id": msg_id + "x", "user_id": "ana", "text": text,
                                            "ts": T0.isoformat()}).flags
    memory.close()


@pytest.mark.parametrize("query", ["what is my bank password?", "what's my PIN and SSN?",
                                   "which card do I pay with?", "what is our API key?",
                                   "what is my IBAN?"])
def test_context_and_recall_redact_by_default_and_the_raw_log_keeps_them(query):
    memory = _memory()
    _ingest(memory)
    shown = _prompt(memory, query) + " ".join(i.text for i in memory.recall(query, "ana").items)
    assert not [v for v in _values() if v in shown]
    assert "[redacted" in shown
    raw = " ".join(r["data"]["text"] for r in memory.export("ana") if r["type"] == "message")
    assert all(v in raw for v in _values())
    memory.close()


def test_redaction_can_be_turned_off():
    memory = _memory(redact_secrets=False)
    _ingest(memory)
    assert "hunter2" in _prompt(memory, "what is my bank password?")
    memory.close()


def test_a_secret_cannot_be_set_as_a_fact_by_hand():
    memory = _memory()
    _ingest(memory)
    with pytest.raises(InvalidInputError, match="secret"):
        memory.set_fact("ana", "bank_password", "hunter2", sources=["s1"])
    memory.close()


@pytest.mark.parametrize("text", POSITIVES)
def test_detector_finds(text):
    assert find_secrets(text), text
    assert "[redacted" in redact(text)


@pytest.mark.parametrize("text", NEGATIVES)
def test_detector_leaves_ordinary_text_alone(text):
    assert redact(text) == text


def test_the_distil_guard_drops_an_l3_note_that_holds_a_secret():
    from memfold.compaction.manager import only_from_episodes
    from memfold.models import Episode, Note, SemanticMemory

    note = Note(text="Ana: my bank password is hunter2", sources=["s1"], importance=0.9)
    plain = Note(text="Ana: I moved to Lisbon", sources=["o1"], importance=0.9)
    episode = Episode(episode_id=1, user_id="ana", turn_range=(0, 1), summary="", notes=[note, plain])
    distilled = SemanticMemory(user_id="ana", facts=[note, plain])
    kept = only_from_episodes(distilled, SemanticMemory(user_id="ana"), [episode])
    assert [n.text for n in kept.facts] == ["Ana: I moved to Lisbon"]
