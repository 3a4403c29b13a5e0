"""Progressive summarization benchmark on a generated long document.

    PYTHONPATH=src .venv/bin/python benchmarks/progressive.py [--out PATH] [--seed N]

A document of at least 30,000 tokens (``memfold.tokens.default_counter``) is generated in
code, deterministically: paragraphs of generic report prose with planted facts (a named
person, a project, an amount, a date) scattered through it, plus distractor sentences that
carry incidental numbers and capitalised words but no planted fact. A planted fact counts
as present in a text when both its person's surname and its amount appear there.

For budgets 100, 500 and 2,000 tokens the benchmark reports, for ``pick_layer`` (the most
detailed layer that fits) and for ``pick_layer(fill=True)`` (leftover budget filled from
the next richer layer), the layer chosen, its tokens and the share of planted facts
present. It also reports each layer's size and fact share, and checks that every layer
sentence is ``document[start:end]`` and that layer 1 is the full text (recoverable).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from memfold.compaction.progressive import ProgressiveSummarizer, ProgressiveSummary, pick_layer
from memfold.tokens import default_counter

DEFAULT_OUT = Path(__file__).parent / "results" / "progressive.json"
BUDGETS = (100, 500, 2000)
MIN_TOKENS = 30_000

FIRST = ["Amara", "Bjorn", "Chidi", "Dolores", "Eitan", "Fumiko", "Gideon", "Hana", "Ilse", "Jovan",
         "Kalani", "Lucia", "Matteo", "Nadia", "Oren", "Priya", "Quentin", "Rosa", "Soren", "Tamsin"]
LAST = ["Abernathy", "Brannigan", "Castellano", "Drummond", "Eriksen", "Fairweather", "Galbraith",
        "Hargreaves", "Ishikawa", "Jablonski", "Kowalczyk", "Lindqvist", "Montgomery", "Nakamura",
        "Okonkwo", "Pemberton", "Quarshie", "Rasmussen", "Szymanski", "Thorvaldsen", "Underhill",
        "Vasquez", "Whitcombe", "Xenakis", "Yamamoto", "Zielinski"]
PROJECTS = ["Lighthouse", "Meridian", "Cobalt", "Juniper", "Halcyon", "Sable", "Tundra", "Orchid"]
MONTHS = ["January", "February", "March", "April", "June", "July", "August", "September",
          "October", "November", "December"]
FACT_TEMPLATES = [
    "{first} {last} approved a budget of {amount} dollars for the {project} project on {day} {month} {year}.",
    "The {project} contract signed by {first} {last} is worth {amount} dollars and runs until {month} {year}.",
    "On {day} {month} {year}, {first} {last} reported that {project} had spent {amount} dollars.",
]
FILLER = [
    "The team spent some time discussing the general direction of the work.",
    "Several people felt that the approach was reasonable overall.",
    "There was broad agreement that communication could be improved.",
    "The meeting moved on to other topics after a short pause.",
    "It was noted that the situation would be reviewed again later.",
    "Most participants said they were comfortable with the current plan.",
    "A few questions were raised about the wording of the earlier notes.",
    "The discussion was friendly and stayed on topic for the most part.",
    "Everyone agreed to keep an eye on how things develop over the coming weeks.",
    "Some of the slides were updated to reflect the latest thinking.",
]
DISTRACTORS = [
    "Section {n} of the handbook was read aloud by the chair.",
    "Room {n} was booked for the afternoon session.",
    "The coffee order came to {n} cups again.",
    "Slide {n} had a typo that Marketing promised to fix.",
]


def planted_fact(rng: random.Random, index: int) -> tuple[str, dict[str, str]]:
    fact = {"first": rng.choice(FIRST), "last": LAST[index % len(LAST)] + ("" if index < len(LAST) else f"-{index}"),
            "project": rng.choice(PROJECTS), "amount": f"{rng.randint(10, 999)},{rng.randint(100, 999)}",
            "day": str(rng.randint(1, 28)), "month": rng.choice(MONTHS), "year": str(rng.randint(2015, 2031))}
    return rng.choice(FACT_TEMPLATES).format(**fact), fact


def generate(seed: int, min_tokens: int) -> tuple[str, list[dict[str, str]]]:
    rng, counter = random.Random(seed), default_counter()
    paragraphs, facts, tokens = [], [], 0
    while tokens < min_tokens:
        sentences = [rng.choice(FILLER) for _ in range(rng.randint(5, 9))]
        if rng.random() < 0.5:
            sentences.insert(rng.randint(0, len(sentences)), rng.choice(DISTRACTORS).format(n=rng.randint(2, 99)))
        if rng.random() < 0.35:
            text, fact = planted_fact(rng, len(facts))
            sentences.insert(rng.randint(0, len(sentences)), text)
            facts.append(fact)
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        tokens += counter.count(paragraph)
    return "\n\n".join(paragraphs), facts


def fact_share(text: str, facts: list[dict[str, str]]) -> float:
    present = sum(1 for f in facts if f["last"] in text and f["amount"] in text)
    return round(present / len(facts), 4) if facts else 0.0


def traceable(summary: ProgressiveSummary, document: str) -> bool:
    for layer in summary.layers:
        pieces = [document[s:e] for s, e in layer.spans]
        if layer.level > 1 and layer.text != "\n".join(pieces):
            return False
    return summary.layer(1).text == document


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    document, facts = generate(args.seed, MIN_TOKENS)
    counter = default_counter()
    started = time.perf_counter()
    summary = ProgressiveSummarizer(counter=counter).summarize(document, source_id="doc")
    seconds = time.perf_counter() - started
    layers = {f"layer{l.level}": {"tokens": l.tokens, "share_of_tokens": round(l.tokens / summary.source_tokens, 4),
                                  "words": len(l.text.split()), "sentences": len(l.sentences),
                                  "planted_facts_present": fact_share(l.text, facts)} for l in summary.layers}
    budgets = {}
    for budget in BUDGETS:
        row = {}
        for mode, fill in (("pick_layer", False), ("pick_layer_fill", True)):
            chosen = pick_layer(summary, budget, fill=fill, counter=counter)
            row[mode] = {"layer": chosen.level, "truncated": chosen.truncated, "tokens": chosen.tokens,
                         "planted_facts_present": fact_share(chosen.text, facts)}
        budgets[str(budget)] = row
    payload = {"seed": args.seed, "document_tokens": summary.source_tokens, "planted_facts": len(facts),
               "counter": counter.name, "seconds": round(seconds, 2), "layers": layers, "budgets": budgets,
               "full_text_recoverable": summary.full_text == document,
               "every_layer_sentence_is_a_source_span": traceable(summary, document)}
    print(json.dumps(payload, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
