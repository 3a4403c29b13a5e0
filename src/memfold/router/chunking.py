"""Split reference content into retrieval-sized chunks (paragraph- and sentence-aware).

Chunks aim at ``target_tokens`` (default 250) and never exceed ``max_tokens`` unless a
single word does; consecutive chunks share about ``overlap_tokens`` of trailing
sentences so that a fact cut at a boundary is whole in one of them. Units are packed
greedily: paragraphs, then sentences of paragraphs too long to keep whole, then lines,
then words as a last resort (minified code, long URLs).
"""

from __future__ import annotations

import re

from memfold.tokens import TokenCounter, default_counter

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")


def _split(unit: str, counter: TokenCounter, limit: int) -> list[str]:
    """Break one unit into pieces of at most ``limit`` tokens, coarsest split first."""
    if counter.count(unit) <= limit:
        return [unit]
    for splitter in (_SENTENCE.split, str.splitlines):
        pieces = [p for p in splitter(unit) if p.strip()]
        if len(pieces) > 1:
            return [part for piece in pieces for part in _split(piece, counter, limit)]
    words = unit.split()
    if len(words) <= 1:
        return [unit]
    half = len(words) // 2
    return _split(" ".join(words[:half]), counter, limit) + _split(" ".join(words[half:]),
                                                                     counter, limit)


def chunk_text(text: str, *, target_tokens: int = 250, overlap_tokens: int = 40,
               counter: TokenCounter | None = None) -> list[str]:
    """The chunks of ``text`` in order; a short text is one chunk."""
    counter = counter or default_counter()
    text = text.strip()
    if not text:
        return []
    if counter.count(text) <= target_tokens:
        return [text]
    units = [piece for para in _PARAGRAPH.split(text) if para.strip()
             for piece in _split(para.strip(), counter, target_tokens)]
    return _pack(units, counter, target_tokens, overlap_tokens)


def _pack(units: list[str], counter: TokenCounter, target: int, overlap: int) -> list[str]:
    """Greedy packing. Fit is checked on the joined text, unless the counter declares its
    counts additive across a whitespace join (then the sizes are summed: the same answer
    without tokenizing a growing chunk again for every unit)."""
    sizes = [counter.count(unit) for unit in units]
    additive = getattr(counter, "additive", False)

    def fits(indices: list[int]) -> bool:
        if additive:
            return sum(sizes[i] for i in indices) <= target
        return counter.count("\n".join(units[i] for i in indices)) <= target

    chunks: list[str] = []
    current: list[int] = []
    for index, size in enumerate(sizes):
        if current and not fits([*current, index]):
            chunks.append("\n".join(units[i] for i in current))
            current = _overlap_tail(current, sizes, overlap, room=target - size)
            while current and not fits([*current, index]):
                current = current[1:]
        current.append(index)
    if current:
        chunks.append("\n".join(units[i] for i in current))
    return chunks


def _overlap_tail(current: list[int], sizes: list[int], overlap: int, room: int) -> list[int]:
    """The trailing units of the finished chunk that fit in the overlap (and in the room)."""
    tail: list[int] = []
    total = 0
    for index in reversed(current[1:]):  # never carry the whole chunk over
        if total + sizes[index] > min(overlap, room):
            break
        tail.insert(0, index)
        total += sizes[index]
    return tail
