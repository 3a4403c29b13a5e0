"""Embedding models behind one protocol: MiniLM int8 on onnxruntime (the default), MiniLM fp32
on sentence-transformers, and a seeded hashing fake."""

from memfold.embed.base import Embedder
from memfold.embed.hashing import HashingEmbedder
from memfold.embed.minilm import MiniLMEmbedder
from memfold.embed.onnx_int8 import MiniLMInt8Embedder
from memfold.embed.quantized import MiniLMQ8Embedder

__all__ = ["Embedder", "HashingEmbedder", "MiniLMEmbedder", "MiniLMInt8Embedder", "MiniLMQ8Embedder"]
