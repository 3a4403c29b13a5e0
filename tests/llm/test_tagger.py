"""The fact tagger (llm/tagger.py): training labels from the corpus's facts, the reading of
tagged words as (subject, key, value), the merge of trained deltas, and the network graph."""

from __future__ import annotations

from collections.abc import Sequence

from datetime import datetime, timezone

import numpy as np
import pytest

from memfold.llm import tagger as T
from memfold.llm.facts import extract_facts
from memfold.models import Message


def _mark(sentence: str, words: str, tag: str, confidence: float = 0.9, nth: int = 0) -> T.Mark:
    start = -1
    for _ in range(nth + 1):
        start = sentence.index(words, start + 1)
    return T.Mark(tag, start, start + len(words), confidence)


def test_find_span_exact_words_case_ignored_then_by_stem() -> None:
    s = "im lactose intolerant and I live in Leeds"
    assert s[slice(*T.find_span(s, "leeds"))] == "Leeds"
    assert s[slice(*T.find_span(s, "lactose intolerance"))] == "lactose intolerant"
    assert T.find_span(s, "lee") is None  # never part of a word
    assert T.find_span(s, "York") is None


def test_find_span_before_prefers_the_occurrence_before_the_value() -> None:
    s = "my mum Ana said my mum is a nurse"
    span = T.find_span(s, "mum", before=s.index("nurse"))
    assert span == (s.index("mum is"), s.index("mum is") + 3)


def test_token_labels_mark_begin_and_inside_pieces() -> None:
    offsets = [(0, 0), (0, 1), (2, 7), (8, 11), (12, 17), (17, 19), (0, 0)]
    #          [CLS]   I       drive   red      Toyot    ##a      [SEP]
    labels = T.token_labels(offsets, [((8, 19), "possession")], T.VALUE_LABELS)
    names = [T.VALUE_LABELS[i] for i in labels]
    assert names == ["O", "O", "O", "B-possession", "I-possession", "I-possession", "O"]


def test_role_spans_mark_a_named_subject_and_a_relation_subject() -> None:
    s = "my sister Ana is a nurse and my mum works at Tesco"
    facts = [{"subject": "user", "key": "family:sister", "value": "Ana"},
             {"subject": "Ana", "key": "job", "value": "nurse"},
             {"subject": "user's mom", "key": "employer", "value": "Tesco"}]
    where = {n: T.find_span(s, f["value"]) for n, f in enumerate(facts)}
    roles = T.role_spans(s, facts, "user", where)
    assert ((s.index("sister"), s.index("sister") + 6), "QUAL") in roles
    assert ((s.index("Ana"), s.index("Ana") + 3), "SUBJ") in roles
    assert ((s.index("mum"), s.index("mum") + 3), "SUBJ") in roles  # "mom" is said "mum"


def test_marks_join_word_pieces_and_widen_to_whole_words() -> None:
    s = "I drive a red Toyota"
    offsets = [(0, 0), (0, 1), (2, 7), (8, 9), (10, 13), (14, 18), (18, 20), (0, 0)]
    b, i = T.VALUE_LABELS.index("B-possession"), T.VALUE_LABELS.index("I-possession")
    predicted = [0, 0, 0, 0, b, i, i, 0]
    marks = T.marks(s, offsets, predicted, [0.9] * 8, T.VALUE_LABELS)
    assert [(m.tag, s[m.start:m.end]) for m in marks] == [("possession", "red Toyota")]


def test_read_facts_assigns_subjects_and_relation_keys() -> None:
    s = "my sister Ana is a nurse and I teach in Leeds"
    facts = T.read_facts(s, [_mark(s, "Ana", "family"), _mark(s, "nurse", "job"), _mark(s, "Leeds", "location")],
                         [_mark(s, "sister", "QUAL"), _mark(s, "Ana", "SUBJ")], "user")
    got = {(f.subject, f.key, f.value) for f in facts}
    # Ana's job is Ana's; "I" between Ana and Leeds gives Leeds back to the speaker
    assert got == {("user", "family:sister", "Ana"), ("Ana", "job", "nurse"), ("user", "location", "Leeds")}


def test_read_facts_unnamed_relative_and_lowercase_name() -> None:
    s = "my mum is a dentist, my bestie tunde lives in lagos"
    facts = T.read_facts(s, [_mark(s, "dentist", "job"), _mark(s, "lagos", "location")],
                         [_mark(s, "mum", "SUBJ"), _mark(s, "tunde", "SUBJ")], "user")
    assert {(f.subject, f.key) for f in facts} == {("user's mom", "job"), ("Tunde", "location")}


def test_read_facts_keyed_families_take_their_thing_from_the_qualifier() -> None:
    s = "my favourite band is Khruangbin and our dog Miso loves the partner Kim"
    facts = T.read_facts(
        s, [_mark(s, "Khruangbin", "favorite"), _mark(s, "Miso", "pet"), _mark(s, "Kim", "partner")],
        [_mark(s, "band", "QUAL"), _mark(s, "dog", "QUAL")], "user")
    got = {(f.key, f.value) for f in facts}
    assert got == {("favorite:band", "Khruangbin"), ("pet:dog", "Miso"), ("partner", "Kim")}


def test_read_facts_without_a_qualifier_leaves_the_thing_unsaid() -> None:
    s = "Khruangbin all day and Miso"
    facts = T.read_facts(s, [_mark(s, "Khruangbin", "favorite"), _mark(s, "Miso", "pet")], [], "user")
    assert [(f.key, f.value) for f in facts] == [("favorite", "Khruangbin"), ("pet", "Miso")]


class _ReadsUnsaidThings:
    """A tagger that reads a capitalised word after 'overtook'/'renamed her' as a favourite
    or a pet whose thing the sentence does not say."""

    def tag(self, sentences: list[str], speaker: str) -> list[list[T.TaggedFact]]:
        out = []
        for s in sentences:
            words = s.replace(",", "").split()
            out.append([T.TaggedFact(speaker, "favorite" if "overtook" in words else "pet", w, 0.95)
                        for w in words[:1] + words[3:4] if w[:1].isupper() and w not in ("We", "I")])
        return out


@pytest.mark.parametrize(("text", "stored", "expected"), [
    ("Ishiguro overtook Murakami for me", {("user", "favorite:author"): "Murakami"}, ("favorite:author", "Ishiguro")),
    ("Ishiguro overtook everyone for me", {("user", "favorite:author"): "Murakami"}, None),  # names no stored one
    ("We renamed her Mochi, Bella didn't suit her", {("user", "pet:cat"): "Bella", ("user", "pet:dog"): "Rex"},
     ("pet:cat", "Mochi")),
    ("We renamed her Mochi", {("user", "pet:cat"): "Bella"}, None),
])
def test_a_thing_the_sentence_does_not_say_is_keyed_by_the_stored_one_it_names(
        text: str, stored: dict[tuple[str, str], str], expected: tuple[str, str] | None) -> None:
    message = Message(msg_id="m1", user_id="u", speaker="user", role="user", text=text,
                      ts=datetime(2026, 1, 1, tzinfo=timezone.utc))
    facts, _ = extract_facts(message, tagger=_ReadsUnsaidThings(), stored=stored)  # type: ignore[arg-type]
    read = [(f.key, f.value) for f in facts if f.key.split(":")[0] in ("favorite", "pet")]
    assert read == ([expected] if expected else [])


def _likeness_by_shared_words(text: str, others: Sequence[str]) -> list[float]:
    """A stand-in for the embedding model: the share of ``text``'s words each other has."""
    words = set(text.lower().split())
    return [len(words & set(other.lower().split())) / max(len(words), 1) for other in others]


@pytest.mark.parametrize(("stored", "expected"), [
    ({("user", "favorite:author"): "Kazuo Ishiguro", ("user", "favorite:drink"): "negroni"}, "favorite:author"),
    ({("user", "favorite:drink"): "negroni"}, None),  # nothing like it: not keyed
    ({("user", "favorite:author"): "Ishiguro Kazuo", ("user", "favorite:writer"): "Kazuo Ishiguro"}, None),  # a tie
])
def test_a_thing_the_message_does_not_name_is_keyed_by_the_stored_one_most_like_it(
        stored: dict[tuple[str, str], str], expected: str | None) -> None:
    text = "Ishiguro overtook everyone for me"
    message = Message(msg_id="m1", user_id="u", speaker="user", role="user", text=text,
                      ts=datetime(2026, 1, 1, tzinfo=timezone.utc))
    facts, _ = extract_facts(message, tagger=_ReadsUnsaidThings(), stored=stored,  # type: ignore[arg-type]
                             likeness=_likeness_by_shared_words)
    assert [f.key for f in facts if f.key.startswith("favorite")] == ([expected] if expected else [])


def test_read_facts_per_value_and_vehicle_keys() -> None:
    s = "i drive a beat up civic and im allergic to peanuts"
    facts = T.read_facts(s, [_mark(s, "beat up civic", "possession"), _mark(s, "peanuts", "allergy")], [], "user")
    assert {(f.key, f.value) for f in facts} == {("possession:car", "beat up civic"),
                                                 ("allergy:peanuts", "peanuts")}


def test_merged_weights_add_the_low_rank_update_and_set_trained_tensors() -> None:
    base = {"encoder.layer.0.attention.self.query.weight": np.ones((4, 3), np.float32),
            "encoder.layer.0.output.LayerNorm.weight": np.ones(4, np.float32)}
    a, b = np.full((2, 3), 0.5, np.float32), np.full((4, 2), 2.0, np.float32)
    trained = T.TaggerWeights({"encoder.layer.0.attention.self.query.lora_a": a,
                               "encoder.layer.0.attention.self.query.lora_b": b,
                               "encoder.layer.0.output.LayerNorm.weight": np.zeros(4, np.float32),
                               "value_head.weight": np.eye(2, dtype=np.float32)}, 0.5, "x")
    merged = T.merged_weights(base, trained)
    assert np.allclose(merged["encoder.layer.0.attention.self.query.weight"], 1 + 0.5 * (b @ a))
    assert np.allclose(merged["encoder.layer.0.output.LayerNorm.weight"], 0)
    assert "value_head.weight" in merged and base["encoder.layer.0.output.LayerNorm.weight"][0] == 1


@pytest.mark.slow  # loads the base weights (90 MB) and runs the graph in fp32
def test_the_graph_computes_minilm() -> None:
    """With no trained deltas the graph is all-MiniLM-L6-v2: its mean-pooled states equal the
    default embedder's sentence vectors (which run another graph of the same model)."""
    import onnxruntime as ort

    from memfold.embed.quantized import MiniLMQ8Embedder
    from memfold.llm.tagger_graph import build_graph

    weights = T.base_weights()
    # identity heads: the value "logits" are the encoder's last hidden states themselves
    for head in ("value_head", "role_head"):
        weights[f"{head}.weight"] = np.eye(384, dtype=np.float32)
        weights[f"{head}.bias"] = np.zeros(384, np.float32)
    session = ort.InferenceSession(build_graph(weights).SerializeToString(), providers=["CPUExecutionProvider"])
    texts = ["I moved to Leeds last spring.", "my sister Ana is a nurse"]
    encodings = T.tagger_tokenizer().encode_batch(texts)
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    hidden, _ = session.run(["value_logits", "role_logits"], {"input_ids": ids, "attention_mask": mask})
    pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    expected = MiniLMQ8Embedder().embed(texts)
    assert np.all(np.sum(pooled * expected, axis=1) > 0.98)  # the q8 graph rounds: ~0.99


def test_read_facts_trims_a_span_that_runs_a_word_too_far() -> None:
    s = "I stayed in the city of Nuuk and want to make a difference away from the court"
    facts = T.read_facts(s, [_mark(s, "of Nuuk", "location"), _mark(s, "make a difference away from the", "goal"),
                             _mark(s, "the", "hobby"), _mark(s, "and", "possession")], [], "user")
    assert [(f.key, f.value) for f in facts] == [
        ("location", "Nuuk"), ("goal:make_a_difference_away", "make a difference away")]


@pytest.mark.parametrize(("sentence", "status"), [
    ("i have a girlfriend now, her name is Yuki", "girlfriend"),
    ("my husband is Tom", "husband"),
    ("my ex-girlfriend is Yuki", None),
    ("my partner is Yuki", None),
])
def test_a_partner_read_with_a_title_also_states_the_status(sentence: str, status: str | None) -> None:
    name = sentence.split()[-1]
    facts = T.read_facts(sentence, [_mark(sentence, name, "partner")], [], "user")
    assert ("partner", name) in [(f.key, f.value) for f in facts]
    assert [f.value for f in facts if f.key == "relationship_status"] == ([status] if status else [])


class _ReadsEmployer:
    """A tagger that reads 'Nintendo' as the speaker's employer wherever it is said."""

    def tag(self, sentences: list[str], speaker: str) -> list[list[T.TaggedFact]]:
        return [[T.TaggedFact(speaker, "employer", "Nintendo", 0.95)] if "Nintendo" in s else [] for s in sentences]


@pytest.mark.parametrize(("text", "read"), [
    ("aiko left sony!! shes at Nintendo now", False),  # about "she", no "I": not the speaker's
    ("she said I should apply, and now I'm at Nintendo", True),
    ("at Nintendo now, loving it", True),  # a dropped "I" is still the speaker
    ("switched to Nintendo, they pay more", True),  # "they" after the value: the employer
])
def test_a_sentence_about_someone_else_gives_the_speaker_no_tagged_fact(text: str, read: bool) -> None:
    message = Message(msg_id="m1", user_id="u", speaker="user", role="user", text=text,
                      ts=datetime(2026, 1, 1, tzinfo=timezone.utc))
    facts, _ = extract_facts(message, tagger=_ReadsEmployer())  # type: ignore[arg-type]
    assert any(f.key == "employer" for f in facts) is read


class _ReadsCarsAndDogs:
    """Reads 'Tesla Model 3' or 'Kia Niro' as the speaker's car and 'Pepperoni' as their dog."""

    def tag(self, sentences: list[str], speaker: str) -> list[list[T.TaggedFact]]:
        return [[T.TaggedFact(speaker, "possession:car", v, 0.95) for v in ("Tesla Model 3", "Kia Niro") if v in s]
                + [T.TaggedFact(speaker, "pet:dog", "Pepperoni", 0.95) for v in ("Pepperoni",) if v in s]
                for s in sentences]


@pytest.mark.parametrize(("text", "read"), [
    ("the neighbours got a new puppy, a dachshund named Pepperoni, he and Pepper are besties", False),
    ("our new puppy is a dachshund named Pepperoni", True),
    ("got a puppy!! a dachshund named Pepperoni", True),  # the speaker, "I" dropped
    ("test drove a Tesla Model 3 on saturday, way out of budget", False),  # tried, not owned
    ("we rented a Tesla Model 3 for the road trip", False),
    ("took a Tesla Model 3 for a test drive, not buying", False),
    ("rented a car for years and then bought a Kia Niro", True),  # the rental is another car
    ("I drive a Kia Niro now", True),
])
def test_a_thing_someone_else_has_or_the_speaker_only_used_is_not_theirs(text: str, read: bool) -> None:
    message = Message(msg_id="m1", user_id="u", speaker="user", role="user", text=text,
                      ts=datetime(2026, 1, 1, tzinfo=timezone.utc))
    facts, _ = extract_facts(message, tagger=_ReadsCarsAndDogs())  # type: ignore[arg-type]
    assert any(f.subject == "user" and f.key in ("possession:car", "pet:dog") for f in facts) is read


class _CountingReader:
    """Reads each sentence as one 'employer' piece and counts the network calls."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def read(self, sentences: list[str]) -> list[T.Reading]:
        self.calls.append(list(sentences))
        values = np.full((1, len(T.VALUE_LABELS)), -9.0, dtype=np.float32)
        values[0, T.VALUE_LABELS.index("B-employer")] = 9.0
        roles = np.zeros((1, len(T.ROLE_LABELS)), dtype=np.float32)
        return [T.Reading(s, [(len(s) - 5, len(s))], values, roles) for s in sentences]


def test_a_prefetched_tagger_reads_each_sentence_once_and_the_rest_when_asked() -> None:
    reader = _CountingReader()
    tagger = T.PrefetchedTagger(reader, dict(zip(["at Acme", "at Bosch"], reader.read(["at Acme", "at Bosch"]))))  # type: ignore[arg-type]
    assert [[f.value for f in facts] for facts in tagger.tag(["at Bosch", "at Acme"], "user")] == [["Bosch"], ["Acme"]]
    assert [[f.value for f in facts] for facts in tagger.tag(["at Zeiss", "at Acme"], "user")] == [["Zeiss"], ["Acme"]]
    assert reader.calls == [["at Acme", "at Bosch"], ["at Zeiss"]]


@pytest.mark.slow  # the packaged tagger's int8 network
def test_sentences_read_in_batches_give_the_facts_read_one_at_a_time() -> None:
    tagger = T.packaged_tagger()
    assert tagger is not None
    sentences = ["I work at Bosch as an engineer", "my sister Ana is a nurse in Porto",
                 "we got a puppy last week, her name is Mochi and she's a beagle", "I'm vegan",
                 "home for me is lisbon these days, moved here from berlin in march for the new job"]
    def read(facts: list[T.TaggedFact]) -> list[tuple[str, str, str]]:
        return sorted((f.subject, f.key, f.value) for f in facts)
    one_by_one = [read(tagger.tag([s], "user")[0]) for s in sentences]
    batched = [read(facts) for facts in tagger.prefetched(sentences).tag(sentences, "user")]
    assert batched == one_by_one
    assert any(facts for facts in batched)


def test_a_partner_after_a_he_or_she_is_the_named_persons() -> None:
    s = "Ines dumped Tom!! shes with Hugo now"
    facts = T.read_facts(s, [_mark(s, "Hugo", "partner")], [_mark(s, "Ines", "SUBJ")], "user")
    assert [(f.subject, f.key, f.value) for f in facts] == [("Ines", "partner", "Hugo")]


@pytest.mark.parametrize(("sentence", "employer"), [
    ("hi im Linh, manual tester at FPT Software", "FPT Software"),
    ("been at Fringe Benefits In kings heath 6 years", "Fringe Benefits"),
    ("Hi I Am Linh, Tester At FPT Software", "FPT"),  # capitals everywhere say nothing
])
def test_an_employer_typed_in_capitals_is_read_whole(sentence: str, employer: str) -> None:
    first = employer.split()[0]
    facts = T.read_facts(sentence, [_mark(sentence, first, "employer")], [], "user")
    assert [(f.key, f.value) for f in facts] == [("employer", employer)]
