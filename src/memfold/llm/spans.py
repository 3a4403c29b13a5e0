"""Where a value read from a message is said in it, without compiling a pattern per value.

The fact rules often ask "is this value said here, as whole words?" or "does this value follow
that phrase?". Built as ``re.search(rf"\\b{re.escape(value)}\\b", ...)``, every new value is a
new pattern: compiled once per message on the router's hot path, and pushing the static
patterns out of ``re``'s 512-entry cache. These helpers answer the same questions with string
search and the same word boundaries as ``\\b`` (a word character is what ``str.isalnum`` or
"_" says, as in ``re``'s Unicode ``\\w``), matching case-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Iterator


def is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def at_boundary(text: str, at: int) -> bool:
    """``\\b`` at position ``at``: a word character on one side only."""
    before = at > 0 and is_word_char(text[at - 1])
    after = at < len(text) and is_word_char(text[at])
    return before != after


def _folded(text: str) -> str | None:
    """``text`` lower-cased, or None where lower-casing changes its length (positions would drift)."""
    low = text.lower()
    return low if len(low) == len(text) else None


def find_all_said(text: str, value: str, *, whole_words: bool = True) -> Iterator[tuple[int, int]]:
    """The spans where ``value`` is said, case-insensitively and left to right without overlap
    (as ``re.finditer`` of ``\\bvalue\\b`` finds them; of ``value`` alone if not ``whole_words``)."""
    low, needle = _folded(text), _folded(value)
    if low is None or needle is None or not value:
        # rare letters whose lower case is longer ("İ"): let re do the case folding
        bounded = rf"\b{re.escape(value)}\b" if whole_words else re.escape(value)
        yield from (m.span() for m in re.finditer(bounded, text, re.IGNORECASE))
        return
    at = low.find(needle)
    while at >= 0:
        end = at + len(needle)
        if not whole_words or (at_boundary(text, at) and at_boundary(text, end)):
            yield at, end
            at = low.find(needle, end)
        else:
            at = low.find(needle, at + 1)


def find_said(text: str, value: str, *, whole_words: bool = True) -> tuple[int, int] | None:
    """The first span where ``value`` is said (see ``find_all_said``), or None."""
    return next(find_all_said(text, value, whole_words=whole_words), None)


def said_at(text: str, at: int, value: str, *, bounded: bool = True) -> bool:
    """``value`` is said from position ``at`` (``value\\b`` matched there; ``value`` alone if not ``bounded``)."""
    end = at + len(value)
    return end <= len(text) and text[at:end].lower() == value.lower() and (not bounded or at_boundary(text, end))


def said_after(lead: re.Pattern[str], text: str, value: str) -> bool:
    """``lead`` then ``value`` as whole words, as ``re.search(lead + value + r"\\b")`` would find it."""
    return find_after(lead, text, value) is not None


def find_after(lead: re.Pattern[str], text: str, value: str,
               *, ignore_case: bool = True) -> tuple[re.Match[str], int, int] | None:
    """The first ``lead`` followed by ``value`` ending at a word boundary: the lead's match and
    the value's span, as ``re.search(lead + "(value)" + r"\\b")`` would find them.

    ``lead`` may end in an optional group named ``tail`` ("an? ", a word): the value may
    start where the tail starts or where it ends, as the search could backtrack to either.
    """
    for m in lead.finditer(text):
        starts = [m.start("tail")] if "tail" in lead.groupindex and m.start("tail") >= 0 else []
        for at in [m.end()] + starts:  # (the greedy tail first, as re tries it)
            if _said_here(text, at, value, ignore_case):
                return m, at, at + len(value)
    return None


def _said_here(text: str, at: int, value: str, ignore_case: bool) -> bool:
    if ignore_case:
        return said_at(text, at, value)
    return text.startswith(value, at) and at_boundary(text, at + len(value))
