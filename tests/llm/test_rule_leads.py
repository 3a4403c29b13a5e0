"""The fact rules' leading-word filter (llm/facts.py): a rule is skipped for a clause without
the word its every match begins with, which must never skip a match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfold.llm import facts as F
from memfold.llm.rule_leads import lead_words

CORPUS = Path(__file__).resolve().parents[2] / "training" / "corpus"


@pytest.mark.parametrize(("pattern", "leads"), [
    (r"\bi(?:'m| am)\s+(?P<v>\d{1,3})", {"i"}),
    (r"\bmy (?:home|house) is", {"my"}),
    (r"\bi'?ve been (?P<v>\w+)", {"i", "ive"}),  # "i've" has the word "i", "ive" does not
    (r"\bi (?:work|live)|\bmy job", {"i", "my"}),  # two ways to begin
    (r"\bmyself (?P<v>\w+)", {"myself"}),
    (r"\bmy(?:self)? (?P<v>\w+)", {"my", "myself"}),
    (r"(?:^|, )my (?P<v>\w+)", {"my"}),
    (r"(?:^\W*|[,;]\s*)(?:really |now )?hoping to", {"really", "now", "hoping"}),
    (r"(?:^|(?<=[\s,;]))(?:ich bin|soy)\s+", {"ich", "soy"}),
    (r"\b(?:first|1st) day", {"first", "st"}),  # "1st" is the word "st" after a digit
])
def test_a_rule_leads_with_the_words_every_match_begins_with(pattern: str, leads: set[str]) -> None:
    assert lead_words(pattern) == leads


@pytest.mark.parametrize("pattern", [
    r"my (?P<v>\w+)",  # no word start: "army"
    r"\bmy",  # the word may run on: "myself"
    r"\bhi+ there",  # "hi", "hii", ...
    r"[,;]\s*(?P<v>\w+) is",  # a value first
    r"(?<!up )\w+ing",
    r"\b(?:i|\w+) live",  # one way begins with any word
    r"(?:^|x)my ",  # "xmy" is no word "my"
    "(unclosed",
])
def test_a_rule_that_may_begin_otherwise_has_no_leads(pattern: str) -> None:
    assert lead_words(pattern) is None


def _corpus_sentences() -> list[str]:
    texts = []
    for path in [CORPUS / "facts.jsonl", *sorted((CORPUS / "extra").glob("facts_*.jsonl"))]:
        texts += [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [F.standard_spelling(text) for text in texts]


def test_no_rule_matches_a_corpus_sentence_without_its_leading_word() -> None:
    sentences = _corpus_sentences()
    assert len(sentences) > 1000
    words = [set(F._WORDS.findall(sentence.lower())) for sentence in sentences]
    misses = [(sorted(leads), sentence) for (pattern, _, _), leads in zip(F._RULES, F._RULE_LEADS) if leads
              for sentence, said in zip(sentences, words)
              if leads.isdisjoint(said) and pattern.search(sentence)]
    assert misses == []


def test_most_rules_have_leads() -> None:
    assert sum(leads is not None for leads in F._RULE_LEADS) >= 0.85 * len(F._RULES)
