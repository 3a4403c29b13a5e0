"""The Router: a backend's decision plus the trust rules no backend may override.

* ``role=tool`` / ``role=document`` content is reference content: always DOCUMENT, never
  a profile fact or an event, and flagged ``instruction-like`` when it reads like orders
  to the model (``trust.py``); a tool's bare acknowledgement or empty result ('{"status":
  "ok"}', "No results found.") is NONE, there being nothing in it to keep;
* an assistant confirming its own bookkeeping ("Saved the list.", "Noted.") is NONE, whatever
  the backend said;
* only ``role=user`` messages may carry profile facts (an assistant restating "your name
  is Bob" is not evidence); an assistant FACT becomes NONE;
* with ``grounding=True`` (the default) facts whose words are not in the message, or
  that cite another message, are dropped here with a reason (``apply`` checks again).
"""

from __future__ import annotations

from collections.abc import Sequence

from memfold.llm.base import Backend, RouteContext
from memfold.llm.cues import content_sentences, is_acknowledgement, is_bookkeeping
from memfold.models import FactExtraction, Message, RefusedWrite, RouteDecision
from memfold.router.apply import fact_refusal
from memfold.router.trust import INSTRUCTION_FLAG, assess
from memfold.sensitive import SECRET_FLAG, find_secrets, is_secret_fact

REFERENCE_ROLES = frozenset({"tool", "document"})


class Router:
    """Decides where each message goes; stores nothing (see ``router.apply``)."""

    def __init__(self, backend: Backend, *, grounding: bool = True) -> None:
        self.backend = backend
        self.grounding = grounding

    def route(self, message: Message, context: RouteContext | None = None) -> RouteDecision:
        return self.route_many([message], [context or RouteContext()])[0]

    def route_many(self, messages: Sequence[Message],
                   contexts: Sequence[RouteContext] | None = None) -> list[RouteDecision]:
        """One decision per message, in order (the backend sees the whole batch)."""
        contexts = list(contexts) if contexts is not None else [RouteContext() for _ in messages]
        decisions = self.backend.route_many(messages, contexts)
        return [_guard_secrets(message, self._guard(message, decision))
                for message, decision in zip(messages, decisions)]

    def _guard(self, message: Message, decision: RouteDecision) -> RouteDecision:
        if message.role in REFERENCE_ROLES:
            return self._as_reference(message, decision)
        if decision.kind == "DOCUMENT":  # a user-pasted web page can carry an injection too
            return self._flag_if_instruction_like(message, decision)
        if message.role == "assistant" and decision.kind == "EVENT" and is_bookkeeping(
                content_sentences(message.text), message.text):
            return decision.model_copy(update={
                "kind": "NONE", "facts": [], "event": None,
                "reasons": [*decision.reasons, "trust: assistant bookkeeping is not an event"]})
        if message.role != "user" and (decision.facts or decision.kind == "FACT"):
            reason = f"role {message.role} cannot write facts"
            return decision.model_copy(update={
                "kind": "NONE" if decision.kind == "FACT" else decision.kind, "facts": [],
                "refused": [*decision.refused, *_refusals(message, decision.facts, reason)],
                "reasons": [*decision.reasons, f"trust: {reason}"]})
        if not self.grounding or not decision.facts:
            return decision
        kept, reasons, refused = [], list(decision.reasons), list(decision.refused)
        for fact in decision.facts:
            problem = fact_refusal(message, fact, decision.facts)
            if problem is None:
                kept.append(fact)
            else:
                reasons.append(f"grounding: dropped {fact.subject}.{fact.key}: {problem}")
                refused += _refusals(message, [fact], f"grounding: {problem}")
        return decision.model_copy(update={"facts": kept, "reasons": reasons, "refused": refused})

    def _as_reference(self, message: Message, decision: RouteDecision) -> RouteDecision:
        if message.role == "tool" and is_acknowledgement(message.text):
            return self._flag_if_instruction_like(message, decision.model_copy(update={
                "kind": "NONE", "facts": [], "event": None,
                "reasons": [*decision.reasons, "trust: a tool's acknowledgement or empty result"]}))
        reference = decision.model_copy(update={
            "kind": "DOCUMENT", "facts": [], "event": None,
            "reasons": [*decision.reasons, f"trust: role {message.role} is reference content"]})
        return self._flag_if_instruction_like(message, reference)

    @staticmethod
    def _flag_if_instruction_like(message: Message, decision: RouteDecision) -> RouteDecision:
        verdict = assess(message.text)
        if not verdict.instruction_like or INSTRUCTION_FLAG in decision.flags:
            return decision
        return decision.model_copy(update={
            "facts": [], "flags": [*decision.flags, INSTRUCTION_FLAG],
            "reasons": [*decision.reasons,
                        "trust: instruction-like: " + "; ".join(verdict.evidence[:3])]})


def _guard_secrets(message: Message, decision: RouteDecision) -> RouteDecision:
    """A password, PIN, national id, card number, account number or API key in a message
    flags it ``secret`` and never becomes a profile fact (the raw log keeps the message)."""
    secrets = find_secrets(message.text)
    if not secrets:
        return decision
    values = tuple(message.text[s.start:s.end] for s in secrets)
    kept, reasons, refused = [], list(decision.reasons), list(decision.refused)
    for fact in decision.facts:
        if is_secret_fact(fact.key, fact.value, values):
            reasons.append(f"secret: dropped {fact.subject}.{fact.key} (holds a {secrets[0].kind})")
            # the value itself is the secret: the refusal names the key, never the value
            refused.append(RefusedWrite(msg_id=message.msg_id, subject=fact.subject, key=fact.key,
                                        reason=f"secret: holds a {secrets[0].kind}"))
        else:
            kept.append(fact)
    kinds = sorted({s.kind for s in secrets})
    flags = decision.flags if SECRET_FLAG in decision.flags else [*decision.flags, SECRET_FLAG]
    return decision.model_copy(update={
        "facts": kept, "flags": flags, "refused": refused,
        "kind": "NONE" if decision.kind == "FACT" and not kept else decision.kind,
        "reasons": [*reasons, f"secret: the message holds {', '.join(kinds)}"]})


def _refusals(message: Message, facts: list[FactExtraction], reason: str) -> list[RefusedWrite]:
    return [RefusedWrite(msg_id=message.msg_id, subject=fact.subject, key=fact.key,
                         value=fact.value, reason=reason) for fact in facts]
