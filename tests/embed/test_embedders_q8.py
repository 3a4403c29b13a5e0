"""The int8-arithmetic embedder (slow: derives the model from the real package files):
deterministic derivation into a cache directory, integrity checks, agreement with the
int8-weight and fp32 models, and the same nearest neighbours."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memfold.embed import MiniLMEmbedder, MiniLMInt8Embedder, MiniLMQ8Embedder
from memfold.embed.quantized import EXPECTED_SHA256, FILE_NAME, derived_model_path
from memfold.embed.cached import file_sha256
from memfold.errors import ModelIntegrityError

pytestmark = pytest.mark.slow

TEXTS = ["I moved to Porto last weekend.", "My sister Ana is a nurse in Lisbon.", "ok thanks",
         "Yesterday I presented the park proposal to the council and they loved it!",
         "Packing list: passport, charger, two shirts, hiking boots, sunscreen.",
         "Where does Maya live now?", "Here is a long reply. " * 120]


def test_the_model_is_derived_once_into_the_cache_with_the_pinned_digest(tmp_path: Path) -> None:
    path = derived_model_path(tmp_path)
    assert path == tmp_path / FILE_NAME and file_sha256(path) == EXPECTED_SHA256
    modified = path.stat().st_mtime_ns
    assert derived_model_path(tmp_path).stat().st_mtime_ns == modified  # reused, not rebuilt
    assert [p.name for p in tmp_path.iterdir()] == [FILE_NAME]  # no temporary files left


def test_a_damaged_cached_model_is_refused_with_what_to_do(tmp_path: Path) -> None:
    path = derived_model_path(tmp_path)
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(ModelIntegrityError, match="sha256") as caught:
        MiniLMQ8Embedder(cache_dir=tmp_path).embed(TEXTS[:2])
    assert "delete" in (caught.value.hint or "")


def test_q8_vectors_agree_with_the_int8_weight_and_fp32_models(tmp_path: Path) -> None:
    q8 = MiniLMQ8Embedder(cache_dir=tmp_path).embed(TEXTS)
    int8, fp32 = MiniLMInt8Embedder().embed(TEXTS), MiniLMEmbedder().embed(TEXTS)
    assert q8.shape == (len(TEXTS), 384) and q8.dtype == np.float32
    assert np.allclose(np.linalg.norm(q8, axis=1), 1.0, atol=1e-5)
    # texts within 128 word pieces (the long one is cut at 128 by q8, at 256 by the others);
    # measured on 2,000 LoCoMo turns in benchmarks/embedders.py; short texts move most
    for other in (int8, fp32):
        cosines = (q8[:-1] * other[:-1]).sum(axis=1)
        assert cosines.min() > 0.94 and cosines.mean() > 0.98
    assert np.argmax(q8[:5] @ q8[5]) == np.argmax(fp32[:5] @ fp32[5])
    assert MiniLMQ8Embedder.name != MiniLMInt8Embedder.name  # a store tells them apart


def test_q8_reads_the_first_128_word_pieces(tmp_path: Path) -> None:
    embedder = MiniLMQ8Embedder(cache_dir=tmp_path)
    long, cut = "Here is a long reply. " * 120, "Here is a long reply. " * 30  # both > 128 pieces
    other = "Here is a long reply. " * 10 + "Something else entirely, about gardening. " * 20
    [a], [b], [c] = embedder.embed([long]), embedder.embed([cut]), embedder.embed([other])
    assert np.allclose(a, b, atol=1e-6)  # the words after the 128th piece are not read
    assert float(a @ c) < 0.99


def test_a_text_gets_the_same_q8_vector_alone_or_in_a_batch(tmp_path: Path) -> None:
    embedder = MiniLMQ8Embedder(cache_dir=tmp_path, batch_size=3)
    batched = embedder.embed(TEXTS)
    alone = np.stack([MiniLMQ8Embedder(cache_dir=tmp_path, cache_size=1).embed([t])[0] for t in TEXTS])
    # activations are quantized per batch, so a batch's range moves a vector a little
    assert np.all((batched * alone).sum(axis=1) > 0.99)
