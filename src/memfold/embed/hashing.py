"""A seeded hashing embedder: deterministic, instant, for unit tests.

Texts that share words share hashed dimensions, so lexically similar texts are close:
enough for tests of ranking plumbing, never a stand-in for semantic quality.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from memfold.embed.base import normalise

_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    def __init__(self, dim: int = 384, seed: int = 0) -> None:
        self.dim = dim
        self.seed = seed
        self.name = f"hashing-{dim}-{seed}"

    def _bucket(self, token: str) -> tuple[int, float]:
        digest = hashlib.blake2b(f"{self.seed}:{token}".encode(), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self.dim, 1.0 if (value >> 63) & 1 else -1.0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            # unigrams plus bigrams so word order matters a little
            for token in words + [f"{a}_{b}" for a, b in zip(words, words[1:])]:
                col, sign = self._bucket(token)
                out[row, col] += sign
            if not words:
                col, sign = self._bucket("<empty>")
                out[row, col] = sign
        return normalise(out)
