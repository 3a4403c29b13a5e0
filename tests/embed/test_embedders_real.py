"""The int8 ONNX embedder with the real model files (slow): agreement with the fp32
sentence-transformers model, batching, errors, a real store, and no torch on the way."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from memfold.config import Settings
from memfold.embed import MiniLMEmbedder, MiniLMInt8Embedder
from memfold.errors import ConfigError, EmbeddingError
from memfold.memory import Memory

pytestmark = pytest.mark.slow

TEXTS = ["I moved to Porto last weekend.", "My sister Ana is a nurse in Lisbon.", "ok thanks",
         "Yesterday I presented the park proposal to the council and they loved it!",
         "Packing list: passport, charger, two shirts, hiking boots, sunscreen.",
         "Where does Maya live now?", "word " * 600]
T0 = datetime(2024, 5, 8, 13, 56, tzinfo=UTC)


def test_int8_vectors_agree_with_fp32_and_are_unit_length() -> None:
    int8, fp32 = MiniLMInt8Embedder().embed(TEXTS), MiniLMEmbedder().embed(TEXTS)
    assert int8.shape == (len(TEXTS), 384) and int8.dtype == np.float32
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    assert np.all((int8 * fp32).sum(axis=1) > 0.99)
    # the same nearest text for the question under both models
    assert np.argmax(int8[:5] @ int8[5]) == np.argmax(fp32[:5] @ fp32[5])


def test_tokens_are_the_ones_sentence_transformers_feeds_the_fp32_model() -> None:
    features = MiniLMEmbedder().model.tokenize(TEXTS)
    encodings = MiniLMInt8Embedder().tokenizer.encode_batch(TEXTS)
    assert np.array_equal(features["input_ids"].numpy(), np.array([e.ids for e in encodings]))


def test_a_text_gets_the_same_vector_alone_cached_or_in_any_batch() -> None:
    embedder = MiniLMInt8Embedder(batch_size=3)
    batched = embedder.embed(TEXTS)
    alone = np.stack([MiniLMInt8Embedder(cache_size=1).embed([text])[0] for text in TEXTS])
    assert np.allclose(batched, alone, atol=1e-5)
    assert np.allclose(embedder.embed(TEXTS[::-1])[::-1], batched, atol=1e-5)
    assert np.shares_memory(embedder.embed([TEXTS[0]]), embedder.embed([TEXTS[0]]))  # LRU cache


class _TooLongTokenizer:
    """Encodes every text as 600 word pieces: more positions than the model has."""

    def encode_batch(self, texts: list[str]) -> list[SimpleNamespace]:
        return [SimpleNamespace(ids=[101] + [2000] * 598 + [102], attention_mask=[1] * 600)
                for _ in texts]


def test_an_onnxruntime_failure_becomes_an_embedding_error() -> None:
    embedder = MiniLMInt8Embedder()
    with pytest.raises(EmbeddingError, match="embedding failed") as caught:
        embedder._forward(embedder.session, _TooLongTokenizer(), ["anything"])
    assert type(caught.value.__cause__).__module__.startswith("onnxruntime")


def _messages(n: int) -> list[dict]:
    texts = ["I moved to Porto last weekend.", "We went hiking near Sintra on Saturday.",
             "My favorite color is teal.", "Thanks!"]
    return [{"msg_id": f"m{i}", "user_id": "maya", "speaker": "Maya", "role": "user",
             "text": texts[i % len(texts)], "ts": (T0 + timedelta(minutes=i)).isoformat()}
            for i in range(n)]


def test_a_store_built_with_fp32_is_refused_by_the_default_until_reindexed(tmp_path: Path) -> None:
    fp32 = Settings(store=tmp_path / "store", embedder="minilm", backend="offline")
    default = fp32.model_copy(update={"embedder": "minilm-q8"})
    with Memory.open(settings=fp32) as memory:
        memory.ingest_many(_messages(8))
    with pytest.raises(ConfigError, match="all-MiniLM-L6-v2") as caught:
        Memory.open(settings=default)
    assert "reindex" in str(caught.value)
    with Memory.open(settings=default, reembed=True) as memory:
        memory.reindex()
    with Memory.open(settings=default) as memory:
        assert memory.embedder.name == "all-MiniLM-L6-v2-q8"
        assert memory.stores.index.count() == memory.stores.archive.count()
        assert "m1" in memory.recall("hiking in Sintra", "maya", k=5).sources()


INGEST_WITHOUT_TORCH = """
import sys, tempfile
from memfold.config import Settings
from memfold.memory import Memory
messages = {messages!r}
with tempfile.TemporaryDirectory() as tmp:
    with Memory.open(settings=Settings(store=tmp + "/store", backend="offline")) as memory:
        memory.ingest_many(messages)
        sources = memory.recall("Where does Maya live?", "maya", k=5).sources()
        name = memory.embedder.name
print(name, "m0" in sources, [m for m in ("torch", "sentence_transformers") if m in sys.modules])
"""


def test_ingest_and_recall_with_the_default_never_import_torch() -> None:
    code = INGEST_WITHOUT_TORCH.format(messages=_messages(8))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "all-MiniLM-L6-v2-q8 True []"
