"""What the real embedders share: an LRU cache for single texts, and the weights' sha256 check.

A recall embeds one query, often one asked before (the same question, a retry, the
router and the index embedding the same message), so single texts are cached; lists
go to the model in batches. Subclasses supply ``name``, ``dim`` and ``_encode``.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memfold.errors import EmbeddingError, ModelIntegrityError


class CachingEmbedder:
    """``embed`` batches lists through ``_encode``; a single text goes through an LRU cache."""

    name: str
    dim: int

    def __init__(self, *, cache_size: int = 4096) -> None:
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) == 1:
            return self._embed_cached(texts[0])[None, :]
        return self._encode(list(texts))

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Shape (len(texts), dim), float32, rows of unit length."""
        raise NotImplementedError

    def _embed_cached(self, text: str) -> np.ndarray:
        with self._cache_lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        vector = self._encode([text])[0]
        with self._cache_lock:
            self._cache[text] = vector
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vector


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_file(path: Path, expected_sha256: str, *, hint: str) -> None:
    """Refuse weights that are missing or differ from the ones memfold was measured with."""
    if not path.is_file():
        raise EmbeddingError(f"no model file at {path}", hint=hint)
    actual = file_sha256(path)
    if actual != expected_sha256:
        raise ModelIntegrityError(f"{path} has sha256 {actual}, expected {expected_sha256}",
                                  hint=hint)
