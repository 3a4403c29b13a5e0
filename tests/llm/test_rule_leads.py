"""The fact rules' leading-word filter (llm/facts.py): a rule is skipped for a clause without
the word its every match begins with, which must never skip a match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfold.llm import facts as F

CORPUS = Path(__file__).resolve().parents[2] / "training" / "corpus"


@pytest.mark.parametrize(("pattern", "lead"), [
    (r"\bi(?:'m| am)\s+(?P<v>\d{1,3})", "i"),
    (r"\bmy (?:home|house) is", "my"),
    (r"\bi'?ve been (?P<v>\w+)", None),  # "ive" is one word: "i" is not a word of it
    (r"\bi (?:work|live)|\bmy job", None),  # two ways to begin
    (r"\bmyself (?P<v>\w+)", "myself"),
    (r"\bmy(?:self)? (?P<v>\w+)", None),  # "myself" is not the word "my"
    (r"(?:^|, )my (?P<v>\w+)", None),
])
def test_a_rule_leads_with_a_word_only_when_every_match_begins_with_it(pattern: str, lead: str | None) -> None:
    assert F._leading_word(pattern) == lead


def test_alternatives_inside_groups_and_classes_are_not_top_level() -> None:
    assert not F._has_top_level_alternative(r"\bi (?:work|live) in [a|b]\|")
    assert F._has_top_level_alternative(r"\bi work|\bmy job")


def _corpus_sentences() -> list[str]:
    texts = []
    for path in [CORPUS / "facts.jsonl", *sorted((CORPUS / "extra").glob("facts_*.jsonl"))]:
        texts += [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [F.standard_spelling(text) for text in texts]


def test_no_rule_matches_a_corpus_sentence_without_its_leading_word() -> None:
    sentences = _corpus_sentences()
    assert len(sentences) > 1000
    misses = [(lead, sentence) for (pattern, _, _), lead in zip(F._RULES, F._RULE_LEADS) if lead
              for sentence in sentences
              if lead not in F._WORDS.findall(sentence.lower()) and pattern.search(sentence)]
    assert misses == []
