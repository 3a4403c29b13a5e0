"""apply_decision: evidence, grounding, changelog, events and chunks, against both stores."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from router_helpers import T0, MessageFactory

from memfold.errors import EvidenceRequiredError, InvalidInputError
from memfold.models import FactExtraction, ProfileFact, RouteDecision
from memfold.router import Router, apply_decision
from memfold.stores import Stores
from memfold.tokens import WhitespaceCounter


def ingest(stores: Stores, router: Router, message, counter=None):
    decision = router.route(message)
    with stores.db.transaction():
        stores.log.append([message])
        applied = apply_decision(stores, message, decision, counter=counter)
    return decision, applied


def test_fact_is_written_with_its_source(stores: Stores, router: Router,
                                        msg: MessageFactory) -> None:
    message = msg("I'm allergic to peanuts.")
    decision, applied = ingest(stores, router, message)
    assert decision.kind == "FACT"
    assert applied.facts_written == ["user.allergy:peanuts"]
    stored = stores.profile.get("u1", "user", "allergy:peanuts")
    assert stored is not None and stored.value == "peanuts"
    assert stored.sources == [message.msg_id]
    assert stored.updated_at == T0  # conversation time, not wall-clock time


def test_fact_without_evidence_is_refused(stores: Stores, msg: MessageFactory) -> None:
    message = msg("I live in Porto.")
    decision = RouteDecision(msg_id=message.msg_id, kind="FACT", facts=[
        FactExtraction(key="location", value="Porto", evidence_msg_id=None)])
    with stores.db.transaction():
        applied = apply_decision(stores, message, decision)
    assert applied.facts_written == []
    assert any("no evidence" in r.reason for r in applied.refused)
    assert stores.profile.list("u1") == []


def test_fact_citing_another_message_is_refused(stores: Stores, msg: MessageFactory) -> None:
    message = msg("I live in Porto.")
    decision = RouteDecision(msg_id=message.msg_id, kind="FACT", facts=[
        FactExtraction(key="location", value="Porto", evidence_msg_id="some-other-msg")])
    applied = apply_decision(stores, message, decision)
    assert applied.facts_written == [] and "is not this message" in applied.refused[0].reason


def test_store_refuses_a_blank_source(stores: Stores) -> None:
    with pytest.raises(EvidenceRequiredError):
        stores.profile.upsert(ProfileFact(user_id="u1", key="name", value="Ana", sources=[" "]))


def test_hallucinated_value_is_refused(stores: Stores, msg: MessageFactory) -> None:
    message = msg("My kid has maths homework tonight.")
    decision = RouteDecision(msg_id=message.msg_id, kind="FACT", facts=[
        FactExtraction(key="family", value="school-aged child", evidence_msg_id=message.msg_id)])
    applied = apply_decision(stores, message, decision)
    assert applied.facts_written == []
    assert "not in the message" in applied.refused[0].reason
    assert stores.profile.list("u1") == []


def test_contradiction_updates_and_writes_a_changelog_row(stores: Stores, router: Router,
                                                         msg: MessageFactory) -> None:
    first = msg("I live in Lisbon.")
    second = msg("I live in Berlin now.", ts=T0 + timedelta(days=30))
    ingest(stores, router, first)
    _, applied = ingest(stores, router, second)
    assert applied.facts_written == ["user.location"]
    assert stores.profile.get("u1", "user", "location").value == "Berlin"
    history = stores.profile.history("u1", "user", "location")
    assert [h.action for h in history] == ["add", "update"]
    assert history[-1].old_value == "Lisbon" and history[-1].new_value == "Berlin"
    assert history[-1].sources == [second.msg_id]


def test_no_longer_true_deletes_with_a_changelog_row(stores: Stores, router: Router,
                                                    msg: MessageFactory) -> None:
    ingest(stores, router, msg("I live in Berlin."))
    decision, applied = ingest(stores, router, msg("I no longer live in Berlin."))
    assert decision.facts[0].action == "delete"
    assert applied.facts_deleted == ["user.location"]
    assert stores.profile.get("u1", "user", "location") is None
    assert [h.action for h in stores.profile.history("u1", "user", "location")] == ["add", "delete"]


def test_repeating_a_fact_adds_evidence_not_a_change(stores: Stores, router: Router,
                                                     msg: MessageFactory) -> None:
    a, b = msg("I work as a nurse."), msg("I work as a nurse.")
    ingest(stores, router, a)
    _, applied = ingest(stores, router, b)
    assert applied.facts_unchanged == ["user.job"]
    assert stores.profile.get("u1", "user", "job").sources == [a.msg_id, b.msg_id]
    assert len(stores.profile.history("u1", "user", "job")) == 1


def test_event_is_dated_from_the_message_time(stores: Stores, router: Router,
                                             msg: MessageFactory) -> None:
    message = msg("I went to a support group yesterday and it was so powerful.",
                  speaker="Caroline")
    decision, applied = ingest(stores, router, message)
    assert decision.kind == "EVENT"
    assert applied.event_ids == [f"{message.msg_id}#event"]
    [event] = stores.events.range("u1")
    assert event.occurred_at == datetime(2023, 5, 7, tzinfo=timezone.utc)
    assert event.subject == "Caroline" and event.sources == [message.msg_id]


def test_document_is_chunked_with_sources_and_flags(stores: Stores, router: Router,
                                                    msg: MessageFactory) -> None:
    paragraphs = [f"Paragraph {i}. " + "The committee reviewed the budget in detail. " * 20
                  for i in range(6)]
    message = msg("\n\n".join(paragraphs), role="document", speaker="document")
    decision, applied = ingest(stores, router, message, counter=WhitespaceCounter())
    assert decision.kind == "DOCUMENT"
    assert len(applied.chunk_ids) > 1
    chunks = stores.documents.get("u1", message.msg_id)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(c.sources == [message.msg_id] for c in chunks)
    assert "Paragraph 5." in chunks[-1].text


def test_none_writes_nothing(stores: Stores, router: Router, msg: MessageFactory) -> None:
    decision, applied = ingest(stores, router, msg("Thanks, that's great!"))
    assert decision.kind == "NONE"
    assert (applied.facts_written, applied.event_ids, applied.chunk_ids) == ([], [], [])
    assert stores.profile.list("u1") == [] and stores.events.count("u1") == 0


def test_assistant_cannot_write_profile_facts(stores: Stores, msg: MessageFactory) -> None:
    message = msg("Your name is Bob.", role="assistant", speaker="assistant")
    decision = RouteDecision(msg_id=message.msg_id, kind="FACT", facts=[
        FactExtraction(key="name", value="Bob", evidence_msg_id=message.msg_id)])
    applied = apply_decision(stores, message, decision)
    assert applied.facts_written == [] and "cannot write profile facts" in applied.refused[0].reason


def test_decision_for_another_message_is_rejected(stores: Stores, msg: MessageFactory) -> None:
    with pytest.raises(InvalidInputError):
        apply_decision(stores, msg("hi"), RouteDecision(msg_id="other", kind="NONE"))


def test_failed_batch_leaves_nothing(stores: Stores, router: Router, msg: MessageFactory) -> None:
    message = msg("I live in Oslo.")
    decision = router.route(message)
    with pytest.raises(RuntimeError), stores.db.transaction():
        stores.log.append([message])
        apply_decision(stores, message, decision)
        raise RuntimeError("crash mid-batch")
    assert stores.profile.list("u1") == []
    assert stores.log.count("u1") == 0


def test_named_relative_becomes_its_own_subject(stores: Stores, router: Router,
                                               msg: MessageFactory) -> None:
    _, applied = ingest(stores, router, msg("My sister Ana is a nurse."))
    assert set(applied.facts_written) == {"user.family:sister", "Ana.job"}
    assert stores.profile.get("u1", "Ana", "job").value == "nurse"
