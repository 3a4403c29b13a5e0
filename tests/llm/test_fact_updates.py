"""Knowledge updates in the offline fact extractor: negation per clause, a contradiction
with a new value is an add (the store turns it into an update), sentence adverbs."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.llm.cues import sentences
from memfold.llm.facts import extract_facts, replaced_siblings
from memfold.llm.tagger import TaggedFact
from memfold.models import FactExtraction, Message
from memfold.router.grounding import grounding_problem

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _message(text: str) -> Message:
    return Message(msg_id="m1", user_id="u", speaker="user", role="user", text=text, ts=T0)


def _facts(text: str) -> list[FactExtraction]:
    message = _message(text)
    facts, _strength = extract_facts(message)
    for fact in facts:  # what the extractor emits must pass the router's hallucination filter
        assert grounding_problem(fact, message) is None, fact
    return facts


def _by_key(text: str) -> dict[str, tuple[str, str]]:
    return {f.key: (f.action, f.value) for f in _facts(text)}


def test_retraction_with_an_unrecognised_new_statement_is_the_new_value() -> None:
    found = _by_key("Actually I'm not vegetarian anymore, I eat chicken and fish now")
    assert found["diet"] == ("add", "omnivore")  # the vocabulary value of "I eat chicken"
    other = _by_key("I'm not vegetarian anymore, I follow the Mediterranean way")
    action, value = other["diet"]
    assert action == "add" and "mediterranean" in value.lower() and "vegetarian" not in value


def test_adverb_between_pronoun_and_verb_does_not_hide_job_and_employer() -> None:
    found = _by_key("I now work as a junior developer at Acme Software.")
    assert found["job"] == ("add", "junior developer")
    assert found["employer"] == ("add", "Acme Software")


def test_negation_of_the_first_clause_does_not_delete_the_second() -> None:
    facts = _facts("I no longer live in Berlin, I moved to Lisbon.")
    assert [(f.action, f.key, f.value) for f in facts] == [("add", "location", "Lisbon")]


def test_new_job_replaces_the_retracted_one() -> None:
    facts = _facts("I'm not a barista anymore, I'm a junior developer now.")
    assert [(f.action, f.key, f.value) for f in facts] == [("add", "job", "junior developer")]


def test_giving_up_a_restricted_diet_is_the_omnivore_diet() -> None:
    """The vocabulary's value for no restricted diet, not a bare delete of the key."""
    assert _by_key("I'm not vegetarian anymore.") == {"diet": ("add", "omnivore")}
    assert _by_key("I'm not vegetarian anymore, I feel great.") == {"diet": ("add", "omnivore")}


@pytest.mark.parametrize(("text", "key", "old"), [
    ("I no longer work at Acme.", "employer", "Acme"),
    ("I no longer live in Berlin.", "location", "Berlin"),
])
def test_a_retraction_without_a_new_value_stays_a_delete(text: str, key: str, old: str) -> None:
    assert _by_key(text) == {key: ("delete", old)}


def test_a_stance_is_not_a_replacement_value() -> None:
    """'I feel great' says how the speaker is, not where they now live."""
    assert _by_key("I no longer live in Berlin, I feel great.") == {
        "location": ("delete", "Berlin")}


def test_a_multi_valued_key_gets_no_replacement() -> None:
    """Not liking jazz any more does not make 'listen to techno' the value of likes:jazz."""
    found = _by_key("I no longer like jazz, I listen to techno these days.")
    assert found["likes:jazz"] == ("delete", "jazz")


def test_a_positive_clause_is_not_negated_by_its_neighbour() -> None:
    assert _by_key("I'm not sure, I think I'm a nurse.") == {"job": ("add", "nurse")}


@pytest.mark.parametrize(("text", "key", "value"), [
    ("I'm still vegetarian.", "diet", "vegetarian"),
    ("I currently live in Porto.", "location", "Porto"),
    ("I actually work at Globex.", "employer", "Globex"),
    ("I'm now based in Oslo.", "location", "Oslo"),
    ("I also work as a nurse.", "job", "nurse"),
])
def test_sentence_adverbs_are_read_through(text: str, key: str, value: str) -> None:
    assert _by_key(text)[key] == ("add", value)


def test_a_diet_stated_as_no_longer_eating_stays_a_diet() -> None:
    """'no longer eat meat' is itself the new diet, not a retraction of 'eat meat'."""
    assert _by_key("I no longer eat meat.") == {"diet": ("add", "vegetarian")}


_VALUES = {
    "diet": ["vegetarian", "vegan", "pescatarian", "keto"],
    "job": ["a nurse", "a teacher", "a barista", "a junior developer", "an architect"],
    "relationship_status": ["married", "single", "divorced", "engaged"],
}


@st.composite
def _retraction_with_new_value(draw: st.DrawFn) -> tuple[str, str, str]:
    key = draw(st.sampled_from(sorted(_VALUES)))
    old, new = draw(st.lists(st.sampled_from(_VALUES[key]), min_size=2, max_size=2,
                             unique=True))
    lead = draw(st.sampled_from(["", "Actually ", "Well, "]))
    negation = draw(st.sampled_from(["not {} anymore", "no longer {}", "not {} any more"]))
    joint = draw(st.sampled_from([", ", "; ", ", but ", " but ", " and "]))
    adverb = draw(st.sampled_from(["", "now ", "actually ", "currently "]))
    tail = draw(st.sampled_from(["", " now", " these days"]))
    text = f"{lead}I'm {negation.format(old)}{joint}I'm {adverb}{new}{tail}."
    return text, key, new.removeprefix("a ").removeprefix("an ")


@settings(max_examples=150, deadline=None)
@given(case=_retraction_with_new_value())
def test_a_retraction_naming_a_new_value_is_never_a_bare_delete(
        case: tuple[str, str, str]) -> None:
    text, key, new = case
    actions = {(f.key, f.action): f.value for f in _facts(text)}
    assert (key, "delete") not in actions
    assert actions.get((key, "add")) == new


@pytest.mark.parametrize("text", [
    "my sister just moved to Oslo for her new job!",
    "My wife just started at Monzo as a product manager.",
    "the neighbours got a husky puppy called Koda",
    "if I ever went fully vegan I'd miss sushi so much",
    "I almost took the hospital pharmacy job in Norwich last year",
    "back in college I lived in Leeds",
])
def test_someone_elses_news_or_a_hypothetical_is_not_the_speakers_fact(text: str) -> None:
    found = _by_key(text)
    assert not {"location", "employer", "job", "diet"} & set(found), found
    assert not any(key.startswith("pet:") for key in found), found


def test_the_speaker_in_a_clause_led_by_someone_else_still_states_a_fact() -> None:
    assert _by_key("My wife and I moved to Leeds")["location"] == ("add", "Leeds")
    assert _by_key("We moved to Seattle in the summer")["location"][1] == "Seattle"
    assert "partner" in _by_key("My wife Priya just started at Monzo")  # the relation is still read


def test_own_state_is_a_first_person_statement_not_a_question_or_someone_elses() -> None:
    from memfold.llm.facts import states_own_state

    assert states_own_state("dr doubled it so I'm on 100 now. any side effects?")
    assert states_own_state("picked up the Kia on saturday, the dealer took the Honda")  # "I" dropped
    assert states_own_state("I'm on 50mg sertraline, is it ok to have a glass of wine?")
    assert not states_own_state("how do I rosin a bow?")
    assert not states_own_state("my sister just moved to Oslo for her new job")
    assert not states_own_state("lol back in college my rent was like $600")


def _keyed(text: str, stored: dict[str, str]) -> dict[str, str]:
    from memfold.llm.cues import content_sentences
    from memfold.llm.facts import keyed_changes

    message = _message(text)
    found = keyed_changes(message, content_sentences(text), {("user", k): v for k, v in stored.items()})
    for fact in found:
        assert grounding_problem(fact, message) is None, fact
    return {f.key: f.value for f in found}


def test_a_change_that_names_the_stored_key_takes_the_new_value() -> None:
    assert _keyed("Switched firms, PwC now.", {"employer": "Deloitte"}) == {"employer": "PwC"}
    assert _keyed("moved teams, search now", {"team": "growth"}) == {"team": "search"}
    assert _keyed("Got a new car, a white Volvo XC40.", {"possession:car": "Prius"}) == {
        "possession:car": "white Volvo XC40"}
    assert _keyed("We upgraded from the Corolla to a RAV4.", {"possession:car": "Toyota Corolla"}) == {
        "possession:car": "RAV4"}  # named by a word of the old value


def test_a_keyed_change_needs_change_evidence_one_named_key_and_the_old_values_shape() -> None:
    assert _keyed("I love my team, search is fun", {"team": "growth"}) == {}  # nothing changed
    assert _keyed("new team and new car, both great", {"team": "growth", "possession:car": "Prius"}) == {}
    assert _keyed("Different team now, marketing.", {"team": "growth"}) == {"team": "marketing"}
    assert _keyed("New firm now, it's great", {"employer": "Deloitte"}) == {}  # 'great' is not a firm's name
    assert _keyed("my sister switched firms, KPMG now", {"employer": "Deloitte"}) == {}  # someone else's


def test_a_short_change_of_a_stored_value_is_routed_as_a_fact(tmp_path) -> None:
    from datetime import timedelta

    from memfold import Memory
    from memfold.config import Settings

    memory = Memory.open(tmp_path / "store", Settings(embedder="hashing"))
    try:
        memory.ingest_many([_message("I'm on the growth team at work.")])
        report = memory.ingest_many([Message(msg_id="m2", user_id="u", speaker="user", role="user",
                                             text="moved teams, search now", ts=T0 + timedelta(days=3))])
        assert report.routed.get("FACT") == 1
        assert {f.key: f.value for f in memory.profile("u")}["team"] == "search"
        assert [c.old_value for c in memory.profile_history("u", subject="user", key="team")][-1] == "growth"
    finally:
        memory.close()


# -- a new value that retires a stored one of its family -------------------------------------------

def _new(key: str, value: str) -> FactExtraction:
    return FactExtraction(subject="user", key=key, value=value, evidence_msg_id="m1")


def test_a_new_thing_that_replaces_a_named_stored_one_takes_its_key() -> None:
    text = "the Trek got stolen, bought a secondhand Brompton"
    out = replaced_siblings([_new("possession:brompton", "secondhand Brompton")], _message(text),
                            {("user", "possession:bike"): "red Trek", ("user", "possession:car"): "Golf"})
    assert [(f.key, f.value) for f in out] == [("possession:bike", "secondhand Brompton")]


def test_a_per_value_family_deletes_the_stored_value_it_replaces() -> None:
    message = _message("i dont really run anymore, cycling is my thing now")
    out = replaced_siblings([_new("hobby:cycling", "cycling")], message,
                            {("user", "hobby:running"): "running", ("user", "hobby:chess"): "chess"})
    assert [(f.action, f.key) for f in out] == [("add", "hobby:cycling"), ("delete", "hobby:running")]
    assert all(grounding_problem(f, message) is None for f in out)  # "run" grounds "running"


def test_every_stored_value_the_change_names_is_retired() -> None:
    message = _message("decided against med school, my goal is a nursing degree instead")
    stored = {("user", "goal:med_school"): "med school",
              ("user", "goal:get_into_med_school"): "get into med school", ("user", "goal:run"): "run a 10k"}
    out = replaced_siblings([_new("goal:nursing_degree", "nursing degree")], message, stored)
    assert {(f.action, f.key) for f in out} == {("add", "goal:nursing_degree"), ("delete", "goal:med_school"),
                                                ("delete", "goal:get_into_med_school")}
    assert all(grounding_problem(f, message) is None for f in out)


@pytest.mark.parametrize(("text", "stored", "new"), [
    ("wrist is healed but now its a sprained ankle lmao", "broken wrist", ("health:sprained_ankle", "sprained ankle")),
    ("acl healed, now its tendonitis in my other knee ugh", "torn acl", ("health:tendonitis", "tendonitis")),
])
def test_a_stored_condition_named_by_a_word_of_it_is_resolved(text: str, stored: str, new: tuple[str, str]) -> None:
    # a healed condition keeps its key with the resolution as value (resolved.py), the new one is added
    message = _message(text)
    key = f"health:{stored.replace(' ', '_')}"
    out = replaced_siblings([_new(*new)], message, {("user", key): stored, ("user", "health:asthma"): "asthma"})
    assert {(f.action, f.key, f.value) for f in out} == {("add", *new), ("update", key, "healed")}
    assert all(grounding_problem(f, message) is None for f in out)


def test_an_upgrade_that_names_no_thing_replaces_the_one_stored_possession() -> None:
    message = _message("upgraded to a pixel 9 finally, android gang")
    stored = {("user", "possession:phone"): "iPhone 12"}
    out = replaced_siblings([_new("possession:9", "pixel 9")], message, stored)
    assert [(f.key, f.value) for f in out] == [("possession:phone", "pixel 9")]
    two = {**stored, ("user", "possession:car"): "Golf"}  # which one? left alone
    assert replaced_siblings([_new("possession:9", "pixel 9")], message, two)[0].key == "possession:9"


@pytest.mark.parametrize("text", ["Oops, not March 9, May 9. Wrong month.", "ugh my bday is sometime soon lol"])
def test_a_birthday_that_is_no_date_is_not_read(text: str) -> None:
    assert not any(f.key == "birthday" and not any(ch.isdigit() for ch in f.value) for f in _facts(text))


@pytest.mark.parametrize(("text", "name"), [
    ("Hey John! I adopted a pup last week. I named it Ned.", None),
    ("thanks Maria, you're the best", None),
    ("call me Dani from now on", "Dani"),
])
def test_a_name_said_to_or_given_to_someone_else_is_not_the_speakers(text: str, name: str | None) -> None:
    assert _by_key(text).get("name", (None, None))[1] == name


def test_an_introduction_after_a_greeting_is_the_speakers_name() -> None:
    from memfold.llm.facts import Found, _names_someone_else

    assert not _names_someone_else(Found("user", "name", "Sam", 2.0), "hey, Sam here")
    assert _names_someone_else(Found("user", "name", "Sam", 2.0), "hey, Sam, how are you")


@pytest.mark.parametrize(("text", "employer"), [
    ("first day at bosch tommorow eek", "Bosch"),
    ("last day at zalando today, starting at n26 on monday", "N26"),
    ("Took a post at the University of York.", "University of York"),
    ("signed my offer with Grab!!", "Grab"),
    ("started at 9am today", None),
    ("joined a gym", None),
    ("first day at school for my son", None),
    ("started at monzo lol", None),  # lower case after a word that need not mean a job
])
def test_a_casual_start_names_the_new_employer(text: str, employer: str | None) -> None:
    assert _by_key(text).get("employer", (None, None))[1] == employer


@pytest.mark.parametrize(("stored", "text", "key", "new"), [
    ({("user", "name"): "Kaila"}, "its kayla not kaila btw", "name", "Kayla"),
    ({("user", "birthday"): "March 9"}, "Oops, not March 9, May 9. Wrong month.", "birthday", "May 9"),
    # the stored spelling has the accent the correction leaves out
    ({("user", "hometown"): "Gdańsk"}, "gdynia not gdansk, oops", "hometown", "Gdynia"),
])
def test_a_correction_names_the_stored_value_it_replaces(stored: dict[tuple[str, str], str], text: str,
                                                          key: str, new: str) -> None:
    from memfold.llm.facts import swapped_values

    message = _message(text)
    found = swapped_values(message, sentences(text), stored)
    assert [(f.key, f.value) for f in found] == [(key, new)]


def test_a_swap_for_someone_names_no_new_value() -> None:
    from memfold.llm.facts import swapped_values

    text = "burna boy has replaced adele for me tbh"
    assert swapped_values(_message(text), sentences(text), {("user", "favorite:singer"): "Adele"}) == []


def test_a_statement_that_runs_into_a_question_is_read() -> None:
    found = _by_key("my son Amir is 9 and obsessed with dinosaurs, any museum ideas in Berlin?")
    assert found["child:amir"] == ("add", "Amir")
    assert "child:amir" not in _by_key("is my son Amir old enough for the museum?")


@pytest.mark.parametrize("text", [
    "i still run, but cycling is my thing now",  # "still": the old one stays
    "cycling is my thing now",  # the stored value is not named
    "I run and I cycle",  # nothing says it changed
])
def test_nothing_is_replaced_without_the_old_value_and_a_change(text: str) -> None:
    facts = [_new("hobby:cycling", "cycling")]
    assert replaced_siblings(facts, _message(text), {("user", "hobby:running"): "running"}) == facts


def test_two_named_stored_values_are_ambiguous_and_left_alone() -> None:
    facts = [_new("pet:puppy", "Bolt")]
    text = "Rex and Luna are gone now, new pup is Bolt"
    stored = {("user", "pet:dog"): "Rex", ("user", "pet:cat"): "Luna"}
    assert replaced_siblings(facts, _message(text), stored) == facts


@pytest.mark.parametrize("text", ["Sounds great! I'm definitely in next time.", "i'm in this weekend"])
def test_a_time_is_not_a_place(text: str) -> None:
    assert "location" not in _by_key(text)


def test_a_place_after_im_in_is_still_read() -> None:
    assert _by_key("I'm in Lisbon these days")["location"] == ("add", "Lisbon")


@pytest.mark.parametrize(("text", "expected"), [
    ("I work at J.P. Morgan in the U.S. and love it. Dr. Osei says hi!",
     ["I work at J.P. Morgan in the U.S. and love it.", "Dr. Osei says hi!"]),
    ("ok. so i moved", ["ok.", "so i moved"]),
])
def test_sentences_do_not_break_after_an_initial_or_a_title(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@pytest.mark.parametrize("text", ["Fontaines D.C. are my favourite band",
                                  "moved on from Coldplay, these days Fontaines D.C. are my favourite band now"])
def test_a_favourite_named_before_it_is_read(text: str) -> None:
    action, value = _by_key(text)["favorite:band"]
    assert action == "add" and value.startswith("Fontaines D.C")


def test_a_known_subject_is_grounded_by_the_words_the_message_names_them_with() -> None:
    message = _message("mom is a florist now")
    fact = FactExtraction(subject="Linda", key="job", value="florist", subject_quote="mom")
    assert grounding_problem(fact, message) is None
    assert "not named" in (grounding_problem(fact.model_copy(update={"subject_quote": ""}), message) or "")
    # the quote must be the message's own words
    assert "not named" in (grounding_problem(fact.model_copy(update={"subject_quote": "aunt"}), message) or "")


@pytest.mark.parametrize(("text", "new", "kept"), [
    ("gave up pottery (too messy) and picked up embroidery", "embroidery", False),  # "too" of degree
    ("dropped pottery completely, embroidery is way more fun", "embroidery", False),
    ("embroidery now, still do pottery on sundays", "embroidery", True),
    ("took up embroidery, i do pottery too", "embroidery", True),  # "too" ending a clause: also
    ("two more hobbies: embroidery and pottery", "embroidery", True),
])
def test_too_and_more_keep_the_old_value_only_when_they_mean_also(text: str, new: str, kept: bool) -> None:
    out = replaced_siblings([_new(f"hobby:{new}", new)], _message(text), {("user", "hobby:pottery"): "pottery"})
    # not kept: retired, or kept with how it ended ("gave up pottery": hobby:pottery = gave up)
    ended = {(f.action, f.key) for f in out} & {("delete", "hobby:pottery"), ("update", "hobby:pottery")}
    assert (not ended) == kept


@pytest.mark.parametrize(("typed", "read"), [
    ("allergic to shellfish n my daughter is 4", "allergic to shellfish and my daughter is 4"),
    ("i live in kreuzberg w my partner", "i live in kreuzberg with my partner"),
    ("plan N is fine", "plan N is fine"),  # a capital N is a letter
    ("w is my favourite letter", "w is my favorite letter"),  # not before a determiner
])
def test_phone_shorthand_is_read_as_its_words(typed: str, read: str) -> None:
    from memfold.llm.facts import standard_spelling

    assert standard_spelling(typed) == read


@pytest.mark.parametrize("text", [
    "said goodbye to the corolla, a used ioniq 5 arrived saturday",
    "dad let go of the corolla, a used ioniq 5 arrived saturday",
    "gave the corolla to my nephew, a used ioniq 5 arrived saturday",
])
def test_more_ways_of_saying_a_thing_was_replaced(text: str) -> None:
    out = replaced_siblings([_new("possession:ioniq_5", "used ioniq 5")], _message(text),
                            {("user", "possession:car"): "2014 Toyota Corolla"})
    assert [(f.key, f.value) for f in out] == [("possession:car", "used ioniq 5")]


@pytest.mark.parametrize(("sentence", "content"), [
    ("sorry the cat is Nori, not Noodle", True), ("Sorry, it's the 23rd of August.", True),
    ("Sorry to hear that", False), ("sorry for the late reply", False), ("sorry about that", False),
    ("so sorry that happened", False)])
def test_an_apology_before_a_statement_is_a_correction_not_a_reaction(sentence: str, content: bool) -> None:
    from memfold.llm.cues import is_content_sentence

    assert is_content_sentence(sentence) is content


@pytest.mark.parametrize(("stored", "text", "subject"), [
    ({("user", "diet"): "keto"}, "stopped keto, eating normally again", "user"),
    ({("user", "diet"): "keto"}, "keto's done, I eat like a normal person again", "user"),
    ({("Sven", "diet"): "keto", ("user", "partner"): "Sven"}, "sven quit keto, eats everything now lol", "Sven"),
    ({("user", "diet"): "vegan"}, "keto's done for my brother lol", None),  # not the diet stored
    ({("user", "diet"): "vegan"}, "I love vegan food", None),
])
def test_a_stored_diet_given_up_is_no_restricted_diet(stored: dict[tuple[str, str], str], text: str,
                                                       subject: str | None) -> None:
    from memfold.llm.facts import diet_given_up

    found = diet_given_up(_message(text), sentences(text), stored)
    assert [(f.subject, f.key, f.value) for f in found] == ([(subject, "diet", "omnivore")] if subject else [])


@pytest.mark.parametrize(("text", "key", "value"), [
    ("I run most mornings.", "hobby:running", "running"),
    ("I swim three times a week.", "hobby:swimming", "swimming"),
    ("I knit scarves for my nieces", "hobby:knitting_scarves", "knitting scarves"),
    ("I have a BA in history.", "education", "BA in history"),
])
def test_a_hobby_is_an_activity_a_pet_its_name_a_degree_its_subject(text: str, key: str, value: str) -> None:
    assert _by_key(text).get(key, (None, None))[1] == value


@pytest.mark.parametrize("text", ["I go to the gym every day.", "I went to the shop after work"])
def test_a_place_one_goes_to_is_no_school(text: str) -> None:
    assert "education" not in _by_key(text)


@pytest.mark.parametrize(("verb", "activity"), [
    ("run", "running"), ("bake", "baking"), ("knit", "knitting"), ("garden", "gardening"),
    ("ski", "skiing"), ("sew", "sewing"), ("climb", "climbing")])
def test_gerund(verb: str, activity: str) -> None:
    from memfold.llm.facts import gerund

    assert gerund(verb) == activity


class _ReadsPetName:
    """A tagger that reads the word after 'named' as the name of the speaker's cat."""

    def tag(self, sentences: list[str], speaker: str) -> list[list[TaggedFact]]:
        return [[TaggedFact(speaker, "pet:cat", s.split("named ")[1].split()[0], 0.9)] if "named " in s else []
                for s in sentences]


def test_a_pets_name_beats_a_reading_that_is_only_its_kind() -> None:
    # the rules read "i have a cat" as pet:cat = cat (weight 2.5), the tagger the name (1.9)
    facts, _ = extract_facts(_message("i have a cat named miso"), tagger=_ReadsPetName())  # type: ignore[arg-type]
    assert [(f.key, f.value) for f in facts if f.key.startswith("pet:")] == [("pet:cat", "Miso")]  # a pet name is capitalised


@pytest.mark.parametrize(("stored", "text", "expected"), [
    ({("user", "birthday"): "July 1"}, "typo alert: july 1 should have been july 7", ("user", "July 7")),
    ({("user", "birthday"): "April 2"}, "It's the 20th of April, I dropped a zero, sorry.", ("user", "April 20")),
    ({("user", "birthday"): "December 1"}, "turns out my birth certificate says november 30", ("user", "November 30")),
    ({("user", "birthday"): "May 1", ("Mateo", "birthday"): "February 12 2018"},
     "mateo is actually feb 21 2018, i swapped the digits", ("Mateo", "February 21 2018")),
    # a scheduled thing's date, a date unlike the stored one, nothing stored: no birthday
    ({("user", "birthday"): "March 10"}, "sorry, the dentist appointment is actually March 3", None),
    ({("user", "birthday"): "March 10"}, "sorry, I meant we fly out on August 2", None),
    ({}, "typo: july 1 should have been july 7", None),
    # said with the word, corrected: the rules read no birthday in "27 july not 22"
    ({("user", "birthday"): "July 22"}, "fix my birthday pls, 27 july not 22", ("user", "July 27")),
    ({("user's mom", "birthday"): "May 2"}, "wait no mums bday is the 12th of may not the 2nd",
     ("user's mom", "May 12")),
    ({("user's brother", "birthday"): "December 24"}, "nope brother is dec 23, the 24th is my cousin. my bad",
     ("user's brother", "December 23")),
    ({("Ingrid", "birthday"): "October 10 1985"},
     "i mixed ingrids birthday up with her sisters. ingrid is 1 october 1985", ("Ingrid", "October 1 1985")),
    ({("user", "birthday"): "July 22"}, "my birthday party is on july 27", None),
])
def test_a_stored_birthday_corrected_without_the_word(stored: dict[tuple[str, str], str], text: str,
                                                       expected: tuple[str, str] | None) -> None:
    from memfold.llm.facts import birthday_corrected

    message = _message(text)
    found = birthday_corrected(message, sentences(text), stored)
    assert [(f.subject, f.value) for f in found] == ([expected] if expected else [])
    assert all(grounding_problem(f, message) is None for f in found)


@pytest.mark.parametrize(("text", "status"), [
    ("My wife is a pediatrician.", "married"),
    ("me and my gf split", "single"),
    ("My boyfriend is now my husband, Kofi and I tied the knot.", "married"),
    ("My girlfriend is actually my fiancée as of last night!!", "engaged"),
    ("My fiancé Rahul and I are getting married next spring", "engaged"),
    ("my ex-wife and I share custody of our daughter", "divorced"),
    ("I'm a single mom of 2 so I need quick dinners", "single"),
    ("im seeing someone new, her name is Thandiwe", "dating"),
    ("my sister's husband is a chef", None),  # someone else's partner
    ("my brother is getting married in june", None),
])
def test_the_speakers_relationship_status_from_how_they_speak_of_their_partner(text: str, status: str | None) -> None:
    assert _by_key(text).get("relationship_status", (None, None))[1] == status


@pytest.mark.parametrize(("text", "key", "value"), [
    ("I drive for Uber full time.", "employer", "Uber"),
    ("my son Ravi is in year 6", "education", "Year 6"),
    ("my son is in year 3 at primary", "education", "Year 3"),
    ("I'm in year 12 at Hillcrest High", "education", "year 12 at Hillcrest High"),
    ("im in second year med at UCT, exams in 3 weeks", "education", "second year med at UCT"),
    ("I eat pretty much anything.", "diet", "omnivore"),
    ("living in a tiny studio in paris rn, need small space hacks", "location", "Paris"),
    ("home is nairobi for me", "location", "Nairobi"),
    ("i speak cantonese mostly day to day", "language", "Cantonese"),
    ("i speak a bit of spanish", "skill:spanish", "spanish"),  # a language spoken, not the main one
])
def test_everyday_phrasings_give_the_vocabularys_key_and_a_clean_value(text: str, key: str, value: str) -> None:
    found = {f.key: f.value for f in _facts(text)}
    assert found.get(key) == value, found


@pytest.mark.parametrize("text", ["I drive a Corolla", "I live in a flat", "my son is 3"])
def test_a_car_a_home_without_a_place_and_an_age_are_not_misread(text: str) -> None:
    found = {f.key: f.value for f in _facts(text)}
    assert "employer" not in found and "location" not in found and "education" not in found, found


@pytest.mark.parametrize(("text", "stored", "new", "expected_key"), [
    ("oops I spelled it wrong before, my son is Aiden with an e", {"child:aidan": "Aidan"}, "Aiden", "child:aidan"),
    ("lulu is just a nickname btw, her actual name is louisa", {"child:lulu": "Lulu", "child:tom": "Tom"},
     "Louisa", "child:lulu"),
    ("our eldest came out as trans and goes by ella now", {"child:sam": "Sam"}, "Ella", "child:sam"),
    # a second child, not a new name: the stored one stays
    ("my daughter's name is Mia", {"child:leo": "Leo"}, "Mia", "child:mia"),
    ("our eldest goes by ella now", {"child:sam": "Sam", "child:tom": "Tom"}, "Ella", "child:ella"),  # which one?
])
def test_a_childs_new_name_takes_the_key_of_the_child_it_renames(text: str, stored: dict[str, str], new: str,
                                                                  expected_key: str) -> None:
    message = _message(text)
    out = replaced_siblings([_new(f"child:{new.lower()}", new)], message,
                            {("user", key): value for key, value in stored.items()})
    assert [(f.key, f.value) for f in out] == [(expected_key, new)]


@pytest.mark.parametrize("text", ["my brother called off the engagement, hes single again", "my sister is a single mum"])
def test_someone_elses_relationship_news_is_not_the_speakers_status(text: str) -> None:
    assert not [f for f in _facts(text) if f.subject == "user" and f.key == "relationship_status"]


@pytest.mark.parametrize(("stored", "text", "expected"), [
    ({("Lina", "age"): "7"}, "lina just turned eight and wants a lego set, any ideas?", ("Lina", "8")),
    ({("Aroha", "age"): "3"}, "aroha turned four!", ("Aroha", "4")),
    ({("user", "age"): "17"}, "good news i can finally sign stuff on my own, turned eighteen yesterday!!",
     ("user", "18")),
    ({("Lukas", "age"): "15"}, "Lukas had his birthday yesterday - he's 16 now", ("Lukas", "16")),
    ({("Lars", "age"): "89"}, "Grandpa Lars celebrated his 90th birthday on Saturday", ("Lars", "90")),
    ({("user", "age"): "29"}, "well. the big three-oh happened on saturday and i survived lol", ("user", "30")),
    ({("user", "age"): "40"}, "last friday was my 41st bday, spent it on night shift", ("user", "41")),
    # "today" says it as well as "now"; "the big 30" in digits
    ({("Biscuit", "age"): "4"}, "biscuit is 5 today!! whats a dog safe cake recipe", ("Biscuit", "5")),
    ({("user", "age"): "59"}, "60 today, where did the years go", ("user", "60")),
    ({("user", "age"): "29"}, "its my bday today, the big 30, make me a playlist", ("user", "30")),
    # an age read this way only grows, by a few years: not a correction, not someone unnamed
    ({("Lina", "age"): "7"}, "lina turned five in that photo", None),
    ({("Lina", "age"): "7"}, "my niece just turned eight", None),
    ({}, "turned eighteen yesterday", None),
])
def test_a_stored_age_reached_again_by_a_birthday(stored: dict[tuple[str, str], str], text: str,
                                                   expected: tuple[str, str] | None) -> None:
    from memfold.llm.facts import age_grown

    message = _message(text)
    found = age_grown(message, sentences(text), stored)
    assert [(f.subject, f.value) for f in found] == ([expected] if expected else [])
    assert all(grounding_problem(f, message) is None for f in found)


@pytest.mark.parametrize(("stored", "text", "expected"), [
    ({("user", "family:boss"): "Derek"}, "derek got fired lol, reporting to nomvula now", "Nomvula"),
    ({("user", "family:boss"): "Daniela"}, "Daniela got promoted, so I report to Marcus now", "Marcus"),
    ({("user", "family:flatmate"): "Jonas"}, "jonas moved out and Keira took his room", "Keira"),
    ({("user", "family:roommate"): "Dev"}, "new roommate! Hugo. much tidier than dev", "Hugo"),
    ({("user", "family:roommate"): "Chen"}, "chen moved out, the new guy in the spare room is rafael", "Rafael"),
    ({("user", "family:boss"): "Derek"}, "I still report to Derek", None),  # the same person
    ({("user", "family:boss"): "Derek"}, "reporting to him is exhausting", None),
    ({}, "I report to Marcus now", None),  # no stored role to take over
])
def test_a_stored_role_taken_over_by_someone_new(stored: dict[tuple[str, str], str], text: str,
                                                  expected: str | None) -> None:
    from memfold.llm.facts import role_successor

    message = _message(text)
    found = role_successor(message, sentences(text), stored)
    assert [f.value for f in found] == ([expected] if expected else [])
    assert all(grounding_problem(f, message) is None for f in found)


@pytest.mark.parametrize(("stored", "text", "expected"), [
    ({("Mateo", "relationship_status"): "single"}, "plot twist: mateo is seeing someone", ("Mateo", "dating")),
    ({("user's brother", "relationship_status"): "engaged"},
     "my brother and his fiancee called it off. hes single again", ("user's brother", "single")),
    ({("user's brother", "relationship_status"): "dating"}, "bro and kim eloped in vegas lmao",
     ("user's brother", "married")),
    ({("Omar", "relationship_status"): "married"}, "omar and his wife are divorcing, they live apart",
     ("Omar", "separated")),
    # the speaker's own news, a person with no stored status, the stored status again: nothing
    ({("Omar", "relationship_status"): "married"}, "me and my gf split", None),
    ({("Omar", "relationship_status"): "married"}, "yuki has a bf now", None),
    ({("Omar", "relationship_status"): "married"}, "omar got married in 2019", None),
])
def test_a_stored_persons_status_from_news_about_them(stored: dict[tuple[str, str], str], text: str,
                                                       expected: tuple[str, str] | None) -> None:
    from memfold.llm.facts import status_of_stored_person

    message = _message(text)
    found = status_of_stored_person(message, sentences(text), stored)
    assert [(f.subject, f.value) for f in found] == ([expected] if expected else [])
    assert all(grounding_problem(f, message) is None for f in found)


@pytest.mark.parametrize(("stored", "text", "expected"), [
    ({("user", "family:therapist"): "Dr. Osei"}, "switched therapists, seeing dr. lindqvist now", "dr. lindqvist"),
    ({("user", "family:best_friend"): "Olu"}, "olu and i fell out ngl. closest mate these days is dani", "Dani"),
    ({("user", "family:landlord"): "Mr Kowalski"}, "were renting from some guy called steven now", "Steven"),
    ({("user", "family:dentist"): "Dr Ahmed"}, "my dentist retired, new dentist is dr mbeki", "dr mbeki"),
    ({("user", "family:dentist"): "Dr Ahmed"}, "I love my dentist", None),
    # a first name and a surname; a role stored in more words, said by its last ("line manager")
    ({("user", "family:sexton"): "Hamid"}, "hamid moved away, our new sexton is Ruth Okafor", "Ruth Okafor"),
    ({("user", "family:line_manager"): "Gwen"}, "gwen left, new manager is Tariq", "Tariq"),
    # whoever the speaker answers to, by any of the names of the role
    ({("user", "family:supervisor"): "Rodrigo"}, "rodrigo got transferred, new super is Paula", "Paula"),
    ({("user", "family:boss"): "Marek"}, "marek left, our new lead is a guy called Piotr", "Piotr"),
    ({("user", "family:boss"): "Marek"}, "our new intern is called Piotr", None),
])
def test_someone_new_in_a_stored_role(stored: dict[tuple[str, str], str], text: str, expected: str | None) -> None:
    from memfold.llm.facts import role_successor

    message = _message(text)
    found = role_successor(message, sentences(text), stored)
    assert [f.value.lower() for f in found] == ([expected.lower()] if expected else [])
    assert all(grounding_problem(f, message) is None for f in found)


@pytest.mark.parametrize(("stored", "text", "new", "retired"), [
    ({("user", "goal:run_a_marathon"): "run a marathon"}, "new goal is to learn japanese",
     ("goal:learn_japanese", "learn japanese"), "goal:run_a_marathon"),
    ({("Ines", "hobby:painting"): "painting"}, "Ines has moved on to woodwork",
     ("hobby:woodwork", "woodwork"), "hobby:painting"),
    # two stored values: which one changed is not said
    ({("user", "goal:run_a_marathon"): "run a marathon", ("user", "goal:save_money"): "save money"},
     "new goal is to learn japanese", ("goal:learn_japanese", "learn japanese"), None),
    # no word says the family changed
    ({("user", "goal:run_a_marathon"): "run a marathon"}, "i also want to learn japanese",
     ("goal:learn_japanese", "learn japanese"), None),
])
def test_a_family_said_to_change_as_a_whole_retires_its_one_stored_value(
        stored: dict[tuple[str, str], str], text: str, new: tuple[str, str], retired: str | None) -> None:
    message = _message(text)
    subject = next(iter(stored))[0]
    fact = FactExtraction(action="add", subject=subject, key=new[0], value=new[1], evidence_msg_id="m1")
    out = replaced_siblings([fact], message, stored)
    deleted = [f for f in out if f.action == "delete"]
    assert [f.key for f in deleted] == ([retired] if retired else [])
    assert all(grounding_problem(f, message) is None for f in out)  # the quote grounds the unnamed value


@pytest.mark.parametrize(("stored", "text", "expected"), [
    ({("user's daughter", "favorite:animal"): "giraffe"}, "apparently otters are her favourite now, giraffes are old news",
     ("user's daughter", "favorite:animal", "otters")),
    ({("user", "favorite:podcast"): "Serial"}, "new number one: Radiolab", ("user", "favorite:podcast", "Radiolab")),
    ({("Noor", "favorite:snack"): "crisps", ("user", "family:friend"): "Noor"},
     "noor says olives are her favourite now", ("Noor", "favorite:snack", "olives")),
    ({("user", "favorite:podcast"): "Serial", ("user", "favorite:film"): "Heat"}, "new number one: Radiolab", None),
    ({("user", "favorite:podcast"): "Serial"}, "I love my dentist", None),
])
def test_a_stored_favourite_said_without_its_thing(stored: dict[tuple[str, str], str], text: str,
                                                    expected: tuple[str, str, str] | None) -> None:
    from memfold.llm.facts import favorite_of_stored_person

    message = _message(text)
    found = favorite_of_stored_person(message, sentences(text), stored)
    assert [(f.subject, f.key, f.value) for f in found] == ([expected] if expected else [])
    assert all(grounding_problem(f, message) is None for f in found)


@pytest.mark.parametrize(("stored", "new", "retired"), [
    ({("user", "dislikes:olives"): "olives"}, ("likes:olives", "olives"), "dislikes:olives"),
    ({("user", "likes:horror"): "horror"}, ("dislikes:horror_movies", "horror movies"), "likes:horror"),
    ({("user", "likes:horror_films"): "horror films"}, ("dislikes:horror", "horror"), "likes:horror_films"),
    ({("user", "likes:jazz"): "jazz"}, ("dislikes:jazz_fusion", "jazz fusion"), None),  # a kind of it, not it
    ({("Ana", "dislikes:olives"): "olives"}, ("likes:olives", "olives"), None),  # someone else's
])
def test_a_like_retires_the_stored_dislike_of_the_same_thing(stored: dict[tuple[str, str], str],
                                                             new: tuple[str, str], retired: str | None) -> None:
    message = _message("whatever was said")
    fact = FactExtraction(action="add", subject="user", key=new[0], value=new[1], evidence_msg_id="m1")
    deleted = [f.key for f in replaced_siblings([fact], message, stored) if f.action == "delete"]
    assert deleted == ([retired] if retired else [])


@pytest.mark.parametrize(("text", "retired"), [
    ("my son eats broccoli now", True),
    ("update: she actually likes mushrooms these days", True),
    ("he still refuses broccoli", False),
    ("broccoli again for dinner now, he eats the pasta", False),  # the liked thing is not the stored one
])
def test_a_stored_dislike_said_to_be_liked_now_is_retired(text: str, retired: bool) -> None:
    stored = {("user's son", "dislikes:broccoli"): "broccoli", ("user's son", "dislikes:mushrooms"): "mushrooms"}
    if "mushrooms" in text:
        stored = {("user's daughter", "dislikes:mushrooms"): "mushrooms"}
    message = _message(text)
    out = replaced_siblings([], message, stored)
    assert bool([f for f in out if f.action == "delete"]) is retired
    assert all(grounding_problem(f, message) is None for f in out)


def test_a_clause_before_a_comma_is_no_job_title() -> None:
    assert "job" not in _by_key("i hate coriander, but now i eat pasta")


def test_a_role_said_in_more_words_changes_the_stored_role() -> None:
    stored = {("user", "family:coach"): "Andrés"}
    message = _message("new swim coach: maite. andres moved away")
    fact = FactExtraction(action="add", subject="user", key="family:swim_coach", value="Maite", evidence_msg_id="m1")
    assert [f.key for f in replaced_siblings([fact], message, stored)] == ["family:coach"]
    best = FactExtraction(action="add", subject="user", key="family:best_friend", value="Jo", evidence_msg_id="m1")
    mine = {("user", "family:friend"): "Tom"}
    assert [f.key for f in replaced_siblings([best], _message("my new best friend is Jo"), mine)] == ["family:best_friend"]


def test_a_condition_in_remission_beside_a_new_one_is_resolved_not_retired() -> None:
    stored = {("user's mom", "health:type_2_diabetes"): "type 2 diabetes"}
    message = _message("moms diabetes is in remission!! but shes got arthritis in both knees")
    fact = FactExtraction(action="add", subject="user's mom", key="health:arthritis", value="arthritis",
                          evidence_msg_id="m1")
    kept = replaced_siblings([fact], message, stored)
    assert [(f.key, f.value) for f in kept if f.action == "update"] == [("health:type_2_diabetes", "in remission")]
    # "mums" names the mother as "moms" does
    assert replaced_siblings([fact], _message(message.text.replace("moms", "mums")), stored) == kept


@pytest.mark.parametrize(("text", "owner"), [
    ("amaru switched teams, her mentor is jakub now", "Amaru"),
    ("leo and sam arent friends anymore, his best mate is arjun", "Leo"),
])
def test_a_relation_said_as_his_or_hers_belongs_to_the_person_named(text: str, owner: str) -> None:
    from memfold.llm.tagger import packaged_tagger

    stored = {("user", "child:amaru"): "Amaru", ("Amaru", "family:mentor"): "Funmi",
              ("user", "child:leo"): "Leo", ("Leo", "family:best_friend"): "Sam"}
    message = _message(text)
    facts, _strength = extract_facts(message, tagger=packaged_tagger(), stored=stored)
    assert any(f.subject == owner and f.key.startswith("family:") for f in facts), facts


@pytest.mark.parametrize(("stored", "text", "added", "retired"), [
    ({("Noor", "hobby:yoga"): "yoga"}, "scratch the yoga mat, noor switched to pilates, says its harder",
     ("Noor", "hobby:pilates", "pilates"), ("Noor", "hobby:yoga")),
    ({("user", "likes:k_pop"): "k-pop"}, "kpop phase is over, im deep into city pop now",
     ("user", "likes:city_pop", "city pop"), ("user", "likes:k_pop")),
    ({("user", "dislikes:flying"): "flying"}, "got over the flying thing, its trains i hate now",
     ("user", "dislikes:trains", "trains"), ("user", "dislikes:flying")),
    ({("user", "goal:quit_smoking"): "quit smoking"}, "3 months smoke free so thats done, next up im cutting down on sugar",
     ("user", "goal:cut_down_on_sugar", "cut down on sugar"), ("user", "goal:quit_smoking")),
    ({("user", "goal:write_a_novel"): "write a novel"}, "gave up on the novel, im just writing short stories now",
     ("user", "goal:write_short_stories", "write short stories"), ("user", "goal:write_a_novel")),
    ({("Chen", "likes:durian"): "durian"}, "chen says hes over durian lol, mangosteen is his thing now",
     ("Chen", "likes:mangosteen", "mangosteen"), ("Chen", "likes:durian")),
])
def test_a_switch_from_a_stored_value_retires_it(stored: dict[tuple[str, str], str], text: str,
                                                 added: tuple[str, str, str], retired: tuple[str, str]) -> None:
    from memfold.llm.facts import value_switched

    message = _message(text)
    found = value_switched(message, sentences(text), stored)
    assert [(f.action, f.subject, f.key, f.value) for f in found] == [("add", *added), ("delete", *retired,
                                                                                       stored[retired])]
    assert all(grounding_problem(f, message) is None for f in found)


@pytest.mark.parametrize(("stored", "text"), [
    # a weak frame needs the stored value named: "im going to bed now" is no new hobby
    ({("user", "hobby:knitting"): "knitting"}, "im going to bed now"),
    ({("user", "hobby:knitting"): "knitting"}, "its raining now"),
    # two stored values and neither named: which one changed?
    ({("user", "hobby:knitting"): "knitting", ("user", "hobby:chess"): "chess"}, "switched to pottery"),
    ({}, "switched to pottery"),
])
def test_no_switch_without_a_stored_value_it_leaves(stored: dict[tuple[str, str], str], text: str) -> None:
    from memfold.llm.facts import value_switched

    assert value_switched(_message(text), sentences(text), stored) == []


def test_a_stored_favourite_switched_takes_the_stored_key_and_shape() -> None:
    from memfold.llm.facts import value_switched

    stored = {("Hamid", "favorite:team"): "Persepolis"}
    text = "hamid switched to esteghlal after 40 years of persepolis, we are all in shock"
    found = value_switched(_message(text), sentences(text), stored)
    assert [(f.action, f.subject, f.key, f.value) for f in found] == [("add", "Hamid", "favorite:team", "Esteghlal")]


@pytest.mark.parametrize(("stored", "text", "expected"), [
    ({("Kai", "age"): "6"}, "kai just had his 7th birthday party, 14 kids in our tiny flat", ("Kai", "7")),
])
def test_an_age_said_by_the_birthday_just_had(stored: dict[tuple[str, str], str], text: str,
                                              expected: tuple[str, str]) -> None:
    from memfold.llm.facts import age_grown

    found = age_grown(_message(text), sentences(text), stored)
    assert [(f.subject, f.value) for f in found] == [expected]


@pytest.mark.parametrize(("text", "value"), [
    ("i switched courses, its pharmacy now, still at makerere", "Pharmacy at Makerere"),
    ("i switched courses, its pharmacy now", "Pharmacy"),  # no school said: none kept
    ("its pharmacy now, still at kyambogo", "Pharmacy"),  # another school: not the stored one
])
def test_a_new_course_still_at_the_stored_school_keeps_it(text: str, value: str) -> None:
    from memfold.llm.facts import school_kept

    message = _message(text)
    course = FactExtraction(action="add", subject="user", key="education", value="Pharmacy",
                            evidence_msg_id="m1", reason="stated")
    kept = school_kept([course], message, {("user", "education"): "nursing at Makerere"})
    assert [f.value for f in kept] == [value]
    assert all(grounding_problem(f, message) is None for f in kept)


def test_a_switch_between_a_hobby_and_a_skill_takes_the_stored_family() -> None:
    text = "My son quit violin and plays cello now."
    cello = FactExtraction(action="add", subject="user's son", key="hobby:cello", value="cello",
                           evidence_msg_id="m1", reason="stated")
    found = replaced_siblings([cello], _message(text), {("user's son", "skill:violin"): "violin"})
    assert {(f.action, f.key, f.value) for f in found} == {("add", "skill:cello", "cello"),
                                                           ("delete", "skill:violin", "violin")}
    kept = replaced_siblings([cello], _message("My son plays cello now."), {("user's son", "skill:violin"): "violin"})
    assert [(f.action, f.key) for f in kept] == [("add", "hobby:cello")]  # violin not named: nothing retired


@pytest.mark.parametrize(("stored", "text", "renamed"), [
    ({("user", "child:alexander"): "Alexander"}, "alexander wants to go by Xander now, so pls use that lol",
     ("user", "child:alexander", "Xander")),
    ({("Bongani", "child:lerato"): "Lerato", ("user", "child:sam"): "Sam"},
     "bonganis daughter goes by lulu now, nobody calls her lerato", ("Bongani", "child:lerato", "Lulu")),
    ({("Ewa", "child:sebastian"): "Sebastian"}, "ewa says they call him seb now, he hates the long name",
     ("Ewa", "child:sebastian", "Seb")),
])
def test_a_stored_child_goes_by_a_new_name(stored: dict[tuple[str, str], str], text: str,
                                           renamed: tuple[str, str, str]) -> None:
    from memfold.llm.facts import child_renamed

    message = _message(text)
    found = child_renamed(message, sentences(text), stored)
    assert [(f.subject, f.key, f.value) for f in found] == [renamed]
    assert grounding_problem(found[0], message) is None


def test_no_new_name_without_the_child_or_the_parent_named() -> None:
    from memfold.llm.facts import child_renamed

    stored = {("user", "child:mia"): "Mia", ("user", "child:leo"): "Leo"}
    text = "my friend's son goes by Kit now"
    assert child_renamed(_message(text), sentences(text), stored) == []


def test_my_only_child_goes_by_a_new_name() -> None:
    from memfold.llm.facts import child_renamed

    text = "my kid came out to us last week and goes by Eli now, he/him"
    found = child_renamed(_message(text), sentences(text), {("user", "child:emma"): "Emma"})
    assert [(f.subject, f.key, f.value) for f in found] == [("user", "child:emma", "Eli")]
    two = {("user", "child:emma"): "Emma", ("user", "child:noah"): "Noah"}
    assert child_renamed(_message(text), sentences(text), two) == []  # which one: not said


@pytest.mark.parametrize("text", [
    "physio says its actually a torn ligament not a sprain so 6 more weeks on crutches, ugh",
    "xray said its actually a hairline fracture not a sprain ugh, boot for 6 wks",
])
def test_a_diagnosis_corrected_names_the_stored_one_by_its_stem(text: str) -> None:
    from memfold.llm.facts import swapped_values

    stored = {("user", "health:sprained_ankle"): "sprained ankle"}
    found = swapped_values(_message(text), sentences(text), stored)
    assert len(found) == 1 and found[0].key.startswith("health:") and found[0].value in ("torn ligament",
                                                                                          "hairline fracture")
    retired = replaced_siblings(found, _message(text), stored)
    assert ("delete", "health:sprained_ankle") in {(f.action, f.key) for f in retired}


@pytest.mark.parametrize(("text", "old", "new"), [
    ("good news the allergy test says its not cats its dust mites 🙃 so the kitten can stay", "cats", "dust mites"),
    ("did a proper allergy test, turns out its not amoxicillin, its sulfa drugs", "amoxicillin", "sulfa drugs"),
])
def test_a_swapped_allergy_takes_its_own_key_and_retires_the_old(text: str, old: str, new: str) -> None:
    from memfold.llm.facts import swapped_values

    stored = {("user", f"allergy:{old.replace(' ', '_')}"): old}
    found = swapped_values(_message(text), sentences(text), stored)
    assert [(f.key, f.value) for f in found] == [(f"allergy:{new.replace(' ', '_')}", new)]
    retired = replaced_siblings(found, _message(text), stored)
    assert ("delete", f"allergy:{old}") in {(f.action, f.key) for f in retired}


@pytest.mark.parametrize(("text", "stored", "new"), [
    ("priya moved out and ezra moved in, need to redo the bills sheet", ("family:flatmate", "Priya"), "ezra"),
    ("okafor retired so im seeing dr mensah now, need to transfer my records", ("family:doctor", "Dr Okafor"),
     "dr mensah"),
])
def test_a_stored_role_taken_by_someone_new(text: str, stored: tuple[str, str], new: str) -> None:
    from memfold.llm.facts import role_successor

    found = role_successor(_message(text), sentences(text), {("user", stored[0]): stored[1]})
    assert [(f.key, f.value.casefold()) for f in found] == [(stored[0], new)]


@pytest.mark.parametrize(("text", "who", "old", "new"), [
    ("obi has moved on from blue, everything has to be purple now, even his toothbrush", "Obi", "blue", "purple"),
    ("emi says pink is for babies and now everything must be green, redo the party ideas", "Emi", "pink", "green"),
])
def test_a_named_childs_favourite_said_as_everything_must_be(text: str, who: str, old: str, new: str) -> None:
    from memfold.llm.facts import favorite_of_stored_person

    stored = {(who, "favorite:color"): old, ("user", f"child:{who.lower()}"): who}
    found = favorite_of_stored_person(_message(text), sentences(text), stored)
    assert [(f.subject, f.key, f.value) for f in found] == [(who, "favorite:color", new)]


def test_a_switch_names_a_person_by_a_possessive_without_its_apostrophe() -> None:
    from memfold.llm.facts import value_switched

    text = "devs gone off cricket since the match fixing drama, hes all about pickleball now"
    stored = {("Dev", "likes:cricket"): "cricket", ("user", "partner"): "Dev"}
    found = value_switched(_message(text), sentences(text), stored)
    assert {(f.action, f.subject, f.key) for f in found} == {("add", "Dev", "likes:pickleball"),
                                                             ("delete", "Dev", "likes:cricket")}


def test_a_negation_after_so_is_its_own_clause() -> None:
    text = "saoirse got promoted to deputy head so shes barely in the classroom anymore"
    stored = {("user", "partner"): "Saoirse", ("Saoirse", "job"): "secondary school teacher"}
    found, _strength = extract_facts(_message(text), stored=stored)
    assert [(f.action, f.subject, f.value) for f in found if f.key == "job"] == [("add", "Saoirse", "deputy head")]


def test_a_pet_gone_and_a_new_one_named_takes_its_key() -> None:
    from memfold.llm.facts import pet_replaced

    text = "biscoito went to hamster heaven 😢 kids picked a new one, hes called pipoca"
    stored = {("user", "pet:hamster"): "Biscoito"}
    found = pet_replaced(_message(text), sentences(text), stored)
    assert [(f.key, f.value) for f in found] == [("pet:hamster", "Pipoca")]
    alive = "biscoito loves the new one, hes called pipoca"  # nothing gone: a second pet, not a replacement
    assert pet_replaced(_message(alive), sentences(alive), stored) == []


@pytest.mark.parametrize("text", [
    "goldie died on sunday 😢 my son got a new fish and named it Bubbles",
    "Goldie passed away. We bought another goldfish, I called him Bubbles.",
])
def test_the_new_pets_name_is_the_name_after_the_pronoun(text: str) -> None:
    from memfold.llm.facts import pet_replaced

    found = pet_replaced(_message(text), sentences(text), {("user", "pet:goldfish"): "Goldie"})
    assert [(f.key, f.value) for f in found] == [("pet:goldfish", "Bubbles")]


@pytest.mark.parametrize(("text", "stored", "new"), [
    ("we lost bølle in march 💔 kids picked a new pup, a lab called kaj", ("pet:dog", "Bølle"), "Kaj"),
    ("we said goodbye to pastel last week, adopted an older girl, her name is queijada",
     ("pet:cat", "Pastel de Nata"), "Queijada"),
    ("Simba died in his sleep. The grandchildren have brought us a puppy, they call him Rafiki.", ("pet:dog", "Simba"),
     "Rafiki"),
])
def test_a_pet_lost_and_one_adopted_or_brought_takes_its_key(text: str, stored: tuple[str, str], new: str) -> None:
    from memfold.llm.facts import pet_replaced

    found = pet_replaced(_message(text), sentences(text), {("user", stored[0]): stored[1]})
    assert [(f.key, f.value) for f in found] == [(stored[0], new)]


def test_coming_out_names_the_identity_in_full() -> None:
    found = _facts("i came out as a trans woman last year")
    assert ("add", "identity", "trans woman") in {(f.action, f.key, f.value) for f in found}


def test_someone_elses_pet_gone_and_a_new_one_named() -> None:
    from memfold.llm.facts import pet_replaced

    text = "bingo next door passed away, mr adeyemi already has a new puppy called lucky"
    stored = {("Mr Adeyemi", "pet:dog"): "Bingo", ("user", "family:neighbor"): "Mr Adeyemi"}
    found = pet_replaced(_message(text), sentences(text), stored)
    assert [(f.subject, f.key, f.value) for f in found] == [("Mr Adeyemi", "pet:dog", "Lucky")]


@pytest.mark.parametrize(("text", "stored", "new"), [
    ("reread dune over the holidays and it easily took the top spot", "The Name of the Wind", "Dune"),
    ("tried the pistachio gelato yesterday, new number one", "mango", "pistachio gelato"),
    ("hozier has my whole heart now", "Adele", "Hozier"),
])
def test_a_favourite_replaced_in_passing(text: str, stored: str, new: str) -> None:
    from memfold.llm.facts import favorite_of_stored_person

    found = favorite_of_stored_person(_message(text), sentences(text), {("user", "favorite:thing"): stored})
    assert [(f.key, f.value) for f in found] == [("favorite:thing", new)]


@pytest.mark.parametrize(("text", "stored", "new"), [
    ("the berlin move is off, aiming for vienna now", "move to Berlin", "move to Vienna"),
    ("20 kilo is too much, aiming for 10 this year", "lose 20 kilo", "lose 10 kilo"),
    ("got my B1 certificate!! going for B2 next", "pass B1 German", "pass B2 German"),
])
def test_a_goal_retargeted_keeps_its_frame(text: str, stored: str, new: str) -> None:
    from memfold.llm.facts import goal_retargeted
    from memfold.llm.keys import fact_key

    found = goal_retargeted(_message(text), sentences(text), {("user", fact_key("goal", stored)): stored})
    assert [(f.action, f.value) for f in found] == [("add", new), ("delete", stored)]


def test_a_retargeted_goal_is_grounded_by_the_value_it_retires() -> None:
    text = "the berlin plan is off, aiming for vienna now"
    added = FactExtraction(key="goal:move_to_vienna", value="move to Vienna", evidence_msg_id="m1")
    assert grounding_problem(added, _message(text)) is not None  # "move" is not said...
    assert grounding_problem(added, _message(text), retired="move to Berlin") is None  # ...but kept from the old goal
    invented = FactExtraction(key="goal:move_to_paris", value="move to Paris", evidence_msg_id="m1")
    assert grounding_problem(invented, _message(text), retired="move to Berlin") is not None


@pytest.mark.parametrize("sentence, content", [
    ("if i won the lottery tomorrow would it be smarter to pay off the mortgage", False),
    ("hypothetically if my landlord sold the flat could they kick me out", False),
    ("if i get the job next week, should i move to Leeds", False),
    ("if it rains tomorrow we will go to the cinema instead", True),
    ("if anyone asks, i'm vegan now", True),
])
def test_a_condition_then_a_question_without_its_mark_is_a_question(sentence: str, content: bool) -> None:
    from memfold.llm.cues import is_content_sentence

    assert is_content_sentence(sentence) is content


@pytest.mark.parametrize(("stored", "text", "ended", "new"), [
    # the pursuit that ended keeps its key with how it ended; the new one is kept beside it
    (("hobby:bouldering", "bouldering"), "gave up bouldering after my finger injury, doing pottery instead",
     ("hobby:bouldering", "gave up"), "pottery"),
    # ... unless the new one keeps its frame: then it replaces it
    (("goal:run_a_marathon", "run a marathon"), "My goal now is to run an ultra, the marathon's done.",
     None, "run an ultra"),
    # a re-reading of the pursuit itself is no new one
    (("skill:italian", "Italian"), "after 2 yrs in bologna im fluent in italian finally", ("skill:italian", "fluent"),
     None),
])
def test_a_pursuit_over_keeps_its_key_beside_what_replaced_it(
        stored: tuple[str, str], text: str, ended: tuple[str, str] | None, new: str | None) -> None:
    from memfold.llm.tagger import packaged_tagger

    current = {("user", stored[0]): stored[1]}
    facts, _ = extract_facts(_message(text), stored=current, tagger=packaged_tagger())
    out = replaced_siblings(facts, _message(text), current)
    updates = {(f.key, f.value) for f in out if f.action == "update"}
    assert (ended in updates) if ended else not updates
    added = {f.value for f in out if f.action == "add" and f.key.split(":")[0] == stored[0].split(":")[0]}
    assert added == ({new} if new else set())


@pytest.mark.parametrize(("text", "stored", "new"), [
    ("sold Caramel to the neighbours kid, got a new mare, Praline", ("pet:horse", "Caramel"), "Praline"),
    ("sold Barq to my uncle, bought a young mare, Reem", ("pet:horse", "Barq"), "Reem"),
])
def test_a_pet_sold_and_a_new_one_named_after_its_kind(text: str, stored: tuple[str, str], new: str) -> None:
    from memfold.llm.facts import pet_replaced

    found = pet_replaced(_message(text), sentences(text), {("user", stored[0]): stored[1]})
    assert [(f.key, f.value) for f in found] == [(stored[0], new)]


@pytest.mark.parametrize(("stored", "text", "new"), [
    ("vegetarian", "ok update i eat fish now, doctor wants more omega 3", "pescatarian"),
    ("vegan", "not vegan anymore, eating fish and eggs again but still no meat", "pescatarian"),
    ("keto", "done with keto, back to eating everything lol", "omnivore"),
])
def test_a_diet_given_up_for_what_is_eaten_now(stored: str, text: str, new: str) -> None:
    from memfold.llm.facts import diet_given_up

    found = diet_given_up(_message(text), sentences(text), {("user", "diet"): stored})
    assert [(f.key, f.value) for f in found] == [("diet", new)]
    assert grounding_problem(found[0], _message(text)) is None


def test_fish_eaten_now_ends_no_diet_that_had_fish() -> None:
    from memfold.llm.facts import diet_given_up

    text = "i eat fish now, doctor wants more omega 3"
    assert diet_given_up(_message(text), sentences(text), {("user", "diet"): "keto"}) == []


@pytest.mark.parametrize(("stored", "text", "value"), [
    ({("Jarrah", "health:glandular_fever"): "glandular fever"}, "Jarrah is all better now, back at work monday",
     "all better"),
    ({("user", "health:plantar_fasciitis"): "plantar fasciitis"}, "foot is finally better!! no more pain", "better"),
    ({("user", "allergy:cats"): "cats"}, "did allergy shots for 3 yrs and honestly im fine with cats now",
     "fine with cats"),
])
def test_a_condition_over_said_as_better_or_fine_with(stored: dict[tuple[str, str], str], text: str,
                                                      value: str) -> None:
    from memfold.llm.resolved import resolved_conditions

    found = resolved_conditions(text, _message(text), stored)
    assert [(f.subject, f.key, f.value) for f in found] == [(*next(iter(stored)), value)]


def test_better_alone_is_no_recovery() -> None:
    from memfold.llm.resolved import resolved_conditions

    text = "foot is a bit better today"
    assert resolved_conditions(text, _message(text), {("user", "health:plantar_fasciitis"): "plantar fasciitis"}) == []


@pytest.mark.parametrize(("text", "status"), [
    ("divorce is final. onwards i guess", "divorced"),
    ("SIONE PROPOSED 💍💍 ahhh", "engaged"),
    ("lost my husband last year, still hard", "widowed"),
    ("ok so ive been seeing someone 🙈 its early", "dating"),
])
def test_a_relationship_change_said_without_the_status_word(text: str, status: str) -> None:
    found = {(f.key, f.value) for f in _facts(text)}
    assert ("relationship_status", status) in found


@pytest.mark.parametrize("text", ["John proposed a new budget at the meeting", "lost my husband's keys again lol"])
def test_look_alikes_of_a_relationship_change(text: str) -> None:
    found = {(f.key, f.value) for f in _facts(text)}
    assert not {("relationship_status", "engaged"), ("relationship_status", "widowed")} & found


def test_a_new_favourite_without_its_thing() -> None:
    from memfold.llm.facts import favorite_of_stored_person

    for text in ("mughli has been dethroned, bosphorus is the new fave", "my favorite now is sopa de maní"):
        stored = {("user", "favorite:takeaway"): "mughli"}
        found = favorite_of_stored_person(_message(text), sentences(text), stored)
        assert [f.key for f in found] == ["favorite:takeaway"], text



def _profile_after(tmp_path, texts: list[str]) -> dict[tuple[str, str], str]:
    """The profile after each text, an hour apart, through the facade (hashing embedder)."""
    from datetime import timedelta

    from memfold import Memory
    from memfold.config import Settings

    memory = Memory.open(tmp_path / "store", Settings(embedder="hashing"))
    try:
        for n, text in enumerate(texts):
            memory.ingest_many([Message(msg_id=f"m{n}", user_id="u", speaker="user", role="user", text=text,
                                        ts=T0 + timedelta(hours=n))])
        return {(f.subject, f.key): f.value for f in memory.profile("u")}
    finally:
        memory.close()


@pytest.mark.parametrize(("before", "after", "now"), [
    ("im vegetarian", "ok not veggie anymore, doctor said i need more iron so eating meat again", "omnivore"),
    ("im gluten free, coeliac", "turns out it was never celiac, the biopsy was clear, so i eat gluten again", "omnivore"),
    ("im gluten free", "went back to gluten, the gf bread was making me sadder than the bloating", "omnivore"),
    ("im vegan", "went back to gluten, the gf bread was making me sad", "vegan"),
])
def test_a_diet_left_for_the_food_it_left_out(tmp_path, before: str, after: str, now: str) -> None:
    assert _profile_after(tmp_path, [before, after]).get(("user", "diet")) == now


@pytest.mark.parametrize(("before", "after", "key", "now"), [
    ("i love running, do 10k every week", "gave up running, my knees are done. any low impact ideas?", "hobby:running", "gave up"),
    ("i love sushi", "went off sushi completely after that food poisoning thing, never again", "likes:sushi", "went off"),
    ("i love pineapple on pizza", "ok i take it back, pineapple on pizza is gross", "likes:pineapple_on_pizza", "gross"),
    ("i speak some italian", "forgot all my italian, its gone, only ciao left", "skill:italian", "forgot"),
    ("i live in Sapporo", "new apartment in Otaru is tiny but the view of the harbour 😍", "location", "Otaru"),
    ("im engaged to Hamdan", "we did it!! nikah was yesterday, officially married 💍", "relationship_status", "married"),
    ("im a restaurant owner", "sold the restaurant. im training falcons full time, falconer now, finally", "job", "falconer"),
])
def test_stop_53_changes(tmp_path, before: str, after: str, key: str, now: str) -> None:
    assert _profile_after(tmp_path, [before, after]).get(("user", key)) == now


def test_a_pizza_called_gross_is_no_like_given_up(tmp_path) -> None:
    assert _profile_after(tmp_path, ["i love pizza", "the pizza at that place is gross"]).get(("user", "likes:pizza")) == "pizza"


def test_an_unnamed_relative_who_eats_everything_then_goes_vegan(tmp_path) -> None:
    profile = _profile_after(tmp_path, ["we're vegan in this house except my husband who eats literally everything",
                                        "hubby went vegan after some documentary, pls give me vegan dinner ideas"])
    assert profile.get(("user's husband", "diet")) == "vegan"


def test_an_unnamed_relative_who_eats_everything_is_stored_grounded(tmp_path) -> None:
    profile = _profile_after(tmp_path, ["we're vegan in this house except my husband who eats literally everything"])
    assert profile.get(("user's husband", "diet")) == "omnivore"
    assert profile.get(("user", "diet")) == "vegan"


@pytest.mark.parametrize(("before", "after", "key", "now"), [
    ("i live in Split", "left split in june, Zagreb now, bigger flat", "location", "Zagreb"),
    ("i work for Accenture as an analyst", "moved over to deloitte, first week was intense", "employer", "Deloitte"),
    ("i work for North Bristol trust as a physio", "moved over to Bath Royal trust, same job new commute", "employer",
     "Bath Royal trust"),
    ("i go to the catholic church, im catholic", "we switched to the baptist church near us", "religion", "Baptist"),
    ("im a freshman at oak ridge high", "sophomore now!! new locker, same problems", "education", "Sophomore"),
    ("im 39, time flies", "well, 40 as of this morning. send cake", "age", "40"),
    ("i ride a Vespa Primavera scooter around Lisbon", "scooter got stolen so im on a red Honda SH now",
     "possession:scooter", "red Honda SH"),
    ("im Margaret but everyone says Maggie", "can you just call me Meg from now on", "name", "Meg"),
])
def test_stop_55_changes(tmp_path, before: str, after: str, key: str, now: str) -> None:
    assert _profile_after(tmp_path, [before, after]).get(("user", key)) == now


def test_a_relative_back_for_good_moves_home(tmp_path) -> None:
    profile = _profile_after(tmp_path, ["my brother tariq lives in dubai", "tariqs back in Karachi for good, dubai was too much"])
    assert profile.get(("Tariq", "location")) == "Karachi"
