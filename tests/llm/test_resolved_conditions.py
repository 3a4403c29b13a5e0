"""A stored condition said to be over, a goal reached or a pastime, taste or aversion given up keeps
its key, with how it ended, in the speaker's words, as value (llm/resolved.py)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memfold.llm.facts import replaced_siblings
from memfold.llm.resolved import ended_pursuits, resolved_conditions
from memfold.models import FactExtraction, Message
from memfold.router.grounding import grounding_problem

AT = datetime(2026, 6, 1, tzinfo=timezone.utc)


def _message(text: str) -> Message:
    return Message(msg_id="m1", user_id="u", role="user", speaker="user", text=text, ts=AT)


def _resolved(text: str, stored: dict[tuple[str, str], str]) -> list[tuple[str, str, str]]:
    return [(f.subject, f.key, f.value) for f in resolved_conditions(text, _message(text), stored)]


def _ended_said(text: str, stored: dict[tuple[str, str], str]) -> list[tuple[str, str, str]]:
    return [(f.subject, f.key, f.value) for f in ended_pursuits(text, _message(text), stored)]


@pytest.mark.parametrize(("text", "stored", "expected"), [
    ("the paediatrician confirmed Noor grew out of her sesame allergy, so hummus is back on the menu",
     {("Noor", "allergy:sesame"): "sesame"}, ("Noor", "allergy:sesame", "grew out of")),
    ("my shoulder is fully healed after months of physio, what workouts can i restart",
     {("user", "health:frozen_shoulder"): "frozen shoulder"}, ("user", "health:frozen_shoulder", "fully healed")),
    ("great news about uncle Dario, the scan says he is in remission",
     {("Dario", "health:leukaemia"): "leukaemia", ("user", "family:uncle"): "Dario"},
     ("Dario", "health:leukaemia", "in remission")),
    ("her psoriasis cleared up with the new cream, anything to keep it away?",
     {("user's daughter", "health:psoriasis"): "psoriasis"}, ("user's daughter", "health:psoriasis", "cleared up")),
    ("grandads blood sugar is back to normal since he changed his diet",
     {("user's grandad", "health:high_blood_sugar"): "high blood sugar"},
     ("user's grandad", "health:high_blood_sugar", "back to normal")),
    ("physio signed me off today, knee is fully recovered", {("user", "health:knee_injury"): "knee injury"},
     ("user", "health:knee_injury", "fully recovered")),
    ("good news, mums asthma is under control with the new inhaler",
     {("user's mom", "health:asthma"): "asthma"}, ("user's mom", "health:asthma", "under control")),
    ("the doctor did the test again, I am no longer allergic to sulfa",
     {("user", "allergy:sulfa_drugs"): "sulfa drugs"}, ("user", "allergy:sulfa_drugs", "no longer allergic")),
    ("turns out im not actually allergic to penicillin, they tested me properly",
     {("user", "allergy:penicillin"): "penicillin", ("user", "health:penicillin_rash"): "penicillin rash"},
     ("user", "allergy:penicillin", "not actually allergic")),
    # a resolution that names nothing before the one that does ("clear" of the scans)
    ("dads tests came back clear, hes in remission now", {("user's dad", "health:leukaemia"): "leukaemia"},
     ("user's dad", "health:leukaemia", "in remission")),
    ("the knee op went well and shes walking fine again", {("Ama", "health:bad_knee"): "bad knee"},
     ("Ama", "health:bad_knee", "walking fine again")),
    # how it ended in the speaker's words, with "again" or "fully" after them
    ("bloods came back and cholesterol is normal again", {("user", "health:high_cholesterol"): "high cholesterol"},
     ("user", "health:high_cholesterol", "normal again")),
    ("redid the allergy test and shellfish came back negative", {("user", "allergy:shellfish"): "shellfish"},
     ("user", "allergy:shellfish", "negative")),
    ("doc ruled out the lactose thing, it was ibs all along", {("user", "health:lactose_intolerant"): "lactose intolerant"},
     ("user", "health:lactose_intolerant", "ruled out")),
    ("my back is fine now after the physio", {("user", "health:back_pain"): "back pain"},
     ("user", "health:back_pain", "fine")),
    # the resolution in the clause that names the condition, not an earlier one ("normal")
    ("iron levels are normal again and the rheumatologist says the lupus is in remission",
     {("user", "health:lupus"): "lupus"}, ("user", "health:lupus", "in remission")),
    # a word of degree is the speaker's too
    ("my hay fever is pretty much gone this year", {("user", "allergy:hay_fever"): "hay fever"},
     ("user", "allergy:hay_fever", "pretty much gone")),
    ("retested last week, im not allergic to latex anymore", {("user", "allergy:latex"): "latex"},
     ("user", "allergy:latex", "not allergic anymore")),
    # a long word the condition ends with names it
    ("new hip went in fine and the arthritis is gone from that side", {("user", "health:osteoarthritis"): "osteoarthritis"},
     ("user", "health:osteoarthritis", "gone")),
    # a clause naming no one ("the allergy is gone") is about whom the sentence names
    ("Great news, Kofi ate peanuts at the party, the allergy is gone",
     {("Kofi", "allergy:peanuts"): "peanuts", ("user", "allergy:cats"): "cats"}, ("Kofi", "allergy:peanuts", "gone")),
])
def test_a_stored_condition_said_to_be_over_takes_the_resolution(
        text: str, stored: dict[tuple[str, str], str], expected: tuple[str, str, str]) -> None:
    assert _resolved(text, stored) == [expected]


@pytest.mark.parametrize("text", [
    "will Noor grow out of her sesame allergy?",
    "hoping Noor has outgrown the sesame allergy by summer",
    "Noor has not outgrown her sesame allergy yet",
    "the sesame allergy is almost gone for Noor",
    "can kids be in remission from a sesame allergy?",
    "its clear that Noor's sesame allergy is getting worse",
    "Noor has gone to the sesame allergy clinic again",
    "is Noor not allergic to sesame anymore?",
    "Noor might not be allergic to sesame after all",
])
def test_a_resolution_asked_hoped_or_denied_changes_nothing(text: str) -> None:
    assert _resolved(text, {("Noor", "allergy:sesame"): "sesame"}) == []


def test_a_condition_no_word_names_is_not_resolved() -> None:
    # "healed" alone says nothing about which condition; "in remission" needs one stored condition
    assert _resolved("my knee is healed", {("user", "health:asthma"): "asthma"}) == []
    stored = {("Dario", "health:leukaemia"): "leukaemia", ("Dario", "health:gout"): "gout"}
    assert _resolved("Dario is in remission", stored) == []


def test_the_condition_of_the_person_spoken_of_is_resolved() -> None:
    stored = {("user", "allergy:eggs"): "eggs", ("Noor", "allergy:eggs"): "eggs"}
    assert _resolved("Noor outgrew the egg allergy, i havent", stored) == [("Noor", "allergy:eggs", "outgrew")]
    # someone else's healed wrist is not the speaker's
    assert _resolved("Tomasz said his wrist is healed", {("user", "health:broken_wrist"): "broken wrist"}) == []


@pytest.mark.parametrize(("text", "stored", "expected"), [
    # the part of the body a condition is of names it, and so does its short form
    ("cleared for full duty today, knee is 100% healed", {("user", "health:torn_acl"): "torn ACL"},
     [("user", "health:torn_acl", "100% healed")]),
    ("my back is fully recovered, back to deadlifts", {("user", "health:slipped_disc"): "slipped disc"},
     [("user", "health:slipped_disc", "fully recovered")]),
    ("doctor says mum is fully cured of TB now", {("user's mom", "health:tuberculosis"): "tuberculosis"},
     [("user's mom", "health:tuberculosis", "fully cured")]),
    # a body part no stored condition is of names none
    ("my knee is healed", {("user", "health:tennis_elbow"): "tennis elbow"}, []),
])
def test_a_condition_is_named_by_its_body_part_or_short_form(
        text: str, stored: dict[tuple[str, str], str], expected: list[tuple[str, str, str]]) -> None:
    assert _resolved(text, stored) == expected


def test_a_rereading_of_a_resolved_condition_by_its_short_form_goes() -> None:
    text = "doctor says mum is fully cured of TB now"
    stored = {("user's mom", "health:tuberculosis"): "tuberculosis"}
    fact = FactExtraction(subject="user's mom", key="health:tb", value="TB", evidence_msg_id="m1")
    out = replaced_siblings([fact], _message(text), stored)
    assert [(f.subject, f.key, f.value) for f in out] == [("user's mom", "health:tuberculosis", "fully cured")]


@pytest.mark.parametrize(("text", "stored", "reread", "expected"), [
    ("Noor grew out of her sesame allergy!! can she have tahini now",
     {("Noor", "allergy:sesame"): "sesame", ("user", "child:noor"): "Noor"},
     ("Noor", "allergy:sesame_allergy", "sesame allergy"), ("update", "Noor", "allergy:sesame", "grew out of")),
    ("gave up the saxophone, too loud for the flat", {("user", "hobby:saxophone"): "saxophone"},
     ("user", "hobby:saxophone", "saxophone"), ("update", "user", "hobby:saxophone", "gave up")),
])
def test_how_it_ended_replaces_the_rereading_and_is_grounded(
        text: str, stored: dict[tuple[str, str], str], reread: tuple[str, str, str],
        expected: tuple[str, str, str, str]) -> None:
    message = _message(text)
    subject, key, value = reread
    fact = FactExtraction(subject=subject, key=key, value=value, evidence_msg_id="m1")
    out = replaced_siblings([fact], message, stored)
    assert [(f.action, f.subject, f.key, f.value) for f in out] == [expected]
    assert all(grounding_problem(f, message) is None for f in out)


def test_a_condition_said_over_keeps_its_key_where_a_rule_would_delete_it() -> None:
    text = "retested last week, im not allergic to latex anymore"
    message, stored = _message(text), {("user", "allergy:latex"): "latex"}
    deleted = FactExtraction(action="delete", subject="user", key="allergy:latex", value="latex", evidence_msg_id="m1")
    out = replaced_siblings([deleted], message, stored)
    assert [(f.action, f.key, f.value) for f in out] == [("update", "allergy:latex", "not allergic anymore")]


@pytest.mark.parametrize(("text", "stored", "expected"), [
    ("finally gave up the saxophone, my neighbours will be thrilled",
     {("user", "hobby:saxophone"): "saxophone"}, ("user", "hobby:saxophone", "gave up")),
    ("stopped the crossfit classes, too pricey", {("user", "hobby:crossfit"): "crossfit"},
     ("user", "hobby:crossfit", "stopped")),
    ("im so over true crime podcasts tbh", {("user", "likes:true_crime_podcasts"): "true crime podcasts"},
     ("user", "likes:true_crime_podcasts", "so over")),
    ("mia is so over dinosaurs, its all horses now", {("Mia", "likes:dinosaurs"): "dinosaurs"},
     ("Mia", "likes:dinosaurs", "so over")),
    ("gave up on the divemaster thing, too expensive", {("user", "goal:get_padi_divemaster"): "get PADI divemaster"},
     ("user", "goal:get_padi_divemaster", "gave up on")),
    ("my french has completely gone, i could not order a coffee", {("user", "skill:french"): "French"},
     ("user", "skill:french", "completely gone")),
    ("after 2 yrs in bologna im fluent in italian finally", {("user", "skill:italian"): "Italian"},
     ("user", "skill:italian", "fluent")),
    ("zainab doesnt mind broccoli anymore", {("Zainab", "dislikes:broccoli"): "broccoli"},
     ("Zainab", "dislikes:broccoli", "doesnt mind anymore")),
    ("honestly im over kpop", {("user", "likes:k_pop"): "k-pop"}, ("user", "likes:k_pop", "over")),
    ("sold the kit, climbing is done for me after the finger injury", {("user", "hobby:climbing"): "climbing"},
     ("user", "hobby:climbing", "done")),
    ("no more salsa nights for me, my ankle says no", {("user", "hobby:salsa_dancing"): "salsa dancing"},
     ("user", "hobby:salsa_dancing", "no more")),
    ("weirdly olives have grown on me", {("user", "dislikes:olives"): "olives"},
     ("user", "dislikes:olives", "grown on me")),
    ("passed the IELTS with a 7.5!!", {("user", "goal:ielts_band_7"): "IELTS band 7"},
     ("user", "goal:ielts_band_7", "passed")),
    ("we opened the bakery last saturday 🥐", {("user", "goal:open_a_bakery"): "open a bakery"},
     ("user", "goal:open_a_bakery", "opened")),
    # the goal named by no word of it, the speaker's only goal
    ("GOAL REACHED. 100 days without a cigarette", {("user", "goal:quit_smoking"): "quit smoking"},
     ("user", "goal:quit_smoking", "reached")),
    ("did it!! 4:10 at the berlin marathon", {("user", "goal:run_a_marathon"): "run a marathon",
                                              ("user", "goal:learn_german"): "learn german"},
     ("user", "goal:run_a_marathon", "did it")),
])
def test_a_stored_pursuit_said_to_be_over_takes_how_it_ended_said(
        text: str, stored: dict[tuple[str, str], str], expected: tuple[str, str, str]) -> None:
    assert _ended_said(text, stored) == [expected]


@pytest.mark.parametrize("text", [
    "thinking about quitting chess, it eats all my evenings",
    "should i give up chess?",
    "i never quit chess, even when i was travelling",
    "my brother quit chess last year",
    "Ravi gave up chess when he started uni",
    "the chess club meeting is over, heading home",
    "the rain stopped so we played chess outside",
    "dropped the kids at chess club, back by 5",
])
def test_an_ending_planned_asked_denied_or_someone_elses_changes_nothing(text: str) -> None:
    assert _ended_said(text, {("user", "hobby:chess"): "chess"}) == []


def test_a_goal_done_without_its_words_needs_one_goal() -> None:
    stored = {("user", "goal:run_a_marathon"): "run a marathon", ("user", "goal:learn_german"): "learn german"}
    assert _ended_said("goal achieved!!! so happy", stored) == []
    assert _ended_said("did it!!! so happy", {("user", "goal:learn_german"): "learn german"}) == []  # "did it": which?


def test_a_value_of_function_words_stands_only_as_the_messages_own_words() -> None:
    message = _message("no more padel for me, my knee won")
    ended = FactExtraction(action="update", subject="user", key="hobby:padel", value="no more", evidence_msg_id="m1")
    assert grounding_problem(ended, message) is None
    assert "no content words" in (grounding_problem(ended.model_copy(update={"value": "did it"}), message) or "")


@pytest.mark.parametrize(("text", "stored", "expected"), [
    ("dads hip op went great, hes walking fine now", {("Lars", "health:bad_hip"): "bad hip", ("user", "family:dad"): "Lars"},
     ("update", "Lars", "health:bad_hip", "walking fine")),
    ("my wife gave up tennis, her elbow", {("Ana", "hobby:tennis"): "tennis", ("user", "partner"): "Ana",
                                           ("user", "hobby:tennis"): "tennis"},
     ("update", "Ana", "hobby:tennis", "gave up")),
])
def test_a_person_stored_by_name_is_named_by_their_relation(
        text: str, stored: dict[tuple[str, str], str], expected: tuple[str, str, str, str]) -> None:
    message = _message(text)
    out = replaced_siblings([], message, stored)
    assert [(f.action, f.subject, f.key, f.value) for f in out] == [expected]
    assert all(grounding_problem(f, message) is None for f in out)


@pytest.mark.parametrize(("text", "stored", "expected"), [
    # an aversion that went, in the message's own spelling (a value is grounded in its words)
    ("weirdly cilantro doesnt bother me anymore?? so go ahead and put it in",
     {("user", "dislikes:cilantro"): "cilantro"}, [("user", "dislikes:cilantro", "doesnt bother me anymore")]),
    ("plot twist i dont hate cilantro anymore?? had it in pho",
     {("user", "dislikes:cilantro"): "cilantro"}, [("user", "dislikes:cilantro", "dont hate anymore")]),
    ("after the rope access course heights dont bother me anymore", {("user", "fear"): "heights"},
     [("user", "fear", "dont bother me anymore")]),
    # asked, or no "anymore": nothing went
    ("do you think i dont hate cilantro anymore??", {("user", "dislikes:cilantro"): "cilantro"}, []),
    ("i dont hate cilantro, i just dont love it", {("user", "dislikes:cilantro"): "cilantro"}, []),
    # a skill faded or grown
    ("havent welded in 10 yrs, id say my welding is rusty now", {("user", "skill:welding"): "welding"},
     [("user", "skill:welding", "rusty")]),
    ("my spanish is fluent now after 6 months in madrid", {("user", "skill:spanish"): "Spanish"},
     [("user", "skill:spanish", "fluent")]),
])
def test_an_aversion_gone_or_a_skill_changed_takes_the_words_said(
        text: str, stored: dict[tuple[str, str], str], expected: list[tuple[str, str, str]]) -> None:
    message = _message(text)
    found = ended_pursuits(text, message, stored)
    assert [(f.subject, f.key, f.value) for f in found] == expected
    assert all(grounding_problem(f, message) is None for f in found)


@pytest.mark.parametrize(("text", "stored", "expected"), [
    ("acl fully repaired, cleared to play again", {("user", "health:torn_acl"): "torn ACL"},
     [("user", "health:torn_acl", "fully repaired")]),
    ("doctor says the asthma is resolved", {("user", "health:asthma"): "asthma"},
     [("user", "health:asthma", "resolved")]),
    # "cancer free" names the condition it is free of; "bp" is blood pressure
    ("mums scans came back clear, shes cancer free", {("user's mom", "health:breast_cancer"): "breast cancer"},
     [("user's mom", "health:breast_cancer", "cancer free")]),
    ("bp is normal now after losing 15kg", {("user", "health:high_blood_pressure"): "high blood pressure"},
     [("user", "health:high_blood_pressure", "normal")]),
    # "it" over: the condition named a sentence before
    ("theo can eat eggs now! allergist said hes outgrown it", {("Theo", "allergy:eggs"): "eggs"},
     [("Theo", "allergy:eggs", "outgrown")]),
    ("i love eggs! my knee pain is gone, its all healed", {("Theo", "allergy:eggs"): "eggs"}, []),
])
def test_more_ways_a_condition_is_said_to_be_over(
        text: str, stored: dict[tuple[str, str], str], expected: list[tuple[str, str, str]]) -> None:
    assert _resolved(text, stored) == expected


def test_a_goal_said_achieved_after_did_it_is_the_one_goal() -> None:
    stored = {("user", "goal:swim_a_mile"): "swim a mile"}
    assert _ended_said("DID IT!! 52 minutes in the lake, goal achieved", stored) == [
        ("user", "goal:swim_a_mile", "achieved")]


def test_the_goals_own_word_for_its_end_comes_first() -> None:
    stored = {("user", "goal:read_50_books"): "read 50 books"}
    assert _ended_said("finished 50 books last night, goal smashed", stored) == [
        ("user", "goal:read_50_books", "smashed")]


@pytest.mark.parametrize(("text", "stored", "expected"), [
    ("mushrooms are fine now, weirdly", {("user", "dislikes:mushrooms"): "mushrooms"}, ("user", "dislikes:mushrooms", "fine")),
    ("packed in the darts league, too many late nights", {("user", "hobby:darts"): "darts"}, ("user", "hobby:darts", "packed in")),
])
def test_an_aversion_fine_now_and_a_pastime_packed_in(text: str, stored: dict[tuple[str, str], str],
                                                      expected: tuple[str, str, str]) -> None:
    assert _ended_said(text, stored) == [expected]


def test_something_else_fine_now_ends_no_aversion() -> None:
    assert _ended_said("the wifi is fine now", {("user", "dislikes:mushrooms"): "mushrooms"}) == []


def test_did_it_gives_way_to_the_goals_own_words() -> None:
    stored = {("user", "goal:run_the_paris_marathon"): "run the paris marathon"}
    assert _ended_said("DID IT. paris marathon done in 4:05", stored) == [
        ("user", "goal:run_the_paris_marathon", "done")]
