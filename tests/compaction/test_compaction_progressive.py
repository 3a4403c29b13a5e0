"""Progressive summarization: nested extractive layers, traceable offsets, pick_layer."""

from __future__ import annotations

import random

from compaction_helpers import COUNTER, sentence
from hypothesis import HealthCheck, given, settings as hsettings
from hypothesis import strategies as st

from memfold.compaction.progressive import (
    AnthropicProgressiveSummarizer,
    LayerChoice,
    ProgressiveSettings,
    ProgressiveSummarizer,
    layers_as_chunks,
    pick_layer,
)
from compaction_helpers import T0

SUMMARIZER = ProgressiveSummarizer(ProgressiveSettings(min_tokens=50), COUNTER)


def _document(seed: int, paragraphs: int = 40) -> str:
    rng = random.Random(seed)
    filler = ["The group talked about the plan in general terms.", "Nothing else was decided.",
              "People seemed happy with the progress so far.", "The notes were shared afterwards."]
    out = []
    for p in range(paragraphs):
        lines = [rng.choice(filler) for _ in range(5)]
        if p % 3 == 0:
            lines.append(f"Invoice {1000 + p} from Brannigan Ltd was {rng.randint(100, 999)} dollars.")
        out.append(" ".join(lines))
    return "\n\n".join(out)


@given(st.lists(sentence(), min_size=5, max_size=80))
@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_layer_sentence_is_a_span_of_the_source(sentences: list[str]) -> None:
    document = " ".join(sentences)
    summary = SUMMARIZER.summarize(document, source_id="d1", sources=["m1"])
    assert summary.full_text == document
    for layer in summary.layers:
        for start, end in layer.spans:
            assert document[start:end] in layer.text
        assert layer.text == "\n".join(document[s:e] for s, e in layer.spans) or layer.level == 1
    levels = [set(summary.layer(i).sentences) for i in (1, 2, 3, 4)]
    assert levels[3] <= levels[2] <= levels[1] <= levels[0]  # each layer distils the previous


def test_layer_sizes_follow_the_targets() -> None:
    summary = SUMMARIZER.summarize(_document(1), source_id="d1")
    total = summary.source_tokens
    assert summary.layer(2).tokens <= 0.40 * total
    assert summary.layer(3).tokens <= 0.15 * total
    words = len(summary.layer(4).text.split())
    assert 1 <= words <= 100
    assert "Invoice" in summary.layer(3).text  # the specific data outranks the filler


def test_pick_layer_chooses_the_most_detailed_layer_that_fits() -> None:
    summary = SUMMARIZER.summarize(_document(2), source_id="d1")
    assert pick_layer(summary, summary.source_tokens, counter=COUNTER).level == 1
    assert pick_layer(summary, summary.layer(2).tokens, counter=COUNTER).level == 2
    assert pick_layer(summary, summary.layer(3).tokens + 1, counter=COUNTER).level == 3
    tiny = pick_layer(summary, 12, counter=COUNTER)
    assert tiny.truncated and tiny.tokens <= 12
    filled = pick_layer(summary, summary.layer(3).tokens - 1, fill=True, counter=COUNTER)
    assert filled.level == 4 and filled.tokens <= summary.layer(3).tokens - 1
    assert filled.tokens > summary.layer(4).tokens


@given(st.integers(0, 2000))
@hsettings(max_examples=40, deadline=None)
def test_picked_layer_never_exceeds_the_budget(budget: int) -> None:
    summary = SUMMARIZER.summarize(_document(3), source_id="d1")
    for fill in (False, True):
        assert pick_layer(summary, budget, fill=fill, counter=COUNTER).tokens <= budget


def test_layers_become_document_chunks() -> None:
    summary = SUMMARIZER.summarize(_document(4), source_id="m7", sources=["m7"])
    chunks = layers_as_chunks(summary, user_id="u1", doc_id="doc7", ts=T0)
    assert [c.layer for c in chunks] == [2, 3, 4]
    assert all(c.sources == ["m7"] and c.doc_id == "doc7" for c in chunks)


class _Picker:
    """A JsonCompleter double that answers with a fixed choice (or the fallback)."""

    def __init__(self, choice: LayerChoice | None) -> None:
        self.choice = choice
        self.calls: list[str] = []

    def complete_json(self, system, user, schema, *, fallback):  # type: ignore[no-untyped-def]
        self.calls.append(user)
        return fallback() if self.choice is None else self.choice


def test_model_picked_layers_are_traceable_and_invalid_picks_fall_back() -> None:
    document = _document(5, paragraphs=6)
    good = _Picker(LayerChoice(layer2=[0, 1, 5, 6], layer3=[0, 5], layer4=[5]))
    summary = AnthropicProgressiveSummarizer(good, SUMMARIZER).summarize(document, source_id="d")
    assert summary.backend == "anthropic" and summary.layer(4).sentences == [5]
    assert "[5] " in good.calls[0]
    start, end = summary.layer(4).spans[0]
    assert summary.layer(4).text == document[start:end]
    nested_badly = _Picker(LayerChoice(layer2=[0], layer3=[1], layer4=[1]))
    fallback = AnthropicProgressiveSummarizer(nested_badly, SUMMARIZER).summarize(document, source_id="d")
    assert fallback.backend == "offline"
    assert AnthropicProgressiveSummarizer(_Picker(None), SUMMARIZER).summarize(
        document, source_id="d").backend == "offline"
