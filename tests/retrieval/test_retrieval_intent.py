"""Intent classifier sanity: the question chooses the store; time ranges resolve against now."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import pytest
from pydantic import BaseModel

from memfold.errors import BackendTimeoutError
from memfold.retrieval.intent import HeuristicIntentClassifier, LLMIntentClassifier, normalise
from memfold.timeexpr import resolve_query_range

NOW = datetime(2024, 6, 15, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(("query", "label"), [
    ("What's my wife's name?", "fact"),
    ("Where does the user live?", "fact"),
    ("What did we talk about last week?", "temporal"),
    ("When did I last see the dentist?", "temporal"),
    ("Find the passage I wrote about meditation", "semantic"),
    ("hello", "semantic"),
    # an attribute asked without apostrophes, by "when", or by "still"
    ("whats my home address, need it for a form", "fact"),
    ("when is my husbands birthday", "fact"),
    ("whens tomasz bday again", "fact"),  # a name typed without its "'s"
    ("which grape did i say was my fav", "fact"),
    ("who does aroha work for", "fact"),
    ("is ravi still at infosys or did he leave", "fact"),
    ("when is the birthday party", "temporal"),
    ("is it still raining in leeds", "semantic"),
    # a possessive typed without its apostrophe, a standing role, what someone studies
    ("whats marcos job on the ship", "fact"),
    ("darlenes ring size?", "fact"),
    ("what does kipchoge study", "fact"),
    ("who runs the kitchen at el muelle now", "fact"),
    ("Remind me which bowling club I belong to.", "fact"),
    ("which tractor model we have", "fact"),
    ("where is travis stationed", "fact"),
    ("what gigs do i have this month", "temporal"),
    ("what was the spirit week thing about", "semantic"),
])
def test_primary_intent(query: str, label: str) -> None:
    intent = HeuristicIntentClassifier().classify(query, NOW)
    assert intent.primary == label
    assert sum(intent.weights.values()) == pytest.approx(1.0, abs=1e-3)


def test_time_range_is_resolved_against_the_given_now() -> None:
    query = "What did I do last week?"
    intent = HeuristicIntentClassifier().classify(query, NOW)
    assert intent.time_range == resolve_query_range(query, NOW)
    assert intent.time_range == (datetime(2024, 6, 3, tzinfo=timezone.utc), datetime(2024, 6, 10, tzinfo=timezone.utc))
    assert HeuristicIntentClassifier().classify("What is my name?", NOW).time_range is None


def test_labelled_set_accuracy_stays_high() -> None:
    path = Path(__file__).parents[2] / "benchmarks" / "data" / "queries.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    classifier = HeuristicIntentClassifier()
    correct = sum(classifier.classify(r["query"], NOW).primary == r["label"] for r in rows)
    assert len(rows) >= 150 and {r["label"] for r in rows} == {"fact", "temporal", "semantic"}
    assert correct / len(rows) >= 0.9


def test_normalise_handles_empty_and_negative_scores() -> None:
    assert normalise({}) == {"fact": 0.0, "temporal": 0.0, "semantic": 1.0}
    assert normalise({"fact": -3, "temporal": 1}) == {"fact": 0.0, "temporal": 1.0, "semantic": 0.0}


class _FakeCompleter:
    """A working JSON completer: answers from a table, or fails like the API would."""

    def __init__(self, answer: dict[str, float] | None) -> None:
        self.answer = answer
        self.calls = 0

    def complete_json(self, system: str, user: str, schema: type[BaseModel], *,
                      fallback: Callable[[], BaseModel]) -> BaseModel:
        self.calls += 1
        if self.answer is None:
            raise BackendTimeoutError("timed out")
        return schema(**self.answer)


def test_llm_classifier_uses_the_model_and_keeps_the_local_time_range() -> None:
    backend = _FakeCompleter({"fact": 0.0, "temporal": 0.2, "semantic": 0.8})
    intent = LLMIntentClassifier(backend).classify("What did I do last week?", NOW)
    assert backend.calls == 1 and intent.primary == "semantic" and intent.classifier == "llm"
    assert intent.time_range == resolve_query_range("What did I do last week?", NOW)


def test_llm_classifier_falls_back_to_heuristics_on_backend_errors() -> None:
    intent = LLMIntentClassifier(_FakeCompleter(None)).classify("What's my email address?", NOW)
    assert intent.primary == "fact" and intent.classifier == "heuristic"
