"""Conditions said to be over: a stored health condition or allergy that healed, cleared or
was outgrown keeps its key and takes the resolution, in the speaker's words, as its value.

"Tobi has outgrown the peanut allergy" after "my son Tobi is allergic to peanuts" gives
``Tobi / allergy:peanuts = outgrown`` (the changelog keeps "peanuts"). Keeping the key, rather
than deleting it, is what an assistant needs: it should neither warn about peanuts nor forget
that there was an allergy. Only a condition already in the profile is resolved, named by a word
of it ("egg" for "eggs", "wrist" for "broken wrist"), or, for "in remission", the one condition
stored for a person the message names.
"""

from __future__ import annotations

import re

from memfold.llm.keys import RELATION_CANON
from memfold.llm.values import content_words
from memfold.models import FactExtraction, Message

RESOLVED_FAMILIES = ("health", "allergy")
# the resolution's words, as they become the value ("is normal now": "normal")
_RESOLUTION = re.compile(
    r"\b(?:(?:is|are|was|s|'s|back)\s+(?:(?P<back>to)\s+)?)?(?P<v>(?:(?:fully|completely|totally|all)\s+)?"
    r"(?:outgrew|outgrown|grew out of|grown out of|in remission|healed|cured|cleared up|cleared|clear|"
    r"gone|went away|normal|recovered|under control)|"
    # an allergy a test disproved or that went ("no longer allergic to sulfa"): allergies only
    r"(?:no longer|not actually|not really|not) allergic(?= to\b| anymore\b| any more\b))\b", re.IGNORECASE)
# not over yet, or only hoped or asked about ("hasnt outgrown", "hoping it clears", "almost gone")
_NOT_SAID_OVER = re.compile(
    r"\b(?:not|no|never|hasnt|hasn't|havent|haven't|isnt|isn't|wasnt|wasn't|didnt|didn't|doesnt|doesn't|"
    r"wont|won't|hope|hoping|hopefully|might|may|could|would|will|if|whether|until|almost|nearly|"
    r"yet|partly|partially|mostly)\b", re.IGNORECASE)
# the words that would name any condition, not one ("the allergy is gone")
_ANY_CONDITION = content_words("allergy allergic allergies intolerance intolerant condition diagnosis problem issue")
_FIRST_PERSON = re.compile(r"\b(?:i|im|i'm|my|me|ive|i've|mine)\b", re.IGNORECASE)
_THIRD_PERSON = re.compile(r"\b(?:he|his|him|hes|he's|she|her|hers|shes|she's|they|their|them)\b", re.IGNORECASE)
_SAYS_WHAT = re.compile(r"\s+(?:that|to|how|why|what|whether|into|out)\b", re.IGNORECASE)
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\s+but\s+|;\s*")


def resolved_conditions(text: str, message: Message,
                        current: dict[tuple[str, str], str]) -> list[FactExtraction]:
    """Updates giving each stored condition ``text`` says is over its resolution as value."""
    out: dict[tuple[str, str], FactExtraction] = {}
    for sentence in _SENTENCES.split(text):
        found = _resolution_said(sentence)
        if found is None:
            continue
        said, clause = found
        for subject, key in _conditions_meant(sentence, said, clause, current):
            out.setdefault((subject, key), FactExtraction(
                action="update", subject=subject, key=key, value=said, evidence_msg_id=message.msg_id,
                reason=f"condition said to be over: {said!r}"))
    return list(out.values())


def _resolution_said(sentence: str) -> tuple[str, str] | None:
    """The resolution ``sentence`` states and the clause saying it, or None (none, or asked,
    hoped or negated)."""
    for match in _RESOLUTION.finditer(sentence):
        if match["v"].casefold() == "normal" and not match[0].casefold().startswith(("is", "are", "was", "s", "'s", "back")):
            continue  # "normal" alone is no resolution ("normal hearing")
        before, after = sentence[:match.start()].split(",")[-1], sentence[match.end():].split(",")[0]
        if _SAYS_WHAT.match(after) and not match["v"].casefold().endswith("allergic"):
            continue  # "it's clear that my asthma is worse", "gone to the clinic": no resolution
        if _NOT_SAID_OVER.search(before) or after.rstrip().endswith("?"):
            continue
        value = " ".join(match["v"].split()).casefold()
        return (f"back to {value}" if match["back"] else value), before + match[0] + after
    return None


def _conditions_meant(sentence: str, said: str, clause: str,
                      current: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    """The stored conditions ``sentence`` names (by a word of the condition), narrowed to the
    person its ``clause`` speaks of; for "in remission" alone, a named person's one stored condition."""
    words = content_words(sentence) - content_words(said)
    families = ("allergy",) if said.endswith("allergic") else RESOLVED_FAMILIES
    stored = [(subject, key, value) for (subject, key), value in current.items()
              if key.split(":", 1)[0] in families and value]
    named = [(s, k) for s, k, v in stored if _condition_words(k, v) & words]
    if not named and said == "in remission":
        named = [(s, k) for s, k, v in stored if k.startswith("health") and _person_named(s, words)]
        if len({s for s, _ in named}) != 1 or len(named) != 1:
            return []
    others = {w for s, _ in current if s != "user" for w in _person_words(s)}
    named = [(s, k) for s, k in named if _spoken_of(s, clause, content_words(clause), others)]
    return named if len({s for s, _ in named}) == 1 else []


def _condition_words(key: str, value: str) -> set[str]:
    return (content_words(value) | content_words(key.partition(":")[2].replace("_", " "))) - _ANY_CONDITION


def _person_words(subject: str) -> set[str]:
    """How a message names a subject: a person by name, a relative by any word for the
    relation ("user's mom": "mom", "mum", "mother" ...)."""
    if "'s " not in subject:
        return content_words(subject)
    relation = subject.rpartition("'s ")[2]
    return content_words(" ".join([relation, *(w for w, canon in RELATION_CANON.items() if canon == relation)]))


def _person_named(subject: str, words: set[str]) -> bool:
    return bool(_person_words(subject) & words)


def _spoken_of(subject: str, clause: str, words: set[str], others: set[str]) -> bool:
    """Whether ``clause`` can be about ``subject``: the speaker needs a first-person word or
    no one else spoken of (no third-person word, known person or capitalised name after the
    first word), anyone else their name, their relation's word or a third-person pronoun."""
    if subject == "user":  # "wrist is healed" is the speaker's, "Tobi's wrist is healed" is not
        return bool(_FIRST_PERSON.search(clause)) or not (
            _THIRD_PERSON.search(clause) or others & words or _NAME.search(clause.lstrip()[1:]))
    return _person_named(subject, words) or bool(_THIRD_PERSON.search(clause))
