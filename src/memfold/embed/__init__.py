"""Embedding models behind one protocol: MiniLM int8 on onnxruntime (the default), MiniLM fp32
on sentence-transformers, and a seeded hashing fake."""

from __future__ import annotations

import importlib
from typing import Any

# Exported lazily: every embedder module imports numpy (~0.1 s), which opening a store for a
# command that embeds nothing (`memfold stats`) must not pay for (see memfold.embed.lazy).
_EXPORTS = {"Embedder": "base", "HashingEmbedder": "hashing", "MiniLMEmbedder": "minilm",
            "MiniLMInt8Embedder": "onnx_int8", "MiniLMQ8Embedder": "quantized"}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)


__all__ = ["Embedder", "HashingEmbedder", "MiniLMEmbedder", "MiniLMInt8Embedder", "MiniLMQ8Embedder"]
