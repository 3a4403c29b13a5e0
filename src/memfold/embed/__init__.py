"""Embedding models behind one protocol: the real MiniLM and a seeded hashing fake."""

from memfold.embed.base import Embedder
from memfold.embed.hashing import HashingEmbedder
from memfold.embed.minilm import MiniLMEmbedder

__all__ = ["Embedder", "HashingEmbedder", "MiniLMEmbedder"]
