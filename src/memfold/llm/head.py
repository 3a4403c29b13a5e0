"""A small learned classifier: softmax over [embedding, standardised cue features].

The router and the query-intent classifier both use one (``router_head.npz`` and
``intent_head.npz`` in ``memfold/data``), trained by ``training/train_heads.py`` from the
labelled corpus in ``training/corpus/``. The head is linear on purpose: a few thousand
labelled utterances do not support more, it costs one small matrix product per message
(the embedding is the one the facade already computed), and its cue weights stay readable.

The head is only valid for the embedding space it was trained in: ``embedders`` lists the
embedder names it accepts (MiniLM fp32 and its int8 export share one space, cosine >= 0.999);
with any other embedder (the hash embedder of the unit tests) callers fall back to cues.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from memfold.errors import ConfigError


@dataclass(frozen=True)
class LinearHead:
    """``softmax(x @ weights + bias)`` with ``x = [embedding, (cues - mean) / scale]``."""

    labels: tuple[str, ...]
    cue_names: tuple[str, ...]
    embedders: tuple[str, ...]
    weights: np.ndarray  # (dim + len(cue_names), len(labels))
    bias: np.ndarray  # (len(labels),)
    cue_mean: np.ndarray
    cue_scale: np.ndarray

    @property
    def embedding_dim(self) -> int:
        return int(self.weights.shape[0] - len(self.cue_names))

    def accepts(self, embedder_name: str, dim: int) -> bool:
        return embedder_name in self.embedders and dim == self.embedding_dim

    def features(self, embeddings: np.ndarray, cues: np.ndarray) -> np.ndarray:
        scaled = (np.asarray(cues, dtype=np.float32) - self.cue_mean) / self.cue_scale
        return np.hstack([np.asarray(embeddings, dtype=np.float32), scaled])

    def logits(self, embeddings: np.ndarray, cues: np.ndarray) -> np.ndarray:
        return self.features(embeddings, cues) @ self.weights + self.bias

    def probabilities(self, embeddings: np.ndarray, cues: np.ndarray) -> np.ndarray:
        return softmax(self.logits(embeddings, cues))

    def cue_contributions(self, cues: np.ndarray, label: str) -> list[tuple[str, float]]:
        """How much each cue added to ``label``'s logit (for the decision's reasons)."""
        column = self.labels.index(label)
        scaled = (np.asarray(cues, dtype=np.float32) - self.cue_mean) / self.cue_scale
        weights = self.weights[self.embedding_dim:, column]
        return sorted(zip(self.cue_names, (scaled * weights).tolist()), key=lambda p: -abs(p[1]))

    def save(self, path: Path, *, meta: dict[str, object] | None = None) -> None:
        header = {"labels": self.labels, "cue_names": self.cue_names,
                  "embedders": self.embedders, "meta": meta or {}}
        np.savez_compressed(path, weights=self.weights.astype(np.float32),
                            bias=self.bias.astype(np.float32),
                            cue_mean=self.cue_mean.astype(np.float32),
                            cue_scale=self.cue_scale.astype(np.float32),
                            header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))

    @classmethod
    def load(cls, path: Path) -> LinearHead:
        try:
            with np.load(path) as data:
                header = json.loads(bytes(data["header"]).decode())
                return cls(labels=tuple(header["labels"]), cue_names=tuple(header["cue_names"]),
                           embedders=tuple(header["embedders"]), weights=data["weights"],
                           bias=data["bias"], cue_mean=data["cue_mean"],
                           cue_scale=data["cue_scale"])
        except (OSError, KeyError, ValueError) as exc:
            raise ConfigError(f"cannot load classifier head {path}: {exc}") from exc


_PACKAGED: dict[str, LinearHead | None] = {}


def packaged_head(name: str) -> LinearHead | None:
    """The head shipped in ``memfold/data`` (``router_head``, ``intent_head``), or None."""
    if name not in _PACKAGED:
        path = Path(str(resources.files("memfold").joinpath(f"data/{name}.npz")))
        _PACKAGED[name] = LinearHead.load(path) if path.is_file() else None
    return _PACKAGED[name]


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=-1, keepdims=True)


def train_head(embeddings: np.ndarray, cues: np.ndarray, targets: Sequence[int], *,
               labels: Sequence[str], cue_names: Sequence[str], embedders: Sequence[str],
               l2: float = 1e-3, epochs: int = 400, learning_rate: float = 0.05,
               seed: int = 0, class_weights: bool = True) -> LinearHead:
    """Multinomial logistic regression by full-batch Adam; deterministic for a seed."""
    cues = np.asarray(cues, dtype=np.float64)
    mean = cues.mean(axis=0)
    scale = cues.std(axis=0) + 1e-6
    x = np.hstack([np.asarray(embeddings, dtype=np.float64), (cues - mean) / scale])
    y = np.asarray(targets)
    onehot = np.eye(len(labels))[y]
    counts = np.bincount(y, minlength=len(labels)).astype(np.float64)
    # classes weighted to equal total mass: the corpus's class sizes are not the world's
    sample_weight = (len(y) / (len(labels) * np.maximum(counts, 1)))[y] if class_weights \
        else np.ones(len(y))
    rng = np.random.default_rng(seed)
    weights = rng.normal(0.0, 0.01, size=(x.shape[1], len(labels)))
    bias = np.zeros(len(labels))
    state = _Adam(weights.shape, len(labels))
    for _ in range(epochs):
        probs = softmax(x @ weights + bias)
        error = (probs - onehot) * sample_weight[:, None] / sample_weight.sum()
        weights, bias = state.step(weights, bias, x.T @ error + l2 * weights,
                                   error.sum(axis=0), learning_rate)
    return LinearHead(labels=tuple(labels), cue_names=tuple(cue_names), embedders=tuple(embedders),
                      weights=weights.astype(np.float32), bias=bias.astype(np.float32),
                      cue_mean=mean.astype(np.float32), cue_scale=scale.astype(np.float32))


class _Adam:
    def __init__(self, shape: tuple[int, ...], classes: int) -> None:
        self.m_w, self.v_w = np.zeros(shape), np.zeros(shape)
        self.m_b, self.v_b = np.zeros(classes), np.zeros(classes)
        self.t = 0

    def step(self, w: np.ndarray, b: np.ndarray, grad_w: np.ndarray, grad_b: np.ndarray,
             lr: float, beta1: float = 0.9, beta2: float = 0.999,
             eps: float = 1e-8) -> tuple[np.ndarray, np.ndarray]:
        self.t += 1
        self.m_w = beta1 * self.m_w + (1 - beta1) * grad_w
        self.v_w = beta2 * self.v_w + (1 - beta2) * grad_w ** 2
        self.m_b = beta1 * self.m_b + (1 - beta1) * grad_b
        self.v_b = beta2 * self.v_b + (1 - beta2) * grad_b ** 2
        correction1, correction2 = 1 - beta1 ** self.t, 1 - beta2 ** self.t
        w = w - lr * (self.m_w / correction1) / (np.sqrt(self.v_w / correction2) + eps)
        b = b - lr * (self.m_b / correction1) / (np.sqrt(self.v_b / correction2) + eps)
        return w, b
