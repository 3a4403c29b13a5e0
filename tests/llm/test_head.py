"""The classifier heads: the linear one and the one with a hidden layer beside it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memfold.errors import ConfigError
from memfold.llm.head import ClassifierHead, averaged, train_head, train_hidden_head

LABELS = ("same", "different")
NAMING = {"labels": LABELS, "cue_names": ("cue",), "embedders": ("toy",)}


def _xor(points: int = 400, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two signs in the embedding; the label is whether they agree, which no linear map reads."""
    rng = np.random.default_rng(seed)
    embedding = rng.uniform(-1.0, 1.0, size=(points, 2))
    cue = rng.normal(size=(points, 1))  # noise: the label does not depend on it
    label = (np.sign(embedding[:, 0]) != np.sign(embedding[:, 1])).astype(int)
    return embedding, cue, label


def _accuracy(head: ClassifierHead, data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> float:
    embedding, cue, label = data
    return float((head.logits(embedding, cue).argmax(axis=1) == label).mean())


def test_the_hidden_layer_reads_what_a_linear_head_cannot() -> None:
    train, test = _xor(), _xor(seed=4)
    linear = train_head(*train, **NAMING, seed=1)
    hidden = train_hidden_head(*train, **NAMING, units=16, epochs=200, learning_rate=0.01,
                               batch_size=50, seed=1)
    assert _accuracy(linear, test) < 0.7
    assert _accuracy(hidden, test) > 0.9


def test_training_is_deterministic_for_a_seed() -> None:
    data = _xor(points=120)
    first, again = (train_hidden_head(*data, **NAMING, units=8, epochs=5, seed=7) for _ in range(2))
    other = train_hidden_head(*data, **NAMING, units=8, epochs=5, seed=8)
    assert first.hidden_weights is not None and again.hidden_weights is not None
    assert np.array_equal(first.hidden_weights, again.hidden_weights)
    assert np.array_equal(first.weights, again.weights)
    assert not np.array_equal(first.weights, other.weights)


@pytest.mark.parametrize("hidden", [False, True])
def test_a_saved_head_loads_with_the_same_logits(tmp_path: Path, hidden: bool) -> None:
    data = _xor(points=60)
    head = (train_hidden_head(*data, **NAMING, units=4, epochs=3) if hidden
            else train_head(*data, **NAMING, epochs=5))
    head.save(tmp_path / "head.npz", meta={"note": "test"})
    loaded = ClassifierHead.load(tmp_path / "head.npz")
    assert (loaded.hidden_weights is not None) == hidden
    assert np.allclose(loaded.logits(data[0], data[1]), head.logits(data[0], data[1]))
    assert loaded.labels == LABELS and loaded.accepts("toy", 2) and not loaded.accepts("other", 2)


def test_the_reasons_of_a_linear_head_are_each_cues_weight_times_its_value() -> None:
    embedding, cue, label = _xor(points=60)
    head = train_head(embedding, cue, label, **NAMING, epochs=5)
    logits, shares = head.explain(embedding[:1], np.array([[2.0]]))
    column = int(np.argmax(logits[0]))
    scaled = (2.0 - head.cue_mean[0]) / head.cue_scale[0]
    assert shares[0] == [("cue", pytest.approx(float(scaled * head.weights[2, column]), rel=1e-5))]


def test_an_unreadable_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.npz"
    path.write_bytes(b"not a numpy archive")
    with pytest.raises(ConfigError, match="cannot load classifier head"):
        ClassifierHead.load(path)


def test_averaged_heads_give_the_mean_of_their_logits() -> None:
    data = _xor(points=80)
    members = [train_hidden_head(*data, **NAMING, units=4, epochs=3, seed=seed) for seed in (1, 2, 3)]
    merged = averaged(members)
    expected = np.mean([head.logits(data[0], data[1]) for head in members], axis=0)
    assert np.allclose(merged.logits(data[0], data[1]), expected, atol=1e-5)
    assert merged.hidden_weights is not None and merged.hidden_weights.shape == (3, 12)


def test_heads_of_different_data_cannot_be_averaged() -> None:
    one = train_head(*_xor(points=40), **NAMING, epochs=2)
    other = train_head(*_xor(points=40, seed=9), **NAMING, epochs=2)
    with pytest.raises(ValueError, match="same data"):
        averaged([one, other])


def test_a_batch_is_explained_as_each_message_alone() -> None:
    embedding, cue, label = _xor(points=30)
    head = train_hidden_head(embedding, cue, label, **NAMING, units=6, epochs=4, seed=2)
    logits, shares = head.explain(embedding, cue)
    assert np.allclose(logits, head.logits(embedding, cue))
    for row in range(len(embedding)):
        alone_logits, alone = head.explain(embedding[row:row + 1], cue[row:row + 1])
        assert np.allclose(alone_logits[0], logits[row], atol=1e-5)
        assert [name for name, _ in alone[0]] == [name for name, _ in shares[row]] == ["cue"]
        assert alone[0][0][1] == pytest.approx(shares[row][0][1], abs=1e-5)
