"""Systems a benchmark measures, behind one protocol: memfold itself and raw-turn baselines.

Every baseline indexes one item per turn with text ``"Speaker: text"`` (plus the image
caption when the turn has one, as ``Message.indexed_text()`` gives it) and ``sources`` =
that turn's msg_id, so the metric treats all systems alike. A baseline's prompt context is
its ranked turns rendered the way ``Memory.context()`` renders recalled items
(:func:`memfold.retrieval.context.ranked_context`) under the same token budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np

from memfold.embed.base import Embedder
from memfold.models import Context, Message, RecallItem
from memfold.retrieval.context import ranked_context


@runtime_checkable
class RecallSystem(Protocol):
    """Ingest a transcript, then answer recall queries with ranked, sourced items."""

    name: str

    def ingest(self, messages: Sequence[Message]) -> int:
        """Store the messages; returns how many were accepted."""
        ...

    def recall(self, query: str, user_id: str, now: datetime | None, k: int) -> list[RecallItem]:
        ...

    def context(self, query: str, user_id: str, now: datetime | None, budget_tokens: int) -> Context:
        """The prompt context this system would give an agent within ``budget_tokens``."""
        ...

    def close(self) -> None: ...


# Builds a fresh system whose files (if any) live under the given empty directory.
SystemFactory = Callable[[Path], RecallSystem]


def turn_text(message: Message) -> str:
    return f"{message.speaker}: {message.indexed_text()}"


def turn_item(message: Message, score: float) -> RecallItem:
    return RecallItem(store="archive", text=turn_text(message), score=float(score),
                      sources=[message.msg_id], occurred_at=message.ts, item_id=message.msg_id)


class CachingEmbedder:
    """Shares turn vectors between baselines so a run embeds each turn once.

    Only batch calls (the turns) go through the shared cache; a single text (a query) goes to
    this instance's own embedder, so no system's query latency profits from another's.
    """

    def __init__(self, inner: Embedder, shared: dict[str, np.ndarray] | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._cache: dict[str, np.ndarray] = {} if shared is None else shared

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) <= 1:
            return self.inner.embed(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing)):
                self._cache[text] = vector
        return np.stack([self._cache[text] for text in texts])


class _TurnStore:
    """Per-user raw turns, shared plumbing of the baselines."""

    def __init__(self) -> None:
        self.turns: dict[str, list[Message]] = {}
        self._dirty: set[str] = set()

    def add(self, messages: Sequence[Message]) -> list[str]:
        """Append the turns; returns the users whose index must be rebuilt."""
        for message in messages:
            self.turns.setdefault(message.user_id, []).append(message)
            self._dirty.add(message.user_id)
        return sorted({message.user_id for message in messages})

    def take_dirty(self, user_id: str) -> bool:
        dirty = user_id in self._dirty
        self._dirty.discard(user_id)
        return dirty


CONTEXT_DEPTH = 100  # ranked turns offered to a baseline's prompt (more than any budget holds)


class _RankedPrompt:
    """A baseline's context: its own ranking, rendered as memfold renders recalled items."""

    def context(self, query: str, user_id: str, now: datetime | None, budget_tokens: int) -> Context:
        items = cast(RecallSystem, self).recall(query, user_id, now, CONTEXT_DEPTH)
        return ranked_context(query, user_id, items, budget_tokens)


class RecencyBaseline(_RankedPrompt):
    """The latest turns (at or before ``now``), newest first; ignores the query."""

    name = "recency"

    def __init__(self) -> None:
        self._store = _TurnStore()

    def ingest(self, messages: Sequence[Message]) -> int:
        self._store.add(messages)
        return len(messages)

    def recall(self, query: str, user_id: str, now: datetime | None, k: int) -> list[RecallItem]:
        turns = [m for m in self._store.turns.get(user_id, []) if now is None or m.ts <= now]
        latest = sorted(turns, key=lambda m: m.ts, reverse=True)[:k]
        return [turn_item(m, 1.0 / (rank + 1)) for rank, m in enumerate(latest)]

    def close(self) -> None:
        self._store = _TurnStore()


class BM25Baseline(_RankedPrompt):
    """BM25 (bm25s) over raw turns, English stopwords and the PyStemmer English stemmer."""

    name = "bm25"

    def __init__(self) -> None:
        import Stemmer

        self._stemmer = Stemmer.Stemmer("english")
        self._store = _TurnStore()
        self._indexes: dict[str, Any] = {}

    def ingest(self, messages: Sequence[Message]) -> int:
        for user_id in self._store.add(messages):  # index now: recall latency excludes indexing
            self._index(user_id)
        return len(messages)

    def _tokens(self, texts: list[str]) -> list[list[str]]:
        import bm25s

        return bm25s.tokenize(texts, stopwords="en", stemmer=self._stemmer, return_ids=False,
                              show_progress=False)

    def _index(self, user_id: str) -> Any:
        if self._store.take_dirty(user_id) or user_id not in self._indexes:
            import bm25s

            retriever = bm25s.BM25()
            retriever.index(self._tokens([turn_text(m) for m in self._store.turns[user_id]]),
                            show_progress=False)
            self._indexes[user_id] = retriever
        return self._indexes[user_id]

    def recall(self, query: str, user_id: str, now: datetime | None, k: int) -> list[RecallItem]:
        turns = self._store.turns.get(user_id, [])
        if not turns or k <= 0:
            return []
        docs, scores = self._index(user_id).retrieve(self._tokens([query]), k=min(k, len(turns)),
                                                     show_progress=False)
        # a zero score means no query term matched: BM25 found nothing there
        return [turn_item(turns[int(doc)], score) for doc, score in zip(docs[0], scores[0])
                if score > 0]

    def close(self) -> None:
        self._indexes.clear()


class DenseBaseline(_RankedPrompt):
    """Cosine similarity of the query to each raw turn, with the given embedder."""

    name = "dense"

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._store = _TurnStore()
        self._matrices: dict[str, np.ndarray] = {}

    def ingest(self, messages: Sequence[Message]) -> int:
        for user_id in self._store.add(messages):  # embed now: recall latency excludes indexing
            self._matrix(user_id)
        return len(messages)

    def _matrix(self, user_id: str) -> np.ndarray:
        if self._store.take_dirty(user_id) or user_id not in self._matrices:
            self._matrices[user_id] = self._embedder.embed(
                [turn_text(m) for m in self._store.turns[user_id]])
        return self._matrices[user_id]

    def recall(self, query: str, user_id: str, now: datetime | None, k: int) -> list[RecallItem]:
        turns = self._store.turns.get(user_id, [])
        if not turns or k <= 0:
            return []
        scores = self._matrix(user_id) @ self._embedder.embed([query])[0]
        order = np.argsort(-scores, kind="stable")[:k]
        return [turn_item(turns[int(i)], float(scores[int(i)])) for i in order]

    def close(self) -> None:
        self._matrices.clear()


class HybridBaseline(_RankedPrompt):
    """Reciprocal rank fusion (k=60) of the BM25 and dense rankings over raw turns."""

    name = "hybrid"

    def __init__(self, embedder: Embedder, *, rrf_k: int = 60, depth: int = 100) -> None:
        self._bm25 = BM25Baseline()
        self._dense = DenseBaseline(embedder)
        self._rrf_k = rrf_k
        self._depth = depth

    def ingest(self, messages: Sequence[Message]) -> int:
        self._bm25.ingest(messages)
        return self._dense.ingest(messages)

    def recall(self, query: str, user_id: str, now: datetime | None, k: int) -> list[RecallItem]:
        depth = max(k, self._depth)
        fused: dict[str, float] = {}
        items: dict[str, RecallItem] = {}
        for ranking in (self._bm25.recall(query, user_id, now, depth),
                        self._dense.recall(query, user_id, now, depth)):
            for rank, item in enumerate(ranking):
                key = item.sources[0]
                fused[key] = fused.get(key, 0.0) + 1.0 / (self._rrf_k + rank + 1)
                items.setdefault(key, item)
        best = sorted(fused, key=lambda key: fused[key], reverse=True)[:k]
        return [items[key].model_copy(update={"score": fused[key]}) for key in best]

    def close(self) -> None:
        self._bm25.close()
        self._dense.close()


class MemfoldSystem:
    """The system under test: the ``Memory`` facade (ingest_many + recall)."""

    name = "memfold"

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self.rejected = 0

    @classmethod
    def open(cls, path: Path, settings: Any = None, *, read_only: bool = False) -> MemfoldSystem:
        from memfold.memory import Memory

        return cls(Memory.open(path, settings, read_only=read_only))

    @classmethod
    def in_memory(cls, settings: Any = None, *, embedder: Embedder | None = None) -> MemfoldSystem:
        from memfold.memory import Memory

        return cls(Memory.in_memory(settings, embedder=embedder))

    def ingest(self, messages: Sequence[Message]) -> int:
        report = self.memory.ingest_many(list(messages))
        self.rejected += len(report.rejected)
        return int(report.accepted)

    def recall(self, query: str, user_id: str, now: datetime | None, k: int) -> list[RecallItem]:
        return list(self.memory.recall(query, user_id, now=now, k=k).items)

    def context(self, query: str, user_id: str, now: datetime | None, budget_tokens: int) -> Context:
        return self.memory.context(query, user_id, budget_tokens=budget_tokens, now=now)

    def close(self) -> None:
        self.memory.close()


BASELINES = ("bm25", "dense", "hybrid", "recency")
ALL_SYSTEMS = ("memfold", *BASELINES)


def default_factories(names: Sequence[str], make_embedder: Callable[[], Embedder],
                      memfold_settings: Any = None) -> dict[str, SystemFactory]:
    """Factories for the named systems, in the given order.

    Dense and hybrid each get their own embedder from ``make_embedder`` (own query cache) and
    share the turn vectors; memfold builds its own embedder from ``memfold_settings``.
    """
    unknown = [name for name in names if name not in ALL_SYSTEMS]
    if unknown:
        from memfold.errors import ConfigError

        raise ConfigError(f"unknown benchmark system(s) {', '.join(unknown)}",
                          hint=f"choose among {', '.join(ALL_SYSTEMS)}")
    turn_vectors: dict[str, np.ndarray] = {}
    embedders: dict[str, CachingEmbedder] = {}

    def shared(name: str) -> CachingEmbedder:
        if name not in embedders:
            embedders[name] = CachingEmbedder(make_embedder(), turn_vectors)
        return embedders[name]

    known: dict[str, SystemFactory] = {
        "memfold": lambda path: MemfoldSystem.open(path, memfold_settings),
        "bm25": lambda path: BM25Baseline(),
        "dense": lambda path: DenseBaseline(shared("dense")),
        "hybrid": lambda path: HybridBaseline(shared("hybrid")),
        "recency": lambda path: RecencyBaseline(),
    }
    return {name: known[name] for name in names}
