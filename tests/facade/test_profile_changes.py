"""After a conversation that changes a fact, the profile holds the new value and the
changelog the old one: one transcript per key family, through Memory with the default
embedder and the fact tagger (issue 15)."""

from __future__ import annotations

import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memfold.config import Settings, build_memory
from memfold.memory import Memory

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)

# (key, first message, later message, old value, new value); the subject is the user
CHANGES = [
    ("job", "I work as a barista at a cafe downtown.", "I'm a junior developer now, finally!", "barista",
     "junior developer"),
    ("employer", "I work at Siemens.", "btw I left Siemens, I'm at Bosch now", "Siemens", "Bosch"),
    ("team", "I'm on the mobile team.", "switched teams, im on payments now", "mobile", "payments"),
    ("location", "I live in Leeds.", "we moved! living in York now", "Leeds", "York"),
    ("hometown", "I'm from Porto.", "sorry, I mixed it up, I'm originally from Braga", "Porto", "Braga"),
    ("diet", "I'm vegetarian.", "not vegetarian anymore, I eat meat again", "vegetarian", "omnivore"),
    ("partner", "My boyfriend is Sam.", "Sam and I broke up. I'm seeing Alex now, my boyfriend Alex is lovely",
     "Sam", "Alex"),
    ("relationship_status", "I'm single.", "I'm engaged now!!", "single", "engaged"),
    ("age", "I'm 29.", "I turned 30 today, I'm 30 now", "29", "30"),
    # a subject keeps its school ("law at Sciences Po", as the labelling guide writes it)
    ("education", "I'm studying biology at Leeds.", "I switched my degree, I'm studying chemistry now",
     "biology at Leeds", "chemistry"),
    ("name", "My name is Katherine.", "call me Kate, I go by Kate now", "Katherine", "Kate"),
    ("favorite:band", "My favourite band is Coldplay.", "my favourite band is Radiohead these days",
     "Coldplay", "Radiohead"),
    ("possession:car", "I drive a Toyota Corolla.", "I sold the Corolla, I drive a Honda Civic now",
     "Toyota Corolla", "Honda Civic"),
    ("pet:dog", "Our dog is called Rex.", "We renamed our dog, he's called Max now", "Rex", "Max"),
    # no noun says what the new thing is: its brand does (a Model Y is a car, a beagle a dog)
    ("possession:car", "I drive a Ford Focus.", "traded it in, got a tesla model y!!", "Ford Focus",
     "tesla model y"),
    ("possession:phone", "I have an iPhone 12.", "switched to a pixel 8a, loving it", "iPhone 12", "pixel 8a"),
    ("pet:dog", "I have a golden retriever named Biscuit.",
     "Biscuit passed away in the spring. We adopted a beagle called Waffles.", "Biscuit", "Waffles"),
    # a department is a team; a promotion said as "they made me"; a role said by its verb
    ("team", "I work in HR, mostly payroll questions.", "hr is behind me, I work in the legal department now",
     "hr", "legal"),
    ("job", "I'm a line cook.", "not on the line anymore, they made me kitchen manager", "line cook",
     "kitchen manager"),
    ("diet", "I'm pescatarian.", "back to eating meat after my doctor flagged low iron, so no more pescatarian rules",
     "pescatarian", "omnivore"),
    ("family:coach", "Ines coaches our swim club.", "ines moved away so Pablo coaches us now", "Ines", "Pablo"),
    # a goal reached or a pastime given up keeps its key, with how it ended as the value
    ("goal:run_a_half_marathon", "My goal this year is to run a half marathon.",
     "ran the half marathon on sunday, goal achieved!!", "run a half marathon", "achieved"),
    ("hobby:cello", "I play the cello in a community orchestra.", "gave up the cello, no time with the new job",
     "cello", "gave up"),
]


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = build_memory(Settings(store=Path(tmp_path_factory.mktemp("changes")) / "store"))
    yield mem
    mem.close()


@pytest.mark.slow  # the default embedder and the fact tagger
@pytest.mark.parametrize(("key", "before", "after", "old", "new"), CHANGES, ids=[f"{c[0]}-{n}" for n, c in enumerate(CHANGES)])
def test_the_profile_holds_the_new_value_and_the_changelog_the_old(
        memory: Memory, key: str, before: str, after: str, old: str, new: str) -> None:
    user = f"change-{key}-{zlib.crc32(before.encode()):08x}"
    for n, text in enumerate((before, after)):
        memory.ingest({"msg_id": f"{user}-{n}", "user_id": user, "text": text,
                       "ts": (T0 + timedelta(hours=n)).isoformat()})
    current = {f.key: f.value for f in memory.profile(user)}
    assert current.get(key, "").casefold() == new.casefold(), current
    history = memory.profile_history(user, key=key)
    assert any((row.old_value or "").casefold() == old.casefold() for row in history), history


# (subject, key, first message, later message, old value, new value): a relative's fact,
# changed in a later message that names them the way people talk (by first name without
# its accent, or by relation word), in a sentence with no "I" or "my"
RELATIVES = [
    ("Marta", "job", "my sister Marta is a bank teller in Seville",
     "marta quit the bank last month, shes a paramedic now and loves it", "bank teller", "paramedic"),
    ("Tomás", "location", "my brother Tomás lives in Bogotá",
     "tomas moved to Medellín btw, says the weather is way better there", "Bogotá", "Medellín"),
    # looked up by another word for the relative than the one stored ("user's grandma")
    ("user's gran", "location", "my gran lives in Galway", "gran moved into a care home in Sligo", "Galway", "Sligo"),
]


@pytest.mark.slow  # the default embedder and the fact tagger
@pytest.mark.parametrize(("subject", "key", "before", "after", "old", "new"), RELATIVES,
                         ids=[c[0] for c in RELATIVES])
def test_a_relatives_fact_changes_when_a_later_message_names_them_casually(
        memory: Memory, subject: str, key: str, before: str, after: str, old: str, new: str) -> None:
    user = f"relative-{key}-{zlib.crc32(before.encode()):08x}"
    for n, text in enumerate((before, after)):
        memory.ingest({"msg_id": f"{user}-{n}", "user_id": user, "text": text,
                       "ts": (T0 + timedelta(hours=n)).isoformat()})
    current = {f.key: f.value for f in memory.profile(user, subject)}
    assert current.get(key, "").casefold() == new.casefold(), memory.profile(user)
    history = memory.profile_history(user, subject, key=key)
    assert any((row.old_value or "").casefold() == old.casefold() for row in history), history
