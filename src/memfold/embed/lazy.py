"""An embedder known by its name until it first embeds.

Opening a store compares the embedder's name with the one the store records; a command
that then embeds nothing (``memfold stats``, ``memfold profile show``) should not import
the embedder's module (numpy, and with the first text onnxruntime or torch). A
:class:`LazyEmbedder` carries the name and dimension and builds the real embedder on the
first ``embed`` (or the first lookup of any other attribute). The real one must agree on
the name: vectors recorded under the wrong name would be checked against the wrong model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memfold.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

    from memfold.embed.base import Embedder


class LazyEmbedder:
    """The Embedder protocol over ``build()``, called once, on first use (thread-safe)."""

    def __init__(self, name: str, dim: int, build: Callable[[], Embedder]) -> None:
        self.name = name
        self.dim = dim
        self._build = build
        self._embedder: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        return self._embedder is not None

    def real(self) -> Embedder:
        """The embedder itself (built now if it was not yet)."""
        with self._lock:
            if self._embedder is None:
                embedder = self._build()
                if (embedder.name, embedder.dim) != (self.name, self.dim):
                    raise ConfigError(
                        f"embedder {embedder.name!r} ({embedder.dim} dimensions) was announced "
                        f"as {self.name!r} ({self.dim})",
                        hint="a bug in memfold: report it (the name table in memfold.config)")
                self._embedder = embedder
            return self._embedder

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.real().embed(texts)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # private or dunder (copy, pickle): never build the model for them
            raise AttributeError(name)
        return getattr(self.real(), name)
