"""The offline backend: classification, extraction, batching and the shared embedding."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from router_helpers import T0, MessageFactory

from memfold.embed import HashingEmbedder
from memfold.llm import OfflineBackend, RouteContext
from memfold.models import Message
from memfold.router import Router


class CountingEmbedder:
    """A working embedder (hashing) that counts the texts it was asked to embed."""

    def __init__(self) -> None:
        self._inner = HashingEmbedder()
        self.name, self.dim = "counting-hashing", self._inner.dim
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self._inner.embed(texts)


@pytest.mark.parametrize(("text", "speaker", "role", "kind"), [
    ("I went to a LGBTQ support group yesterday and it was so powerful.", "Caroline", "user",
     "EVENT"),
    ("We adopted a kitten last weekend!", "user", "user", "EVENT"),
    ("I'm flying to Oslo next Friday.", "user", "user", "EVENT"),
    ("My name is Priya and I work as a data analyst.", "user", "user", "FACT"),
    ("I'm a transgender woman.", "Caroline", "user", "FACT"),
    ("I have two cats and a dog.", "Melanie", "user", "FACT"),
    ("I'm allergic to shellfish.", "user", "user", "FACT"),
    ("def f(x):\n    return x * 2\n", "user", "user", "DOCUMENT"),
    ("Weather for Porto: rain, 18C.", "weather", "tool", "DOCUMENT"),
    ("Here is the article: The central bank raised rates by a quarter point on Wednesday, "
     "citing persistent inflation across the services sector.", "user", "user", "DOCUMENT"),
    ("Thanks, that's great!", "user", "user", "NONE"),
    ("Wow, that's awesome! What kind of art do you make?", "Melanie", "user", "NONE"),
    ("Can you summarise that?", "user", "user", "NONE"),
    ("Good morning!", "user", "user", "NONE"),
])
def test_classifies(router: Router, msg: MessageFactory, text: str, speaker: str, role: str,
                    kind: str) -> None:
    assert router.route(msg(text, speaker=speaker, role=role)).kind == kind


def test_fact_extraction_uses_the_speaker_as_subject(router: Router, msg: MessageFactory) -> None:
    decision = router.route(msg("I'm a nurse and I live in Leeds.", speaker="Ravi"))
    found = {(f.subject, f.key, f.value) for f in decision.facts}
    assert found == {("Ravi", "job", "nurse"), ("Ravi", "location", "Leeds")}
    assert all(f.evidence_msg_id == decision.msg_id for f in decision.facts)


def test_unnamed_user_is_user(router: Router, msg: MessageFactory) -> None:
    [fact] = router.route(msg("My name is Tom.")).facts
    assert (fact.subject, fact.key, fact.value) == ("user", "name", "Tom")


def test_multi_valued_keys_do_not_overwrite_each_other(router: Router, msg: MessageFactory) -> None:
    keys = {f.key for f in router.route(msg("I love hiking and I hate running.")).facts}
    assert keys == {"hobby:hiking", "dislikes:running"}


def test_event_defaults_to_message_time(router: Router, msg: MessageFactory) -> None:
    decision = router.route(msg("I finally finished my thesis!"))
    assert decision.kind == "EVENT"
    assert decision.event is not None and decision.event.occurred_at == T0
    assert decision.event.time_expression is None


def test_event_text_drops_questions(router: Router, msg: MessageFactory) -> None:
    decision = router.route(msg("I ran a marathon on Sunday. Have you ever run one?"))
    assert decision.event is not None
    assert decision.event.text == "I ran a marathon on Sunday."
    assert decision.event.occurred_at == datetime(2023, 5, 7, tzinfo=timezone.utc)


def test_questions_carry_no_facts(router: Router, msg: MessageFactory) -> None:
    decision = router.route(msg("Do I live in Berlin?"))
    assert decision.kind == "NONE" and decision.facts == []


def test_precomputed_embeddings_are_used_not_recomputed(msg: MessageFactory) -> None:
    embedder = CountingEmbedder()
    backend = OfflineBackend(embedder)
    messages = [msg("I'm a chef."), msg("Thanks!")]
    vectors = HashingEmbedder().embed([m.text for m in messages])
    backend.route_many(messages, [RouteContext(embedding=v) for v in vectors])
    prototypes = len(embedder.texts)
    assert prototypes > 0  # the prototypes, embedded once
    backend.route_many(messages, [RouteContext(embedding=v) for v in vectors])
    assert len(embedder.texts) == prototypes  # nothing embedded again
    backend.route_many(messages, [RouteContext(), RouteContext()])
    assert embedder.texts[prototypes:] == ["I'm a chef.", "Thanks!"]  # only what had no vector


def test_route_many_equals_route(backend: OfflineBackend, msg: MessageFactory) -> None:
    messages = [msg("I live in Rome."), msg("We went skiing last week."), msg("ok")]
    batch = backend.route_many(messages, [RouteContext() for _ in messages])
    single = [backend.route(m, RouteContext()) for m in messages]
    assert batch == single


def test_without_embedder_cues_still_route(msg: MessageFactory) -> None:
    decision = OfflineBackend().route(msg("I'm vegan."), RouteContext())
    assert decision.kind == "FACT" and decision.facts[0].key == "diet"


def test_complete_json_offline_is_the_fallback(backend: OfflineBackend) -> None:
    sentinel = RouteContext()
    assert backend.complete_json("s", "u", RouteContext, fallback=lambda: sentinel) is sentinel


@settings(max_examples=80, deadline=None)
@given(text=st.text(min_size=1, max_size=400).filter(lambda t: t.strip() and "\x00" not in t),
       role=st.sampled_from(["user", "assistant", "tool", "document"]))
def test_any_text_gets_exactly_one_valid_decision(text: str, role: str) -> None:
    message = Message(msg_id="x", user_id="u", role=role, text=text,
                      ts=datetime(2023, 1, 1, tzinfo=timezone.utc))
    decision = Router(OfflineBackend(HashingEmbedder())).route(message)
    assert decision.kind in ("FACT", "EVENT", "DOCUMENT", "NONE")
    assert 0.0 <= decision.confidence <= 1.0
    assert (decision.event is not None) == (decision.kind == "EVENT")
    if role != "user":
        assert decision.facts == []


@pytest.mark.slow
@pytest.mark.parametrize("embedder_name", ["minilm-q8", "minilm-int8", "minilm"])
def test_real_model_routes_the_dev_split(embedder_name: str) -> None:
    """The real MiniLM path end to end, q8 (the default), int8 weights and fp32 (the benchmark reports
    the figures)."""
    import json
    from pathlib import Path

    from memfold.config import Settings, build_embedder

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "routing_dev.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    messages = [Message(msg_id=r["id"], user_id="b", speaker=r["speaker"], role=r["role"],
                        text=r["text"], ts=T0) for r in rows]
    embedder = build_embedder(Settings(embedder=embedder_name))
    vectors = embedder.embed([m.text for m in messages])
    decisions = Router(OfflineBackend(embedder)).route_many(
        messages, [RouteContext(embedding=v) for v in vectors])
    correct = sum(d.kind == r["label"] for d, r in zip(decisions, rows))
    assert correct / len(rows) >= 0.85


def test_profile_turns_add_into_update(backend: OfflineBackend, msg: MessageFactory) -> None:
    from memfold.models import ProfileFact

    current = [ProfileFact(user_id="u1", key="location", value="Lisbon", sources=["m0"])]
    [fact] = backend.route(msg("I live in Berlin."), RouteContext(profile=current)).facts
    assert (fact.action, fact.key, fact.value) == ("update", "location", "Berlin")
    [same] = backend.route(msg("I live in Lisbon."), RouteContext(profile=current)).facts
    assert same.action == "add"
    [gone] = backend.route(msg("I no longer work at Acme."), RouteContext(profile=current)).facts
    assert gone.action == "none"  # nothing stored to delete


def test_event_keeps_its_side_fact(router: Router, msg: MessageFactory) -> None:
    decision = router.route(msg("We moved to Austin last month."))
    assert decision.kind == "EVENT"
    assert [(f.key, f.value) for f in decision.facts] == [("location", "Austin")]


@pytest.mark.parametrize(("text", "kind"), [
    ("Oh, I held a charity bake sale last week.", "EVENT"),
    ("Yeah, I painted that one last year!", "EVENT"),
    ("That's so cool, I went there last summer with my dad.", "EVENT"),
    ("Twisted my ankle on Friday, so no running for a while.", "EVENT"),
    ("I'm organising a reunion with my cousins next month.", "EVENT"),
    ("Starting tomorrow, I will cycle to work.", "EVENT"),
    ("Yep, I'll let you know.", "NONE"),
    ("Sounds fun! How was your trip last month?", "NONE"),
    ("Here's a pic of my garden, the roses are blooming!", "NONE"),
])
def test_chat_turns(router: Router, msg: MessageFactory, text: str, kind: str) -> None:
    assert router.route(msg(text, speaker="Sam")).kind == kind


def test_dates_come_from_statements_not_questions(router: Router, msg: MessageFactory) -> None:
    decision = router.route(msg("I baked bread. Did you go out yesterday?"))
    assert decision.kind == "EVENT" and decision.event is not None
    assert decision.event.occurred_at == T0 and decision.event.time_expression is None


def test_very_long_personal_text_is_a_document(router: Router, msg: MessageFactory) -> None:
    story = "I went to the lake and I love it there. My sister Ana is a nurse. " * 40
    decision = router.route(msg(story))
    assert decision.kind == "DOCUMENT" and decision.facts == []


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm a huge fan of board games!", {("likes:board_games", "board games")}),
    ("I'm a big jazz fan.", {("likes:jazz", "jazz")}),
    ("I love going on long walks with my dog.",
     {("hobby:going_on_long_walks", "going on long walks")}),
    ("I'm a nurse and I live in Leeds.", {("job", "nurse"), ("location", "Leeds")}),
    ("I hear you, it's hard.", set()),
    ("My kids are so excited about the trip.", set()),
])
def test_fact_values(router: Router, msg: MessageFactory, text: str, expected: set) -> None:
    assert {(f.key, f.value) for f in router.route(msg(text)).facts} == expected


def test_a_habit_said_in_passing_is_read_by_the_tagger(router: Router, msg: MessageFactory) -> None:
    """The rules read no fact in "I stay in shape by running"; the fact tagger reads the
    running (it also reads "shape", a known false reading of this sentence)."""
    facts = {(f.key, f.value) for f in router.route(msg("I stay in shape by running.")).facts}
    assert ("hobby:running", "running") in facts


def test_a_bare_fan_statement_is_not_a_like(router: Router, msg: MessageFactory) -> None:
    assert all(f.value.lower() not in ("huge", "a huge") for f in
               router.route(msg("Emma is brilliant. I'm a huge fan.")).facts)


def test_a_per_value_swap_retires_the_value_it_corrects(backend: OfflineBackend, msg: MessageFactory) -> None:
    from memfold.models import ProfileFact

    current = [ProfileFact(user_id="u1", key="health:migraines", value="migraines", sources=["m0"])]
    decision = backend.route(msg("the neurologist says its cluster headaches not migraines"),
                             RouteContext(profile=current))
    found = {(f.action, f.key) for f in decision.facts}
    assert ("add", "health:cluster_headaches") in found and ("delete", "health:migraines") in found


@pytest.mark.parametrize("text", [
    "Profile for you:\n- Name: Oluwaseun Bakare\n- Age: 27\n- City: Ibadan\n- Job: civil engineer",
    "profile - Name: Inés Moreno / Age: 33 / City: Seville / Job: flamenco dancer",
])
def test_a_list_of_the_speakers_attributes_is_a_fact_however_it_is_formatted(text: str) -> None:
    message = Message(msg_id="m", user_id="u", role="user", text=text, ts=T0)
    decision = OfflineBackend(HashingEmbedder()).route(message, RouteContext())
    assert decision.kind == "FACT"
    assert {"age", "location", "job"} <= {fact.key for fact in decision.facts if fact.subject == "user"}


def test_a_note_with_one_or_two_labelled_fields_is_no_profile() -> None:
    text = "Meeting notes\nDate: 3 March\nAttendees: Sam, Jo\nLocation: room 4\nTopic: budget"
    message = Message(msg_id="m", user_id="u", role="user", text=text, ts=T0)
    decision = OfflineBackend(HashingEmbedder()).route(message, RouteContext())
    assert not {fact.key for fact in decision.facts if fact.key == "location"}


def _chatter_head(dim: int) -> object:
    """A working head that reads every message as chatter (NONE), whatever it says."""
    from memfold.llm.head import ClassifierHead
    from memfold.llm.offline import KINDS
    from memfold.llm.route_features import ROUTE_CUES

    width = dim + len(ROUTE_CUES)
    return ClassifierHead(labels=KINDS, cue_names=ROUTE_CUES, embedders=(HashingEmbedder().name,),
                      weights=np.zeros((width, len(KINDS)), dtype=np.float32),
                      bias=np.array([0.0, 0.0, 0.0, 5.0], dtype=np.float32),
                      cue_mean=np.zeros(len(ROUTE_CUES), dtype=np.float32),
                      cue_scale=np.ones(len(ROUTE_CUES), dtype=np.float32))


@pytest.mark.parametrize(("text", "kind"), [
    ("Because I work at the Port of Rotterdam, people ask me about shipping at parties", "FACT"),
    ("fyi I live in Leeds, whats a good day trip", "FACT"),
    ("explain mortgages like im 12", "NONE"),  # a turn of phrase (a weaker rule) stays chatter
    ("my sister lives in Leeds, whats a good day trip", "NONE"),  # not the speaker's own fact
])
def test_a_fact_stated_in_the_surest_words_is_kept_when_the_head_reads_chatter(text: str, kind: str) -> None:
    embedder = HashingEmbedder()
    backend = OfflineBackend(embedder, head=_chatter_head(embedder.dim), tagger=False)  # type: ignore[arg-type]
    message = Message(msg_id="m", user_id="u", role="user", text=text, ts=T0)
    assert backend.route(message, RouteContext()).kind == kind


@pytest.mark.parametrize(("text", "kind"), [
    ("im in customer support", "FACT"),  # the tagger's reading of a short statement
    ("bartender life means i sleep till noon lol", "FACT"),
    ("im in customer support, any tips for angry callers?", "NONE"),  # asks: the head decides
    ("im in bed lol", "NONE"),  # a rule's reading of where someone is this minute is no proof
    ("im at the gym", "NONE"),
])
def test_a_short_statement_the_tagger_reads_is_kept_when_the_head_reads_chatter(text: str, kind: str) -> None:
    embedder = HashingEmbedder()
    backend = OfflineBackend(embedder, head=_chatter_head(embedder.dim))  # type: ignore[arg-type]
    message = Message(msg_id="m", user_id="u", role="user", text=text, ts=T0)
    assert backend.route(message, RouteContext()).kind == kind


def test_a_head_trained_on_other_cues_is_a_config_error() -> None:
    from dataclasses import replace

    from memfold.errors import ConfigError

    embedder = HashingEmbedder()
    head = _chatter_head(embedder.dim)
    stale = replace(head, cue_names=head.cue_names[:-1], cue_mean=head.cue_mean[:-1],  # type: ignore[type-var]
                    cue_scale=head.cue_scale[:-1], weights=head.weights[:-1])
    backend = OfflineBackend(embedder, head=stale, tagger=False)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="retrain"):
        backend.route(Message(msg_id="m", user_id="u", role="user", text="I live in Leeds", ts=T0), RouteContext())


def _profile(*facts: tuple[str, str, str]) -> list:
    from memfold.models import ProfileFact

    return [ProfileFact(user_id="u1", subject=subject, key=key, value=value, sources=["m0"])
            for subject, key, value in facts]


def test_a_relative_who_moved_keeps_being_that_relative(backend: OfflineBackend, msg: MessageFactory) -> None:
    profile = _profile(("user", "family:brother", "Dawit"), ("Dawit", "location", "Addis Ababa"))
    facts = backend.route(msg("Dawit moved to Nairobi with his family, what should I send him"),
                          RouteContext(profile=profile)).facts
    assert ("Dawit", "location", "Nairobi") in {(f.subject, f.key, f.value) for f in facts}
    assert not any(f.key == "family:brother" and f.value != "Dawit" for f in facts)


def test_switched_to_the_instrument_retires_the_old_one(backend: OfflineBackend, msg: MessageFactory) -> None:
    facts = backend.route(msg("my wrists hate the guitar, so I switched to the ukulele"),
                          RouteContext(profile=_profile(("user", "hobby:guitar", "guitar")))).facts
    assert {(f.action, f.key) for f in facts} >= {("add", "hobby:ukulele"), ("delete", "hobby:guitar")}


def test_moving_between_crafts_is_no_home(backend: OfflineBackend, msg: MessageFactory) -> None:
    facts = backend.route(msg("i moved from acrylic to oil painting, so much slower"), RouteContext()).facts
    assert not any(f.key == "location" for f in facts)


def test_a_widower_is_widowed_and_grounded(backend: OfflineBackend, msg: MessageFactory) -> None:
    decision = backend.route(msg("My wife passed last spring. I am widower now, cooking is new to me."),
                             RouteContext(profile=_profile(("user", "relationship_status", "married"))))
    assert ("update", "relationship_status", "widowed") in {(f.action, f.key, f.value) for f in decision.facts}


def test_an_emoji_ends_the_statement_before_a_question(backend: OfflineBackend, msg: MessageFactory) -> None:
    text = "went fully pescatarian last month 🐟 fish tacos that arent boring?"
    facts = backend.route(msg(text), RouteContext(profile=_profile(("user", "diet", "vegetarian")))).facts
    assert ("update", "diet", "pescatarian") in {(f.action, f.key, f.value) for f in facts}


def test_a_child_moved_to_a_school_studies_there(backend: OfflineBackend, msg: MessageFactory) -> None:
    profile = _profile(("user", "child:noor", "Noor"), ("Noor", "education", "Hillside Primary"))
    facts = backend.route(msg("we moved noor to greenfield academy, smaller classes"), RouteContext(profile=profile)).facts
    assert ("Noor", "education", "Greenfield Academy") in {(f.subject, f.key, f.value) for f in facts}
    assert not any(f.key == "location" for f in facts)


def test_a_switch_keeps_the_rules_reading_of_the_new_value(backend: OfflineBackend, msg: MessageFactory) -> None:
    # the switch's own add is the rules' reading here; only the delete is the switch's
    decision = backend.route(msg("I don't play squash anymore, it's all padel now."),
                             RouteContext(profile=_profile(("user", "hobby:squash", "squash"))))
    assert {(f.action, f.key) for f in decision.facts} >= {("add", "hobby:padel"), ("delete", "hobby:squash")}


@pytest.mark.parametrize(("text", "kind"), [
    ("No results found.", "NONE"),
    ('Search returned 0 results for "vet invoice".', "NONE"),
    ('{\n  "status": "ok",\n  "message_id": "wamid.HBgMOTE5ODE0",\n  "delivered": true\n}', "NONE"),
    ('{"ok": true, "deleted": 0}', "NONE"),
    ('{"status": "ok", "count": 0, "items": []}', "NONE"),
    ('{"events": [{"title": "Dentist", "start": "2024-01-09T10:00"}]}', "DOCUMENT"),
])
def test_a_tools_acknowledgement_or_empty_result_is_nothing_to_keep(
        router: Router, msg: MessageFactory, text: str, kind: str) -> None:
    assert router.route(msg(text, role="tool", speaker="tool")).kind == kind


@pytest.mark.parametrize("text", ['{"name": "Ana", "city": "Oslo"}', "Found 3 results: dentist, gym, vet"])
def test_a_result_with_words_in_it_is_no_acknowledgement(text: str) -> None:
    from memfold.llm.cues import is_acknowledgement

    assert not is_acknowledgement(text)
