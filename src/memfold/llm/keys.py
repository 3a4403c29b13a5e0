"""The normalised profile key vocabulary shared by every backend.

Single-valued keys (``location``, ``job``, ``diet``...) hold one current value: a new value
overwrites the old one and the store writes an ``update`` changelog row (the spec's
"overwrite + keep a changelog"). Multi-valued keys (``likes``, ``hobby``, ``pet``,
``allergy``, ``preference``...) hold many values, so each value gets its own key,
``likes:jazz``: loving jazz never overwrites loving hiking, and "I don't like jazz anymore"
deletes exactly ``likes:jazz``.
"""

from __future__ import annotations

import re

from memfold.models import Message

SINGLE_VALUED = frozenset({
    "name", "age", "birthday", "location", "hometown", "nationality", "job", "employer",
    "education", "diet", "partner", "relationship_status", "identity", "religion", "language",
    "team",
})
MULTI_VALUED = frozenset({
    "likes", "dislikes", "hobby", "pet", "allergy", "family", "goal", "health", "skill",
    "possession", "trait", "plan", "preference", "child",
})
# keyed by a thing, one current value each: favorite:coffee, possession:car, pet:dog, child:mia
KEYED_FAMILIES = frozenset({"favorite", "possession", "pet", "child", "family"})
FALLBACK_KEY = "fact"

_SYNONYMS = {
    "full_name": "name", "nickname": "name", "first_name": "name",
    "home": "location", "city": "location", "home_city": "location", "lives_in": "location",
    "residence": "location",
    "current_city": "location", "address": "location", "country": "location",
    "from": "hometown", "origin": "hometown", "birthplace": "hometown", "grew_up": "hometown",
    "occupation": "job", "profession": "job", "role": "job", "work": "job", "career": "job",
    "job_title": "job", "title": "job",
    "company": "employer", "workplace": "employer", "works_at": "employer",
    "school": "education", "university": "education", "degree": "education",
    "studies": "education", "major": "education", "college": "education",
    "diet_preference": "diet", "dietary_restriction": "diet", "food_preference": "diet",
    "allergies": "allergy", "pets": "pet", "spouse": "partner", "husband": "partner",
    "wife": "partner", "girlfriend": "partner", "boyfriend": "partner",
    "hobbies": "hobby", "interest": "hobby", "interests": "hobby", "activity": "hobby",
    "preferences": "preference", "like": "likes", "favourite": "favorite", "fav": "favorite",
    "loves": "likes", "dislike": "dislikes", "hates": "dislikes",
    "goals": "goal", "aspiration": "goal", "ambition": "goal",
    "sibling": "family", "siblings": "family",
    "gender": "identity", "pronouns": "identity", "gender_identity": "identity",
    "marital_status": "relationship_status", "languages": "language",
    "health_condition": "health", "medical": "health", "skills": "skill",
    "birth_date": "birthday", "date_of_birth": "birthday", "bday": "birthday",
    "department": "team", "squad": "team", "son": "child", "daughter": "child",
    "children": "child", "kids": "child", "car": "possession:car", "bike": "possession:bike",
}

_NON_KEY = re.compile(r"[^a-z0-9_]+")


def slug(text: str, *, max_words: int = 4) -> str:
    """Lower-case snake_case of the first few words (for per-value keys)."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "_".join(words[:max_words]) or "value"


def normalise_key(raw: str) -> str:
    """Map a free-form key onto the vocabulary ('Occupation' -> 'job'); keep unknown keys."""
    head, sep, tail = raw.strip().lower().partition(":")
    base = _NON_KEY.sub("_", head.strip()).strip("_")
    base = _SYNONYMS.get(base, base) or FALLBACK_KEY
    return f"{base}:{slug(tail)}" if sep and tail.strip() else base


def fact_key(base: str, value: str) -> str:
    """The storage key for ``base`` = ``value``: per-value for multi-valued keys."""
    base = normalise_key(base)
    if ":" in base or base not in MULTI_VALUED and base != FALLBACK_KEY:
        return base
    return f"{base}:{slug(value)}"


def speaker_subject(message: Message) -> str:
    """Who "I" is in ``message``: its speaker's name, or "user" for an unnamed user.

    A user talking to an assistant has speaker "user" (the default): facts about them use
    subject "user". In a chat between named people (speaker "Caroline"), "I" is Caroline.
    """
    speaker = message.speaker.strip()
    if not speaker or speaker.lower() in ("user", "me", "human"):
        return "user"
    return speaker
