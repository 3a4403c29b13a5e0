"""Who a later sentence is about: the relatives a speaker told us of (llm/people.py), and the
offline extractor giving their facts to them (rules only: no fact tagger here)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfold.llm.facts import extract_facts
from memfold.llm.keys import canonical_key, product_kind
from memfold.llm.people import KnownPeople
from memfold.models import Message

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
STORED = {("user", "family:sister"): "Olga", ("user", "partner"): "Kenta",
          ("user's dad", "age"): "69", ("user", "location"): "Leeds"}


def _facts(text: str, stored: dict[tuple[str, str], str]) -> set[tuple[str, str, str]]:
    message = Message(msg_id="m2", user_id="u", speaker="user", role="user", text=text, ts=T0)
    facts, _ = extract_facts(message, stored=stored)
    return {(f.subject, f.key, f.value) for f in facts}


def test_a_name_before_the_value_says_whose_fact_it_is() -> None:
    people = KnownPeople(STORED, "user")
    assert people.subject_for("olgas birthday is june 14", "user", "birthday", "june 14") == "Olga"
    assert people.subject_for("dad hit 70 last week", "user", "age", "70") == "user's dad"
    # the partner by a relation word
    assert people.subject_for("hubby works at Sony now", "user", "employer", "Sony") == "Kenta"


def test_the_speaker_in_between_keeps_the_fact_the_speakers() -> None:
    people = KnownPeople(STORED, "user")
    assert people.subject_for("olga says i should move to Bergen", "user", "location", "Bergen") == "user"
    assert people.subject_for("I moved to Bergen, olga helped", "user", "location", "Bergen") == "user"


def test_a_pronoun_sentence_takes_the_person_named_before_it() -> None:
    people = KnownPeople(STORED, "user")
    assert people.subject_for("shes at Nintendo now", "user", "employer", "Nintendo",
                              before="olga left sony.") == "Olga"
    assert people.subject_for("at Nintendo now", "user", "employer", "Nintendo",
                              before="olga left sony.") == "user"


def test_the_partner_is_not_their_own_partner_and_relations_stay_the_speakers() -> None:
    people = KnownPeople(STORED, "user")
    assert people.subject_for("new partner: sam", "user", "partner", "sam") == "user"
    assert people.subject_for("olga has a new boss, Ana", "user", "family:boss", "Ana") == "user"


def test_aliases_of_known_people() -> None:
    people = KnownPeople(STORED, "user")
    assert people.subject_for("x", "Olgas", "location", "Oslo") == "Olga"
    assert people.subject_for("x", "user's husband", "job", "nurse") == "Kenta"
    assert people.subject_for("x", "Ana", "job", "nurse") == "Ana"
    assert people.subject_for("x", "Abuela Olga", "age", "89") == "Olga"


def test_the_speaker_in_a_pair_takes_the_fact() -> None:
    nobody = KnownPeople({}, "user")
    assert nobody.subject_for("me and my husband just moved to lyon", "user's husband", "location",
                              "lyon") == "user"
    assert nobody.subject_for("my sister Ana and I are vegan", "Ana", "diet", "vegan") == "user"
    assert nobody.subject_for("my sister Ana is vegan and I am not", "Ana", "diet", "vegan") == "Ana"


def test_nobody_known_changes_nothing() -> None:
    assert KnownPeople({}, "user").subject_for("olga is 30", "user", "age", "30") == "user"
    # a chat partner's own facts are not the speaker's relatives
    people = KnownPeople({("Melanie", "location"): "Paris"}, "Caroline")
    assert people.subject_for("Melanie, painting is my thing", "Caroline", "hobby:painting",
                              "painting") == "Caroline"


def test_the_extractor_gives_a_relatives_fact_to_them() -> None:
    found = _facts("my sister is 34 now", {("user", "family:sister"): "Olga"})
    assert ("Olga", "age", "34") in found
    assert not any(subject == "user" and key == "age" for subject, key, _ in found)


def test_a_relative_the_message_introduces_is_known_to_its_later_words() -> None:
    found = _facts("I have a sister, Ana. ana was born 9 September 1990.", {})
    assert ("Ana", "birthday", "September 9 1990") in found
    assert not any(subject == "user" and key == "birthday" for subject, key, _ in found)


def test_one_key_per_kind_and_relation() -> None:
    assert canonical_key("pet:puppy") == "pet:dog"
    assert canonical_key("pet:bunny") == "pet:rabbit"
    assert canonical_key("family:manager") == "family:boss"
    assert canonical_key("family:mum") == "family:mom"
    assert canonical_key("family:best") == "family:best_friend"
    assert canonical_key("family:brother-in-law") == "family:brother_in_law"
    assert canonical_key("possession:pup") == "possession:pup"
    assert canonical_key("likes:kitten") == "likes:kitten"
    assert canonical_key("family:therapists") == "family:therapist"  # "switched therapists, seeing Maren"
    assert canonical_key("family:roomie") == "family:roommate"
    assert canonical_key("family:boss") == "family:boss"


_WORDS = "olga olgas dad hubby kenta i we is at Sony now , . shes".split()


@given(st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join),
       st.sampled_from(["user", "Olga", "Olgas", "user's husband", "Mira"]),
       st.sampled_from(["age", "employer", "partner", "family:sister", "likes:sushi"]))
@settings(max_examples=200, deadline=None)
def test_a_fact_goes_only_to_its_subject_or_a_known_person(sentence: str, subject: str, key: str) -> None:
    people = KnownPeople(STORED, "user")
    got = people.subject_for(sentence, subject, key, "Sony", before="olga said hi.")
    assert got in {subject, "user", *people.subjects}
    if key.startswith("family:"):  # a relation stays the speaker's
        assert got == subject


def test_names_are_known_without_their_accents() -> None:
    people = KnownPeople({("user", "family:brother"): "Tomás"}, "user")
    assert people.subject_for("tomas moved to Rio", "user", "location", "Rio") == "Tomás"
    assert people.subject_for("x", "Tomas", "location", "Rio") == "Tomás"  # the tagger's spelling
    assert people.mention("Tomás", "tomas moved to Rio") == "tomas"
    assert people.mention("Tomás", "I moved to Rio") == ""


def test_a_sentence_naming_a_known_person_is_read_whatever_its_length() -> None:
    from memfold.llm.facts import fact_sentences

    text = "marta quit the bank last month and honestly she seems so much happier at the hospital"
    message = Message(msg_id="m2", user_id="u", speaker="user", role="user", text=text, ts=T0)
    assert fact_sentences(message) == []  # no "I" or "my", and long: no rule could read it
    known = KnownPeople({("user", "family:sister"): "Marta"}, "user")
    assert fact_sentences(message, known=known) == [text]


def test_the_fact_of_a_relative_named_by_relation_quotes_how_the_message_names_them() -> None:
    message = Message(msg_id="m2", user_id="u", speaker="user", role="user", text="my mom is 61 now", ts=T0)
    facts, _ = extract_facts(message, stored={("user", "family:mom"): "Linda"})
    assert [(f.subject, f.key, f.value, f.subject_quote) for f in facts] == [("Linda", "age", "61", "mom")]


def test_a_pet_owns_no_pet() -> None:
    people = KnownPeople({("user", "pet:rabbit"): "Clover"}, "user")
    # the tagger marks the name before the value as its subject
    assert people.subject_for("clover passed away, we got a bunny called mochi", "Clover", "pet:rabbit",
                              "mochi") == "user"
    assert people.subject_for("clover is 3 now", "Clover", "age", "3") == "Clover"


@pytest.mark.parametrize(("value", "kind"), [
    ("Tesla Model Y", "car"), ("pixel 8a", "phone"), ("Samsung Galaxy S21", "phone"),
    ("Galaxy Tab S9", "tablet"), ("MacBook Air", "laptop"), ("kobo libra 2", "e_reader"),
    ("blue Brompton", "bike"), ("Sony A7 IV", "camera"), ("samsung a15", "phone"),
    ("Sony WH-1000XM5", None), ("Samsung TV", None), ("a red one", None)])
def test_a_brand_or_product_line_says_what_a_possession_is(value: str, kind: str | None) -> None:
    assert product_kind(value) == kind


@pytest.mark.parametrize(("key", "canonical"), [
    ("pet:golden_retriever", "pet:dog"), ("pet:border_collie", "pet:dog"), ("pet:maine_coon", "pet:cat"),
    ("pet:corn_snake", "pet:corn_snake"), ("pet:puppy", "pet:dog")])
def test_a_pets_breed_is_keyed_by_its_kind(key: str, canonical: str) -> None:
    assert canonical_key(key) == canonical


def test_a_sentence_naming_a_stored_thing_is_read_for_facts() -> None:
    from datetime import datetime, timezone

    from memfold.llm.facts import fact_sentences
    from memfold.models import Message

    text = "ipads gone and drawing on a galaxy tab s9 these days and honestly its fine for the price tbh"
    message = Message(msg_id="m", user_id="u", role="user", speaker="user", text=text,
                      ts=datetime(2026, 1, 1, tzinfo=timezone.utc))
    stored = {("user", "possession:tablet"): "iPad Air"}
    assert KnownPeople(stored, "user").names_thing(message.text)
    assert fact_sentences(message, known=KnownPeople(stored, "user"))
    assert not fact_sentences(message, known=KnownPeople({}, "user"))


def test_someone_stored_by_name_alone_is_known_to_an_assistants_user_only() -> None:
    stored = {("Fernanda", "job"): "data analyst"}
    sentence = "fernanda got promoted to analytics manager"
    assert KnownPeople(stored, "user").subject_for(sentence, "user", "job", "analytics manager") == "Fernanda"
    # in a chat between named people, a stored name may be the other speaker's
    assert KnownPeople(stored, "Caroline").subject_for(sentence, "Caroline", "job", "analytics manager") == "Caroline"


def _tagged(text: str, stored: dict[tuple[str, str], str]) -> set[tuple[str, str, str]]:
    """What the rules and the packaged fact tagger read together (the router's default)."""
    from memfold.llm.tagger import packaged_tagger

    message = Message(msg_id="m2", user_id="u", speaker="user", role="user", text=text, ts=T0)
    facts, _ = extract_facts(message, stored=stored, tagger=packaged_tagger())
    return {(f.subject, f.key, f.value) for f in facts}


def test_a_relative_said_by_a_short_name_or_object_pronoun_takes_the_fact() -> None:
    stored = {("user's mother-in-law", "diet"): "keto", ("user", "family:brother"): "Tiago",
              ("Tiago", "location"): "São Paulo"}
    assert ("user's mother-in-law", "diet", "vegan") in _tagged("mil gave up keto, shes vegan now", stored)
    moved = _tagged("tiago just sent me pics from his new apartment in Curitiba", stored)
    assert ("Tiago", "location", "Curitiba") in moved and ("user", "location", "Curitiba") not in moved


def test_a_pastime_someone_got_the_speaker_into_is_the_speakers() -> None:
    stored = {("user", "family:cousin"): "Thandiwe"}
    found = _tagged("Thandiwe is the one who got me into freediving", stored)
    assert ("user", "hobby:freediving", "freediving") in found


def test_a_home_shared_with_a_known_relative_is_both_of_theirs() -> None:
    stored = {("user's mom", "location"): "Cork", ("user", "location"): "Dublin"}
    found = _tagged("mum moved in with us in Limerick last week", stored)
    assert {("user", "location", "Limerick"), ("user's mom", "location", "Limerick")} <= found


def test_a_value_read_from_other_words_still_goes_to_the_person_named_before_it() -> None:
    people = KnownPeople({("user's uncle", "job"): "pastor"}, "user")
    assert people.subject_for("uncle retired, he farms cocoa full time now", "user", "job",
                              "cocoa farmer") == "user's uncle"


@pytest.mark.parametrize("text, relation, name", [
    ("my son Hamid has his cricket final this saturday", "child:hamid", "Hamid"),
    ("my nephew Jamal graduates may 10", "family:nephew", "Jamal"),
])
def test_a_relatives_dated_happening_is_no_trait_of_theirs(text: str, relation: str, name: str) -> None:
    """The relative is a fact; what they do on a day is their event, not a `fact:` about them."""
    facts = _facts(text, {})
    assert ("user", relation, name) in facts
    assert not [f for f in facts if f[0] == name]


def test_a_relatives_lasting_doing_is_still_read() -> None:
    assert ("Ana", "hobby:cello", "cello") in _facts("my sister Ana plays the cello", {})


@pytest.mark.parametrize("text", [
    "tomorrow at 4 i have a call with my daughters school counsellor about her grades",
    "we had a chat with my son's teacher about his reading",
    "dropped the cake off at my mum's neighbour",
])
def test_a_relatives_possession_after_a_preposition_is_not_what_they_are(text: str) -> None:
    assert not [f for f in _facts(text, {}) if f[0].startswith("user's")]


def test_a_relatives_contracted_is_still_read() -> None:
    assert ("user's daughter", "job", "nurse") in _facts("my daughters a nurse now", {})


@pytest.mark.parametrize("text, subject, key, value", [
    ("my brother visited me, he works at Google now", "user's brother", "employer", "Google"),
    ("my mum rang me and she lives in leeds now", "user's mom", "location", "Leeds"),
])
def test_he_or_she_after_me_goes_back_to_the_relative(text: str, subject: str, key: str, value: str) -> None:
    found = _tagged(text, {})
    assert (subject, key, value) in found
    assert ("user", key, value) not in found


def test_a_pronoun_that_cannot_be_the_relative_does_not_make_it_theirs() -> None:
    assert not [f for f in _tagged("my brother visited me, she works at Google now", {})
                if f[0] == "user's brother"]
    assert ("user", "location", "Lyon") in _tagged("me and my husband just moved to lyon", {})


@pytest.mark.parametrize("text, fact", [
    ("i have a sister in canada, shes a nurse in calgary and loves it", ("user's sister", "job", "nurse")),
    ("my best friend since primary is called eilidh, shes a midwife in inverness", ("Eilidh", "job", "midwife")),
    ("i've got a daughter, shes 4", ("user's daughter", "age", "4")),
])
def test_an_unnamed_relative_is_no_person_called_by_the_relation(text: str, fact: tuple[str, str, str]) -> None:
    """"i have a sister" names nobody: what "she" is goes to the speaker's sister, whole."""
    found = _tagged(text, {})
    assert fact in found
    assert not [f for f in found if f[0] in ("Sister", "Daughter", "user") and f[1] in ("job", "age", "location")]


@pytest.mark.parametrize("text, fact", [
    ("both my parents are doctors in chennai", ("user's parents", "job", "doctors")),
    ("im buddhist and my in laws are catholic", ("user's parents-in-law", "religion", "Catholic")),
])
def test_what_the_speakers_parents_are_is_theirs(text: str, fact: tuple[str, str, str]) -> None:
    found = _tagged(text, {})
    assert fact in found
    assert ("user", fact[1], fact[2]) not in found


@pytest.mark.parametrize(("subject", "canonical"), [
    ("user's grandad", "user's grandpa"),
    # an in-law typed with spaces is the hyphenated relative the router stores
    ("user's mother in law", "user's mother-in-law"),
    ("user's mother-in-law", "user's mother-in-law"),
    ("Tash", "Tash"),
])
def test_one_spelling_of_a_relative(subject: str, canonical: str) -> None:
    from memfold.llm.keys import canonical_subject

    assert canonical_subject(subject) == canonical
