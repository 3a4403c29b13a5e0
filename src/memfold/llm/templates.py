"""Fact templates induced from the labelled corpus: the frames the rules do not cover.

Hand-written rules (``facts.py``) cover the common ways of stating a fact; people use many
more ("Home for me is Porto", "Favorite team: Arsenal", "Dentist by trade"). For each
labelled fact of ``training/corpus/facts.jsonl`` whose value is a span of its message,
the trainer (``training/train_heads.py``) keeps the words around the span as a template:

    left ("home", "for", "me", "is")  value  right (<end>)          -> location

and keeps only the templates that are precise on the whole corpus (they capture the
labelled value, and nothing in messages that state no fact). At run time a template
fires when its left and right words surround a span of at most ``MAX_VALUE_WORDS`` words;
the value is that span, so it is always grounded in the message.

Templates fire only for sentences no rule understood, and only in user messages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from memfold.errors import ConfigError
from memfold.llm.keys import MULTI_VALUED, slug

END = "<end>"
START = "<start>"
MAX_VALUE_WORDS = 5
_TOKEN = re.compile(r"[^\W_][\w'-]*|[.,!?;:]")
# families whose key carries the value (likes:jazz): the slug comes from the captured span
PER_VALUE = MULTI_VALUED - {"pet", "family", "possession"}


@dataclass(frozen=True)
class Template:
    left: tuple[str, ...]
    right: tuple[str, ...]
    key: str  # "location", "favorite:team", or a per-value family ("hobby")
    precision: float = 1.0
    support: int = 1

    def storage_key(self, value: str) -> str:
        return f"{self.key}:{slug(value)}" if self.key in PER_VALUE else self.key


def tokens(sentence: str) -> list[str]:
    return _TOKEN.findall(sentence)


def framed(words: Sequence[str]) -> list[str]:
    """Lower-cased words with sentence-start and end markers (punctuation ends a sentence)."""
    out = [START]
    for word in words:
        if word in ".!?;":
            break
        out.append(word.lower())
    return [*out, END]


class TemplateSet:
    """Templates indexed by their left context for a single pass over a sentence."""

    def __init__(self, templates: Iterable[Template]) -> None:
        self.templates = list(templates)
        self._by_left: dict[tuple[str, ...], list[Template]] = {}
        for template in self.templates:
            self._by_left.setdefault(template.left, []).append(template)
        self._left_sizes = sorted({len(t.left) for t in self.templates}, reverse=True)

    def __len__(self) -> int:
        return len(self.templates)

    def find(self, sentence: str) -> list[tuple[Template, str]]:
        """(template, value) for every template that fires; the most specific first."""
        raw = tokens(sentence)
        low = framed(raw)
        words = [START, *raw[: len(low) - 2], END]  # original case, aligned with ``low``
        found: list[tuple[Template, str]] = []
        for start in range(1, len(low) - 1):
            for size in self._left_sizes:
                if start - size < 0:
                    continue
                for template in self._by_left.get(tuple(low[start - size:start]), ()):
                    value = _span(template, low, words, start)
                    if value is not None:
                        found.append((template, value))
        found.sort(key=lambda pair: -(len(pair[0].left) + len(pair[0].right) + pair[0].precision))
        return found

    def to_json(self) -> str:
        return json.dumps([{"left": t.left, "right": t.right, "key": t.key,
                            "precision": round(t.precision, 3), "support": t.support}
                           for t in self.templates], separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> TemplateSet:
        try:
            rows = json.loads(text)
            return cls(Template(tuple(r["left"]), tuple(r["right"]), r["key"], r["precision"],
                                r["support"]) for r in rows)
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"fact templates are unreadable: {exc}") from exc


def _span(template: Template, low: list[str], words: list[str], start: int) -> str | None:
    right = template.right
    for end in range(start + 1, min(start + MAX_VALUE_WORDS, len(low) - 1) + 1):
        if tuple(low[end:end + len(right)]) == right:
            value = words[start:end]
            if any(w in ",:" for w in value):
                return None  # a value never spans a clause break
            return " ".join(value)
    return None


@cache
def packaged_templates() -> TemplateSet:
    path = Path(str(resources.files("memfold").joinpath("data/fact_templates.json")))
    if not path.is_file():
        return TemplateSet(())
    return TemplateSet.from_json(path.read_text(encoding="utf-8"))
