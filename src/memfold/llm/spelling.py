"""Slips of the keyboard in the words the fact rules read: "my ssiter", "rememebr", "birtdhay".

People type to an assistant fast. A relation word or a key's noun with two letters swapped or
one letter dropped ("ucnle", "negihbor", "teachr") hides the fact from every rule, so such a
word is put back before the rules read the message. Only the rules' own vocabulary is
corrected (general English for the profile's keys, not any data's content), only by a swap
of two neighbouring letters, a letter dropped inside the word (a dropped first or last
letter is an inflection: "move", "work") or, in a word of seven letters or more, a vowel
inside it spelt as another ("seperated"), and never into a word that is itself a word
(``_REAL_WORDS``: "diary" is no slip for "dairy"). Names and everything else stay as typed.
"""

from __future__ import annotations

import re

from memfold.models import Message

# the words the rules key on: relations, the profile's key nouns, the verbs that state them
_TARGETS = frozenset("""
birthday remember favorite favourite allergic allergy married engaged divorced separated
vegetarian pescatarian daughter daughters husband brother brothers sister sisters neighbor
neighbour coworker colleague cousin uncle nephew niece grandma grandpa grandmother grandfather
girlfriend boyfriend partner mother father children parents stepson stepdaughter roommate
flatmate housemate fiance fiancee friend bestie grandson granddaughter therapist dentist
landlord landlady mentor supervisor employer company manager student university college
teacher engineer nurse doctor lawyer developer designer accountant relocated hometown
originally gluten dairy lactose intolerant diabetic pregnant retired language fluent hobby
lives living moved works working author album holiday anniversary allergies
loves likes hates plays studies speaks
""".split())
# real words one slip from a target (checked against the MiniLM tokenizer's vocabulary and,
# once, the web2 and GCIDE word lists of the english-words package:
# tests/llm/test_spelling.py)
_REAL_WORDS = frozenset("bother fried layer leaning lies marred nice diary studios collage fiend lactase".split())
_WORD = re.compile(r"[A-Za-z]{4,}")


_VOWELS = "aeiou"


def _slips(word: str) -> set[str]:
    swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}
    dropped = {word[:i] + word[i + 1:] for i in range(1, len(word) - 1)} if len(word) >= 6 else set()
    # an unstressed vowel spelt as another inside a long word ("seperated", "vegeterian")
    vowels = {word[:i] + v + word[i + 1:] for i in range(1, len(word) - 1) if word[i] in _VOWELS
              for v in _VOWELS} if len(word) >= 7 else set()
    return (swapped | dropped | vowels) - {word}


def _corrections() -> dict[str, str]:
    seen: dict[str, set[str]] = {}
    for target in _TARGETS:
        for slip in _slips(target):
            seen.setdefault(slip, set()).add(target)
    # a slip two targets share says neither for sure
    return {slip: targets.pop() for slip, targets in seen.items()
            if len(targets) == 1 and slip not in _TARGETS and slip not in _REAL_WORDS}


CORRECTIONS = _corrections()


def corrected(text: str) -> str:
    """``text`` with the rules' words put back ("my ssiter camila" -> "my sister camila")."""
    def fix(m: re.Match[str]) -> str:
        word = m[0]
        right = CORRECTIONS.get(word.lower())
        if right is None:
            return word
        return right.capitalize() if word[:1].isupper() else right
    return _WORD.sub(fix, text)


def spelled(message: Message) -> Message:
    """``message`` with its text corrected (the same message when nothing was misspelt)."""
    text = corrected(message.text)
    return message if text == message.text else message.model_copy(update={"text": text})
