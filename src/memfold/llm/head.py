"""A small learned classifier: softmax over [embedding, standardised cue features].

The router and the query-intent classifier both use one (``router_head.npz`` and
``intent_head.npz`` in ``memfold/data``), trained by ``training/train_heads.py`` from the
labelled corpus in ``training/corpus/``. A head is a linear map, and optionally one hidden
layer beside it: ``x @ weights + relu(x @ hidden_weights) @ hidden_out``. The intent head is
linear (1,600 questions support no more); the router head, trained on some 13,000 messages,
has the hidden layer, which reads what a linear map over MiniLM cannot (a fragment such as
"drive flatbed for werner" states a job; "wish i could afford a ps5" does not). Either costs
one or two small matrix products per message (the embedding is the one the facade already
computed), and the linear part's cue weights stay readable as the decision's reasons.

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


_HIDDEN_ARRAYS = ("hidden_weights", "hidden_bias", "hidden_out")


@dataclass(frozen=True)
class ClassifierHead:
    """``softmax(x @ weights + bias [+ relu(x @ hidden_weights + hidden_bias) @ hidden_out])``
    with ``x = [embedding, (cues - mean) / scale]``; the bracket only if the head has a hidden layer."""

    labels: tuple[str, ...]
    cue_names: tuple[str, ...]
    embedders: tuple[str, ...]
    weights: np.ndarray  # (dim + len(cue_names), len(labels))
    bias: np.ndarray  # (len(labels),)
    cue_mean: np.ndarray
    cue_scale: np.ndarray
    hidden_weights: np.ndarray | None = None  # (dim + len(cue_names), units)
    hidden_bias: np.ndarray | None = None  # (units,)
    hidden_out: np.ndarray | None = None  # (units, len(labels))

    @property
    def embedding_dim(self) -> int:
        return int(self.weights.shape[0] - len(self.cue_names))

    def accepts(self, embedder_name: str, dim: int) -> bool:
        return embedder_name in self.embedders and dim == self.embedding_dim

    def features(self, embeddings: np.ndarray, cues: np.ndarray) -> np.ndarray:
        scaled = (np.asarray(cues, dtype=np.float32) - self.cue_mean) / self.cue_scale
        return np.hstack([np.asarray(embeddings, dtype=np.float32), scaled])

    def logits(self, embeddings: np.ndarray, cues: np.ndarray) -> np.ndarray:
        return self._forward(self.features(embeddings, cues))[0]

    def probabilities(self, embeddings: np.ndarray, cues: np.ndarray) -> np.ndarray:
        return softmax(self.logits(embeddings, cues))

    def explain(self, embeddings: np.ndarray,
                cues: np.ndarray) -> tuple[np.ndarray, list[list[tuple[str, float]]]]:
        """The logits of a batch (rows of ``embeddings`` and ``cues``) and, for each row's best
        label, how much each cue added to its logit, largest first (the decision's reasons): its
        linear weight times its standardised value, plus what the hidden layer's share loses
        when the cue sits at its mean. One pass for the whole batch: the hidden layer's weights
        (2 MB for the router) are read once, not once a message."""
        x = self.features(embeddings, cues)
        out, inner = self._forward(x)
        scaled = x[:, self.embedding_dim:]
        shares = [self._cue_shares(scaled[row], None if inner is None else inner[row],
                                   self.labels[int(np.argmax(out[row]))]) for row in range(len(x))]
        return out, shares

    def _forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The logits, and the hidden layer's pre-activations (None without one)."""
        out = x @ self.weights + self.bias
        if self.hidden_weights is None or self.hidden_bias is None or self.hidden_out is None:
            return out, None
        inner = x @ self.hidden_weights + self.hidden_bias
        return out + np.maximum(inner, 0.0) @ self.hidden_out, inner

    def _cue_shares(self, scaled: np.ndarray, inner: np.ndarray | None, label: str) -> list[tuple[str, float]]:
        column = self.labels.index(label)
        shares = scaled * self.weights[self.embedding_dim:, column]
        if inner is not None and self.hidden_weights is not None and self.hidden_out is not None:
            # one row per cue: the pre-activations with that cue's term taken out
            without = inner[None, :] - scaled[:, None] * self.hidden_weights[self.embedding_dim:]
            out = self.hidden_out[:, column]
            shares = shares + float(np.maximum(inner, 0.0) @ out) - np.maximum(without, 0.0) @ out
        return sorted(zip(self.cue_names, shares.tolist()), key=lambda p: -abs(p[1]))

    def save(self, path: Path, *, meta: dict[str, object] | None = None) -> None:
        header = {"labels": self.labels, "cue_names": self.cue_names,
                  "embedders": self.embedders, "meta": meta or {}}
        arrays = {name: getattr(self, name) for name in ("weights", "bias", "cue_mean", "cue_scale",
                                                         *_HIDDEN_ARRAYS)}
        np.savez_compressed(path, **{name: array.astype(np.float32) for name, array in arrays.items()
                                     if array is not None},
                            header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))

    @classmethod
    def load(cls, path: Path) -> ClassifierHead:
        try:
            with np.load(path) as data:
                header = json.loads(bytes(data["header"]).decode())
                hidden = {name: data[name] for name in _HIDDEN_ARRAYS if name in data.files}
                return cls(labels=tuple(header["labels"]), cue_names=tuple(header["cue_names"]),
                           embedders=tuple(header["embedders"]), weights=data["weights"],
                           bias=data["bias"], cue_mean=data["cue_mean"],
                           cue_scale=data["cue_scale"], **hidden)
        except (OSError, KeyError, ValueError) as exc:
            raise ConfigError(f"cannot load classifier head {path}: {exc}") from exc


_PACKAGED: dict[str, ClassifierHead | None] = {}


def packaged_head(name: str) -> ClassifierHead | None:
    """The head shipped in ``memfold/data`` (``router_head``, ``intent_head``), or None."""
    if name not in _PACKAGED:
        path = Path(str(resources.files("memfold").joinpath(f"data/{name}.npz")))
        _PACKAGED[name] = ClassifierHead.load(path) if path.is_file() else None
    return _PACKAGED[name]


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=-1, keepdims=True)


def train_head(embeddings: np.ndarray, cues: np.ndarray, targets: Sequence[int], *,
               labels: Sequence[str], cue_names: Sequence[str], embedders: Sequence[str],
               l2: float = 1e-3, epochs: int = 400, learning_rate: float = 0.05,
               seed: int = 0, class_weights: bool = True) -> ClassifierHead:
    """Multinomial logistic regression by full-batch Adam; deterministic for a seed."""
    x, mean, scale = _inputs(embeddings, cues)
    y = np.asarray(targets)
    onehot = np.eye(len(labels))[y]
    sample_weight = _balanced(y, len(labels)) if class_weights else np.ones(len(y))
    rng = np.random.default_rng(seed)
    params = [rng.normal(0.0, 0.01, size=(x.shape[1], len(labels))), np.zeros(len(labels))]
    state = _Adam(params)
    for _ in range(epochs):
        weights, bias = params
        error = (softmax(x @ weights + bias) - onehot) * sample_weight[:, None] / sample_weight.sum()
        params = state.step(params, [x.T @ error + l2 * weights, error.sum(axis=0)], learning_rate)
    return _head(params, labels, cue_names, embedders, mean, scale)


def train_hidden_head(embeddings: np.ndarray, cues: np.ndarray, targets: Sequence[int], *,
                      labels: Sequence[str], cue_names: Sequence[str], embedders: Sequence[str],
                      units: int = 256, l2: float = 1e-5, epochs: int = 60, learning_rate: float = 1e-3,
                      batch_size: int = 200, seed: int = 0) -> ClassifierHead:
    """A linear map and one ReLU layer beside it, by minibatch Adam with the classes weighed
    to equal mass; deterministic for a seed (the batches are drawn from it too)."""
    x, mean, scale = _inputs(embeddings, cues)
    y = np.asarray(targets)
    onehot = np.eye(len(labels))[y]
    sample_weight = _balanced(y, len(labels))
    rng = np.random.default_rng(seed)
    width, classes = x.shape[1], len(labels)
    params = [rng.normal(0.0, 0.01, size=(width, classes)), np.zeros(classes),
              rng.normal(0.0, np.sqrt(2.0 / width), size=(width, units)), np.zeros(units),
              rng.normal(0.0, np.sqrt(1.0 / units), size=(units, classes))]
    state = _Adam(params)
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), batch_size):
            batch = order[start:start + batch_size]
            grads = _hidden_gradients(params, x[batch], onehot[batch], sample_weight[batch], l2)
            params = state.step(params, grads, learning_rate)
    return _head(params, labels, cue_names, embedders, mean, scale)


def averaged(heads: Sequence[ClassifierHead]) -> ClassifierHead:
    """One head whose logits are the mean of ``heads``' (trained on the same data with different
    seeds: the mean varies less from seed to seed than any one of them). Their hidden layers
    sit side by side, each one's output scaled by 1/len(heads)."""
    first = heads[0]
    if any(h.labels != first.labels or h.cue_names != first.cue_names
           or not np.array_equal(h.cue_mean, first.cue_mean) for h in heads):
        raise ValueError("only heads trained on the same data and labels can be averaged")
    hidden = [h for h in heads if h.hidden_weights is not None]
    layers = {} if len(hidden) != len(heads) else {
        "hidden_weights": np.hstack([h.hidden_weights for h in heads]),
        "hidden_bias": np.concatenate([h.hidden_bias for h in heads]),
        "hidden_out": np.vstack([h.hidden_out for h in heads]) / len(heads)}
    if hidden and not layers:
        raise ValueError("cannot average heads with and without a hidden layer")
    return ClassifierHead(labels=first.labels, cue_names=first.cue_names, embedders=first.embedders,
                          weights=np.mean([h.weights for h in heads], axis=0),
                          bias=np.mean([h.bias for h in heads], axis=0),
                          cue_mean=first.cue_mean, cue_scale=first.cue_scale, **layers)


def _hidden_gradients(params: list[np.ndarray], x: np.ndarray, onehot: np.ndarray,
                      sample_weight: np.ndarray, l2: float) -> list[np.ndarray]:
    """The weighted cross-entropy's gradients (plus L2 on the weight matrices) for one batch."""
    weights, bias, hidden_weights, hidden_bias, hidden_out = params
    hidden = np.maximum(x @ hidden_weights + hidden_bias, 0.0)
    probs = softmax(x @ weights + bias + hidden @ hidden_out)
    error = (probs - onehot) * sample_weight[:, None] / sample_weight.sum()
    back = (error @ hidden_out.T) * (hidden > 0)
    return [x.T @ error + l2 * weights, error.sum(axis=0), x.T @ back + l2 * hidden_weights,
            back.sum(axis=0), hidden.T @ error + l2 * hidden_out]


def _inputs(embeddings: np.ndarray, cues: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``[embedding, standardised cues]`` in float64, with the cues' mean and scale."""
    cues = np.asarray(cues, dtype=np.float64)
    mean = cues.mean(axis=0)
    scale = cues.std(axis=0) + 1e-6
    return np.hstack([np.asarray(embeddings, dtype=np.float64), (cues - mean) / scale]), mean, scale


def _balanced(y: np.ndarray, classes: int) -> np.ndarray:
    # classes weighted to equal total mass: the corpus's class sizes are not the world's
    counts = np.bincount(y, minlength=classes).astype(np.float64)
    return (len(y) / (classes * np.maximum(counts, 1)))[y]


def _head(params: list[np.ndarray], labels: Sequence[str], cue_names: Sequence[str],
          embedders: Sequence[str], mean: np.ndarray, scale: np.ndarray) -> ClassifierHead:
    weights, bias, *hidden = (p.astype(np.float32) for p in params)
    return ClassifierHead(labels=tuple(labels), cue_names=tuple(cue_names), embedders=tuple(embedders),
                          weights=weights, bias=bias, cue_mean=mean.astype(np.float32),
                          cue_scale=scale.astype(np.float32),
                          **dict(zip(_HIDDEN_ARRAYS, hidden)))


class _Adam:
    """Adam over a list of arrays, each updated the same way."""

    def __init__(self, params: list[np.ndarray]) -> None:
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, params: list[np.ndarray], grads: list[np.ndarray], lr: float, beta1: float = 0.9,
             beta2: float = 0.999, eps: float = 1e-8) -> list[np.ndarray]:
        self.t += 1
        correction1, correction2 = 1 - beta1 ** self.t, 1 - beta2 ** self.t
        out = []
        for i, (param, grad) in enumerate(zip(params, grads)):
            self.m[i] = beta1 * self.m[i] + (1 - beta1) * grad
            self.v[i] = beta2 * self.v[i] + (1 - beta2) * grad ** 2
            out.append(param - lr * (self.m[i] / correction1) / (np.sqrt(self.v[i] / correction2) + eps))
        return out
