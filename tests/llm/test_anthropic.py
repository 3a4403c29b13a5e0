"""AnthropicBackend against a scripted HTTP transport: requests, parsing, errors, fallback."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

import httpx2
import pytest
from llm_helpers import ScriptedAPI, error, message, reply
from pydantic import BaseModel

from memfold.embed import HashingEmbedder
from memfold.errors import (
    BackendAuthError,
    BackendConnectionError,
    BackendOverloadedError,
    BackendRateLimitError,
    BackendResponseError,
    BackendTimeoutError,
)
from memfold.llm import OfflineBackend, RouteContext
from memfold.llm.anthropic import AnthropicBackend
from memfold.llm.prompts import ROUTE_PROMPT
from memfold.models import ProfileFact


def backend(api: ScriptedAPI, **kwargs) -> AnthropicBackend:
    return AnthropicBackend(api.client(), fallback=OfflineBackend(HashingEmbedder()), **kwargs)


class Summary(BaseModel):
    summary: str
    keep: list[str] = []


def test_request_carries_model_system_prompt_and_message() -> None:
    api = ScriptedAPI(reply('{"type": "NONE", "extract": "", "confidence": 0.9}'))
    decision = backend(api, model="claude-test-model").route(
        message("Thanks!", msg_id="abc", speaker="Caroline"), RouteContext())
    [sent] = api.requests
    assert sent["model"] == "claude-test-model"
    assert sent["system"] == ROUTE_PROMPT
    content = sent["messages"][0]["content"]
    assert "msg_id: abc" in content and "Caroline" in content and "Thanks!" in content
    assert "2023-05-08T13:56:00+00:00" in content
    assert decision.kind == "NONE" and decision.backend == "anthropic"


def test_fact_asks_the_profile_prompt_with_the_current_profile() -> None:
    api = ScriptedAPI(
        reply('{"type": "FACT", "extract": "lives in Berlin", "confidence": 0.95}'),
        reply('```json\n{"updates": [{"action": "update", "subject": "user", "key": "City", '
              '"value": "Berlin", "evidence_msg_id": "m1", "reason": "moved"}]}\n```'))
    current = ProfileFact(user_id="u1", key="location", value="Lisbon", sources=["m0"])
    decision = backend(api).route(message("I live in Berlin now."),
                                  RouteContext(profile=[current]))
    profile_request = api.requests[1]
    assert "update the profile" in profile_request["system"].lower() or \
        "profile should be" in profile_request["system"]
    assert '"user.location": "Lisbon"' in profile_request["messages"][0]["content"]
    [fact] = decision.facts
    assert (fact.action, fact.subject, fact.key, fact.value) == (
        "update", "user", "location", "Berlin")
    assert fact.evidence_msg_id == "m1"
    assert decision.kind == "FACT"


def test_event_time_is_resolved_against_the_message_not_the_model() -> None:
    api = ScriptedAPI(reply('Sure! {"type": "EVENT", "extract": "went to a support group", '
                            '"subject": "Caroline", "time_expression": "yesterday"}'))
    decision = backend(api).route(message("I went to a support group yesterday.",
                                          speaker="Caroline"), RouteContext())
    assert decision.event is not None
    assert decision.event.occurred_at == datetime(2023, 5, 7, tzinfo=timezone.utc)
    assert decision.event.subject == "Caroline" and decision.event.time_expression == "yesterday"


@pytest.mark.parametrize(("text", "expression", "day"), [
    ("We sail to Vigo on June 2.", "June 2", "2023-06-02"),        # planned: the coming one
    ("We sailed to Vigo on June 2.", "June 2", "2022-06-02"),      # past: the last one
    ("Ines arrives on Friday.", "on Friday", "2023-05-12"),
    ("Ines arrived on Friday.", "Friday", "2023-05-05"),
])
def test_model_time_words_take_the_tense_of_the_message(text: str, expression: str,
                                                        day: str) -> None:
    api = ScriptedAPI(reply(json.dumps({"type": "EVENT", "extract": text, "subject": "Ines",
                                        "time_expression": expression})))
    decision = backend(api).route(message(text), RouteContext())  # sent Monday 2023-05-08
    assert decision.event is not None
    assert decision.event.occurred_at.date().isoformat() == day


def test_assistant_bookkeeping_from_the_model_is_none() -> None:
    from memfold.router import Router

    api = ScriptedAPI(reply('{"type": "EVENT", "extract": "saved the list", '
                            '"subject": "assistant", "time_expression": null}'))
    decision = Router(backend(api)).route(
        message("Saved the camping checklist.", role="assistant", speaker="assistant"))
    assert decision.kind == "NONE" and decision.event is None


def test_invalid_json_is_retried_once() -> None:
    api = ScriptedAPI(reply("I think this is a fact."),
                      reply('{"type": "NONE", "extract": ""}'))
    decision = backend(api).route(message("ok"), RouteContext())
    assert len(api.requests) == 2
    assert "not valid JSON" in api.requests[1]["messages"][0]["content"]
    assert decision.kind == "NONE" and "llm-fallback" not in decision.flags


def test_invalid_json_twice_falls_back_without_loss(caplog: pytest.LogCaptureFixture) -> None:
    api = ScriptedAPI(reply("not json"), reply('{"type": "MAYBE"}'))
    text = "I went hiking with my sister yesterday."
    with caplog.at_level(logging.WARNING, logger="memfold.llm.anthropic"):
        decision = backend(api).route(message(text), RouteContext())
    assert decision.kind == "EVENT"  # the offline backend's decision, not a dropped message
    assert decision.event is not None and decision.event.text == text
    assert "llm-fallback" in decision.flags
    assert any("fallback" in r for r in decision.reasons)
    assert any("fallback" in rec.message or "routed by" in rec.message for rec in caplog.records)


def test_invalid_profile_json_falls_back_to_offline_facts() -> None:
    api = ScriptedAPI(reply('{"type": "FACT"}'), reply("nope"), reply("still nope"))
    decision = backend(api).route(message("I'm allergic to peanuts."), RouteContext())
    assert [f.key for f in decision.facts] == ["allergy:peanuts"]
    assert "llm-fallback" in decision.flags


def test_complete_json_validates_and_falls_back() -> None:
    api = ScriptedAPI(reply('{"summary": "short", "keep": ["a"]}'), reply("x"), reply("y"))
    llm = backend(api)
    good = llm.complete_json("sys", "user text", Summary, fallback=lambda: Summary(summary="fb"))
    assert good == Summary(summary="short", keep=["a"])
    bad = llm.complete_json("sys", "user text", Summary, fallback=lambda: Summary(summary="fb"))
    assert bad.summary == "fb"
    assert api.requests[0]["system"] == "sys"
    assert api.requests[0]["messages"] == [{"role": "user", "content": "user text"}]


@pytest.mark.parametrize(("status", "kind", "expected"), [
    (429, "rate_limit_error", BackendRateLimitError),
    (529, "overloaded_error", BackendOverloadedError),
    (401, "authentication_error", BackendAuthError),
    (403, "permission_error", BackendAuthError),
    (400, "invalid_request_error", BackendResponseError),
    (500, "api_error", BackendResponseError),
])
def test_status_errors_are_translated(status: int, kind: str, expected: type) -> None:
    api = ScriptedAPI(error(status, kind))
    with pytest.raises(expected) as caught:
        backend(api).route(message("hello"), RouteContext())
    assert caught.value.__cause__ is not None  # raised from the SDK error


def test_timeout_is_translated() -> None:
    def timeout(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("slow", request=request)

    with pytest.raises(BackendTimeoutError):
        backend(ScriptedAPI(timeout)).complete_json("s", "u", Summary,
                                                    fallback=lambda: Summary(summary=""))


def test_connection_error_is_translated() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    with pytest.raises(BackendConnectionError):
        backend(ScriptedAPI(refuse)).route(message("hello"), RouteContext())


def test_route_many_keeps_order_with_requests_in_flight() -> None:
    def by_content(request: httpx2.Request) -> httpx2.Response:
        text = json.loads(request.content)["messages"][0]["content"]
        return reply('{"type": "DOCUMENT"}' if text.endswith("doc") else '{"type": "NONE"}')

    texts = [f"note {n} doc" if n % 3 == 0 else f"note {n}" for n in range(12)]
    api = ScriptedAPI(*[by_content] * len(texts))
    decisions = backend(api, concurrency=4).route_many(
        [message(t, msg_id=f"m{n}") for n, t in enumerate(texts)], [RouteContext()] * len(texts))
    assert [d.msg_id for d in decisions] == [f"m{n}" for n in range(12)]
    assert [d.kind for d in decisions] == ["DOCUMENT" if n % 3 == 0 else "NONE" for n in range(12)]
    assert len(api.requests) == 12


def test_transient_errors_can_fall_back_per_message() -> None:
    api = ScriptedAPI(error(529, "overloaded_error"), error(401, "authentication_error"))
    llm = backend(api, on_transient_error="fallback")
    decision = llm.route(message("I'm allergic to peanuts."), RouteContext())
    assert decision.kind == "FACT" and "llm-fallback" in decision.flags
    with pytest.raises(BackendAuthError):  # never hidden: the key is wrong
        llm.route(message("hello"), RouteContext())


def test_routing_forces_a_tool_whose_input_schema_is_the_decision() -> None:
    from llm_helpers import tool_reply

    api = ScriptedAPI(
        tool_reply("record_routereply", {"type": "FACT", "extract": "wife is Priya", "confidence": 0.9}),
        tool_reply("record_profilereply", {"updates": [
            {"action": "add", "subject": "user", "key": "spouse", "value": "Priya",
             "evidence_msg_id": "m1"}]}))
    decision = backend(api).route(message("Can you remember that my wife's name is Priya?"),
                                  RouteContext())
    route_request = api.requests[0]
    assert route_request["tool_choice"] == {"type": "tool", "name": "record_routereply"}
    [tool] = route_request["tools"]
    assert set(tool["input_schema"]["properties"]) >= {"type", "extract", "time_expression"}
    [fact] = decision.facts
    assert (decision.kind, fact.key, fact.value) == ("FACT", "partner", "Priya")


def test_an_invalid_tool_input_is_retried_then_falls_back() -> None:
    from llm_helpers import tool_reply

    api = ScriptedAPI(tool_reply("record_routereply", {"type": "MAYBE"}),
                      tool_reply("record_routereply", {"confidence": 1}))
    decision = backend(api).route(message("I live in Lisbon."), RouteContext())
    assert len(api.requests) == 2 and "llm-fallback" in decision.flags
