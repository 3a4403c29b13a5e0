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

# one spelling per relation where people use several words for it (the guide: "mum" is mom);
# a manager is the boss, a bestie the best friend ("best" is what the tagger marks of it)
RELATION_CANON = {"mum": "mom", "mother": "mom", "mommy": "mom", "mama": "mom", "ma": "mom",
                  "father": "dad", "daddy": "dad", "papa": "dad", "pa": "dad", "bro": "brother",
                  "sis": "sister", "hubby": "husband", "grandmother": "grandma", "granny": "grandma",
                  "nana": "grandma", "gran": "grandma", "grandfather": "grandpa", "grandad": "grandpa",
                  "granddad": "grandpa", "gramps": "grandpa", "gf": "girlfriend", "bf": "boyfriend",
                  "manager": "boss", "bestie": "best_friend", "bff": "best_friend",
                  "best": "best_friend", "best friend": "best_friend", "best mate": "best_friend",
                  "neighbour": "neighbor", "roomie": "roommate"}
# one word per kind of pet ("pup" and "puppy" are a dog)
PET_CANON = {"puppy": "dog", "pup": "dog", "doggo": "dog", "doggy": "dog", "doggie": "dog",
             "kitten": "cat", "kitty": "cat", "bunny": "rabbit"}


def canonical_key(key: str) -> str:
    """``pet:puppy`` -> ``pet:dog``, ``family:mum`` -> ``family:mom``, ``family:therapists`` ->
    ``family:therapist``: one key per thing."""
    family, _, thing = key.partition(":")
    table = PET_CANON if family == "pet" else RELATION_CANON if family == "family" else None
    if table is None or not thing:
        return key
    words = " ".join(re.findall(r"[a-z0-9]+", thing.lower()))  # "brother-in-law" -> "brother in law"
    if family == "family":
        words = _singular(words)  # "switched therapists, seeing Maren now": one person, one relation
    return f"{family}:{table.get(words, words).replace(' ', '_')}"


def _singular(words: str) -> str:
    if " " not in words and len(words) > 4 and words.endswith("s") and not words.endswith(("ss", "us")):
        return words[:-1]
    return words


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
