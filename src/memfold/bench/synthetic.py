"""A deterministic synthetic transcript for performance runs (no real data, any size).

Messages mix the kinds the router sees in practice: stable facts ("I moved to Lyon"),
dated events ("Yesterday I went hiking with Priya"), reference snippets, assistant replies
and small talk. The same (n, seed) always gives the same messages, so runs compare.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

from memfold.models import Message

PEOPLE = ["Priya", "Tomas", "Aiko", "Marta", "Kwame", "Lena", "Omar", "Sofia", "Jin", "Rafael"]
CITIES = ["Lyon", "Austin", "Porto", "Osaka", "Nairobi", "Tallinn", "Calgary", "Bergen", "Cusco"]
ACTIVITIES = ["hiking", "pottery class", "a jazz concert", "the farmers market", "a chess club",
              "a cooking workshop", "the climbing gym", "a book fair", "a charity run"]
THINGS = ["a used bike", "a sourdough starter", "noise-cancelling headphones", "a ukulele",
          "a standing desk", "a tent", "a film camera", "running shoes"]
FOODS = ["ramen", "tacos", "falafel", "dumplings", "paella", "pho", "injera", "pierogi"]
JOBS = ["nurse", "data analyst", "teacher", "carpenter", "product designer", "pharmacist"]
WHEN = ["yesterday", "last weekend", "two days ago", "on Monday", "last month", "this morning"]
SMALL_TALK = ["Haha, that's funny.", "Thanks, that helps a lot!", "Hmm, let me think about it.",
              "Good morning!", "Sounds great.", "Not sure yet, we'll see.", "Okay, noted."]

FACT_TEMPLATES = [
    "I moved to {city} a while ago and I really like it there.",
    "My favourite food is {food}, I could eat it every day.",
    "I work as a {job} now, the hours are long but fine.",
    "My sister {person} lives in {city}.",
    "I'm allergic to {food}, so I always check menus.",
    "I just bought {thing} and I use it all the time.",
]
EVENT_TEMPLATES = [
    "{when} I went to {activity} with {person}.",
    "{when} {person} and I tried a new {food} place downtown.",
    "I have a dentist appointment next Tuesday at 3pm.",
    "{when} I flew to {city} for a friend's wedding.",
    "{when} I lost my keys at {activity} and {person} found them.",
]
DOC_TEMPLATES = [
    "Notes on {city}: population about {number} thousand, best visited in spring, known for {food}.",
    "Recipe for {food}: {number} grams of flour, two eggs, salt; rest the dough for an hour.",
    "Meeting notes: decided to use {thing} for the demo; {person} owns the follow-up by Friday.",
]
ASSISTANT_TEMPLATES = [
    "That sounds lovely. How did {person} like it?",
    "Noted. Do you want me to remind you about {activity}?",
    "Here is a suggestion: try {food} in {city} next time.",
]
QUERY_TEMPLATES = [
    "Where does my sister live?", "What is my favourite food?", "What do I do for work?",
    "Who did I go to {activity} with?", "When did I fly to {city}?", "What did I buy recently?",
    "What am I allergic to?", "What did we decide in the meeting?", "Where did I move to?",
    "What happened {when}?",
]


def _fill(template: str, rng: random.Random) -> str:
    return template.format(person=rng.choice(PEOPLE), city=rng.choice(CITIES),
                           activity=rng.choice(ACTIVITIES), thing=rng.choice(THINGS),
                           food=rng.choice(FOODS), job=rng.choice(JOBS),
                           when=rng.choice(WHEN).capitalize() if template.startswith("{when}")
                           else rng.choice(WHEN), number=rng.randint(10, 900))


def _utterance(rng: random.Random) -> tuple[str, str]:
    """(role, text) drawn with fixed weights."""
    roll = rng.random()
    if roll < 0.25:
        return "user", _fill(rng.choice(FACT_TEMPLATES), rng)
    if roll < 0.50:
        return "user", _fill(rng.choice(EVENT_TEMPLATES), rng)
    if roll < 0.55:
        return "document", _fill(rng.choice(DOC_TEMPLATES), rng)
    if roll < 0.80:
        return "assistant", _fill(rng.choice(ASSISTANT_TEMPLATES), rng)
    return "user", rng.choice(SMALL_TALK)


def synthetic_messages(n: int, *, user_id: str = "perf-user", seed: int = 0,
                       start: datetime = datetime(2024, 1, 1, 9, tzinfo=timezone.utc),
                       session_length: int = 40) -> Iterator[Message]:
    """``n`` messages for one user: sessions of ``session_length`` turns, a day or two apart."""
    rng = random.Random(seed)
    ts = start
    for index in range(n):
        if index and index % session_length == 0:
            ts += timedelta(days=rng.randint(1, 2), minutes=rng.randint(0, 600))
        else:
            ts += timedelta(seconds=rng.randint(20, 120))
        role, text = _utterance(rng)
        speaker = {"user": "user", "assistant": "assistant", "document": "docs"}[role]
        yield Message(msg_id=f"m{index:07d}", user_id=user_id, session_id=f"s{index // session_length}",
                      speaker=speaker, role=role, text=text, ts=ts)  # type: ignore[arg-type]


def synthetic_queries(n: int, *, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [_fill(rng.choice(QUERY_TEMPLATES), rng) for _ in range(n)]
