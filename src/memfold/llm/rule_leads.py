"""The words a rule's every match begins with, read from its parsed pattern.

``llm/facts.py`` skips a fact rule for a clause that has none of its lead words (the clause's
words as ``[a-z]+`` runs of its lower-cased text), which saves most of the regular-expression
work per message. ``\\b(?:i|we) (?:own|have)`` leads with {"i", "we"}; ``(?:^|, )my`` with
{"my"}. A rule has no leads (None) when a match may begin some other way: with a class, a
name, or a word that may run on (``\\bi'?ve`` is "i" in "i've" but "ive" in "ive"). A lead
must hold for every match, so each doubt answers None; ``tests/llm/test_rule_leads.py``
checks the leads against every statement of the training corpus.
"""

from __future__ import annotations

import re
from re import _constants as sre  # the standard library's own pattern parser (re._parser)
from re import _parser as sre_parse
from string import ascii_lowercase
from typing import Any

# pattern elements as the parser gives them: (opcode, argument)
Element = tuple[Any, Any]
_LETTERS = frozenset(ascii_lowercase)
# characters that IGNORECASE matches to an ASCII letter ("ſ" is s, the Kelvin sign is k)
_LETTER_LIKE = frozenset({0x17F, 0x212A})
_NON_LETTER_CATEGORIES = frozenset({sre.CATEGORY_SPACE, sre.CATEGORY_NOT_WORD, sre.CATEGORY_DIGIT})
_TOKEN_STARTS = frozenset({sre.AT_BOUNDARY, sre.AT_BEGINNING, sre.AT_BEGINNING_STRING})
_REPEATS = frozenset({sre.MAX_REPEAT, sre.MIN_REPEAT})


def lead_words(pattern: str, flags: int = re.IGNORECASE) -> frozenset[str] | None:
    """The lower-case words one of which every match of ``pattern`` begins with, or None."""
    try:
        parsed = sre_parse.parse(pattern, flags)
    except re.error:
        return None
    found = _leads(list(parsed), "", at_word_start=False)
    return frozenset(found) if found else None


def _is_letter(code: int) -> bool:
    return chr(code).lower() in _LETTERS or code in _LETTER_LIKE


def _leads(seq: list[Element], prefix: str, *, at_word_start: bool) -> set[str] | None:
    """The words a match of ``seq`` begins with, after ``prefix`` (letters already read)."""
    for n, (op, arg) in enumerate(seq):
        if op is sre.LITERAL and _is_letter(arg):
            if not at_word_start:
                return None  # the letters may continue a word begun before the match
            prefix += chr(arg).lower()
            continue
        alternatives = _alternatives(op, arg)
        if alternatives is not None:
            found: set[str] = set()
            for alternative in alternatives:
                words = _leads([*alternative, *seq[n + 1:]], prefix, at_word_start=at_word_start)
                if words is None:
                    return None
                found |= words
            return found
        if prefix:  # the word ends here only if no letter can follow
            return {prefix} if _breaks(seq[n:]) else None
        starts = _starts_word(op, arg)
        if starts is None:
            return None
        at_word_start = at_word_start or starts
    return None  # the pattern ends: what follows its last letters may be more letters


def _alternatives(op: Any, arg: Any) -> list[Any] | None:
    """The ways a group, an alternation or an optional part ("(?:just )?") may go on."""
    if op is sre.BRANCH:
        return list(arg[1])
    if op is sre.SUBPATTERN:
        return [arg[3]]
    if op in _REPEATS and arg[0] == 0 and arg[1] == 1:
        return [arg[2], []]
    return None


def _starts_word(op: Any, arg: Any) -> bool | None:
    """Whether an element before the first word puts the next character at a word's start
    (it consumed a non-letter, or is \\b or ^); False when it may consume nothing; None when
    it may consume a letter."""
    if op is sre.AT:
        return True if arg in _TOKEN_STARTS else None
    if op is sre.ASSERT_NOT:
        return False  # a lookaround that must fail says nothing of what is there
    if op is sre.ASSERT:
        direction, inner = arg
        return direction < 0 and _span(list(inner)) == (1, True) or False
    low, non_letters = _span([(op, arg)])
    return None if not non_letters else low >= 1


def _span(seq: list[Element]) -> tuple[int, bool]:
    """The fewest characters ``seq`` consumes, and whether all it may consume are non-letters."""
    total = 0
    for op, arg in seq:
        if op is sre.LITERAL:
            if _is_letter(arg):
                return total, False
            total += 1
        elif op is sre.IN:
            if not _class_has_no_letter(arg):
                return total, False
            total += 1
        elif op in _REPEATS:
            low, _high, item = arg
            fewest, clean = _span(list(item))
            if not clean:
                return total, False
            total += low * fewest
        else:
            return total, False
    return total, True


def _class_has_no_letter(items: list[Element]) -> bool:
    for op, arg in items:
        if op is sre.LITERAL and not _is_letter(arg):
            continue
        if op is sre.CATEGORY and arg in _NON_LETTER_CATEGORIES:
            continue
        if op is sre.RANGE and not any(_is_letter(code) for code in range(arg[0], arg[1] + 1)):
            continue
        return False  # a letter, a range with letters, a negated class, a word category
    return True


def _breaks(seq: list[Element]) -> bool:
    """Whether the character after a word (where ``seq`` starts) is never a letter."""
    for n, (op, arg) in enumerate(seq):
        if op is sre.AT:
            return arg is not sre.AT_NON_BOUNDARY
        if op is sre.ASSERT or op is sre.ASSERT_NOT:
            continue  # consumes nothing: the next element decides
        if op is sre.LITERAL:
            return not _is_letter(arg)
        if op is sre.IN:
            return _class_has_no_letter(arg)
        if op in _REPEATS:
            low, _high, item = arg
            if not _breaks(list(item)):
                return False
            if low >= 1:
                return True
            continue  # no repetition: what follows decides as well
        if op is sre.BRANCH or op is sre.SUBPATTERN:
            alternatives = arg[1] if op is sre.BRANCH else [arg[3]]
            return all(_breaks([*alternative, *seq[n + 1:]]) for alternative in alternatives)
        return False
    return False  # the match may end after the word, and the text go on with letters
