"""Claude as the routing backend, with the offline backend as its safety net.

One ``messages.create`` call classifies an utterance (ROUTE_PROMPT); a second one, only
for FACT utterances, decides the profile update (PROFILE_UPDATE_PROMPT) given the current
profile. Answers are parsed as JSON (```json fences tolerated) and validated with
pydantic. An answer that is not valid JSON gets one retry; if the retry fails too, the
offline backend's decision is used and a warning is logged: an utterance is never
silently dropped. Dates are never taken from the model: the model names the words
("yesterday") and :func:`memfold.timeexpr.resolve_event_time` resolves them against the
message time.

API failures are translated into :mod:`memfold.errors` classes (``raise ... from exc``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, TypeVar

import anthropic
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memfold.errors import (
    BackendAuthError,
    BackendConnectionError,
    BackendError,
    BackendOverloadedError,
    BackendRateLimitError,
    BackendResponseError,
    BackendTimeoutError,
    InvalidInputError,
)
from memfold.llm.base import Backend, RouteContext
from memfold.llm.jsonparse import NotJsonError, extract_json_object
from memfold.llm.keys import fact_key, speaker_subject
from memfold.llm.prompts import (
    PROFILE_UPDATE_PROMPT,
    PROFILE_USER_TEMPLATE,
    RETRY_SUFFIX,
    ROUTE_PROMPT,
    ROUTE_USER_TEMPLATE,
)
from memfold.models import EventExtraction, FactExtraction, Message, RouteDecision, RouteKind
from memfold.timeexpr import TimeRef, find_time_expressions, resolve_event_time

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)

DEFAULT_MODEL = "claude-haiku-4-5"
TRANSIENT_ERRORS = (BackendRateLimitError, BackendOverloadedError, BackendTimeoutError,
                    BackendConnectionError)


class RouteReply(BaseModel):
    """The JSON ROUTE_PROMPT asks for."""

    model_config = ConfigDict(extra="ignore")

    type: RouteKind
    extract: str = ""
    subject: str | None = None
    time_expression: str | None = None
    confidence: float = Field(default=0.8)

    @field_validator("type", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("confidence", mode="before")
    @classmethod
    def _clamp(cls, value: Any) -> float:
        try:
            return min(1.0, max(0.0, float(value)))
        except (TypeError, ValueError):
            return 0.8


class ProfileUpdate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    action: Literal["add", "update", "delete", "none"]
    subject: str = ""
    key: str = ""
    value: str = ""
    evidence_msg_id: str | None = None
    reason: str = ""


class ProfileReply(BaseModel):
    """The JSON PROFILE_UPDATE_PROMPT asks for: a list of updates (a bare one is accepted)."""

    model_config = ConfigDict(extra="ignore")

    updates: list[ProfileUpdate] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _wrap_single(cls, value: Any) -> Any:
        if isinstance(value, dict) and "action" in value and "updates" not in value:
            return {"updates": [value]}
        return value


def translate_error(exc: anthropic.APIError) -> BackendError:
    """The memfold error for an Anthropic SDK error (the caller raises it ``from exc``)."""
    if isinstance(exc, anthropic.APITimeoutError):
        return BackendTimeoutError(f"the Anthropic API timed out: {exc}")
    if isinstance(exc, anthropic.APIConnectionError):
        return BackendConnectionError(f"cannot reach the Anthropic API: {exc}")
    if isinstance(exc, anthropic.RateLimitError):
        return BackendRateLimitError(f"Anthropic rate limit (429): {exc}")
    if isinstance(exc, (anthropic.AuthenticationError, anthropic.PermissionDeniedError)):
        return BackendAuthError(f"the Anthropic API rejected the credentials: {exc}")
    status = getattr(exc, "status_code", None)
    if isinstance(exc, anthropic.OverloadedError) or status == 529:
        return BackendOverloadedError(f"the Anthropic API is overloaded (529): {exc}")
    return BackendResponseError(f"Anthropic API error (status {status}): {exc}")


class AnthropicBackend:
    """Routes with Claude; ``fallback`` (the offline backend) covers unusable answers."""

    name = "anthropic"

    def __init__(self, client: anthropic.Anthropic, *, model: str = DEFAULT_MODEL,
                 fallback: Backend | None = None, max_tokens: int = 1024,
                 on_transient_error: Literal["raise", "fallback"] = "raise",
                 concurrency: int = 4, timeout: float = 30.0) -> None:
        """``on_transient_error="fallback"`` routes a message offline (flagged
        ``llm-fallback``) when the API is rate-limited, overloaded, slow or unreachable;
        the default raises, so the caller's batch is not half-routed by a different backend.
        Authentication errors always raise. ``route_many`` keeps up to ``concurrency``
        requests in flight (the SDK client is thread-safe); results keep input order.
        ``timeout`` bounds each request in seconds; the client's ``max_retries`` retries
        transient failures (built with 2 in ``config.py``) before they reach this class."""
        self._client = client
        self.model = model
        self._fallback = fallback
        self.max_tokens = max_tokens
        self.on_transient_error = on_transient_error
        self.concurrency = max(1, concurrency)
        self.timeout = timeout

    # -- generic structured completion (also used by compaction) --------------------------

    def complete_json(self, system: str, user: str, schema: type[T], *,
                      fallback: Callable[[], T]) -> T:
        result = self._complete(system, user, schema)
        return fallback() if result is None else result

    def _complete(self, system: str, user: str, schema: type[T]) -> T | None:
        """A validated ``schema`` instance, or None after two unusable answers.

        The request forces one tool whose input schema is ``schema``'s JSON schema
        (structured output); a text answer holding the JSON is accepted too."""
        prompt = user
        for attempt in (1, 2):
            answer = self._ask(system, prompt, schema)
            try:
                data = answer if isinstance(answer, dict) else extract_json_object(answer)
                return schema.model_validate(data)
            except (NotJsonError, ValidationError) as exc:
                problem = str(exc).splitlines()[0][:200]
                log.info("model answer unusable (attempt %d): %s", attempt, problem)
                prompt = user + RETRY_SUFFIX.format(error=problem)
        log.warning("model %s gave no valid %s JSON twice; using the fallback", self.model,
                    schema.__name__)
        return None

    def _ask(self, system: str, user: str, schema: type[BaseModel] | None = None) -> dict[str, Any] | str:
        """The forced tool's input (a dict), or the text when the model answered in text."""
        extra: dict[str, Any] = {}
        if schema is not None:
            tool = _tool_for(schema)
            extra = {"tools": [tool], "tool_choice": {"type": "tool", "name": tool["name"]}}
        try:
            response = self._client.messages.create(
                model=self.model, max_tokens=self.max_tokens, system=system,
                messages=[{"role": "user", "content": user}], timeout=self.timeout, **extra)
        except anthropic.APIError as exc:
            raise translate_error(exc) from exc
        for block in response.content:
            if block.type == "tool_use" and isinstance(block.input, dict):
                return block.input
        return "".join(block.text for block in response.content if block.type == "text")

    # -- routing ---------------------------------------------------------------------------

    def route(self, message: Message, context: RouteContext) -> RouteDecision:
        try:
            return self._route(message, context)
        except TRANSIENT_ERRORS as exc:
            if self.on_transient_error == "raise":
                raise
            return self._fallback_route(message, context, f"API unavailable: {exc}")

    def _route(self, message: Message, context: RouteContext) -> RouteDecision:
        user = ROUTE_USER_TEMPLATE.format(msg_id=message.msg_id, speaker=message.speaker,
                                          role=message.role, ts=message.ts.isoformat(),
                                          text=message.text)
        reply = self._complete(ROUTE_PROMPT, user, RouteReply)
        if reply is None:
            return self._fallback_route(message, context, "route answer was not valid JSON")
        facts: list[FactExtraction] = []
        reasons = [f"model: {reply.type}"]
        if reply.type == "FACT":
            profile = self._complete(*self._profile_prompt(message, context), ProfileReply)
            if profile is None:
                return self._fallback_route(message, context, "profile answer was not valid JSON")
            facts = [self._to_fact(update, message) for update in profile.updates
                     if update.action != "none"]
        event = self._to_event(reply, message) if reply.type == "EVENT" else None
        return RouteDecision(msg_id=message.msg_id, kind=reply.type, confidence=reply.confidence,
                             facts=facts, event=event, reasons=reasons, backend=self.name)

    def route_many(self, messages: Sequence[Message],
                   contexts: Sequence[RouteContext]) -> list[RouteDecision]:
        if len(messages) != len(contexts):
            raise InvalidInputError(f"{len(messages)} messages but {len(contexts)} contexts")
        if self.concurrency == 1 or len(messages) <= 1:
            return [self.route(message, context) for message, context in zip(messages, contexts)]
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(self.route, messages, contexts))

    def _profile_prompt(self, message: Message, context: RouteContext) -> tuple[str, str]:
        profile = {f"{f.subject}.{f.key}": f.value for f in context.profile}
        system = PROFILE_UPDATE_PROMPT.format(speaker=speaker_subject(message))
        user = PROFILE_USER_TEMPLATE.format(profile_json=json.dumps(profile, ensure_ascii=False),
                                            msg_id=message.msg_id, speaker=message.speaker,
                                            ts=message.ts.isoformat(), text=message.text)
        return system, user

    @staticmethod
    def _to_fact(update: ProfileUpdate, message: Message) -> FactExtraction:
        subject = update.subject.strip() or speaker_subject(message)
        if subject.lower() in ("user", "me", "i", "speaker", message.speaker.lower()):
            subject = speaker_subject(message)
        key = fact_key(update.key or "fact", update.value)
        return FactExtraction(action=update.action, subject=subject, key=key, value=update.value,
                              evidence_msg_id=update.evidence_msg_id, reason=update.reason)

    @staticmethod
    def _to_event(reply: RouteReply, message: Message) -> EventExtraction:
        resolved = _resolve_in_message(reply.time_expression, message)
        subject = (reply.subject or "").strip() or speaker_subject(message)
        return EventExtraction(
            subject=subject, text=reply.extract.strip() or message.text,
            occurred_at=resolved.occurred_at if resolved else message.ts,
            granularity=resolved.granularity if resolved else "day",
            time_expression=resolved.expression if resolved else None)

    def _fallback_route(self, message: Message, context: RouteContext, why: str) -> RouteDecision:
        if self._fallback is None:
            from memfold.llm.offline import OfflineBackend

            self._fallback = OfflineBackend()
        decision = self._fallback.route(message, context)
        log.warning("msg %s routed by the %s backend: %s", message.msg_id, self._fallback.name, why)
        return decision.model_copy(update={
            "reasons": [*decision.reasons, f"fallback: {why}"],
            "flags": [*decision.flags, "llm-fallback"]})


def _tool_for(schema: type[BaseModel]) -> dict[str, Any]:
    """A tool whose input is ``schema``: forcing it makes the model answer in that shape."""
    doc = (schema.__doc__ or schema.__name__).strip().splitlines()[0]
    return {"name": f"record_{schema.__name__.lower()}", "description": doc,
            "input_schema": schema.model_json_schema()}


def _resolve_in_message(expression: str | None, message: Message) -> TimeRef | None:
    """The model's time words resolved where they stand in the message, so that the
    sentence's tense applies ("We fly out on April 10" is the coming 10 April); words the
    message does not contain are resolved on their own."""
    found = find_time_expressions(message.text, message.ts)
    if not expression:
        return found[0] if found else None
    wanted = expression.strip().lower()
    for candidate in found:
        said = candidate.expression.lower()
        if said in wanted or wanted in said:
            return candidate
    return resolve_event_time(expression, message.ts) or (found[0] if found else None)
