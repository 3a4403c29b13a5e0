"""LazyEmbedder: the name and dimension without the model, the real embedder on first use."""

from __future__ import annotations

import threading

import pytest

from memfold.embed import Embedder, HashingEmbedder
from memfold.embed.lazy import LazyEmbedder
from memfold.errors import ConfigError


def _counted(built: list[int], embedder_factory=HashingEmbedder):  # type: ignore[no-untyped-def]
    def build() -> Embedder:
        built.append(1)
        return embedder_factory()
    return build


def test_the_name_and_dim_need_no_build_and_embed_builds_once() -> None:
    built: list[int] = []
    lazy = LazyEmbedder("hashing-384-0", 384, _counted(built))
    assert (lazy.name, lazy.dim, built) == ("hashing-384-0", 384, [])
    assert isinstance(lazy, Embedder)
    threads = [threading.Thread(target=lazy.embed, args=(["a text"],)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert built == [1] and lazy.built
    assert (lazy.embed(["a text"]) == HashingEmbedder().embed(["a text"])).all()


def test_other_attributes_are_the_real_embedders_but_private_ones_are_not_forwarded() -> None:
    built: list[int] = []
    lazy = LazyEmbedder("hashing-384-0", 384, _counted(built))
    with pytest.raises(AttributeError):
        lazy._bucket  # noqa: B018
    assert built == []
    assert lazy.seed == 0 and built == [1]


def test_an_embedder_that_is_not_the_announced_one_is_refused() -> None:
    lazy = LazyEmbedder("all-MiniLM-L6-v2-q8", 384, HashingEmbedder)
    with pytest.raises(ConfigError, match="hashing-384-0"):
        lazy.embed(["words"])
