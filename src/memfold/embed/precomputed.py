"""An embedder that answers from vectors already computed, and asks its base for the rest.

Ingest embeds every message once (for the router); indexing the same texts must not pay
for them again, so the index sync runs through this wrapper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


class PrecomputedEmbedder:
    def __init__(self, base, known: Mapping[str, np.ndarray]) -> None:  # type: ignore[no-untyped-def]
        self.base = base
        self.known = dict(known)
        self.name = base.name
        self.dim = base.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            for text, vector in zip(missing, self.base.embed(missing)):
                self.known[text] = vector
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.known[t] for t in texts]).astype(np.float32)
