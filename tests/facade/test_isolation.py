"""User A's recall never returns user B's memories (Hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from memfold.embed import HashingEmbedder
from memfold.memory import Memory

from .conftest import msg

WORDS = ["lisbon", "porto", "hiking", "dog", "nurse", "cello", "pottery", "budget", "ferry", "beagle"]
sentence = st.lists(st.sampled_from(WORDS), min_size=2, max_size=6).map(lambda w: "I like " + " ".join(w) + ".")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a_texts=st.lists(sentence, min_size=1, max_size=6), b_texts=st.lists(sentence, min_size=1, max_size=6),
       query=sentence)
def test_recall_never_crosses_users(a_texts, b_texts, query):
    with Memory.in_memory(embedder=HashingEmbedder()) as memory:
        rows = [msg(f"a{i}", t, user="alice", minutes=i) for i, t in enumerate(a_texts)]
        rows += [msg(f"b{i}", t, user="bob", speaker="Bob", minutes=i) for i, t in enumerate(b_texts)]
        memory.ingest_many(rows)
        a_ids = {f"a{i}" for i in range(len(a_texts))}
        for user, own in (("alice", a_ids), ("bob", {f"b{i}" for i in range(len(b_texts))})):
            result = memory.recall(query, user, k=20)
            assert set(result.sources()) <= own
            ctx = memory.context(query, user, budget_tokens=400)
            assert set(ctx.sources()) <= own
            assert all(f.user_id == user for f in memory.profile(user))
