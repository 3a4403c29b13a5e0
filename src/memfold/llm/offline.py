"""The offline backend: lexical cues plus nearest labelled prototypes, no network.

Every user without an API key gets this backend, so it is built to be good and fast:

* score per class = lexical cue score (``cues.py``, ``facts.py``, a resolvable time
  expression from ``timeexpr``) + ``embedding_weight`` x (mean of the top-3 cosine
  similarities to that class's prototype sentences, centred across classes);
* the message embedding is the one the facade already computed (``RouteContext.embedding``);
  only messages that arrive without one are embedded, in one batch;
* prototypes are embedded once per process and embedder.

Deterministic: the same message and embedder always give the same decision.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np
from pydantic import BaseModel

from memfold.embed.base import Embedder
from memfold.errors import ConfigError, InvalidInputError
from memfold.llm.base import RouteContext
from memfold.llm.cues import (
    Cues,
    as_plan,
    content_sentences,
    document_cues,
    event_cues,
    event_subject,
    is_bookkeeping,
    is_personal_plan,
    none_cues,
)
from memfold.llm.facts import (
    FIELDS_FOR_A_PROFILE, age_grown, birthday_corrected, child_renamed, diet_given_up, extract_facts, keyed_changes, replaced_siblings,
    favorite_of_stored_person, goal_retargeted, role_successor, school_kept, status_of_stored_person, value_switched,
    pet_replaced, swapped_values, tagger_sentences,
)
from memfold.llm.head import ClassifierHead, packaged_head
from memfold.llm.keys import speaker_subject
from memfold.llm.prototypes import PROTOTYPES
from memfold.llm.tagger import FactTagger, PrefetchedTagger, packaged_tagger
from memfold.llm.route_features import ROUTE_CUES, route_cue_vector
from memfold.llm.spelling import spelled
from memfold.llm.values import content_words
from memfold.models import EventExtraction, FactExtraction, Message, RouteDecision, RouteKind
from memfold.timeexpr import TimeRef, resolve_event_time

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)
KINDS: tuple[RouteKind, ...] = ("FACT", "EVENT", "DOCUMENT", "NONE")

_PROTO_CACHE: dict[str, np.ndarray] = {}
# a DOCUMENT cue score this high (code, 3+ list lines, 120+ words, a labelled block) marks
# pasted reference content, which the fact tagger skips
_TAGGED_DOCUMENT_SCORE = 2.5
_PROTO_LOCK = threading.Lock()


@dataclass
class Analysis:
    """The cues' reading of one message: scores and reasons, extracted facts, the
    resolved time, the content sentences, the subject and the head's cue features."""

    cues: Cues
    facts: list[FactExtraction]
    when: TimeRef | None
    content: list[str]
    subject: str
    cue_vector: np.ndarray
    changes_stored: bool = False  # a swap, keyed change or new value gives a stored key a new value
    strength: float = 0.0  # the weight of the surest fact reading (rules 2.0-3.0, the tagger up to 2.0)


@dataclass
class Opening:
    """What is read of a message before its facts: the cues so far, its content sentences,
    and whether the fact tagger reads it (pasted reference content is left to the rules)."""

    cues: Cues
    content: list[str]
    tagged: bool
    sentences: list[str] | None = None  # what the facts are read from, when found for the batch


class OfflineBackend:
    """Deterministic router backend: heuristics + the local embedding model."""

    name = "offline"

    def __init__(self, embedder: Embedder | None = None, *, embedding_weight: float = 4.0,
                 top_k: int = 3, prototypes: dict[str, tuple[str, ...]] | None = None,
                 head: ClassifierHead | None | bool = True, tagger: FactTagger | None | bool = True) -> None:
        self._embedder = embedder
        self.embedding_weight = embedding_weight
        self.top_k = top_k
        self._prototypes = prototypes or PROTOTYPES
        self._labels = [kind for kind in KINDS for _ in self._prototypes.get(kind, ())]
        # True: the packaged head when it fits the embedder; a head: that one; False/None: cues
        self._head = packaged_head("router_head") if head is True else (head or None)
        # True: the packaged fact tagger (its network is built on first use); a tagger: that
        # one; False/None: the rules and templates alone
        self._tagger = packaged_tagger() if tagger is True else (tagger or None)

    def complete_json(self, system: str, user: str, schema: type[T], *,
                      fallback: Callable[[], T]) -> T:
        """No model to ask offline: always the caller's deterministic fallback."""
        return fallback()

    def _likeness(self, text: str, others: Sequence[str]) -> list[float]:
        """Cosine of ``text`` with each of ``others`` (a bare favourite's stored key, facts.py)."""
        assert self._embedder is not None
        vectors = np.asarray(self._embedder.embed([text, *others]), dtype=np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return (vectors[1:] @ vectors[0]).tolist()

    def route(self, message: Message, context: RouteContext) -> RouteDecision:
        return self.route_many([message], [context])[0]

    def route_many(self, messages: Sequence[Message],
                   contexts: Sequence[RouteContext]) -> list[RouteDecision]:
        if len(messages) != len(contexts):
            raise InvalidInputError(f"{len(messages)} messages but {len(contexts)} contexts")
        matrix = self._vectors(messages, contexts)
        head = self._usable_head(matrix)
        similarities = None if matrix is None else self._similarities(matrix)
        # the rules read the words as meant ("my ssiter"); the embedding above read them as typed
        messages = [spelled(message) for message in messages]
        openings = [self._open(message) for message in messages]
        tagger = self._prefetched(messages, contexts, openings)
        analyses = [self.analyse(message, context, None if similarities is None else similarities[row],
                                 opening=openings[row], tagger=tagger)
                    for row, (message, context) in enumerate(zip(messages, contexts))]
        scored = self._scored(analyses, matrix if head is not None else None, head, similarities)
        return [self._decide(message, analysis, scores, reason)
                for message, analysis, (scores, reason) in zip(messages, analyses, scored)]

    def _scored(self, analyses: Sequence[Analysis], matrix: np.ndarray | None, head: ClassifierHead | None,
                similarities: np.ndarray | None) -> list[tuple[np.ndarray, str | None]]:
        """Per message, the class scores and how they were reached: the head's, read for the
        whole batch at once, or the cues' plus the prototypes' (None: the cues' alone)."""
        if head is not None and matrix is not None:
            logits, shares = head.explain(matrix, np.stack([a.cue_vector for a in analyses]))
            return [(row, _head_reason(KINDS[int(np.argmax(row))], top)) for row, top in zip(logits, shares)]
        out: list[tuple[np.ndarray, str | None]] = []
        for row, a in enumerate(analyses):
            scores = np.array([a.cues.scores[kind] for kind in KINDS], dtype=np.float32)
            if similarities is None:
                out.append((scores, None))
                continue
            out.append((scores + self.embedding_weight * similarities[row], "prototypes: " + ", ".join(
                f"{kind}={value:+.2f}" for kind, value in zip(KINDS, similarities[row].tolist()))))
        return out

    def _prefetched(self, messages: Sequence[Message], contexts: Sequence[RouteContext],
                    openings: Sequence[Opening]) -> FactTagger | PrefetchedTagger | None:
        """The tagger, having read the batch's sentences together (batches of like length
        cost less a sentence than one message's sentences a call)."""
        if self._tagger is None or len(messages) < 2:
            return self._tagger
        for message, context, opening in zip(messages, contexts, openings):
            if opening.tagged and message.role == "user":
                opening.sentences = tagger_sentences(message, opening.content, _stored(context))
        return self._tagger.prefetched([s for opening in openings for s in opening.sentences or ()])

    def _usable_head(self, matrix: np.ndarray | None) -> ClassifierHead | None:
        if self._head is None or matrix is None or self._embedder is None:
            return None
        if self._head.cue_names != ROUTE_CUES:
            # a head trained on other cue features would read the wrong columns
            raise ConfigError(f"the router head reads the cues {self._head.cue_names}, the router gives "
                              f"{ROUTE_CUES}: retrain it with training/train_heads.py")
        fits = self._head.labels == KINDS and self._head.accepts(self._embedder.name, matrix.shape[1])
        return self._head if fits else None

    # -- embeddings ----------------------------------------------------------------------------

    def _prototype_matrix(self) -> np.ndarray:
        assert self._embedder is not None
        texts = tuple(text for kind in KINDS for text in self._prototypes.get(kind, ()))
        key = f"{self._embedder.name}:{hash(texts)}"
        with _PROTO_LOCK:
            if key not in _PROTO_CACHE:
                _PROTO_CACHE[key] = np.asarray(self._embedder.embed(list(texts)), dtype=np.float32)
            return _PROTO_CACHE[key]

    def _vectors(self, messages: Sequence[Message],
                 contexts: Sequence[RouteContext]) -> np.ndarray | None:
        """(n, dim): the facade's vectors; only messages that arrive without one are embedded."""
        if self._embedder is None or not messages:
            return None
        vectors = [context.embedding for context in contexts]
        missing = [row for row, vector in enumerate(vectors) if vector is None]
        if missing:
            fresh = self._embedder.embed([messages[row].indexed_text() for row in missing])
            for row, vector in zip(missing, fresh):
                vectors[row] = vector
        return np.stack([np.asarray(v, dtype=np.float32) for v in vectors])

    def prototype_similarities(self, matrix: np.ndarray) -> list[np.ndarray | None]:
        """Per row, the centred prototype similarities (None rows when dimensions differ)."""
        out = self._similarities(np.asarray(matrix, dtype=np.float32))
        return [None] * len(matrix) if out is None else list(out)

    def _similarities(self, matrix: np.ndarray) -> np.ndarray | None:
        """(n, 4): per class, the mean of the top-k prototype cosines, centred per message."""
        protos = self._prototype_matrix()
        if matrix.shape[1] != protos.shape[1]:
            log.warning("embedding dim %d != prototype dim %d; routing on cues only",
                        matrix.shape[1], protos.shape[1])
            return None
        cosines = matrix @ protos.T
        labels = np.asarray(self._labels)
        out = np.zeros((matrix.shape[0], len(KINDS)), dtype=np.float32)
        for col, kind in enumerate(KINDS):
            part = cosines[:, labels == kind]
            if part.shape[1]:
                k = min(self.top_k, part.shape[1])
                out[:, col] = np.sort(part, axis=1)[:, -k:].mean(axis=1)
        return out - out.mean(axis=1, keepdims=True)

    # -- decision --------------------------------------------------------------------------------

    def _open(self, message: Message) -> Opening:
        cues = Cues()
        content = content_sentences(message.text)
        document_cues(message, message.text, cues)
        none_cues(message, message.text, content, cues)
        event_cues(content, cues)
        # pasted reference content (code, lists, a long text) is read by the rules alone: the
        # tagger costs ~1.3 ms a sentence, and such a text states nobody's profile
        pasted = cues.pasted_text or cues.scores["DOCUMENT"] >= _TAGGED_DOCUMENT_SCORE
        return Opening(cues, content, self._tagger is not None and not pasted)

    def analyse(self, message: Message, context: RouteContext | None = None,
                similarity: np.ndarray | None = None, *, opening: Opening | None = None,
                tagger: FactTagger | PrefetchedTagger | None = None) -> Analysis:
        """Everything the cues say about ``message``, before any class is chosen
        (``similarity``: its centred prototype similarities, a cue feature of the head;
        ``opening`` and ``tagger``: as ``route_many`` prepared them for its batch)."""
        context = context or RouteContext()
        message = spelled(message)
        opening = opening or self._open(message)
        cues, content = opening.cues, opening.content
        is_reference = message.role in _REFERENCE_ROLES
        tagger = (tagger or self._tagger) if opening.tagged else None
        stored = _stored(context)
        facts, strength = ([], 0.0) if is_reference else extract_facts(
            message, content, tagger=tagger, stored=stored, sentences=opening.sentences,
            likeness=self._likeness if self._embedder is not None else None)
        changes_stored = False
        if context.profile and not is_reference:
            facts, strength, changes_stored = _with_swaps(facts, strength, message, content, context)
        facts = _against_profile(school_kept(facts, message, stored), context)
        # a new value for a key the profile holds ("ines quit the bank, shes a nurse now" after
        # "my sister ines is a bank teller") is a change, however chatty the message
        changes_stored = changes_stored or any(f.action == "update" for f in facts)
        if strength:
            cues.add("FACT", strength, f"stated fact {facts[0].key}")
        # dates are read from the speaker's statements only: "How was your trip last month?"
        # dates nothing, and a text pasted for editing keeps its dates to itself; a reminder
        # request is read as the plan it is ("remind me to X on Sunday": next Sunday)
        plans = [as_plan(sentence) for sentence in content]
        when = None if is_reference or not content or cues.pasted_text else resolve_event_time(
            " ".join(plans), message.ts)
        plan = when is not None and when.end > message.ts and is_personal_plan(plans)
        if plan and when is not None:
            cues.add("EVENT", 1.0, f"planned for '{when.expression}'")
        if when is not None and content:
            # a date makes an action an event; on its own ("so tired today") it is a hint
            weight = 2.0 if cues.scores["EVENT"] > 0 else 0.75
            cues.add("EVENT", weight, f"time '{when.expression}'")
        subject = event_subject(plans, speaker_subject(message),
                                "user" if message.role == "assistant" else None)
        if message.role == "assistant":
            _assistant_cues(message, content, when, subject, cues)
        vector = route_cue_vector(
            message, cues, fact_strength=strength, facts=len(facts), has_time=when is not None,
            time_ahead=when is not None and when.end > message.ts, personal_plan=plan,
            content_sentences=len(content), prototypes=similarity)
        return Analysis(cues, facts, when, content, subject, vector, changes_stored, strength)

    def _decide(self, message: Message, a: Analysis, scores: np.ndarray, reason: str | None) -> RouteDecision:
        if reason is not None:
            a.cues.reasons.append(reason)
        override = _override(a, message, KINDS[int(np.argmax(scores))])
        if override is not None:
            kind, why = override
            scores = scores.copy()
            scores[KINDS.index(kind)] = scores.max() + 1.0
            a.cues.reasons.append(why)
        return self._build(message, scores, a.cues.reasons, a.facts, a.when, a.content, a.subject)

    def _build(self, message: Message, scores: np.ndarray, reasons: list[str],
               facts: list[FactExtraction], when: TimeRef | None,
               content: list[str], subject: str) -> RouteDecision:
        best = int(np.argmax(scores))
        kind = KINDS[best]
        weights = np.exp(scores - scores.max())
        confidence = float(weights[best] / weights.sum())
        event = _event(message, when, content, subject) if kind == "EVENT" else None
        if event is not None and event.occurred_at > message.ts:
            reasons = [*reasons, f"planned: {event.occurred_at.date().isoformat()} is ahead"]
        kept = facts if kind in ("FACT", "EVENT") else []
        return RouteDecision(msg_id=message.msg_id, kind=kind, confidence=round(confidence, 4),
                             facts=kept, event=event, reasons=reasons, backend=self.name)


def _override(a: Analysis, message: Message, chosen: str) -> tuple[str, str] | None:
    """The kind a sure cue gives the message whatever the scores chose, and why; None if none."""
    if sum("(fields weight" in f.reason for f in a.facts) >= FIELDS_FOR_A_PROFILE and chosen != "FACT":
        # "Profile for you: - Name: ... - Age: 27 - City: ...": the speaker's own attributes
        # as a list, however much it looks like a pasted note
        return "FACT", "a list of the speaker's attributes"
    if chosen == "NONE" and _stated_plainly(a, message):
        # "im in customer support", "im a freelance translator, how should i price per
        # word": a fact said in the words of the surest rules ("I live in", "I work as",
        # "I'm allergic to") is kept, however short or wrapped in a request the message is
        return "FACT", "a fact stated plainly"
    if a.changes_stored and chosen in ("NONE", "DOCUMENT"):
        # "moved teams, search now" names the stored key and its new value: a fact, however
        # short (the head reads such fragments as chatter)
        return "FACT", "changes a stored value"
    return None


_REFERENCE_ROLES = ("tool", "document")
# the weight of the surest fact rules ("I live in", "I work as", "my X is"): a fact read by one
# is kept even where the head reads chatter or a request (the tagger weighs at most 2.0)
PLAIN_FACT = 3.0
# the tagger's reading of a statement (it weighs 1.5-2.0 where it is sure; a rule at 2.0 is
# no such proof: "im in bed lol" is no address): enough on its own
# for a short statement of the speaker's that asks nothing ("im in customer support", "our
# bunny is Clover"), which the head, trained on much short chatter, reads as chatter; skills
# and traits excepted, the families an aside most often reads as ("I can cry in the rain")
TAGGED_FACT = 1.5
_ASIDE_FAMILIES = ("skill", "trait")


def _stated_plainly(a: Analysis, message: Message) -> bool:
    """Whether ``a`` holds a fact of the speaker's said plainly enough to keep over the head."""
    speaker = speaker_subject(message)
    own = [f for f in a.facts if f.subject == speaker]
    if not own:
        return False
    if a.strength >= PLAIN_FACT:
        return True
    asks = "?" in message.text or message.role != "user"
    return not asks and a.strength >= TAGGED_FACT and any(
        "tagger weight" in f.reason and f.key.split(":", 1)[0] not in _ASIDE_FAMILIES for f in own)


def _stored(context: RouteContext) -> dict[tuple[str, str], str]:
    return {(f.subject, f.key): f.value for f in context.profile}


def _head_reason(label: str, shares: list[tuple[str, float]]) -> str:
    """The learned head's verdict, with the cues that pushed it most."""
    top = [f"{name}{value:+.1f}" for name, value in shares[:3]]
    return f"head: {label} ({', '.join(top)})"


def _with_swaps(facts: list[FactExtraction], strength: float, message: Message, content: list[str],
                context: RouteContext) -> tuple[list[FactExtraction], float, bool]:
    """A swap that names the stored value ("left Siemens for Bosch") replaces what the rules
    read for that key: the old value is the surest sign of which key changes. The flag says
    whether a swap or keyed change gave a stored key a new value."""
    current = {(f.subject, f.key): f.value for f in context.profile}
    retargeted = goal_retargeted(message, content, current)
    swaps = swapped_values(message, content, current) or _unread_keyed_changes(facts, message, content, current,
                                                                                 retargeted)
    if not swaps:
        replaced = replaced_siblings(facts, message, current)
        return replaced, strength, replaced != facts
    keys = {(f.subject, f.key) for f in swaps}
    swapped = {s.value.casefold() for s in swaps}  # "finance" swapped in is no place "Finance" too
    kept = [f for f in facts if (f.subject, f.key) not in keys and f.value.casefold() not in swapped
            and not _read_from_a_quote(f, [s for s in swaps if s in retargeted])]
    # a per-value family's swap retires the stored value it names ("its cluster headaches
    # not migraines": health:migraines goes)
    return replaced_siblings([*kept, *swaps], message, current), max(strength, 3.0), True


def _read_from_a_quote(fact: FactExtraction, retargets: list[FactExtraction]) -> bool:
    """The rules' own reading of the words a retargeted goal quotes ("aim for australia" from
    "aiming for australia", which retargets "move to Canada"): the retargeted goal says it better."""
    family = fact.key.partition(":")[0]
    words = content_words(fact.value)
    return bool(words) and any(s.key != fact.key and s.key.partition(":")[0] == family
                               and s.quote and words <= content_words(s.quote) for s in retargets)


def _unread_keyed_changes(facts: list[FactExtraction], message: Message, content: list[str],
                          current: dict[tuple[str, str], str], retargeted: list[FactExtraction]) -> list[FactExtraction]:
    """Keyed changes ("switched firms, PwC now") for keys the rules did not read; ``retargeted``
    is ``goal_retargeted``'s reading of the message."""
    read = {(f.subject, f.key) for f in facts}
    changes = [*keyed_changes(message, content, current), *diet_given_up(message, content, current),
               *birthday_corrected(message, content, current), *age_grown(message, content, current),
               *role_successor(message, content, current), *status_of_stored_person(message, content, current),
               *favorite_of_stored_person(message, content, current),
               # a goal retargeted in its own words first: the switch frames would read "aiming for X" whole
               *(retargeted or value_switched(message, content, current)),
               *child_renamed(message, content, current), *pet_replaced(message, content, current)]
    return [f for f in changes if (f.subject, f.key) not in read]


def _against_profile(facts: list[FactExtraction], context: RouteContext) -> list[FactExtraction]:
    """add -> update when the profile holds another value; a repeated value stays 'add'
    (the store merges its evidence); deleting a key the profile lacks becomes 'none'."""
    if not context.profile:
        return facts
    current = {(f.subject, f.key): f.value for f in context.profile}
    out = []
    for fact in facts:
        stored = current.get((fact.subject, fact.key))
        if fact.action == "add" and stored is not None and stored != fact.value:
            fact = fact.model_copy(update={"action": "update",
                                           "reason": f"{fact.reason}; was {stored!r}"})
        elif fact.action == "delete" and stored is None:
            fact = fact.model_copy(update={"action": "none", "reason": "nothing stored to delete"})
        out.append(fact)
    return out


def _event(message: Message, when: TimeRef | None, content: list[str],
           subject: str) -> EventExtraction:
    """The event's text is the message's statements (questions and greetings dropped)."""
    text = " ".join(content) if content else message.text
    return EventExtraction(
        subject=subject, text=text[:1000],
        occurred_at=when.occurred_at if when else message.ts,
        granularity=when.granularity if when else "day",
        time_expression=when.expression if when else None)


def _assistant_cues(message: Message, content: list[str], when: TimeRef | None, subject: str,
                    cues: Cues) -> None:
    """An assistant turn is an event only when it reports, with a time, something that
    happened to the user or someone else ("Your package was delivered yesterday");
    confirming its own bookkeeping ("Saved the list.", "Noted.") stores nothing."""
    if is_bookkeeping(content, message.text):
        cues.add("NONE", 4.0, "assistant bookkeeping confirmation")
    if cues.scores["EVENT"] > 0 and (when is None or subject == speaker_subject(message)):
        cues.add("EVENT", -cues.scores["EVENT"] - 1.0,
                 "assistant: no dated event about the user or others")
