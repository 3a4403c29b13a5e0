"""The synthetic transcript generator used by benchmarks/perf.py."""

from __future__ import annotations

from memfold.bench.synthetic import synthetic_messages, synthetic_queries


def test_same_seed_same_transcript() -> None:
    assert list(synthetic_messages(300, seed=3)) == list(synthetic_messages(300, seed=3))
    assert list(synthetic_messages(300, seed=3)) != list(synthetic_messages(300, seed=4))


def test_messages_are_valid_ordered_and_unique() -> None:
    messages = list(synthetic_messages(500, user_id="u"))
    assert len(messages) == 500
    assert len({m.msg_id for m in messages}) == 500
    assert all(a.ts < b.ts for a, b in zip(messages, messages[1:]))
    assert {m.role for m in messages} == {"user", "assistant", "document"}
    assert {m.user_id for m in messages} == {"u"}
    assert len({m.session_id for m in messages}) == 500 // 40 + 1


def test_queries_are_deterministic_and_filled() -> None:
    queries = synthetic_queries(50)
    assert queries == synthetic_queries(50)
    assert not any("{" in q for q in queries)
