"""The cue features the learned router head reads beside the message embedding.

Each feature is a question the cues already answer ("does a resolvable date lie ahead?",
"is this a request to remember?"); the head learns how much each one counts, and the
decision's reasons keep the cues as explanations. Features describe the *form* of a
message, never its topic.
"""

from __future__ import annotations

import math
import re

import numpy as np

from memfold.llm.cues import Cues
from memfold.models import Message

ROUTE_CUES: tuple[str, ...] = (
    "cue_fact", "cue_event", "cue_document", "cue_none", "fact_strength", "facts",
    "has_time", "time_ahead", "personal_plan", "role_user", "role_assistant", "role_reference",
    "question", "remember_request", "reminder", "change_word", "log_words", "log_lines",
    "named_speaker", "pasted", "no_content",
    "proto_fact", "proto_event", "proto_document", "proto_none",
    "symbols", "first_person", "request",
)

REMEMBER_REQUEST = re.compile(
    r"\b(?:remember|note|jot down|write down|save|keep in mind|store|log|add to my (?:notes|profile)|"
    r"for (?:the|your) record|fyi|for future reference|dont forget|don't forget|do not forget)\b",
    re.IGNORECASE)
# ("dont ping me then", "no need to remind me": no reminder asked for)
REMINDER = re.compile(
    r"(?<!don't )(?<!dont )(?<!do not )(?<!never )(?<!no need to )(?<!not )"
    r"\b(?:remind me|reminder|don'?t let me forget|do not let me forget|ping me|nudge me|"
    r"alert me|set an? (?:alarm|timer)|put (?:it|this|that)? ?(?:in|on) my calendar|"
    r"add (?:it |this |that )?to my calendar|schedule)\b", re.IGNORECASE)
CHANGE_WORD = re.compile(
    r"\b(?:now|anymore|any more|no longer|switched|switching|instead|these days|moved|"
    r"changed|change|actually|used to|not any ?more|since|new|recently|became|become|"
    r"gone|quit|left|started|correction|scratch that|i mean)\b", re.IGNORECASE)
# "i", "my", "we" anywhere: most statements about oneself say so (not all: "night nurse here")
_FIRST_PERSON = re.compile(r"\b(?:i|im|i'm|ive|i've|id|i'd|my|me|mine|we|our|us|we're)\b", re.IGNORECASE)
# asking the assistant to do something ("can u", "pls", "give me"): a task, whatever else it says
_REQUEST = re.compile(
    r"\b(?:can you|could you|can u|pls|please|plz|help me|give me|tell me|show me|write|draft|make me|"
    r"suggest|recommend|explain|translate|summari[sz]e|rewrite|fix|check)\b", re.IGNORECASE)
# code, tables, logs and markup are mostly neither letters, digits nor spaces
_SYMBOL = re.compile(r"[^\w\s]")
_QUESTION = re.compile(
    r"\?\s*$|^(?:who|what|whats|when|where|why|how|which|is|are|do|does|did|can|could|would|"
    r"should|will|shall|may|am)\b", re.IGNORECASE)


def route_cue_vector(message: Message, cues: Cues, *, fact_strength: float, facts: int,
                     has_time: bool, time_ahead: bool, personal_plan: bool,
                     content_sentences: int, prototypes: np.ndarray | None = None) -> np.ndarray:
    """One row of ``ROUTE_CUES`` for ``message`` (the order is the head's column order)."""
    text = message.text
    words = len(text.split())
    speaker = message.speaker.strip().lower()
    values = (
        cues.scores["FACT"], cues.scores["EVENT"], cues.scores["DOCUMENT"], cues.scores["NONE"],
        fact_strength, float(facts), float(has_time), float(time_ahead), float(personal_plan),
        float(message.role == "user"), float(message.role == "assistant"),
        float(message.role in ("tool", "document")),
        float(bool(_QUESTION.search(text.strip()))), float(bool(REMEMBER_REQUEST.search(text))),
        float(bool(REMINDER.search(text))), float(bool(CHANGE_WORD.search(text))),
        math.log1p(words), math.log1p(text.count("\n")),
        float(bool(speaker) and speaker not in ("user", "me", "human", "assistant")),
        float(cues.pasted_text), float(content_sentences == 0),
        # the hand-written prototypes' centred similarities (0 without an embedder)
        *(prototypes.tolist() if prototypes is not None else (0.0, 0.0, 0.0, 0.0)),
        len(_SYMBOL.findall(text)) / max(1, len(text)), float(bool(_FIRST_PERSON.search(text))),
        float(bool(_REQUEST.search(text))),
    )
    return np.asarray(values, dtype=np.float32)
