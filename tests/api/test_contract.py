"""One contract, two implementations: every test runs on ``Memory`` and on ``MemoryClient``
and must see the same records and the same errors."""

from __future__ import annotations

import pytest

from memfold.api import MemoryAPI
from memfold.errors import EvidenceRequiredError, InvalidInputError, InvalidMessageError
from memfold.models import Context, IngestReport, RecallResult, RouteDecision

from .conftest import T0, msg


def test_both_implementations_satisfy_the_protocol(api):
    assert isinstance(api, MemoryAPI)


def test_ingest_then_recall_returns_the_text_with_its_source(api, user):
    decision = api.ingest(msg("m1", "I moved to Lisbon last spring and I love the tram rides.", user=user))
    assert isinstance(decision, RouteDecision) and decision.msg_id == "m1"
    result = api.recall("Where do I live now?", user)
    assert isinstance(result, RecallResult)
    assert any("m1" in item.sources for item in result.items)


def test_ingest_many_keeps_the_good_messages_and_names_the_bad_one(api, user):
    batch = [msg("a1", "My sister Carla is a violinist.", user=user),
             {"msg_id": "a2", "user_id": user, "text": "no timestamp here"},
             msg("a3", "We went hiking at Sintra on Saturday.", user=user, minutes=1)]
    report = api.ingest_many(batch)
    assert isinstance(report, IngestReport)
    assert report.accepted == 2
    assert [r.position for r in report.rejected] == [2]
    assert {m["data"]["msg_id"] for m in api.export(user) if m["type"] == "message"} == {"a1", "a3"}


def test_an_invalid_message_raises_the_same_error_class(api, user):
    with pytest.raises(InvalidMessageError):
        api.ingest({"msg_id": "x", "user_id": user, "text": "hello"})


def test_a_fact_without_evidence_is_refused_on_both(api, user):
    with pytest.raises(EvidenceRequiredError):
        api.set_fact(user, "diet", "vegan", sources=["never-stored"])
    assert api.profile(user) == []


def test_set_fact_explain_and_delete_keep_the_changelog(api, user):
    api.ingest(msg("f1", "Just so you know, I'm vegetarian.", user=user))
    change = api.set_fact(user, "diet", "vegetarian", sources=["f1"])
    assert change is not None and change.new_value == "vegetarian"
    explanation = api.explain(user, "user", "diet")
    assert explanation.current is not None and explanation.current.value == "vegetarian"
    assert [m.msg_id for m in explanation.evidence] == ["f1"]
    api.delete_fact(user, "diet")
    assert all(f.key != "diet" or f.subject != "user" for f in api.profile(user))
    assert len(api.profile_history(user, "user", "diet")) >= 2


def test_a_relative_is_found_by_any_word_for_them(api, user):
    api.ingest(msg("g1", "My grandad lives in Galway.", user=user))
    api.set_fact(user, "location", "Galway", sources=["g1"], subject="user's granddad")
    assert [f.value for f in api.profile(user, "user's grandad")] == ["Galway"]
    assert [f.subject for f in api.profile(user, "user's grandfather")] == ["user's grandpa"]
    assert "user's granddad" not in {f.subject for f in api.profile(user)}
    assert api.explain(user, "user's gramps", "location").current is not None
    assert api.profile_history(user, "user's grandad", "location")[-1].new_value == "Galway"
    api.delete_fact(user, "location", subject="user's grandfather")
    assert api.profile(user, "user's grandpa") == []


def test_context_fits_its_budget_and_quotes_the_evidence(api, user):
    api.ingest(msg("c1", "My dentist appointment is with Dr. Okafor at the Alameda clinic.", user=user))
    context = api.context("Who is my dentist?", user, budget_tokens=400)
    assert isinstance(context, Context)
    assert context.tokens <= 400
    assert "Okafor" in context.system + "".join(m.get("content", "") for m in context.messages)


def test_events_in_a_range(api, user):
    api.ingest(msg("e1", "Yesterday I ran the Lisbon half marathon in two hours.", user=user))
    found = api.events(user, since=T0 - __import__("datetime").timedelta(days=3), until=T0)
    assert [e.sources for e in found] and all("e1" in e.sources for e in found)


def test_fold_episodes_and_semantic(api, user):
    api.ingest_many([msg(f"t{i}", f"Planning the trip to Porto, day {i}: trains and hotels.",
                         user=user, minutes=i) for i in range(6)])
    state = api.fold(user)
    assert state.user_id == user
    assert api.episodes(user) == list(state.episodes)
    assert api.semantic(user).user_id == user


def test_remove_message_removes_what_it_derived(api, user):
    api.ingest(msg("r1", "I work as a nurse at Santa Maria hospital.", user=user))
    counts = api.remove_message(user, "r1")
    assert counts["messages"] == 1
    assert not any("r1" in item.sources for item in api.recall("Where do I work?", user).items)


def test_forget_erases_the_user_and_nobody_else(api, user):
    other = user + "-other"
    api.ingest(msg("g1", "My cat is called Miso.", user=user))
    api.ingest(msg("g1", "My dog is called Rex.", user=other))
    report = api.forget(user)
    assert report.messages == 1
    assert user not in api.users() and other in api.users()
    assert list(api.export(user)) == []
    assert [r["data"]["text"] for r in api.export(other) if r["type"] == "message"] == ["My dog is called Rex."]


def test_stats_count_the_user(api, user):
    api.ingest(msg("s1", "Note to self: the wifi password is in the blue notebook.", user=user))
    assert api.stats()["users"][user]["messages"] == 1


def test_search_finds_the_archive_row(api, user):
    api.ingest(msg("q1", "The quarterly report for Acme is due on the 15th of June.", user=user))
    assert any("q1" in item.sources for item in api.search("Acme quarterly report", user))


def test_a_missing_user_id_is_invalid_input(api):
    with pytest.raises(InvalidInputError):
        api.recall("anything", "")


def test_the_client_returns_exactly_what_the_embedded_memory_returns(shared_store, server_url, user):
    from memfold.client import MemoryClient

    with MemoryClient(server_url) as remote:
        remote.ingest_many([msg("w1", "I started a new job at Northwind as a data analyst.", user=user),
                            msg("w2", "My partner Joana and I adopted a cat named Pico.", user=user,
                                minutes=2)])
        assert remote.profile(user) == shared_store.profile(user)
        untimed = {"elapsed_ms": 0.0}  # the one field that differs: each call is timed
        assert remote.recall("Where do I work?", user, now=T0).model_copy(update=untimed) == (
            shared_store.recall("Where do I work?", user, now=T0).model_copy(update=untimed))
        assert remote.context("Tell me about my pets", user, 500, now=T0) == shared_store.context(
            "Tell me about my pets", user, 500, now=T0)
        assert list(remote.export(user)) == list(shared_store.export(user))


def test_ingest_file_names_the_bad_line(api, user, tmp_path):
    import json

    path = tmp_path / "t.jsonl"
    lines = [json.dumps(msg("l1", "I bought a red kayak.", user=user)), "{not json",
             json.dumps({**msg("l3", "no ts", user=user), "ts": None})]
    path.write_text("\n".join(lines) + "\n")
    report = api.ingest_file(path)
    assert report.accepted == 1
    assert [r.position for r in report.rejected] == [2, 3]
    assert all(r.error.startswith("line ") for r in report.rejected)


def test_route_stores_nothing(api, user):
    decision = api.route(msg("rt1", "I'm allergic to peanuts.", user=user))
    assert decision.msg_id == "rt1"
    assert user not in api.users()
