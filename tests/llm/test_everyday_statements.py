"""Everyday statements the offline rules read (no tagger): dates of birth in any spelling and
for anyone, requests to keep something, religions, dislikes said with "not", hedges that are
no part of a value, and values normalised to one spelling."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memfold.llm.facts import extract_facts
from memfold.llm.values import birthday, gerund, normalise_value
from memfold.models import Message
from memfold.router.grounding import grounding_problem

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _found(text: str, tagger: object = None) -> set[tuple[str, str, str, str]]:
    message = Message(msg_id="m1", user_id="u", speaker="user", role="user", text=text, ts=T0)
    facts, _strength = extract_facts(message, tagger=tagger)  # type: ignore[arg-type]
    for fact in facts:  # every value read must pass the router's grounding check
        assert grounding_problem(fact, message) is None, fact
    return {(fact.action, fact.subject, fact.key, normalise_value(fact.key, fact.value)) for fact in facts}


def _tagged(text: str) -> set[tuple[str, str, str, str]]:
    """What the rules and the packaged tagger read together (the router's default)."""
    from memfold.llm.tagger import packaged_tagger

    return _found(text, packaged_tagger())


@pytest.mark.parametrize(("raw", "date"), [
    ("12/25", "December 25"), ("25/12", "December 25"), ("3-14-1990", "March 14 1990"),
    ("12/25/90", "December 25 1990"), ("the 9th of August", "August 9"),
    ("13/13", None), ("10/10 stars", None), ("1/2 of the cake", None),
])
def test_a_date_is_read_by_name_or_by_number(raw: str, date: str | None) -> None:
    assert birthday(raw) == date


@pytest.mark.parametrize(("text", "fact"), [
    ("my bday is 12/25 ugh christmas baby", ("add", "user", "birthday", "December 25")),
    ("note that my moms birthday is march 30", ("add", "user's mom", "birthday", "March 30")),
    ("my mom's birthday is on march 30", ("add", "user's mom", "birthday", "March 30")),
    ("can you remember my wifes birthday is july 22? i always forget",
     ("add", "user's wife", "birthday", "July 22")),
    ("Leo's birthday is May 3", ("add", "Leo", "birthday", "May 3")),
    # a name typed in lower case; a relative said without "my"
    ("correction: tavi's birthday is the 12th of march not the 21st", ("add", "Tavi", "birthday", "March 12")),
    ("girlfriends bday is 22 aug. pls remember it", ("add", "user's girlfriend", "birthday", "August 22")),
    ("gf bday is 22 aug", ("add", "user's girlfriend", "birthday", "August 22")),
])
def test_a_birthday_is_a_date_of_whoever_it_belongs_to(text: str, fact: tuple[str, str, str, str]) -> None:
    found = _found(text)
    assert fact in found
    assert not any(key == "age" for _, _, key, _ in found)  # "march 30" is no age of 30


@pytest.mark.parametrize("text", [
    "my birthday party is on june 4", "Mia's birthday party is on June 4",
    "my mom's birthday dinner is on june 4", "tavi's birthday party is on june 4",
    "everyone's birthday is in may",
])
def test_the_date_of_a_birthday_party_is_no_birthday(text: str) -> None:
    assert not any(key == "birthday" for _, _, key, _ in _found(text))


def test_someone_elses_birthday_is_not_the_speakers() -> None:
    found = _found("My birthday is May 19 and my husband's is May 20, so we do one big party.")
    assert ("add", "user", "birthday", "May 19") in found
    assert not any(subject != "user" and key == "age" for _, subject, key, _ in found)


@pytest.mark.parametrize(("text", "fact"), [
    ("Can you keep track of the fact that I'm pescatarian?", ("add", "user", "diet", "pescatarian")),
    ("Can you remember my cat's name? It's Tofu.", ("add", "user", "pet:cat", "Tofu")),
    ("Could you note my wife's birthday? It's June 3.", ("add", "user's wife", "birthday", "June 3")),
])
def test_a_request_to_keep_something_is_read_as_the_statement(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize(("text", "religion"), [
    ("I'm a Quaker, if that matters for the wedding readings", "Quaker"),
    ("im a practising methodist", "Methodist"),
    ("I'm no longer Catholic, I'd say agnostic now", "Agnostic"),
])
def test_a_religion_is_no_job_and_no_name(text: str, religion: str) -> None:
    found = _found(text)
    assert ("add", "user", "religion", religion) in found
    assert not any(key in ("job", "name") for _, _, key, _ in found)


def test_not_into_something_is_a_dislike_and_not_into_it_anymore_is_a_change() -> None:
    assert ("add", "user", "dislikes:reality_tv", "reality TV") in _found("I'm not into reality TV.")
    assert ("delete", "user", "likes:reality_tv", "reality TV") in _found("I'm not into reality TV anymore.")


@pytest.mark.parametrize(("text", "key", "value"), [
    ("i hate seafood like genuinely cant stand the smell", "dislikes:seafood", "seafood"),
    ("I hate coriander with a passion, it tastes like soap to me", "dislikes:coriander", "coriander"),
    ("Not a fan of spicy food at all.", "dislikes:spicy_food", "spicy food"),
    ("i enjoy true crime podcasts on my commute, any new ones?", "likes:true_crime_podcasts",
     "true crime podcasts"),
    ("i love studio ghibli movies sm, recommend something similar?", "likes:studio_ghibli_movies",
     "studio ghibli movies"),
    ("ngl i hate cilantro it tastes like soap so pls leave it out", "dislikes:cilantro", "cilantro"),
    ("my goal is to run a marathon by 2027", "goal:run_a_marathon", "run a marathon"),
    ("Could you hang on to this: I'm a huge Formula 1 fan.", "likes:formula_1", "Formula 1"),
    # when or how much, not what ("since childhood" is no second thing liked)
    ("i enjoy kayaking on weekends, any spots near ottawa?", "hobby:kayaking", "kayaking"),
    ("I like Boca Juniors very much, since childhood", "likes:boca_juniors", "Boca Juniors"),
    ("i hate the traffic in the mornings tbh", "dislikes:traffic", "traffic"),
    # a thing whose name opens "in-" is no "in the mornings"
    ("i love in-line skating on sundays", "likes:in_line_skating", "in-line skating"),
])
def test_a_hedge_or_a_when_is_no_part_of_the_value(text: str, key: str, value: str) -> None:
    found = _found(text)
    assert ("add", "user", key, value) in found
    assert not any(k.startswith("likes:since") for _, _, k, _ in found)


@pytest.mark.parametrize(("text", "key", "value"), [
    ("I'm now a citizen of Germany, got my naturalisation papers.", "nationality", "German"),
    ("I'm an economics major", "education", "Economics"),
    ("I turned eighteen yesterday", "age", "18"),
    ("i'm twenty-five", "age", "25"),
    ("Autumn is my favorite season by a mile.", "favorite:season", "Autumn"),
])
def test_values_and_keys_take_one_spelling(text: str, key: str, value: str) -> None:
    assert ("add", "user", key, value) in _found(text)


@pytest.mark.parametrize(("text", "subject", "key"), [
    ("my brother in law Musa is an imam in Kano", "user", "family:brother_in_law"),
    ("my father in law is a retired pilot", "user's father-in-law", "job"),
])
def test_in_laws_are_not_parents_or_siblings(text: str, subject: str, key: str) -> None:
    assert any(found[1:3] == (subject, key) for found in _found(text))


@pytest.mark.parametrize(("text", "content"), [
    ("i live in Cape Town, best day hikes?", ["i live in Cape Town"]),
    ("my son Amir is 9 and obsessed with dinosaurs, any museum ideas?",
     ["my son Amir is 9 and obsessed with dinosaurs"]),
    ("im a hairdresser and my wrists hurt, stretches?", ["im a hairdresser and my wrists hurt"]),
    # a question about something else, or with no statement before it, is no content
    ("whats the capital of peru, lima?", []),
    ("how do I reset my router?", []),
    ("Can you remember my cat's name? It's Tofu.", ["my cat's name is Tofu."]),
])
def test_the_statement_before_a_question_is_content(text: str, content: list[str]) -> None:
    from memfold.llm.cues import content_sentences

    assert content_sentences(text) == content


def test_a_statement_before_a_question_reaches_the_profile() -> None:
    assert ("add", "user", "location", "Cape Town") in _found("i live in Cape Town, best day hikes?")


@pytest.mark.parametrize(("text", "key", "name"), [
    ("i have a gecko!! his name is gary", "pet:gecko", "Gary"),
    ("we got a kitten!! named her pudding 🐱", "pet:cat", "Pudding"),
    ("got a corn snake!! calling her Marigold", "pet:snake", "Marigold"),
    ("we just adopted a greyhound called Luna, how often should she be walked", "pet:dog", "Luna"),
])
def test_a_pet_named_in_the_next_breath(text: str, key: str, name: str) -> None:
    assert ("add", "user", key, name) in _found(text)


@pytest.mark.parametrize(("text", "subject", "job"), [
    ("I teach yoga.", "user", "yoga teacher"),
    ("I teach at Greenfield Primary.", "user", "teacher"),
    ("I'm not a barista anymore, I manage the café now.", "user", "café manager"),
    ("My uncle Femi owns a restaurant in Peckham.", "Femi", "restaurant owner"),
    ("my dads a taxi driver in lagos", "user's dad", "taxi driver"),
])
def test_a_job_said_as_what_someone_does(text: str, subject: str, job: str) -> None:
    assert ("add", subject, "job", job) in _found(text)


@pytest.mark.parametrize("text", ["I own a car", "I teach my kids to swim"])
def test_owning_a_thing_or_teaching_family_is_no_job(text: str) -> None:
    assert not any(key == "job" for _, _, key, _ in _found(text))


@pytest.mark.parametrize(("text", "content"), [
    ("can u give me gym ideas, im 45 and have a bad knee", ["im 45 and have a bad knee"]),
    ("what should i cook, my wife is vegan", ["my wife is vegan"]),
    ("how are you, im good thanks", []),  # a pleasantry, not a statement of fact
    # the "I" dropped before what happened to the speaker's body or things
    ("can u suggest some low impact cardio, tore my acl last year and its still dodgy",
     ["tore my acl last year and its still dodgy"]),
])
def test_a_statement_after_a_request_is_content(text: str, content: list[str]) -> None:
    from memfold.llm.cues import content_sentences

    assert content_sentences(text) == content


@pytest.mark.parametrize(("text", "subject", "key"), [
    ("My dad Ahmed has Parkinson's.", "Ahmed", "health:parkinson_s"),
    ("my best friend Obi has sickle cell disease", "Obi", "health:sickle_cell_disease"),
    ("I have high cholesterol", "user", "health:high_cholesterol"),
])
def test_named_conditions_are_health(text: str, subject: str, key: str) -> None:
    assert any(found[1:3] == (subject, key) for found in _found(text))


@pytest.mark.parametrize(("text", "education"), [
    ("I'm a second-year vet student at UCD", "second-year vet student at UCD"),
    ("i'm an electrical engineering student at Universiti Malaya",
     "electrical engineering student at Universiti Malaya"),
])
def test_a_student_at_a_school_is_education_not_a_job(text: str, education: str) -> None:
    found = _found(text)
    assert ("add", "user", "education", education) in found
    assert not any(key in ("job", "employer") for _, _, key, _ in found)


@pytest.mark.parametrize(("text", "partner"), [
    ("my dads girlfriend is pam", ("user's dad", "Pam")),
    ("my sister's boyfriend is called pablo", ("user's sister", "Pablo")),
    ("my brother kofi's girlfriend is ama", ("Kofi", "Ama")),
    ("my girlfriend is Ana", ("user", "Ana")),
])
def test_a_partner_title_belongs_to_whoever_owns_it(text: str, partner: tuple[str, str]) -> None:
    from memfold.llm.tagger import packaged_tagger

    message = Message(msg_id="m1", user_id="u", speaker="user", role="user", text=text, ts=T0)
    facts, _strength = extract_facts(message, tagger=packaged_tagger())
    partners = {(fact.subject, fact.value) for fact in facts if fact.key == "partner"}
    assert partners == {partner}
    statuses = {fact.subject for fact in facts if fact.key == "relationship_status"}
    assert statuses <= {partner[0]}  # the title says the owner's status, never the speaker's for another


@pytest.mark.parametrize(("text", "key", "value"), [
    ("can you call me dani from now on? nobody uses daniel except my mum", "name", "Dani"),
    ("went veggie last month so no meat suggestions pls", "diet", "vegetarian"),
    ("no longer with the nhs, took a job at bupa. private sector ugh", "employer", "Bupa"),
])
def test_casual_changes_are_read(text: str, key: str, value: str) -> None:
    assert ("add", "user", key, value) in _found(text)


def test_asking_to_be_called_back_is_no_name() -> None:
    assert not any(key == "name" for _, _, key, _ in _found("can you call me a taxi? or call me back later?"))


@pytest.mark.parametrize(("text", "fact"), [
    ("I work in HR, recruiting mostly", ("add", "user", "team", "HR")),
    ("i work in the finance department of a hospital", ("add", "user", "team", "finance")),
    ("i work in the msk team as a physio", ("add", "user", "team", "msk")),
    ("my sister Carmen works in accounts payable", ("add", "Carmen", "team", "accounts payable")),
    ("my husband Lars is in the R&D team at Vestas", ("add", "Lars", "team", "R&D")),
    ("I work in retail", ("add", "user", "job", "retail")),
    ("I work in Leeds", ("add", "user", "location", "Leeds")),
])
def test_a_department_is_a_team_not_a_place_or_a_job(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize(("text", "fact"), [
    ("My mentor Dr. Adeyemi runs the oncology department at UCH.", ("add", "user", "family:mentor", "Dr. Adeyemi")),
    ("my boss Mr Okafor is nigerian and loves golf", ("add", "Mr Okafor", "nationality", "Nigerian")),
    ("my brother in law kenji is a sushi chef in osaka", ("add", "user", "family:brother_in_law", "Kenji")),
    ("my step dad Gareth is a welsh speaker", ("add", "user", "family:stepdad", "Gareth")),
    ("my stepmother Ruth is a nurse", ("add", "user", "family:stepmom", "Ruth")),
    ("My mum is 68 and has type 2 diabetes", ("add", "user's mom", "age", "68")),
])
def test_a_relative_is_named_with_their_title_and_keyed_by_one_spelling(
        text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "fact", "not_fact"), [
    ("my ex wife and i share custody of our daughter maya, shes 6", ("add", "Maya", "age", "6"),
     ("add", "user", "age", "6")),
    ("this is my daughters account, shes 9 and her name is Freya", ("add", "Freya", "age", "9"),
     ("add", "user", "age", "9")),
    ("my cat Mochi is 14 and has kidney disease", ("add", "Mochi", "age", "14"),
     ("add", "Mochi", "description", "14")),
    ("my dog Taco is a 4 year old chihuahua mix", ("add", "Taco", "age", "4"), ("add", "user", "age", "4")),
])
def test_an_age_said_of_she_or_he_belongs_to_the_one_named(text: str, fact: tuple[str, ...],
                                                            not_fact: tuple[str, ...]) -> None:
    found = _tagged(text)
    assert fact in found and not_fact not in found


def test_an_age_of_she_stays_unassigned_when_two_people_are_named() -> None:
    found = _tagged("my son Leo and my daughter Ana, shes 6, love the beach")
    assert not {f for f in found if f[2] == "age" and f[1] in ("user", "Leo")}


@pytest.mark.parametrize(("text", "fact"), [
    ("im a stay at home dad with twins", ("add", "user", "job", "stay at home dad")),
    ("i work as a nanny for two lil boys", ("add", "user", "job", "nanny")),
    ("I am a 58-year-old long-distance lorry driver", ("add", "user", "job", "long-distance lorry driver")),
    ("im from Lagos originally but i live in Manchester", ("add", "user", "hometown", "Lagos")),
    ("I no longer live in Dhaka, I've settled in Chittagong near my in-laws.",
     ("add", "user", "location", "Chittagong")),
    ("we moved out of the city, living in a village near Ghent now", ("add", "user", "location", "village near Ghent")),
    ("Not pulling shots anymore, they made me café manager.", ("add", "user", "job", "café manager")),
])
def test_a_value_is_the_thing_said_not_its_surroundings(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "fact"), [
    ("I can read music.", ("add", "user", "skill:read_music", "read music")),
    ("not to brag but i can solve a rubiks cube in under a minute",
     ("add", "user", "skill:solve_a_rubiks_cube", "solve a rubiks cube")),
    ("ok fun fact i can juggle", ("add", "user", "skill:juggling", "juggling")),
    ("i can swim", ("add", "user", "skill:swimming", "swimming")),
    ("I can speak French", ("add", "user", "skill:french", "French")),
])
def test_a_skill_said_with_can_is_the_verb_with_its_object_or_the_activity(
        text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("verb", "activity"), [
    ("juggle", "juggling"), ("swim", "swimming"), ("knit", "knitting"), ("sew", "sewing"),
    ("ski", "skiing"), ("see", "seeing"), ("visit", "visiting"), ("draw", "drawing"), ("running", "running"),
])
def test_the_activity_of_a_verb(verb: str, activity: str) -> None:
    assert gerund(verb) == activity


@pytest.mark.parametrize(("text", "fact"), [
    ("we adopted a new pup, her name is kiwi", ("add", "user", "pet:dog", "Kiwi")),
    ("he proposed on the beach and i said yes 💍", ("add", "user", "relationship_status", "engaged")),
])
def test_news_said_in_passing_is_read(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


def test_someone_elses_proposal_is_not_the_speakers_engagement() -> None:
    assert not {f for f in _tagged("my brother finally proposed to his girlfriend") if f[2] == "relationship_status"}


@pytest.mark.parametrize(("text", "fact"), [
    ("i'm doing a phd in neuroscience", ("add", "user", "education", "Phd in Neuroscience")),
    ("Pls remember i'm doing my master's in economics at LSE.",
     ("add", "user", "education", "master's in economics at LSE")),
    ("im 19 and i study law at kings", ("add", "user", "education", "Law at Kings")),
    ("i study psychology at uni of cape town, 2nd year", ("add", "user", "education", "Psychology at Uni of Cape Town")),
])
def test_a_course_keeps_its_degree_and_its_school(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["I study at night", "i study law at uni"])
def test_when_or_where_one_studies_is_no_school(text: str) -> None:
    assert not {f for f in _found(text) if f[2] == "education" and " at " in f[3].lower()}


@pytest.mark.parametrize(("text", "fact"), [
    ("hi im mohammed", ("add", "user", "name", "Mohammed")),
    ("hey its Chris", ("add", "user", "name", "Chris")),
    ("I live in Portland, Maine.", ("add", "user", "location", "Portland, Maine")),
    ("I'm from Lagos, Nigeria and I love jollof", ("add", "user", "hometown", "Lagos, Nigeria")),
    ("seeing someone, early days", ("add", "user", "relationship_status", "dating")),
    ("taken, happily in a relationship", ("add", "user", "relationship_status", "dating")),
    ("my ex kept Luna, but I have a new pup, Bolt", ("add", "user", "pet:dog", "Bolt")),
])
def test_short_everyday_statements(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["hi im back", "hey its me", "hi its monday", "hey its raining", "hi im tired",
                                  "I live in Leeds, I love it"])
def test_a_greeting_or_a_clause_after_a_comma_names_nobody_and_no_region(text: str) -> None:
    assert not {f for f in _found(text) if f[2] == "name" or ", " in f[3]}


def test_where_someone_studies_is_their_school() -> None:
    assert ("add", "Kenji", "education", "Osaka University") in _found("my nephew Kenji studies at Osaka University")


@pytest.mark.parametrize(("text", "fact"), [
    ("my therapist is Dr. Mensah", ("add", "user", "family:therapist", "Dr. Mensah")),
    ("my GP is Dr Lindqvist", ("add", "user", "family:doctor", "Dr Lindqvist")),
])
def test_a_professional_in_ones_life_is_named_with_their_title(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize(("text", "people", "place"), [
    ("my girlfriend Anjali and i both live in bangalore", ("Anjali", "user"), "Bangalore"),
    ("my mother in law, Grace, lives with us in Harare", ("Grace", "user"), "Harare"),
    ("my mom has alzheimers and lives with us in Pune now", ("user's mom", "user"), "Pune"),
])
def test_a_home_said_to_be_shared_is_both_peoples(text: str, people: tuple[str, str], place: str) -> None:
    homes = {(s, v.lower()) for _a, s, k, v in _tagged(text) if k == "location"}
    assert {(person, place.lower()) for person in people} <= homes


def test_a_home_is_not_shared_with_someone_who_lives_elsewhere() -> None:
    homes = {(s, v) for _a, s, k, v in _tagged("my sister lives in Leeds and we moved to York") if k == "location"}
    assert homes == {("user's sister", "Leeds"), ("user", "York")}


@pytest.mark.parametrize(("text", "place"), [
    ("I'm a data analyst at a hospital network in Phoenix.", "Phoenix"),
    ("I work at Google in London", "London"),
    ("im a nurse in surgery", None),
    ("im an engineer in the oil industry", None),
    ("I work at Google in marketing", None),
])
def test_the_town_after_a_workplace_is_where_one_lives(text: str, place: str | None) -> None:
    found = {v for _a, s, k, v in _found(text) if s == "user" and k == "location"}
    assert found == ({place} if place else set())


@pytest.mark.parametrize(("text", "diet"), [
    ("I don't eat meat or fish, but eggs and dairy are fine", "vegetarian"),
    ("i cant eat gluten, what pasta brands are decent", "gluten-free"),
    ("Dairy free btw.", "dairy-free"),
    ("no dairy for me, it makes me feel awful", "dairy-free"),
])
def test_a_diet_said_as_the_food_left_out_is_the_diet(text: str, diet: str) -> None:
    assert ("add", "user", "diet", diet) in _tagged(text)


@pytest.mark.parametrize(("text", "key", "value"), [
    ("I'm lactose intolerant.", "health:lactose_intolerance", "lactose intolerant"),
    ("My mother-in-law Bernadette is diabetic.", "health:diabetes", "diabetic"),
    ("I have type 2 diabetes", "health:type_2_diabetes", "type 2 diabetes"),
])
def test_a_condition_keeps_its_words_under_one_key(text: str, key: str, value: str) -> None:
    assert {(k, v) for _a, _s, k, v in _found(text) if k.startswith("health")} == {(key, value)}
    assert not {k for _a, _s, k, _v in _found(text) if k == "diet"}


@pytest.mark.parametrize(("text", "fact"), [
    ("my sister camila is a nurse", ("add", "user", "family:sister", "Camila")),
    ("my brother tom works at tesco", ("add", "user", "family:brother", "Tom")),
    ("my best friend ravi loves cricket", ("add", "user", "family:best_friend", "Ravi")),
])
def test_a_relative_named_in_lowercase_is_named(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["my sister always says im lazy", "my dad just retired",
                                  "this is my daughters account, shes 9"])
def test_a_word_after_a_relation_is_not_taken_for_a_name(text: str) -> None:
    assert not {f for f in _found(text) if f[2].startswith("family:") or f[2].startswith("child:")}


@pytest.mark.parametrize(("text", "fact"), [
    ("Indian passport holder here, do i need a visa", ("add", "user", "nationality", "Indian")),
    ("im a barista at Pret near liverpool st", ("add", "user", "employer", "Pret")),
    ("I just turned 45 on March 9 and want to learn to swim", ("add", "user", "birthday", "March 9")),
    ("My mom Carmen turns 60 on october 12, plan a party", ("add", "Carmen", "birthday", "October 12")),
    ("im a libra, oct 5", ("add", "user", "birthday", "October 5")),
    ("i have a bearded dragon called Spike", ("add", "user", "pet:bearded_dragon", "Spike")),
    ("my guinea pig Toast is losing weight", ("add", "user", "pet:guinea_pig", "Toast")),
    ("my dads big hobby is golf", ("add", "user's dad", "hobby:golf", "golf")),
    ("can u remember my grandmas name is teresa? shes 90", ("add", "user", "family:grandma", "Teresa")),
])
def test_more_everyday_statements(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize("text", ["professional overthinker here", "I turn in my thesis on Friday",
                                  "im a cancer survivor, 5 years clear"])
def test_no_job_or_birthday_in_a_turn_of_phrase(text: str) -> None:
    assert not {f for f in _tagged(text) if f[2] in ("job", "birthday")}


@pytest.mark.parametrize(("text", "fact"), [
    ("i'm a cyclist, road bike mostly", ("add", "user", "hobby:cycling", "cycling")),
    ("Note it: I'm a morning runner.", ("add", "user", "hobby:running", "running")),
    ("I collect vinyl records.", ("add", "user", "hobby:collecting_vinyl_records", "collecting vinyl records")),
    ("I'm a professional cyclist for Team Sky", ("add", "user", "job", "professional cyclist")),
])
def test_one_who_does_a_pastime_has_it_as_a_hobby(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "key"), [
    ("I speak fluent Mandarin.", "skill:mandarin"),
    ("fwiw i speak german", "skill:german"),
    ("i speak german natively but my english is ok", "language"),
    ("I mostly speak Cantonese", "language"),
])
def test_a_language_spoken_is_a_skill_unless_it_is_the_main_one(text: str, key: str) -> None:
    assert key in {k for _a, _s, k, _v in _tagged(text)}


@pytest.mark.parametrize(("text", "children"), [
    ("My kids are Leo and Ava.", {"Leo", "Ava"}),
    ("my twins Ruby and Rose are 11, what phone rules should we set", {"Ruby", "Rose"}),
    ("we're a family of four, me, my husband Pedro and our boys Lucas and Gabriel", {"Lucas", "Gabriel"}),
])
def test_children_named_together_are_each_a_child(text: str, children: set[str]) -> None:
    assert {v for _a, s, k, v in _tagged(text) if s == "user" and k.startswith("child:")} == children


def test_a_twin_named_alone_is_a_sibling() -> None:
    assert ("add", "user", "family:twin", "Luca") in _tagged("my twin Luca lives in Turin")


@pytest.mark.parametrize(("text", "fact"), [
    ("wait i got it wrong, mum's birthday is march 4 not the 14th", ("add", "user's mom", "birthday", "March 4")),
    ("dad finally got a new job, hes a bus driver now", ("add", "user's dad", "job", "bus driver")),
    ("mums car is a little fiat 500 now", ("add", "user's mom", "possession:car", "fiat 500")),
    ("bro-in-law is a firefighter now", ("add", "user's brother-in-law", "job", "firefighter")),
])
def test_a_parent_or_elder_said_without_my_is_the_speakers(text: str, fact: tuple[str, str, str, str]) -> None:
    found = _tagged(text)
    assert fact in found
    assert not any(key == "age" for _, _, key, _ in found)  # "fiat 500" is no age


@pytest.mark.parametrize("text", ["Mom, can you help me with this email", "Mum of three: Ada (9) and Ebuka (6)"])
def test_a_parent_addressed_or_described_is_no_job_and_no_relative(text: str) -> None:
    assert not {f for f in _tagged(text) if f[2] in ("job", "family:mom")}


@pytest.mark.parametrize(("text", "fact"), [
    ("were engaged, wedding next year", ("add", "user", "relationship_status", "engaged")),
    ("our main language at home is english", ("add", "user", "language", "English")),
    ("my husband Kwame is in the marketing dept at his firm", ("add", "Kwame", "team", "marketing")),
    ("my sister olga's birthday is 4 june", ("add", "Olga", "birthday", "June 4")),
    ("my husbands called dave", ("add", "user", "relationship_status", "married")),
    ("im no longer on the mobile team, moved to platform", ("add", "user", "team", "platform")),
    ("I'm back to eating meat", ("add", "user", "diet", "omnivore")),
    ("my roommate is back to eating meat, she said she felt weak", ("add", "user's roommate", "diet", "omnivore")),
])
def test_everyday_changes_and_statements(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "unwanted"), [
    ("our main language at home is english", "location"),
    ("I'm a PhD student in physics at ETH Zürich", "location"),
    ("my mom is based in Leeds", "trait"),
    ("my dad is originally from Cork", "trait"),
])
def test_no_place_or_bare_trait_read_from_a_phrase(text: str, unwanted: str) -> None:
    assert not {f for f in _tagged(text) if f[2].split(":")[0] == unwanted}


@pytest.mark.parametrize(("text", "things"), [
    ("i hate olives, anchovies and capers", {"dislikes:olives", "dislikes:anchovies", "dislikes:capers"}),
    ("i really dont like coriander or mushrooms, swap them out in this recipe?",
     {"dislikes:coriander", "dislikes:mushrooms"}),
    ("im allergic to peanuts and shellfish", {"allergy:peanuts", "allergy:shellfish"}),
    ("I love hiking and reading", {"hobby:hiking", "hobby:reading"}),
])
def test_each_thing_of_a_list_is_its_own_value(text: str, things: set[str]) -> None:
    assert things <= {key for _a, _s, key, _v in _tagged(text)}


@pytest.mark.parametrize(("text", "unwanted"), [
    ("It turned out I'm allergic to peanuts, not almonds.", "allergy:not_almonds"),
    ("Turns out I'm not allergic to shellfish, just crab.", "allergy:just_crab"),
    ("I love jazz and my wife loves rock", "likes:my_wife"),
])
def test_a_list_ends_where_a_correction_or_another_clause_begins(text: str, unwanted: str) -> None:
    assert unwanted not in {key for _a, _s, key, _v in _tagged(text)}


@pytest.mark.parametrize(("text", "pet"), [
    ("my pug otis snores louder than my dad lol", ("add", "user", "pet:dog", "Otis")),
    ("need a groomer for my cockapoo teddy, hes sooo fluffy", ("add", "user", "pet:dog", "Teddy")),
])
def test_a_pet_named_in_lowercase(text: str, pet: tuple[str, str, str, str]) -> None:
    assert pet in _tagged(text)  # a pug or a cockapoo is a dog (the key is the kind of animal)


@pytest.mark.parametrize("text", ["my dog walker says hes great", "my cat food costs a fortune",
                                  "my lab partner is great"])
def test_a_word_after_a_pet_kind_is_no_name_when_it_is_a_thing(text: str) -> None:
    assert not {f for f in _tagged(text) if f[2].startswith("pet:")}


@pytest.mark.parametrize(("text", "job"), [
    ("im freelancing as a copywriter now", "freelance copywriter"),
    ("I freelance as a translator", "freelance translator"),
    ("my husband is a retired postman", "retired postman"),
])
def test_freelance_and_man_named_jobs(text: str, job: str) -> None:
    assert job in {v for _a, _s, k, v in _tagged(text) if k == "job"}


@pytest.mark.parametrize(("text", "skills", "unwanted"), [
    ("i know basic excel", {"skill:excel"}, "skill:basic"),
    ("I know basic Excel and some SQL", {"skill:excel", "skill:sql"}, "skill:some"),
])
def test_a_level_word_is_not_the_skill(text: str, skills: set[str], unwanted: str) -> None:
    keys = {key for _a, _s, key, _v in _tagged(text)}
    assert skills <= keys and unwanted not in keys


def test_a_thing_known_is_no_skill_when_it_is_people() -> None:
    assert not {k for _a, _s, k, _v in _tagged("I know some people there") if k.startswith("skill:")}


@pytest.mark.parametrize(("text", "fact"), [
    ("I'm at Google", ("add", "user", "employer", "Google")),
    ("im at google now", ("add", "user", "employer", "Google")),
    ("I'm in Leeds these days", ("add", "user", "location", "Leeds")),
    ("im in customer support", ("add", "user", "team", "customer support")),
])
def test_i_am_at_or_in_a_name_is_an_employer_or_a_place(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["im at the gym", "I'm with my mum", "im in bed lol", "im in the car",
                                  "im at work lol", "im at the gym now"])
def test_where_someone_is_this_minute_is_no_employer_or_place(text: str) -> None:
    assert not {key for _, _, key, _ in _found(text) if key in ("employer", "location")}


@pytest.mark.parametrize(("text", "fact"), [
    ("my sister Maria's daughter is Sofia", ("add", "Maria", "child:sofia", "Sofia")),
    ("my wife's boss is Linda", ("add", "user's wife", "family:boss", "Linda")),
    ("my son Tomas's roommate is Connor", ("add", "Tomas", "family:roommate", "Connor")),
    ("my cousin Bongani's daughter is Lerato", ("add", "Bongani", "child:lerato", "Lerato")),
    ("my sisters boss is awful, some guy called derek", ("add", "user's sister", "family:boss", "Derek")),
    ("my daughters guinea pig is called popcorn", ("add", "user's daughter", "pet:guinea_pig", "Popcorn")),
])
def test_a_relatives_relation_or_pet_is_theirs(text: str, fact: tuple[str, str, str, str]) -> None:
    found = _tagged(text)
    assert fact in found
    _, _, key, value = fact
    assert ("add", "user", key, value) not in found  # not the speaker's own


@pytest.mark.parametrize(("text", "fact"), [
    ("my sister is Maria", ("add", "user", "family:sister", "Maria")),
    ("my wife is Ana and my son is Leo", ("add", "user", "child:leo", "Leo")),
    ("our bearded dragon is Spike", ("add", "user", "pet:bearded_dragon", "Spike")),
])
def test_the_speakers_own_relations_stay_theirs(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "fact"), [
    ("my pup is Luna", ("add", "user", "pet:dog", "Luna")),
    ("our bunny is Clover.", ("add", "user", "pet:rabbit", "Clover")),
])
def test_a_pet_named_after_is(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["my cat is Siamese", "my cat is Persian, very fluffy"])
def test_a_breed_or_demonym_after_is_is_no_pets_name(text: str) -> None:
    assert not {key for _, _, key, _ in _found(text) if key.startswith("pet:")}


@pytest.mark.parametrize(("text", "fact"), [
    ("my 89 year old grandma just got an ipad", ("add", "user's grandma", "age", "89")),
    ("my 12-year-old daughter Mia wants a phone", ("add", "Mia", "age", "12")),
    ("my 5yo son loves trains", ("add", "user's son", "age", "5")),
])
def test_the_age_before_a_relation_is_the_relatives(text: str, fact: tuple[str, str, str, str]) -> None:
    found = _tagged(text)
    assert fact in found
    assert not {value for _, subject, key, value in found if subject == "user" and key == "age"}


def test_an_unnamed_child_said_by_age_is_the_speakers_child() -> None:
    found = _tagged("my 8yo loves lego")
    assert ("add", "user's child", "likes:lego", "lego") in found


@pytest.mark.parametrize(("text", "fact"), [
    ("my team lead is geoff", ("add", "user", "family:team_lead", "Geoff")),
    ("my personal trainer is luca", ("add", "user", "family:trainer", "Luca")),
    ("my work buddy is luis, we get lunch every day", ("add", "user", "family:coworker", "Luis")),
])
def test_a_relation_said_in_two_words_keeps_both(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "fact"), [
    ("can you suggest a gift for my wife Lena, she loves pottery", ("add", "Lena", "likes:pottery", "pottery")),
    ("write a birthday card for my dad, hes turning 70", ("add", "user's dad", "age", "70")),
    ("help me pick a bike for my son, he's 8 and loves BMX", ("add", "user's son", "age", "8")),
])
def test_she_or_he_after_a_request_is_the_one_person_it_names(text: str, fact: tuple[str, str, str, str]) -> None:
    found = _found(text)
    assert fact in found
    assert not {value for _, subject, key, value in found if subject == "user" and key == "age"}


def test_she_or_he_after_a_request_naming_two_people_is_nobody_guessed() -> None:
    found = _found("write a card for my dad and my uncle, he is turning 70")
    assert not {subject for _, subject, key, _ in found if key == "age"}


@pytest.mark.parametrize(("text", "fact"), [
    ("met my new neighbour Rosa today. shes a retired teacher", ("add", "Rosa", "job", "retired teacher")),
    ("my dad is 70. he loves golf", ("add", "user's dad", "likes:golf", "golf")),
    ("my sister Ana lives in Oslo. she works as a nurse there", ("add", "Ana", "job", "nurse")),
])
def test_she_or_he_after_a_sentence_naming_one_person_is_that_person(text: str,
                                                                     fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


def test_she_or_he_after_a_sentence_naming_two_people_is_nobody_guessed() -> None:
    found = _tagged("my mum and my dad visited. she is a retired teacher")
    assert not {subject for _, subject, key, _ in found if key == "job"}


def test_she_or_he_after_a_sentence_with_another_name_is_not_rewritten() -> None:
    found = _tagged("my kid goes by Rowan now, not Rose. he's trans and we're fully behind him")
    assert ("add", "Rowan", "identity", "trans") in found
    assert not {subject for _, subject, key, _ in found if key == "identity" and subject != "Rowan"}


@pytest.mark.parametrize(("text", "fact"), [
    ("my aunt married dominic in june", ("add", "user's aunt", "partner", "Dominic")),
    ("my cousin has a new boss, some woman called Harriet", ("add", "user's cousin", "family:boss", "Harriet")),
    ("my daughter and her boyfriend Max came over", ("add", "user's daughter", "partner", "Max")),
    ("uncle finally got a new car!! a toyota prius", ("add", "user's uncle", "possession:car", "toyota prius")),
    ("spanish is my daughters main language now", ("add", "user's daughter", "language", "Spanish")),
])
def test_a_name_or_thing_in_a_clause_about_a_relative_is_the_relatives(
        text: str, fact: tuple[str, str, str, str]) -> None:
    """The relative the clause opens with (or the fragment after it, or the one whose thing
    the value is said to be) owns what it says, though the tagger marked no subject."""
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "fact"), [
    ("my kids are Tomas, 6, and Inez, 3", ("add", "user", "child:inez", "Inez")),
    ("my girlfriend is called Yuki", ("add", "user", "partner", "Yuki")),
    ("my mother tongue is Urdu", ("add", "user", "language", "Urdu")),
])
def test_a_clause_opening_with_the_relation_itself_stays_the_speakers(
        text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


def test_a_status_that_happened_beats_the_partners_title() -> None:
    found = _tagged("Karim got engaged to his girlfriend Yasmine last weekend")
    assert ("add", "Karim", "relationship_status", "engaged") in found
    assert not any(key == "relationship_status" and value == "dating" for _, _, key, value in found)


@pytest.mark.parametrize(("text", "fact"), [
    ("the move to leeds went fine, the cat hated the car", ("add", "user", "location", "Leeds")),
    ("the new flat in porto is tiny but the light is amazing", ("add", "user", "location", "Porto")),
    ("new favourite podcast: radiolab, binged a whole season this weekend",
     ("add", "user", "favorite:podcast", "radiolab")),
    ("loud restaurants are fine, what i really dislike now is small talk",
     ("add", "user", "dislikes:small_talk", "small talk")),
])
def test_a_home_a_favourite_field_and_a_cleft_dislike_are_read(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize(("text", "fact"), [
    ("cant stomach reality tv anymore, documentaries only now", ("add", "user", "dislikes:reality_tv", "reality tv")),
    ("cant stomach reality tv anymore, documentaries only now", ("add", "user", "likes:documentaries", "documentaries")),
    ("honestly its all jazz for me these days", ("add", "user", "likes:jazz", "jazz")),
    ("i'm in a salsa class on thursdays", ("add", "user", "hobby:salsa", "salsa")),
    ("My best friend these days is Tomasz from the climbing gym", ("add", "user", "family:best_friend", "Tomasz")),
])
def test_casual_likes_dislikes_classes_and_roles(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["i'm in the same class as her", "i'm in a french class", "i cant do this anymore"])
def test_a_school_class_or_a_complaint_is_no_hobby_or_dislike(text: str) -> None:
    assert not {key for _, _, key, _ in _found(text)} & {"hobby", "dislikes"}
    assert not any(key.startswith(("hobby:", "dislikes:")) for _, _, key, _ in _found(text))


def test_a_job_said_to_be_different_is_no_job_title() -> None:
    found = _found("My job is different now, I'm a sous chef at a bistro.")
    assert ("add", "user", "job", "sous chef") in found
    assert not any(key == "job" and value == "different" for _, _, key, value in found)


def test_not_with_someone_anymore_is_single() -> None:
    assert ("add", "user", "relationship_status", "single") in _found("I'm not with Marco anymore.")


@pytest.mark.parametrize(("text", "status"), [
    ("met someone!! three dates so far", "dating"),
    ("its over with the guy from the gym. back on the apps", "single"),
    ("Tom and I split up in the spring, and I've been seeing Priya for a few weeks", "dating"),
])
def test_the_speakers_status_from_everyday_news(text: str, status: str) -> None:
    assert ("add", "user", "relationship_status", status) in _found(text)


def test_someone_the_speaker_has_been_seeing_is_their_partner_not_a_hobby() -> None:
    found = _found("Tom and I split up in the spring, and I've been seeing Priya for a few weeks")
    assert ("add", "user", "partner", "Priya") in found
    assert not any(key.startswith("hobby") for _, _, key, _ in found)


@pytest.mark.parametrize(("text", "fact"), [
    ("my girlfriend is called maeve and her birthday is june 30, dont let me forget",
     ("add", "Maeve", "birthday", "June 30")),
    ("my mum was born in 1960 on may 14, what do i get her for it", ("add", "user's mom", "birthday", "May 14")),
])
def test_a_birthday_said_of_the_relative_the_message_names_is_theirs(
        text: str, fact: tuple[str, str, str, str]) -> None:
    found = _tagged(text)
    assert fact in found
    assert not any(subject == "user" and key == "birthday" for _, subject, key, _ in found)


@pytest.mark.parametrize(("text", "shared"), [
    ("me n my wife are both teachers in Kraków", [("user", "location", "Kraków"), ("user's wife", "location", "Kraków")]),
    ("my mums 70 and my dads 74, both in Kerala",
     [("user's mom", "location", "Kerala"), ("user's dad", "location", "Kerala")]),
    ("Dev and I are both vegetarian, but he eats eggs and I don't", [("user", "diet", "vegetarian"),
                                                                     ("Dev", "diet", "vegetarian")]),
    ("my dads name is gerhard and my moms name is ilse, they live in graz",
     [("Gerhard", "location", "Graz"), ("Ilse", "location", "Graz")]),
    ("my partner jess is gluten-free and we both love hiking, so suggest trails", [("user", "hobby:hiking", "hiking"),
                                                                ("Jess", "hobby:hiking", "hiking")]),
])
def test_what_two_people_both_are_is_each_ones(text: str, shared: list[tuple[str, str, str]]) -> None:
    found = {fact[1:] for fact in _tagged(text)}
    assert set(shared) <= found


@pytest.mark.parametrize(("text", "alone"), [
    ("my cousin Bongani and I both work at Discovery, he's in actuarial and I'm in marketing",
     ("Bongani", "team", "marketing")),
    ("my brother and I are both from Lagos, i live in Leeds", ("user's brother", "location", "Leeds")),
])
def test_what_one_of_them_is_after_both_stays_theirs(text: str, alone: tuple[str, str, str]) -> None:
    found = {fact[1:] for fact in _tagged(text)}
    assert alone not in found
    assert any(fact[0] == alone[0] for fact in found)  # the other person was read


@pytest.mark.parametrize(("text", "fact"), [
    ("my son Ravis favourite dinosaur is the t rex", ("add", "Ravi", "favorite:dinosaur", "t rex")),
    ("my wife Nadias boss is Henrik", ("add", "Nadia", "family:boss", "Henrik")),
    # when it is due is said beside the goal, no part of it (as "hoping to ... by next year")
    ("learning javascript rn, goal is to get a dev job by next summer", ("add", "user", "goal:get_a_dev_job",
                                                                        "get a dev job")),
    ("hoping to get my cpa license by next year", ("add", "user", "goal:get_my_cpa_license", "get my cpa license")),
    ("keto since january, down 8kg 💪", ("add", "user", "diet", "keto")),
    ("plant based since 2020", ("add", "user", "diet", "vegan")),
    ("got a golden retriever named biscuit 🐶", ("add", "user", "pet:dog", "Biscuit")),
    ("i have a black lab called shadow and a tabby called pumpkin", ("add", "user", "pet:cat", "Pumpkin")),
    ("back in wellington for good, auckland traffic broke me", ("add", "user", "location", "Wellington")),
    ("new address is in sheffield since the weekend", ("add", "user", "location", "Sheffield")),
    ("ethan is history lol. new guy is malik and hes so much nicer", ("add", "user", "partner", "Malik")),
    ("my nan lives in blackpool", ("add", "user's grandma", "location", "Blackpool")),
])
def test_subject_dropped_and_casual_statements(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize("text", [
    "my friend Chris birthday is may 3", "my son Marcus favourite is lego",
])
def test_a_name_of_its_own_ending_in_s_keeps_it(text: str) -> None:
    assert not any(subject in ("Chri", "Marcu") for _, subject, _, _ in _found(text))


@pytest.mark.parametrize("text", [
    "trying to find a good recipe for dinner", "new guy is great",
    "back in 2015 i lived in rome", "im back in london next week", "vegan only pls, what can i cook",
])
def test_a_task_a_past_or_a_trip_is_no_goal_partner_or_home(text: str) -> None:
    assert not any(key in ("goal", "partner", "location", "diet") or key.startswith("goal:")
                   for _, _, key, _ in _found(text))


@pytest.mark.parametrize(("text", "home"), [
    ("im a middle school principal in kingston, jamaica", "Kingston, Jamaica"),
    ("4th grade teacher in columbus ohio here", "Columbus Ohio"),
    ("i live in paris and love it", "Paris"),
])
def test_a_home_keeps_the_state_or_country_said_with_it(text: str, home: str) -> None:
    homes = [value.replace(",", "") for _, subject, key, value in _tagged(text) if (subject, key) == ("user", "location")]
    assert homes == [home.replace(",", "")]


@pytest.mark.parametrize(("text", "subject", "home"), [
    ("my son oren moved to tel aviv for his new job", "Oren", "Tel Aviv"),
    ("i moved to buenos aires last year", "user", "Buenos Aires"),
    ("i live in leeds now", "user", "Leeds"),
    ("i live in paris with my wife", "user", "Paris"),
])
def test_a_two_word_place_said_lower_case_is_read_whole(text: str, subject: str, home: str) -> None:
    homes = {value for _, who, key, value in _tagged(text) if (who, key) == (subject, "location")}
    assert homes == {home}


def test_making_it_official_is_dating() -> None:
    assert ("add", "user", "relationship_status", "dating") in _found("we made it official last night 😳")


@pytest.mark.parametrize(("text", "fact"), [
    ("my fiancé hugo is great. oh and hes pescatarian", ("add", "Hugo", "diet", "pescatarian")),
    ("my boss is a nightmare. her names gwen, shes head of sales", ("add", "user", "family:boss", "Gwen")),
    ("my boss is a nightmare. her names gwen, shes head of sales", ("add", "Gwen", "job", "head of sales")),
    ("im brazilian, living in lisbon with my sister carol", ("add", "Carol", "location", "Lisbon")),
    ("i only eat halal, what can i order at a korean bbq place", ("add", "user", "diet", "halal")),
    ("me and my girlfriend priyanka just got engaged!!! 💍", ("add", "user", "relationship_status", "engaged")),
    ("graduated from sciences po in 2019 and now im a policy analyst", ("add", "user", "education", "Sciences Po")),
    ("im tomasz btw, and my birthday is 11 november in case that ever matters lol",
     ("add", "user", "birthday", "November 11")),
])
def test_pronouns_after_interjections_names_of_relatives_and_everyday_lines(
        text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


def test_a_clause_opening_in_case_is_still_a_hypothetical() -> None:
    assert not any(key == "location" for _, _, key, _ in _found("in case i move to berlin, what visa do i need"))


@pytest.mark.parametrize(("text", "fact"), [
    ("my mate kev is a plumber so ill just ask him", ("add", "user", "family:friend", "Kev")),
    ("my father in law tomás is a retired army general", ("add", "user", "family:father_in_law", "Tomás")),
    ("im not religious at all", ("add", "user", "religion", "not religious")),
    ("my sister Ruth is an evangelical christian", ("add", "Ruth", "religion", "evangelical christian")),
    ("im a high school senior", ("add", "user", "education", "high school senior")),
])
def test_relations_by_the_word_said_and_values_said_whole(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in {(a, s, k, v.lower() if k in ("religion", "education") else v) for a, s, k, v in _tagged(text)}


def test_a_boyfriend_is_still_a_partner() -> None:
    assert ("add", "user", "partner", "Kev") in _tagged("my boyfriend kev is a plumber")


@pytest.mark.parametrize(("text", "fact"), [
    ("im korean american, born in LA, live in seattle now", ("add", "user", "hometown", "LA")),
    ("forex trader, self employed, based in lagos", ("add", "user", "location", "Lagos")),
    ("weirdly i went off sushi and now i cant get enough of korean bbq", ("add", "user", "likes:korean_bbq",
                                                                          "korean bbq")),
])
def test_clauses_of_a_self_description_and_a_craving(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "fact"), [
    ("my dog luna has hip dysplasia, what exercises are safe for her?",
     ("add", "Luna", "health:hip_dysplasia", "hip dysplasia")),
    ("use grams not cups pls, im in the uk", ("add", "user", "location", "UK")),
    ("bilingual household: im french, my husbands american", ("add", "user's husband", "nationality", "American")),
])
def test_a_pets_condition_a_country_lived_in_and_a_relatives_nationality(
        text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


def test_the_speakers_own_allergy_beside_a_pet_stays_theirs() -> None:
    assert ("add", "user", "allergy:nuts", "nuts") in _tagged("i have a dog named rex and im allergic to nuts")


@pytest.mark.parametrize(("text", "fact"), [
    ("I drive buses in leeds", ("add", "user", "job", "bus driver")),
    ("I drive for Uber full-time.", ("add", "user", "job", "driver")),
    ("i own two cafes in town", ("add", "user", "job", "cafe owner")),
])
def test_a_job_said_by_what_one_does(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


def test_a_vehicle_driven_for_work_is_no_car_owned() -> None:
    found = _tagged("i drive a taxi")
    assert ("add", "user", "job", "taxi driver") in found
    assert not [f for f in found if f[2].startswith("possession:")]
    assert ("add", "user's sister", "possession:car", "bmw") in _tagged("my sister drives a bmw")


@pytest.mark.parametrize(("text", "fact"), [
    ("my uncle femi owns like 4 restaurants lol, hes the rich one", ("add", "Femi", "job", "restaurant owner")),
    ("my best friend yuki teaches japanese at a high school in osaka", ("add", "Yuki", "job", "japanese teacher")),
    ("my dad drives a taxi", ("add", "user's dad", "job", "taxi driver")),
    ("my mum teaches at a primary school", ("add", "user's mom", "job", "teacher")),
])
def test_a_relatives_job_said_by_what_they_do(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


def test_driving_somewhere_or_teaching_someone_is_no_job() -> None:
    for text in ("my dad drives a taxi to the airport when he travels", "my sister teaches me to knit"):
        assert not [f for f in _tagged(text) if f[2] == "job"], text


def test_a_pets_age_is_not_the_speakers() -> None:
    assert not [f for f in _tagged("my dog is 3 and loves the beach") if f[2] == "age"]
    assert ("add", "user", "age", "34") in _tagged("im 34 and my dog is 3")


@pytest.mark.parametrize(("text", "name"), [
    ("hey, it's Mike here. quick question", "Mike"), ("hi its Priya again", "Priya"), ("hey its mike", "Mike"),
    ("hey its windy here", None), ("hi its me again", None),
])
def test_a_greeting_that_gives_a_name(text: str, name: str | None) -> None:
    names = [f[3] for f in _found(text) if f[2] == "name"]
    assert names == ([name] if name else [])


@pytest.mark.parametrize(("text", "fact"), [
    ("we moved babcia to wrocław so shes closer to my mum", ("add", "user's grandma", "location", "Wrocław")),
    ("we moved my mum into a care home in leeds", ("add", "user's mom", "location", "Leeds")),
    ("we moved house to bristol", ("add", "user", "location", "Bristol")),
])
def test_the_one_moved_lives_there(text: str, fact: tuple[str, str, str, str]) -> None:
    found = _tagged(text)
    assert fact in found
    assert len([f for f in found if f[2] == "location"]) == 1


def test_a_pets_name_is_no_grandparent() -> None:
    assert ("add", "Lola", "age", "3") in _tagged("my dog lola is 3")


def test_a_demonym_said_lower_case_is_a_nationality() -> None:
    found = _tagged("my girlfriend is chilean, she lives in santiago")
    assert ("add", "user's girlfriend", "nationality", "Chilean") in found
    assert not [f for f in found if f[2].startswith("trait")]


def test_a_home_shared_with_an_unnamed_relative_is_theirs_too() -> None:
    found = _tagged("my grandpa lives with us in ipoh")
    assert {("add", "user", "location", "Ipoh"), ("add", "user's grandpa", "location", "Ipoh")} <= found


@pytest.mark.parametrize(("text", "fact"), [
    ("can u find me a decent curry place near me, i live in Manchester, somewhere near the northern quarter ideally",
     ("add", "user", "location", "Manchester")),
    ("I ride a blue Brompton to work most days.", ("add", "user", "possession:bike", "blue Brompton")),
])
def test_a_home_after_a_request_and_a_bike_ridden_to_work(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["recommend a good podcast, i drive a lot", "i drive to work", "i ride everywhere"])
def test_how_much_or_where_one_drives_is_no_vehicle(text: str) -> None:
    assert not [f for f in _found(text) if f[2].startswith("possession:")]


@pytest.mark.parametrize(("text", "fact"), [
    ("i support Brentford now, dont @ me", ("add", "user", "favorite:team", "Brentford")),
    ("I support Manchester United.", ("add", "user", "favorite:team", "Manchester United")),
])
def test_a_team_supported_is_the_favourite_team(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["i support the idea", "i support my wife in everything", "i support remote work"])
def test_support_for_an_idea_or_a_person_is_no_team(text: str) -> None:
    assert not [f for f in _found(text) if f[2].startswith("likes")]


def test_a_relatives_team() -> None:
    found = _tagged("my best mate connor supports celtic and wont shut up about it")
    assert ("add", "Connor", "likes:celtic", "celtic") in found


def test_a_finalised_divorce_says_more_than_single() -> None:
    assert ("add", "user", "relationship_status", "divorced") in _found(
        "divorce got finalised last week. single dad now i guess")


@pytest.mark.parametrize(("text", "fact"), [
    # religions said by the faith's name, and "id" for "I'd"
    ("ive converted to islam, took my shahada last ramadan", ("add", "user", "religion", "Muslim")),
    ("honestly id call myself a quaker now", ("add", "user", "religion", "Quaker")),
    # a partner by "better half", a parent by the family's word, a pet by a cross-breed
    ("my better half dimitri keeps stealing my hoodies", ("add", "user", "partner", "Dimitri")),
    ("my amma only speaks tamil so can you translate this", ("add", "user's mom", "language", "Tamil")),
    ("i have a cavoodle named pickle and shes scared of the vacuum", ("add", "user", "pet:dog", "Pickle")),
    # a pet's or a child's age said before the name
    ("i have a 10 year old tabby named simba", ("add", "Simba", "age", "10")),
    ("i have a 2 yr old called theo and a newborn, isla", ("add", "Theo", "age", "2")),
    # the speaker speaking: "X here" after a greeting, and what is said of their own name
    ("hello po, Rosario here, retired nurse, 67 years old and living in Quezon City",
     ("add", "user", "location", "Quezon City")),
    ("yo its dani, 19, sophomore at UT Austin", ("add", "user", "age", "19")),
    # homes said by how long, by where one settled, by a job's place
    ("I'm Chilean but I've lived in Melbourne since 2019.", ("add", "user", "location", "Melbourne")),
    ("kraków chapter is over, settled in wrocław now, way closer to the office",
     ("add", "user", "location", "Wrocław")),
    ("i am smallholder farmer near Kericho.", ("add", "user", "location", "Kericho")),
    ("Hi, I'm a retired engineer from Bangalore, now settled in Mysore.", ("add", "user", "hometown", "Bangalore")),
    # where one works and in which team
    ("i work at a call centre for vodacom, night shifts", ("add", "user", "employer", "Vodacom")),
    ("im on the data platform team at zalando, how do i explain what we do", ("add", "user", "employer", "Zalando")),
    ("im at accenture in the strategy practice", ("add", "user", "team", "strategy")),
    ("I work in claims at Allianz, boring but stable.", ("add", "user", "team", "claims")),
    # statuses said by what happened
    ("my husband passed 2 years ago and im still not used to cooking for one",
     ("add", "user", "relationship_status", "widowed")),
    ("we did it! tied the knot on saturday", ("add", "user", "relationship_status", "married")),
    ("arnav proposed on the beach in goa and i said yes!!", ("add", "user", "relationship_status", "engaged")),
    # diets said by plural, by "plants only", without the "I", and by the name given last
    ("were the only vegans in the family and xmas dinner is coming", ("add", "user", "diet", "vegan")),
    ("ive stopped eating fish too, plants only from now on", ("add", "user", "diet", "vegan")),
    ("dont eat meat anymore", ("add", "user", "diet", "vegetarian")),
    ("i dont eat meat but fish is fine, pescatarian i guess", ("add", "user", "diet", "pescatarian")),
    # the main language by what one thinks in; a name to be called by
    ("honestly after 20 years in stockholm i think and dream in swedish", ("add", "user", "language", "Swedish")),
    ("actually can you use my full name katarzyna from now on", ("add", "user", "name", "Katarzyna")),
    ("actually use olumide in full, olu feels too casual", ("add", "user", "name", "Olumide")),
])
def test_everyday_phrasings_of_stable_facts(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "fact"), [
    ("irish-nigerian, grew up in cork, now in berlin", ("add", "user", "nationality", "Irish-Nigerian")),
    ("my friend Efua is a ghanaian architect based in accra", ("add", "Efua", "nationality", "Ghanaian")),
    ("my friend Efua is a ghanaian architect based in accra", ("add", "Efua", "job", "architect")),
    ("we got engaged!!! me and tomás. can u help me think of a venue", ("add", "user", "partner", "Tomás")),
    ("my boyfriend hates when i plan things last minute lol, hes an accountant",
     ("add", "user's boyfriend", "job", "accountant")),
    ("Amharic is my mother tongue, english came later", ("add", "user", "language", "Amharic")),
])
def test_who_a_fact_belongs_to_and_what_kind_it_is(text: str, fact: tuple[str, str, str, str]) -> None:
    found = {(action, subject, key, value.casefold()) for action, subject, key, value in _tagged(text)}
    assert (fact[0], fact[1], fact[2], fact[3].casefold()) in found


@pytest.mark.parametrize(("text", "absent"), [
    ("my dream is to visit all 7 continents before im 40", ("user", "age")),  # an age to come
    ("have a 2 yr old and a newborn, how do i get any sleep", ("user", "age")),  # the child's age
    ("we own a small apartment in tbilisi that we rent out", ("user", "location")),  # a property, no home
    ("the grandkids made me a cake shaped like a fish", ("user", "job")),  # no job made
    ("my sister is a french teacher in lyon", ("user's sister", "nationality")),  # teaches French
    ("okafor retired so im seeing dr mensah now", ("user", "partner")),  # a doctor, no date
    ("we have a 6 month old called kofi and a 3 year old called ama", ("Kofi", "age")),  # months will not hold
])
def test_what_is_not_a_fact_of_the_one_it_seems_to_be(text: str, absent: tuple[str, str]) -> None:
    assert absent not in {(subject, key) for _, subject, key, _ in _tagged(text)}


@pytest.mark.parametrize(("text", "fact"), [
    ("i hate cucumber sooo much 🤢 and mom puts it in gimbap", ("add", "user", "dislikes:cucumber", "cucumber")),
    ("my favourite football team is Al Ahly obviously 🦅 help me write a chant",
     ("add", "user", "favorite:team", "Al Ahly")),
])
def test_an_emoji_or_an_intensifier_ends_a_value(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "fact"), [
    ("weekends r for kitesurfing if the wind is right", ("add", "user", "hobby:kitesurfing", "kitesurfing")),
    ("I keep bees, three hives at the bottom of the garden.", ("add", "user", "hobby:bees", "bees")),
    ("i stammer, so phone calls are hard", ("add", "user", "health:stammer", "stammer")),
    ("not a morning person and not a coffee person either", ("add", "user", "dislikes:coffee", "coffee")),
    ("want to pass the JLPT N2 by december, whats the best grammar book",
     ("add", "user", "goal:pass_the_jlpt_n2", "pass the JLPT N2")),
    ("doing a masters in public health at UCT rn and first year is brutal ngl",
     ("add", "user", "education", "masters in public health at UCT")),
    ("the dream is to open a bakery one day, whats the first step", ("add", "user", "goal:open_a_bakery", "open a bakery")),
    # what is said of someone else: the husband's nationality, a relative's diet, "she loves"
    ("Im Peruvian living in Osaka and married to a Japanese guy", ("add", "user's husband", "nationality", "Japanese")),
    ("ive been vegetarian since i was 12 but my husband kenji eats everything", ("add", "Kenji", "diet", "omnivore")),
    ("my mum's birthday is march 22, she loves fado and port wine", ("add", "user's mom", "likes:fado", "fado")),
])
def test_more_everyday_phrasings(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


def test_a_partner_described_is_no_name() -> None:
    found = _tagged("Im Peruvian living in Osaka and married to a Japanese guy")
    assert not any(key == "partner" for _, _, key, _ in found)


def test_id_typed_for_i_would() -> None:
    assert ("add", "user", "religion", "Quaker") in _tagged(
        "been going to quaker meetings for a year and honestly id call myself a quaker now")


def test_a_thing_moved_somewhere_is_no_home() -> None:
    assert not any(key == "location" for _, _, key, _ in _tagged("moved everything to figma, barely open photoshop"))


def test_a_pronoun_beside_me_is_no_partner() -> None:
    assert not any(key == "partner" for _, _, key, _ in _tagged("so me and him got married last year"))


@pytest.mark.parametrize(("text", "fact"), [
    # stop 42: phrasings of people writing English as a second language, and statuses said as jobs
    ("i am working in the evening shift as cook at a Lebanese restaurant", ("add", "user", "job", "cook")),
    ("my brother Tariq works in the warehouse at a supermarket as forklift driver",
     ("add", "Tariq", "job", "forklift driver")),
    ("single dad, work part time as a courier, quick dinners pls", ("add", "user", "job", "courier")),
    ("single dad, work part time as a courier, quick dinners pls", ("add", "user", "relationship_status", "single")),
    ("I am widower since two years, my children live abroad", ("add", "user", "relationship_status", "widowed")),
    ("my friend Robin is non binary, what gift", ("add", "Robin", "identity", "non binary")),
    ("Good morning, I am a civil engineer by profession and I need a cover letter", ("add", "user", "job", "civil engineer")),
    ("my husband name is Farid, he loves dates", ("add", "user", "partner", "Farid")),
    ("please note my date of birth is 2 May 1958", ("add", "user", "birthday", "May 2 1958")),
    ("my son Bilal birthday is 4 june, cake ideas", ("add", "Bilal", "birthday", "June 4")),
    ("coeliac here, is spelt safe", ("add", "user", "health:coeliac", "coeliac")),
    ("my 12yo daughter amara wants a phone", ("add", "Amara", "age", "12")),
    ("my plan is to save 20k before my son goes to college", ("add", "user", "goal:save_20k", "save 20k")),
    ("I want to climb Kilimanjaro before I turn 60. I'm 52 now, too late?", ("add", "user", "age", "52")),
    ("grew up in Accra but been in Toronto 8 years, still hate winter", ("add", "user", "location", "Toronto")),
    ("we rent a flat in lisbon w no balcony", ("add", "user", "location", "Lisbon")),
    ("Brazilian here, married to a Canadian woman and living in Halifax", ("add", "user", "location", "Halifax")),
    ("make a playlist for my best friend Oona, she lives in Tampere and is a nurse", ("add", "Oona", "location", "Tampere")),
    ("i wait tables at a little restaurant called Casa Lupe, tips for remembering orders",
     ("add", "user", "employer", "Casa Lupe")),
    ("17m, i want to study maths at uni", ("add", "user", "age", "17")),
    ("My name is Prof. Ewa Nowak and I teach chemistry", ("add", "user", "name", "Ewa Nowak")),
    ("my husband Jorge he like fishing every weekend", ("add", "Jorge", "likes:fishing", "fishing")),
    ("my daughter Ama, she loves origami, craft ideas?", ("add", "Ama", "likes:origami", "origami")),
    ("i dont eat anything with dairy since my diagnosis", ("add", "user", "diet", "dairy-free")),
    ("about my hamster, her name is Pip, she is 2 years old", ("add", "user", "pet:hamster", "Pip")),
    ("petrol is so expensive here in Ireland, cheapest cars to run?", ("add", "user", "location", "Ireland")),
])
def test_stop_42_phrasings(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "absent"), [
    ("i have 30 succulents on one windowsill lol", ("user", "age")),  # a count of things
    ("our twins are adorable, theyre 3 and never sleep", ("user", "age")),  # the twins' age
    ("Dear assistant, please note I am a teacher by profession", ("user", "trait:teacher_by_profession")),
    ("Dear assistant, please note I am a teacher by profession", ("user", "job")),
])
def test_stop_42_what_is_not_that_fact(text: str, absent: tuple[str, str]) -> None:
    found = {(subject, key, value) for _, subject, key, value in _tagged(text)}
    if absent == ("user", "job"):  # the job is "teacher", not the salutation
        assert ("user", "job", "teacher") in found
    else:
        assert absent not in {(subject, key) for subject, key, _ in found}


def test_a_demonym_described_partner_is_nobody_with_a_home() -> None:
    found = _tagged("Brazilian here, married to a Canadian woman and living in Halifax")
    assert not any(subject == "Canadian" for _, subject, _, _ in found)


@pytest.mark.parametrize("text", [
    "In my previous role as a logistics coordinator I used Asana, is Monday.com any better?",
    "back in my old job as a line cook we did this with a blowtorch",
    "as a former paralegal i can read contracts, help me with this lease",
    "honestly being an ex-firefighter makes me calm in a crisis",
    "ex bartender, so give me a mocktail menu that would impress a pro",
])
def test_a_job_said_to_be_past_is_no_current_job(text: str) -> None:
    assert not any(key == "job" for _, _, key, _ in _tagged(text))


def test_the_current_job_beside_a_past_one_is_kept() -> None:
    found = _tagged("I'm a pharmacist now, my former job was retail management")
    assert ("add", "user", "job", "pharmacist") in found


@pytest.mark.parametrize(("text", "key", "value"), [
    ("asthmatic, so which of these cleaning sprays is least likely to set me off", "health:asthma", "asthmatic"),
    ("lactose intolerant (the bad kind) so give me dairy free desserts only", "health:lactose_intolerance",
     "lactose intolerant"),
    ("paramedic in Durban, nights mostly, what can i cook ahead for the week", "job", "paramedic"),
    ("line cook at a ramen bar in Osaka, six days a week, i need cheap lunches", "job", "line cook"),
])
def test_a_message_opening_with_ones_condition_or_job_states_it(text: str, key: str, value: str) -> None:
    assert ("add", "user", key, value) in _found(text)


@pytest.mark.parametrize("text", [
    "supervisor at the depot said we can leave early, what should i cook tonight",
    "lunch at my aunts place tomorrow, what dessert should i bring along",
])
def test_an_opening_about_someone_else_or_a_plan_is_no_job(text: str) -> None:
    assert not any(key == "job" for _, _, key, _ in _found(text))


@pytest.mark.parametrize("text", [
    "say i moved to Canada hypothetically, how would healthcare work for me the first few months",
    "hypothetically, if i went vegan would i lose weight",
    "what if we moved to Porto",
    "lets say i became a teacher, what would i earn",
    "suppose i quit and became a nurse",
])
def test_a_hypothetical_states_nothing(text: str) -> None:
    assert _found(text) == set()


def test_the_same_words_said_as_the_case_are_read() -> None:
    assert ("add", "user", "location", "Canada") in _found("i moved to Canada last year")


@pytest.mark.parametrize("text, diet", [
    ("vegetarian household so no meat pls, whats a good sunday lunch for 6", "vegetarian"),
    ("we're a halal family, any ideas for eid lunch", "halal"),
    ("were a gluten free household now", "gluten-free"),
])
def test_the_speakers_household_diet_is_theirs(text: str, diet: str) -> None:
    assert ("add", "user", "diet", diet) in _found(text)


def test_she_after_the_speakers_us_takes_the_value_back_to_the_one_named() -> None:
    found = _tagged("my mum lives with us, she only speaks urdu")
    assert ("add", "user's mom", "language", "Urdu") in found
    assert not {value for _, subject, key, value in found if subject == "user" and key == "language"}


@pytest.mark.parametrize(("text", "fact"), [
    ("ich bin übrigens Lehrerin, grade 5 math", ("add", "user", "job", "lehrerin")),
    ("eu sou enfermeira, work nights at the hospital", ("add", "user", "job", "enfermeira")),
    ("mi esposa se llama Rocío, remember that pls", ("add", "user", "partner", "Rocío")),
    ("me llamo Émilie btw", ("add", "user", "name", "Émilie")),
])
def test_a_fact_said_in_another_language_is_read(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["je suis fatiguée aujourd'hui", "can i use soy sauce instead", "sono stanca oggi"])
def test_a_foreign_frame_without_a_job_or_name_states_none(text: str) -> None:
    assert not _found(text)


@pytest.mark.parametrize(("text", "fact"), [
    ("bf is allergic to shellfish, like epipen level allergic, so careful with the restaurant picks",
     ("add", "user's boyfriend", "allergy:shellfish", "shellfish")),
    ("not into horror games, way too jumpy for me", ("add", "user", "dislikes:horror_games", "horror games")),
])
def test_a_long_clause_without_i_is_read_when_it_opens_with_a_relative_or_a_dislike(
        text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize("text", ["who's driving on saturday? i can take 4 in the van", "i can bring the salad",
                                  "not into it tbh"])
def test_an_offer_or_a_pronoun_is_no_skill_or_dislike(text: str) -> None:
    assert not _found(text)


@pytest.mark.parametrize("text", ["explain big O like im 5", "write it as if i'm a pirate"])
def test_what_the_speaker_is_likened_to_is_no_fact(text: str) -> None:
    assert not _found(text)


def test_a_likeness_after_a_fact_keeps_the_fact() -> None:
    assert ("add", "user", "age", "35") in _found("i'm 35 and i love it like im 20")


@pytest.mark.parametrize(("text", "fact"), [
    ("tore my hamstring 😭 no forward folds for weeks", ("add", "user", "health:torn_hamstring", "torn hamstring")),
    ("broke my ankle at the gym, cast for 6 weeks", ("add", "user", "health:broken_ankle", "broken ankle")),
    ("i sprained my left wrist playing netball", ("add", "user", "health:sprained_wrist", "sprained wrist")),
])
def test_an_injury_is_a_condition_of_the_speaker(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["the movers broke my mirror", "i think i broke my phone"])
def test_a_broken_thing_is_no_injury(text: str) -> None:
    assert not any(key.startswith("health:") for _action, _subject, key, _value in _found(text))


@pytest.mark.parametrize(("text", "age"), [
    ("its my bday today, 44 years 🎂 buy me a virtual cake", "44"),
    ("today i enter 40 years, the children cooked for me", "40"),
    ("officially 34 as of today 🎂 can u suggest a good cake place", "34"),
])
def test_the_age_a_birthday_brings_is_read(text: str, age: str) -> None:
    assert ("add", "user", "age", age) in _found(text)


def test_it_was_my_birthday_years_ago_is_no_age() -> None:
    assert not any(key == "age" for _action, _subject, key, _value in _found("it was my birthday 2 years ago"))


@pytest.mark.parametrize(("text", "fact"), [
    ("we stay in kaneshie but my hometown is kumasi", ("add", "user", "location", "Kaneshie")),
    ("ngl my english not perfect, korean is first language", ("add", "user", "language", "Korean")),
    ("vegan for 6 yrs, need high protein breakfast ideas that arent tempeh AGAIN", ("add", "user", "diet", "vegan")),
])
def test_everyday_phrasings_of_home_language_and_diet(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _found(text)


@pytest.mark.parametrize("text", ["i stay in bed on sundays", "we stayed at the hilton"])
def test_staying_somewhere_for_a_while_is_no_home(text: str) -> None:
    assert not any(key == "location" for _action, _subject, key, _value in _found(text))


@pytest.mark.parametrize(("text", "team"), [
    ("im on the graveyard shift at the hospital, so mornings are for sleep", "graveyard shift"),
    ("I'm on C watch at the fire station", "c watch"),
    ("they put me on the weekend crew, not thrilled", "weekend crew"),
])
def test_a_crew_or_shift_one_works_on_is_a_team(text: str, team: str) -> None:
    assert ("add", "user", "team", team) in _found(text)


def test_a_shift_on_a_day_is_no_team() -> None:
    assert not {fact for fact in _found("im on the early shift tomorrow, can you remind me") if fact[2] == "team"}


@pytest.mark.parametrize(("text", "partner"), [
    ("my gf Keisha is a nail tech", "Keisha"), ("my bf tomas works at a bakery", "Tomas"),
])
def test_a_partner_said_as_gf_or_bf_is_the_partner(text: str, partner: str) -> None:
    found = _found(text)
    assert ("add", "user", "partner", partner) in found and ("add", "user", "relationship_status", "dating") in found


@pytest.mark.parametrize(("text", "status"), [
    ("i'm dating Priya, almost a year now", "dating"), ("remarried in april, tiny ceremony", "married"),
    ("we got remarried at the registry office", "married"),
])
def test_a_status_said_outright_is_the_speakers(text: str, status: str) -> None:
    assert ("add", "user", "relationship_status", status) in _found(text)


def test_seeing_someone_by_title_is_an_appointment_not_a_partner() -> None:
    assert not {fact for fact in _found("i'm seeing Dr Okafor about my knee") if fact[2] == "relationship_status"}


@pytest.mark.parametrize(("text", "fact"), [
    # a role the vocabulary does not list, said between "my" and a person the message tells of
    ("my apprentice Dawit is 19, quick learner", ("add", "user", "family:apprentice", "Dawit")),
    ("our choirmaster, Ingrid, is 70 this year", ("add", "user", "family:choirmaster", "Ingrid")),
])
def test_any_role_between_my_and_a_person_relates_them(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


def test_a_name_said_to_be_a_role_is_not_the_speakers_name() -> None:
    found = _tagged("our new bellringer is Ruth Okafor, a retired farmer")
    assert ("add", "user", "family:bellringer", "Ruth Okafor") in found
    assert ("add", "Ruth Okafor", "job", "retired farmer") in found
    assert not any(subject == "user" and key in ("name", "job") for _, subject, key, _ in found)
    assert ("add", "user", "name", "Ingrid Dahl") in _tagged("my name is Ingrid Dahl")
    assert not any(k.startswith("family:") for _, _, k, _ in _tagged("my surname is Dahl-Berg now, since the wedding"))


def test_a_pet_or_a_thing_before_a_name_is_no_role() -> None:
    assert not any(key.startswith("family:") for _, _, key, _ in _tagged("my car Betsy is 20 years old"))
    assert not any(key.startswith("family:") for _, _, key, _ in _tagged("my beagle Rufus is 9"))


@pytest.mark.parametrize(("text", "status"), [
    # the speaker's own news, though a "he" or "she" comes after it
    ("been seeing Tomasz since march, hes a paramedic", "dating"),
    ("i proposed on the beach and she said yes!!! 💍", "engaged"),
    ("we've been seeing each other for a few weeks, early days", "dating"),
])
def test_the_speakers_status_said_before_someone_elses_pronoun(text: str, status: str) -> None:
    assert ("add", "user", "relationship_status", status) in _tagged(text)


@pytest.mark.parametrize(("text", "place"), [
    # "were" with no subject before it is "we're"
    ("the flat finally came through, were in Gorton now, dogs have their own garden", "Gorton"),
    # a two-word place typed lower case, opening a clause
    ("signed the lease!! rio vermelho now, right by the beach", "Rio Vermelho"),
])
def test_a_home_said_without_a_subject(text: str, place: str) -> None:
    assert ("add", "user", "location", place) in _tagged(text)


@pytest.mark.parametrize(("text", "key", "value"), [
    # a long sentence with its "I" dropped is read too
    ("drive a silver 2011 mazda demio, not pretty but it never breaks down on me", "possession:car",
     "silver 2011 mazda demio"),
    ("allergic to latex, so tell the dentist that before any appointment pls and thanks", "allergy:latex", "latex"),
    ("41 y/o, live in leith with the wife and kids, need a cheap gym nearby", "age", "41"),
    # a new employer after an emoji, or a first week there done
    ("last day at zalando today 🥲 starting at Monzo on monday, wish me luck", "employer", "Monzo"),
    ("first week at Addenbrookes done, still getting lost in the corridors", "employer", "Addenbrookes"),
])
def test_a_fact_said_without_i_in_a_long_sentence(text: str, key: str, value: str) -> None:
    assert any(k == key and v.casefold() == value.casefold() for _, subject, k, v in _tagged(text) if subject == "user")


@pytest.mark.parametrize(("text", "employer"), [
    # the kind of place said after the employer's name is part of it
    ("my sister Ama is a nurse at korle bu hospital", "Korle Bu Hospital"),
    ("i work at Google in the city", "Google"),
])
def test_an_employer_is_named_with_the_kind_of_place_it_is(text: str, employer: str) -> None:
    assert employer.casefold() in {v.casefold() for _, _, k, v in _tagged(text) if k == "employer"}


@pytest.mark.parametrize(("text", "name"), [
    # a breed said alone ("golden", "lab"), or a rescue named with no "a" before it
    ("we finally did it!!! a golden called Mango 🐶", "Mango"),
    ("adopted a dog today!! rescue whippet named Pickle, shes so shy", "Pickle"),
    ("our lab Bruno is 11 now, any tips for stiff hips?", "Bruno"),
])
def test_a_dog_named_by_its_breed(text: str, name: str) -> None:
    assert ("add", "user", "pet:dog", name) in _tagged(text)


def test_a_lab_partner_is_no_dog() -> None:
    assert not any(k.startswith("pet:") for _, _, k, _ in _tagged("my lab partner Tom is so annoying"))


@pytest.mark.parametrize(("text", "nationality"), [
    ("finally got my irish passport!! so happy", "Irish"),
    ("took german citizenship in 2019, kept my turkish one too", "German"),
])
def test_a_citizenship_taken_is_the_nationality(text: str, nationality: str) -> None:
    assert ("add", "user", "nationality", nationality) in _tagged(text)


def test_a_favourite_said_by_a_shorter_kind_keeps_the_stored_key() -> None:
    from memfold.llm.tagger import packaged_tagger

    message = Message(msg_id="m1", user_id="u", speaker="user", role="user", text="my fav spot these days is Kuta", ts=T0)
    stored = {("user", "favorite:surf_spot"): "Uluwatu", ("user", "favorite:food"): "rendang"}
    facts, _ = extract_facts(message, tagger=packaged_tagger(), stored=stored)
    assert ("user", "favorite:surf_spot", "Kuta") in {(f.subject, f.key, f.value) for f in facts}


def test_name_is_at_the_start_is_the_speakers_name() -> None:
    found = _tagged("name is Tamar, 37, divorced, one boy")
    assert {("add", "user", "name", "Tamar"), ("add", "user", "age", "37")} <= found
    assert not any(k == "partner" for _, _, k, _ in found)


@pytest.mark.parametrize(("text", "expected"), [
    # a long sentence without "I" whose first part is a short fragment is read
    ("born 12 july 1958 in kumasi, if you need it for the form", ("user", "hometown", "Kumasi")),
    ("hometown is gyeongju, live in seoul, work for samsung in the camera team", ("user", "location", "Seoul")),
    # ...and so is one led by a person's name saying what they are
    ("Tash is a paramedic with NSW Ambulance, shift work is brutal on us", ("Tash", "job", "paramedic")),
])
def test_fragments_and_named_people_pass_the_first_person_gate(text: str, expected: tuple[str, str, str]) -> None:
    assert ("add", *expected) in _tagged(text)


@pytest.mark.parametrize(("text", "skills"), [
    ("dutch is my first language, also fine in german and english", {"skill:german", "skill:english"}),
    ("marathi is my mother tongue, hindi english also ok", {"skill:hindi", "skill:english"}),
    # a language someone else speaks, or one denied, is no skill of the speaker's
    ("my first language is Polish but my wife speaks English", set()),
    ("my first language is Polish, no english at all lol", set()),
])
def test_languages_listed_beside_the_first_are_skills(text: str, skills: set[str]) -> None:
    found = _tagged(text)
    assert {k for _, s, k, _ in found if s == "user" and k.startswith("skill:")} == skills


def test_which_ear_is_part_of_the_condition() -> None:
    found = _tagged("i am deaf in my left ear so voice notes are hard, text pls")
    assert {k for _, _, k, _ in found if k.startswith("health:")} == {"health:deaf_in_left_ear"}


@pytest.mark.parametrize(("text", "fact", "absent"), [
    ("rania is a pharmacist in Aqaba", ("Rania", "location", "Aqaba"), None),
    ("my best friend Tariq is a guide in Wadi Rum", ("Tariq", "location", "Wadi Rum"), None),
    # "in training" is no place, and no home of the speaker's
    ("Omar is a teacher in training", ("Omar", "job", "teacher"), ("user", "location")),
])
def test_where_someone_else_works(text: str, fact: tuple[str, str, str], absent: tuple[str, str] | None) -> None:
    found = _tagged(text)
    assert ("add", *fact) in found
    assert absent is None or not any((s, k) == absent for _, s, k, _ in found)


@pytest.mark.parametrize(("text", "expected", "absent"), [
    ("gone full veggie, no more fish either, pls update the meal plan", ("user", "diet", "vegetarian"), None),
    # "either" only looks like a job ("teacher", "driver")
    ("ok we went full veggie, no fish either now.", ("user", "diet", "vegetarian"), ("user", "job")),
])
def test_a_diet_gone_full(text: str, expected: tuple[str, str, str], absent: tuple[str, str] | None) -> None:
    found = _tagged(text)
    assert ("add", *expected) in found
    assert absent is None or not any((s, k) == absent for _, s, k, _ in found)


@pytest.mark.parametrize(("text", "expected"), [
    ("marcus is a bartender at Whislers on e 6th, works nights", ("Marcus", "employer", "Whislers")),
    ("my little bro Tyler is 19 and at Texas State for nursing", ("user", "family:brother", "Tyler")),
    ("i have a 3yo named zainab and a newborn named idris", ("Zainab", "age", "3")),
    ("real goal: write a book one day", ("user", "goal:write_a_book", "write a book")),
    # a verb after a lower-case place is no part of it
    ("im 19 and at uni in leeds doing history", ("user", "location", "Leeds")),
])
def test_people_ages_goals_and_places_said_casually(text: str, expected: tuple[str, str, str]) -> None:
    assert ("add", *expected) in _tagged(text)


@pytest.mark.parametrize(("text", "place"), [
    ("shifted to a 3bhk in Wakad last weekend, need a pediatrician near there", "Wakad"),
    ("moved to a room in discovery gardens, 15 min to site now", "Discovery Gardens"),
    ("moved to tears by that film", None),
])
def test_a_move_said_without_i_or_to_a_kind_of_home(text: str, place: str | None) -> None:
    homes = {v for _, s, k, v in _tagged(text) if (s, k) == ("user", "location")}
    assert homes == ({place} if place else set())


def test_a_goal_keeps_its_words_and_loses_its_when() -> None:
    found = _tagged("my goal is to run the berlin marathon under 4 hrs")
    assert ("add", "user", "goal:run_the_berlin_marathon", "run the berlin marathon under 4 hrs") in found
    found = _tagged("real goal: write a book about nabataean water systems one day")
    assert any(k.startswith("goal:") and v == "write a book about nabataean water systems" for _, _, k, v in found)


@pytest.mark.parametrize(("text", "expected", "absent"), [
    # a relative "is" a demonym: their nationality, no name (the demonyms of more countries)
    ("dutch nationality, my mum is Surinamese", ("user's mom", "nationality", "Surinamese"), ("user", "family:mom")),
    # a hyphenated name is one name
    ("my cousin Ye-jin is my emergency contact, she lives in Seoul", ("Ye-jin", "location", "Seoul"), ("Jin", "location")),
    # a name opening the clause, then born: their birthday, not the speaker's
    ("myra born 16 nov, 2.9kg, both healthy", ("Myra", "birthday", "November 16"), ("user", "birthday")),
    ("dating this guy Rafael, hes from Sao Paulo", ("user", "relationship_status", "dating"), None),
    ("keeping kosher since i married Eli", ("user", "relationship_status", "married"), None),
])
def test_relatives_names_births_and_status(text: str, expected: tuple[str, str, str],
                                           absent: tuple[str, str] | None) -> None:
    found = _tagged(text)
    assert ("add", *expected) in found
    assert absent is None or not any((s, k) == absent for _, s, k, _ in found)


def test_a_relation_word_is_no_name() -> None:
    found = _tagged("my twin sister is a pharmacist in lyon")
    assert not any(k.startswith("family:") and v.lower() == "sister" for _, _, k, v in found)


@pytest.mark.parametrize(("text", "key", "value"), [
    # a car's make and model after three words of description
    ("i drive a beat up white renault kangoo for work", "possession:car", "beat up white renault kangoo"),
    # the favourite is what follows "but", not the apology before it
    ("sorry DCH but Laapataa Ladies is my fav movie now", "favorite:movie", "Laapataa Ladies"),
])
def test_values_said_at_length_or_after_but(text: str, key: str, value: str) -> None:
    assert ("add", "user", key, value) in _tagged(text)


@pytest.mark.parametrize(("text", "facts"), [
    ("our kelpie Ned ate half a jar of vegemite off the bench, is that gonna hurt him?", {("user", "pet:dog", "Ned")}),
    # a cross ("x", "cross", "mix") and an age said after the name
    ("got a kelpie x named Dusty, 3 yrs old, absolute menace", {("user", "pet:dog", "Dusty"), ("Dusty", "age", "3")}),
])
def test_more_breeds_crosses_and_ages(text: str, facts: set[tuple[str, str, str]]) -> None:
    assert {("add", *fact) for fact in facts} <= _tagged(text)


@pytest.mark.parametrize(("text", "fact"), [
    # no kind said: the thing's own head noun is the kind
    ("filter coffee is my favourite, Narasus powder only", ("user", "favorite:coffee", "filter coffee")),
    ("favourite place in the world = omalos plateau in april", ("user", "favorite:place", "omalos plateau")),
    # a pronoun or a name says no kind
    ("this one is my favourite", None),
    ("Markos Vamvakaris is my favourite", None),
])
def test_a_favourite_without_its_kind(text: str, fact: tuple[str, str, str] | None) -> None:
    favourites = {(s, k, v) for _, s, k, v in _tagged(text) if k.startswith("favorite:")}
    assert favourites == ({fact} if fact else set())


@pytest.mark.parametrize(("text", "facts", "absent"), [
    # how long, no age
    ("married 52 years to my Rosa and she still laughs at my jokes", set(), ("user", "age")),
    # a verb after a relation is no name
    ("my dad drives taxis in hanoi, has done for 20 years", {("user's dad", "location", "Hanoi")}, ("user", "family:dad")),
    ("my flatmate Oluwaseun is a junior doctor at the QE", {("Oluwaseun", "employer", "QE")}, None),
    # a student's "at" is where they study
    ("My granddaughter Valentina is a medical student at the UBA", {("Valentina", "education", "UBA")},
     ("Valentina", "employer")),
])
def test_durations_verbs_and_places_of_work_or_study(text: str, facts: set[tuple[str, str, str]],
                                                     absent: tuple[str, str] | None) -> None:
    found = _tagged(text)
    assert {("add", *fact) for fact in facts} <= found
    assert absent is None or not any((s, k) == absent for _, s, k, _ in found)


def test_a_place_someone_is_in_is_no_pastime() -> None:
    found = _tagged("mom finally moved up here, shes in Round Rock now 10 min from destiny")
    assert ("add", "user's mom", "location", "Round Rock") in found
    assert not any(k.startswith("hobby:") for _, _, k, _ in found)


@pytest.mark.parametrize(("text", "job"), [
    ("marhaba, im Khaled, licensed tour guide in Petra for 11 years", "licensed tour guide"),
    ("hi im Manolis 58 yrs, shepherd, i live in Anogeia", "shepherd"),
    ("hey its dale btw, cheesemaker out in monroe wisconsin", "cheesemaker"),
    ("hi im Sam, thanks for the help, whatever", None),
])
def test_a_job_said_as_a_fragment_after_ones_name(text: str, job: str | None) -> None:
    jobs = {v for _, s, k, v in _tagged(text) if (s, k) == ("user", "job")}
    assert jobs == ({job} if job else set())


def test_a_request_after_a_statement_is_no_part_of_it() -> None:
    from memfold.llm.facts import fact_sentences

    text = "mom finally moved up here, shes in Round Rock now, find her a good church nearby"
    message = Message(msg_id="m1", user_id="u", speaker="user", role="user", text=text, ts=T0)
    assert all("church" not in sentence for sentence in fact_sentences(message))
    assert ("add", "user's mom", "location", "Round Rock") in _tagged(text)


@pytest.mark.parametrize(("text", "ages"), [
    ("Ollie's 12 and mad about the Rabbitohs, Ruby's 9", {("Ollie", "12"), ("Ruby", "9")}),
    ("Ollie is 12, Ruby is 9", {("Ollie", "12"), ("Ruby", "9")}),
    ("Amazon is 20 percent off", set()),
])
def test_each_named_persons_age(text: str, ages: set[tuple[str, str]]) -> None:
    assert {(s, v) for _, s, k, v in _tagged(text) if k == "age"} == ages


@pytest.mark.parametrize(("text", "facts"), [
    ("wish i could take a year off and just backpack asia", set()),
    # what is said before the wish stands
    ("i live in leeds, wish i could move to spain", {("user", "location", "Leeds")}),
    # ... and what is said after a "but" that ends the wish
    ("Wish I could feel the same about love, but I've started to enjoy running in the mornings",
     {("user", "likes:running", "running")}),
])
def test_what_is_wished_is_not_the_case(text: str, facts: set[tuple[str, str, str]]) -> None:
    assert {(s, k, v) for _, s, k, v in _tagged(text)} == facts


@pytest.mark.parametrize(("text", "place"), [
    ("we moved!! reservoir now, bigger yard for the dog finally", "Reservoir"),
    ("moved the meeting, friday now", None),
])
def test_a_move_said_then_where(text: str, place: str | None) -> None:
    homes = {v for _, s, k, v in _tagged(text) if (s, k) == ("user", "location")}
    assert homes == ({place} if place else set())


@pytest.mark.parametrize(("text", "fact", "read"), [
    ("guess who got promoted to sous chef 🥳 need a new linkedin headline", ("user", "job", "sous chef"), True),
    ("i am now head of the string department, so more meetings", ("user", "job", "head of the string department"), True),
    ("season change, they put me in the packing section now", ("user", "team", "packing section"), True),
    ("btw Jonathan goes by Jo now", ("Jonathan", "name", "Jo"), True),
    ("my name is Biju, 44 years", ("user", "age", "44"), True),
    ("Je m'appelle Élodie. 34 ans.", ("user", "age", "34"), True),
    ("im a mountain guide based in chamonix, ifmga since 2014", ("user", "location", "Chamonix"), True),
    ("moved to the bitterroot valley when i was 20 and never left", ("user", "location", "Bitterroot Valley"), True),
    ("ive got a cavapoo called biscuit, hes a menace", ("user", "pet:dog", "Biscuit"), True),
    ("The Chief Justice has moved me to the Family Division, starting Monday", ("user", "employer", "Monday"), False),
])
def test_everyday_ways_of_saying_a_job_a_team_a_name_an_age_a_home_or_a_pet(
        text: str, fact: tuple[str, str, str], read: bool) -> None:
    assert (fact in {(s, k, v) for _, s, k, v in _tagged(text)}) is read


@pytest.mark.parametrize("text", [
    "she got a job as a nurse",  # someone the speaker spoke of, not the speaker
    "she took a job at tesco",
    "pls make a shopping list, no mushrooms i hate them",  # mushrooms, not "them"
])
def test_no_fact_of_the_speakers_from_someone_elses_clause_or_a_pronoun(text: str) -> None:
    own = {(k, v) for _, s, k, v in _tagged(text) if s == "user"}
    assert not {(k, v) for k, v in own if k in ("job", "employer") or v == "them"}


@pytest.mark.parametrize(("text", "fact"), [
    ("doc says my cholesterol is too high so pls give me low fat dinner ideas",
     ("user", "health:high_cholesterol", "high cholesterol")),
    ("my iron is low again", ("user", "health:low_iron", "low iron")),
    ("I'm a court interpreter with the Ministry of the Attorney General here in Toronto",
     ("user", "employer", "Ministry of the Attorney General")),
    ("my mom is a nurse at hospital hermanos ameijeiras", ("user's mom", "employer", "Hospital Hermanos Ameijeiras")),
    ("im cuban so my english is kinda rough", ("user", "nationality", "Cuban")),
    ("im gay, married to my husband tomás for 3 yrs", ("user", "partner", "Tomás")),
])
def test_a_level_out_of_range_an_organisation_in_full_a_demonym_and_a_partner_named_after_the_title(
        text: str, fact: tuple[str, str, str]) -> None:
    assert fact in {(s, k, v) for _, s, k, v in _tagged(text)}


@pytest.mark.parametrize(("text", "fact"), [
    ("officially left the folkekirke, not religious anymore, saving on church tax", ("user", "religion", "Not Religious")),
    ("keys collected, we're officially marple residents!", ("user", "location", "Marple")),
    ("my colleague Dmitri is an interpreter. Dmitri retired!! party was friday", ("Dmitri", "job", "retired")),
    ("my son Kian is 11, we moved Kian to stockport grammar", ("Kian", "education", "Stockport Grammar")),
])
def test_a_change_said_without_the_key(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in {(s, k, v) for _, s, k, v in _tagged(text)}


@pytest.mark.parametrize(("text", "read"), [
    ("born 12 july 1958 in kumasi, if you need it for the form", True),
    ("G'day, name's Bronwyn, court reporter at the Federal Court, been doing it 20 years", True),
    # a conversation's turns: a reply, a comment, an instruction, a role frame, a "you"
    ("Yep, painting is awesome, get some acrylic paints and a palette to mix colors and brushes", False),
    ("It's a map of Middle-earth from LOTR - it's really cool to see all the different realms and regions", False),
    ("Max must be having so much fun swimming and playing - it's the best thing for a dog his age", False),
    ("As a dad, it's hard to watch your kid go through something like that when there is nothing to do", False),
    ("Combining your two loves - gaming and helping people - must be really exciting for the whole family", False),
])
def test_a_short_first_part_lets_a_sentence_in_only_when_it_is_the_speakers_own(text: str, read: bool) -> None:
    from memfold.llm.facts import fact_sentences

    message = Message(msg_id="m1", user_id="u", speaker="Evan", role="user", text=text, ts=T0)
    assert bool(fact_sentences(message)) is read


@pytest.mark.parametrize(("text", "fact"), [
    ("my climbing partner Lukas is from Innsbruck", ("user", "family:climbing_partner", "Lukas")),
    ("my business partner is jo, she does the books", ("user", "family:business_partner", "Jo")),
    ("my partner Sam is a chef", ("user", "partner", "Sam")),
])
def test_a_partner_in_something_is_no_romantic_partner(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in {(s, k, v) for _, s, k, v in _tagged(text)}


def test_a_food_eaten_is_no_diet_and_a_demonym_no_diet_either() -> None:
    assert not {v for _, s, k, v in _tagged("quit keto lol i eat carbs again") if k == "diet" and v == "carbs"}
    assert ("user", "nationality", "Cuban-american") in {
        (s, k, v) for _, s, k, v in _tagged("aquí bailo y enseño, pero im cuban-american actually, born in miami")}


def test_the_speakers_name_in_full_when_said_with_a_surname_after() -> None:
    text = "names Dale btw. Dale Kowalczyk if u need the whole thing for invoices"
    assert ("user", "name", "Dale Kowalczyk") in {(s, k, v) for _, s, k, v in _tagged(text)}


@pytest.mark.parametrize(("text", "fact"), [
    ("huge arsenal fan dont @ me", ("user", "likes:arsenal", "arsenal")),
    ("steelers fan till i die, dont even talk to me bout the ravens", ("user", "likes:steelers", "steelers")),
    ("did my MLIS at Victoria in Wellington, finished 2017", ("user", "education", "MLIS at Victoria")),
    ("i did my BBA at IBA, graduated 2018", ("user", "education", "BBA at IBA")),
    ("my gout is flaring up again", ("user", "health:gout", "gout")),
    ("keep kosher so pls no shellfish in the meal plan", ("user", "diet", "kosher")),
    ("got the librarian role!! permanent too", ("user", "job", "librarian")),
    ("moved over to the heritage and archives team, no more storytime", ("user", "team", "heritage and archives")),
    ("lived in Bonavista my whole life", ("user", "location", "Bonavista")),
    ("the kids i look after call me Ate Weng but my name is Rowena", ("user", "name", "Rowena")),
])
def test_statements_with_their_i_dropped_or_said_sideways(text: str, fact: tuple[str, str, str]) -> None:
    assert ("add", *fact) in _found(text)


@pytest.mark.parametrize(("text", "key"), [
    ("new ceiling fan, how do i install it", "likes"),
    ("did my parcel arrive", "education"),
    ("took the night shift job", "job"),
    ("My birthday is May 19 and my husband's is May 20", "age"),
])
def test_look_alikes_of_those_statements(text: str, key: str) -> None:
    assert not any(found_key.split(":")[0] == key for _, _, found_key, _ in _found(text))


@pytest.mark.parametrize(("text", "facts"), [
    ("my twins Hugo and Maëlle are 3 and into EVERYTHING", {("Hugo", "age", "3"), ("Maëlle", "age", "3")}),
    ("my kids are Mason 10 and Brooke 7", {("Mason", "age", "10"), ("Brooke", "age", "7"), ("user", "child:mason", "Mason")}),
    ("my daughter Élodie's bday is april 12", {("Élodie", "birthday", "April 12")}),
    ("my wife Nikola is polish, she teaches piano", {("Nikola", "job", "piano teacher"), ("Nikola", "nationality", "Polish")}),
])
def test_what_is_said_of_named_people(text: str, facts: set[tuple[str, str, str]]) -> None:
    found = {(subject, key, value) for _, subject, key, value in _tagged(text)}
    assert facts <= found


@pytest.mark.parametrize("text", [
    "explain the silesian autonomy thing to me like im 5",
    "my youngest sister just got into LUMS!!! eldest of 7 here",
    "we are 4 at home, me my husband and the twins",
])
def test_a_count_or_a_likeness_is_no_age(text: str) -> None:
    assert not any(subject == "user" and key == "age" for _, subject, key, _ in _tagged(text))


def test_a_greeting_in_any_language_is_no_name() -> None:
    found = _tagged("Bonjour, Salma here, pharmacist in Casablanca.")
    assert ("add", "user", "name", "Salma") in found
    assert not any(value == "Bonjour" for *_, value in found)


@pytest.mark.parametrize(("text", "job", "employer"), [
    ("im a court reporter at the NSW District Court", "court reporter", "NSW District Court"),
    ("i'm a museum guard at the Prado Museum", "museum guard", "Prado Museum"),
])
def test_a_job_sharing_a_word_with_the_employer_keeps_both(text: str, job: str, employer: str) -> None:
    found = {(key, value) for _, subject, key, value in _tagged(text) if subject == "user"}
    assert {("job", job), ("employer", employer)} <= found


@pytest.mark.parametrize(("text", "facts", "absent"), [
    ("im a ferry deckhand now", {("user", "job", "ferry deckhand")}, set()),
    ("im a vineyard hand at a small finca", {("user", "job", "vineyard hand")}, set()),
    ("was a plumber for 10 yrs but now im a locksmith, better hours", {("user", "job", "locksmith")}, set()),
    ("my boss Frau Keller has run the workshop for 40 yrs", {("user", "family:boss", "Frau Keller")}, set()),
    ("my favourite band is Kings of Leon dont judge me", {("user", "favorite:band", "Kings of Leon")}, set()),
    ("my names Nakato but pls dont call me Kato thats my brothers thing", {("user", "name", "Nakato")}, set()),
    ("i'm a trans woman, name is Yara", {("user", "name", "Yara")}, set()),
    ("IM ENGAGED!!! hamdan proposed in the desert at sunset", {("user", "partner", "Hamdan")}, set()),
    ("widowed since 2019, my husband Arne passed from cancer", {("user", "relationship_status", "widowed")},
     {("user", "relationship_status", "married")}),
    ("i have two boys, Ryo and Kenta, 8 and 11", {("Ryo", "age", "8"), ("Kenta", "age", "11")}, set()),
    ("my oldest Léa just started at Sciences Po", {("user", "child:lea", "Léa")}, set()),
    ("friend of mine Lena is a luthier in markneukirchen", set(), {("Lena", "religion", "Luthier")}),
])
def test_stop_53_statements(text: str, facts: set[tuple[str, str, str]], absent: set[tuple[str, str, str]]) -> None:
    found = {(subject, key, value) for _, subject, key, value in _tagged(text)}
    assert facts <= found
    assert not absent & found


@pytest.mark.parametrize("text", [
    "Tom proposed to Anna last night",
    "im an old hand at this",
    "dont call me Bob",
    "i keep a tortoise, name is Kamekichi, he is 40 years old!",
])
def test_look_alikes_of_stop_53_statements(text: str) -> None:
    found = {(subject, key) for _, subject, key, _ in _tagged(text)}
    assert not found & {("user", "partner"), ("user", "job"), ("user", "name")}


@pytest.mark.parametrize(("text", "facts"), [
    ("im emirati obviously lol", {("user", "nationality", "Emirati")}),
    ("my ex husband Trevor still lives in the house in chaguanas", {("user", "family:ex_husband", "Trevor")}),
    ("nobody makes it like my aunty Joycelyn", {("user", "family:aunt", "Joycelyn")}),
    ("my main language at home is norwegian even tho i was born in manchester", {("user", "language", "Norwegian")}),
    ("my wifes name is Gretchen, shes a cantor at the Thomaskirche",
     {("Gretchen", "job", "cantor"), ("Gretchen", "employer", "Thomaskirche")}),
])
def test_more_stop_53_statements(text: str, facts: set[tuple[str, str, str]]) -> None:
    assert facts <= {(subject, key, value) for _, subject, key, value in _tagged(text)}


def test_an_ex_is_no_partner() -> None:
    assert not any(key == "partner" for _, _, key, _ in _tagged("my ex husband Trevor still lives in chaguanas"))


@pytest.mark.parametrize(("text", "facts", "absent"), [
    ("fav food is now matoke with g nut sauce, kampala converted me", {("user", "favorite:food", "matoke with g nut sauce")}, set()),
    ("my favourite food is pizza with my kids on friday", {("user", "favorite:food", "pizza")}, set()),
    ("fav comfort food is mac and cheese, no contest", {("user", "favorite:comfort_food", "mac and cheese")}, set()),
    ("fav drink is a matcha latte w oat milk", {("user", "favorite:drink", "matcha latte w oat milk")}, set()),
    ("im a dj on weekends, mostly amapiano", {("user", "hobby:dj", "dj")}, {("user", "job", "dj")}),
    ("I have celiac disease so everything must be gluten free, even the soy sauce", {("user", "diet", "gluten-free")}, set()),
    ("I am member of the Ahmadiyya community and I live in Frankfurt", {("user", "religion", "Ahmadiyya")}, set()),
    ("we moved! up at stoke bruerne now, way quieter", {("user", "location", "Stoke Bruerne")},
     {("user", "employer", "Stoke Bruerne")}),
])
def test_dishes_and_moves(text: str, facts: set[tuple[str, str, str]], absent: set[tuple[str, str, str]]) -> None:
    found = {(subject, key, value) for _, subject, key, value in _tagged(text)}
    assert facts <= found
    assert not absent & found


@pytest.mark.parametrize(("text", "facts", "absent"), [
    ("im in 3rd year of BA history at Leeds University and i work weekends",
     {("user", "education", "3rd year of BA history at Leeds University")}, set()),
    ("im in 2nd year law at cork uni, exams soon", {("user", "education", "2nd Year Law at Cork Uni")}, set()),
    ("im a zookeeper at the chester zoo, love it", {("user", "employer", "Chester Zoo")}, set()),
    ("fitter at harland shipyard for 20 years", {("user", "employer", "Harland Shipyard")}, set()),
    ("i work at booking.com in amsterdam", {("user", "employer", "Booking.com")}, set()),
    ("pure veg, no eggs either", {("user", "diet", "vegetarian")}, set()),
    ("back on meat after years of being vegan", {("user", "diet", "omnivore")}, set()),
    ("im rasta and proud", {("user", "religion", "Rasta")}, {("user", "name", "Rasta")}),
    ("my dad is from jamaica", {("user's dad", "hometown", "Jamaica")}, {("user", "family:dad", "From Jamaica")}),
    ("my mum is from suriname", {("user's mom", "hometown", "Suriname")}, set()),
    ("i grew up on jollof and plantain", set(), {("user", "hometown", "Jollof")}),
    ("born on new years day 1991, worst birthday ever", {("user", "birthday", "January 1 1991")}, set()),
    ("dodgy knees from rugby so no running plans", {("user", "health:dodgy_knees", "dodgy knees")}, set()),
    ("goal is to get my PADI divemaster by spring", {("user", "goal:get_padi_divemaster", "get PADI divemaster")}, set()),
    ("my husband tomas is a crane operator at the port", {("Tomas", "job", "crane operator")}, set()),
    ("im lucia de souza, nice to meet you", {("user", "name", "Lucia de Souza")}, set()),
    ("im forty-two, not old", {("user", "age", "42")}, set()),
    ("Franco-Italian, raised in Lyon.", {("user", "hometown", "Lyon")}, set()),
    ("switched teams, im with the payments people now", {("user", "team", "payments people")}, set()),
])
def test_stop_54_statements(text: str, facts: set[tuple[str, str, str]], absent: set[tuple[str, str, str]]) -> None:
    found = {(subject, key, value) for _, subject, key, value in _tagged(text)}
    assert facts <= found
    assert not absent & found


def test_languages_spoken_poorly_or_around_are_no_skills() -> None:
    found = {(key, value) for _, _, key, value in _tagged("greek is my mother tongue, french is meh, german even worse")}
    assert ("language", "Greek") in found
    assert not any(key.startswith("skill:") for key, _ in found)


def test_what_one_can_do_once_a_goal_is_met_is_no_skill() -> None:
    found = _tagged("goal is to pass my theory test, then i can drive the van")
    assert not any(key.startswith("skill:") for _, _, key, _ in found)


@pytest.mark.parametrize(("text", "fact"), [
    ("any good dentists in aarhus? we just moved here from odense", ("add", "user", "location", "Aarhus")),
    ("Is there a decent bakery in Porto? We relocated there in the spring.", ("add", "user", "location", "Porto")),
    ("im officially a senior nurse now, not a staff nurse anymore", ("add", "user", "job", "senior nurse")),
])
def test_a_home_moved_to_and_a_job_beside_the_one_left(text: str, fact: tuple[str, str, str, str]) -> None:
    assert fact in _tagged(text)


@pytest.mark.parametrize(("text", "fact", "absent"), [
    ("moved over to Blue Horizon Tours, better pay", ("user", "employer", "Blue Horizon Tours"), ("user", "team")),
    ("quit the bakery last month, im with Greggs now", ("user", "employer", "Greggs"), ("user", "partner")),
    ("moved to the night stock team", ("user", "team", "night stock"), ("user", "location")),
])
def test_a_company_a_team_and_a_partner_told_apart(text: str, fact: tuple[str, str, str],
                                                   absent: tuple[str, str]) -> None:
    _assert_read(text, fact, absent)


def test_im_with_someone_now_is_still_a_partner() -> None:
    assert ("user", "partner", "Sam") in {(s, k, v) for _, s, k, v in _tagged("im with Sam now, we met at work")}


@pytest.mark.parametrize(("text", "fact"), [
    ("have mild eczema so unscented stuff only pls", ("user", "health:mild_eczema", "mild eczema")),
    ("have one toyota hilux ute, 2009", ("user", "possession:car", "toyota hilux ute")),
])
def test_what_the_speaker_has_with_the_subject_dropped(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in {(s, k, v) for _, s, k, v in _tagged(text)}


@pytest.mark.parametrize("text", ["have you seen my keys", "has the parcel come yet", "have u eaten"])
def test_have_asked_of_someone_is_a_question(text: str) -> None:
    from memfold.llm.cues import is_content_sentence

    assert not is_content_sentence(text)


@pytest.mark.parametrize(("text", "fact", "absent"), [
    ("we got a rescue whippet, named her Pepper", ("user", "pet:dog", "Pepper"), None),
    ("my uncle Piet is Dutch and a total workaholic", ("Piet", "nationality", "Dutch"), ("Piet", "job")),
    ("im a real estate agent in Perth", ("user", "job", "real estate agent"), None),
])
def test_a_pet_named_after_it_came_and_a_manner_is_no_job(text: str, fact: tuple[str, str, str],
                                                          absent: tuple[str, str] | None) -> None:
    _assert_read(text, fact, absent)


def _assert_read(text: str, fact: tuple[str, str, str], absent: tuple[str, str] | None) -> None:
    """``fact`` (subject, key, value) is read from ``text``, and nothing of the ``absent`` subject and key."""
    found = {(s, k, v) for _, s, k, v in _tagged(text)}
    assert fact in found
    assert absent is None or not any((s, k) == absent for s, k, _ in found)


def test_someones_birthday_without_the_apostrophe_is_not_the_speakers() -> None:
    assert not any(key == "birthday" and subject == "user" for _, subject, key, _ in _tagged("marcos bday is 9 june"))


@pytest.mark.parametrize(("text", "fact", "absent"), [
    ("posted in the cardiac ward since march", ("user", "team", "cardiac ward"), None),
    ("im stationed on the burns unit for 6 months", ("user", "team", "burns"), ("user", "employer")),
])
def test_a_posting_is_a_team_and_a_stretch_of_time_no_employer(text: str, fact: tuple[str, str, str],
                                                               absent: tuple[str, str] | None) -> None:
    _assert_read(text, fact, absent)


def test_a_liking_said_as_a_hobby_is_one() -> None:
    found = {(s, k, v) for _, s, k, v in _tagged("hobby wise im really into birdwatching, got it from my dad")}
    assert ("user", "hobby:birdwatching", "birdwatching") in found


def test_it_is_my_favourite_names_no_clause_before_it() -> None:
    found = {(s, k, v) for _, s, k, v in _tagged("my mum makes jollof every sunday and it is my favourite food no question")}
    assert not any(k.startswith("favorite:") and "mum" in v.lower() for _, k, v in found)
    assert not any(k == "favorite:food_no" for _, k, _ in found)


@pytest.mark.parametrize(("text", "value"), [
    ("im 20, second year at strathclyde", "Second Year at Strathclyde"),
    ("im a 2nd year law student at maynooth, exams next week", "2nd year law student at Maynooth"),
])
def test_a_year_of_study_keeps_its_school(text: str, value: str) -> None:
    assert ("user", "education", value) in {(s, k, v) for _, s, k, v in _tagged(text)}


# stop 55: the general forms of dev16 misses, said in other words
@pytest.mark.parametrize(("text", "fact", "absent"), [
    ("im a sophomore at lincoln high, wrestling season starts monday", ("user", "education", "sophomore at Lincoln High"),
     ("user", "job")),
    ("we had a baby boy last night!! his name is Matteo", ("user", "child:matteo", "Matteo"), ("user", "partner")),
    ("were amish, so no phones at the table", ("user", "religion", "Amish"), ("user", "diet")),
    ("honestly i hate olives like genuinely", ("user", "dislikes:olives", "olives"), None),
    ("i love love love mango", ("user", "likes:mango", "mango"), None),
    ("physio signed me off today, my torn acl is fully healed", ("user", "health:torn_acl", "fully healed"), None),
    ("im Kenyan, from Kisumu originally, so fish is life", ("user", "hometown", "Kisumu"), None),
    ("im Anglican, Bristol born and bred", ("user", "hometown", "Bristol"), None),
    ("came to Glasgow for uni and never left", ("user", "location", "Glasgow"), None),
    ("grew up in Kaunas, been in Dublin 9 yrs now", ("user", "location", "Dublin"), None),
    ("porter on ward 7 at Leeds General, nights mostly", ("user", "employer", "Leeds General"), None),
    ("im a designer at a small agency in town called Brightside", ("user", "employer", "Brightside"), None),
    ("nurse for 20 years at Hillingdon, love it", ("user", "employer", "Hillingdon"), None),
    ("i started at the city library last month as an archivist", ("user", "employer", "City Library"), None),
    ("i do weekends at the red lion, mostly pulling pints", ("user", "employer", "Red Lion"), None),
    ("i did computer science at Warwick", ("user", "education", "computer science at Warwick"), None),
    ("I graduated from Makerere University with a degree in civil engineering.",
     ("user", "education", "civil engineering at Makerere University"), None),
    ("please remember: my real name is Oluwaseun, Seun is just for work", ("user", "name", "Oluwaseun"), None),
    ("btw im nonbinary, name is Robin", ("user", "name", "Robin"), None),
    ("my kids are Noah and Ella, theyre 6 and 3", ("Ella", "age", "3"), None),
    ("my colleague priya in marketing sent me this", ("Priya", "team", "marketing"), None),
    ("i learned to knit at 60 and now i cant stop", ("user", "skill:knitting", "knitting"), None),
    ("ive always wanted to visit Patagonia", ("user", "goal:visit_patagonia", "visit Patagonia"), None),
    ("im a developer at Monzo, fully remote from Porto", ("user", "location", "Porto"), None),
    ("im pretty handy with a soldering iron", ("user", "skill:soldering_iron", "soldering iron"), None),
    ("tomasz my flatmate is a paramedic and works nights", ("user", "family:flatmate", "Tomasz"), None),
])
def test_stop_55_statements(text: str, fact: tuple[str, str, str], absent: tuple[str, str] | None) -> None:
    _assert_read(text, fact, absent)


@pytest.mark.parametrize(("text", "absent"), [
    ("the neighbours got a kitten named Mochi", ("user", "pet:cat")),
    ("my son broke his arm at school", ("user", "child:broke")),
    ("my dad loves jazz and hates anything loud", ("user's dad", "dislikes:jazz")),
    ("im home, from Paris", ("user", "hometown")),
    ("we moved to Leeds, first week in the new house was chaos", ("user", "employer")),
    ("i moved to Hamburg last month for the new job", ("user", "employer")),
    ("my partner is non binary, they/them, name is Sasha", ("user", "name")),
])
def test_stop_55_readings_that_stay_out(text: str, absent: tuple[str, str]) -> None:
    assert not any((s, k) == absent for _, s, k, _ in _tagged(text))


@pytest.mark.parametrize(("text", "fact", "absent"), [
    # stop 56: what one is, said opening a sentence, is the speaker's; said of the listener, the rule reads
    # nothing (the tagger's own reading is another matter, so these are the rules' alone)
    ("As a gay guy in a small village, dating apps are grim", ("user", "identity", "gay"), None),
    ("honestly, thank you. your courage as a trans person means a lot", None, ("user", "identity")),
    # the dislike verbs and the unit words are one alternation each
    ("i really loathe cilantro", ("user", "dislikes:cilantro", "cilantro"), None),
    ("stationed on the trauma division since may", ("user", "team", "trauma"), None),
    ("ines moved away so Pablo coaches us now", ("user", "family:coach", "Pablo"), None),
    ("Mum teaches me to sew", None, ("user", "family:teacher")),
])
def test_stop_56_rule_readings(text: str, fact: tuple[str, str, str] | None, absent: tuple[str, str] | None) -> None:
    found = {(s, k, v) for _, s, k, v in _found(text)}
    assert fact is None or fact in found
    assert absent is None or not any((s, k) == absent for s, k, _ in found)


@pytest.mark.parametrize(("text", "fact", "absent"), [
    # the units a number said of someone is no age of are one list (the children named by the tagger)
    ("our daughter maya, shes 6", ("Maya", "age", "6"), None),
    ("my twins are called mateo and sofia, theyre 3", ("Sofia", "age", "3"), None),
    ("my son leo, hes 5 weeks", ("user", "child:leo", "Leo"), ("Leo", "age")),
    ("my kids are Noah and Ella, theyre 6 and 3 months old", ("user", "child:ella", "Ella"), ("Ella", "age")),
])
def test_stop_56_ages(text: str, fact: tuple[str, str, str], absent: tuple[str, str] | None) -> None:
    _assert_read(text, fact, absent)
