"""Query-aware retrieval over knowledge-base namespaces (documents that belong to no user).

A namespace is read whole into memory once per version of its documents: its chunks'
vectors (kept in the system of record beside the chunks) as one normalised matrix, and a
BM25 index of their text. A search fuses the two as ``cosine + lexical_weight * bm25 /
best bm25`` over every chunk of the granted namespaces: brute force, which at a 200-page
manual (~700 chunks) is one small matrix product. The cache is keyed by the namespace's
(doc_id, version, digest) list, read on every search, so a replaced or removed version is
never served, whichever process replaced it.

Which namespaces a user may read is the deployment's grant (``Settings.knowledge_grants``),
decided by the caller; this module only reads the namespaces it is given.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memfold.embed.base import Embedder, normalise
from memfold.models import KnowledgeChunk, RecallItem
from memfold.retrieval.lexical import B, K1, Analyzer
from memfold.stores.base import KnowledgeStore

LEXICAL_WEIGHT = 0.5  # a chunk that shares the query's rarest words gains up to half a cosine


@dataclass(frozen=True)
class _Namespace:
    """One namespace's chunks, their unit vectors and a BM25 index of their words."""

    signature: tuple[tuple[str, int, str], ...]
    chunks: list[KnowledgeChunk]
    vectors: np.ndarray
    postings: dict[str, tuple[np.ndarray, np.ndarray]]  # term -> (chunk rows, term counts)
    lengths: np.ndarray

    def bm25(self, terms: Sequence[str]) -> np.ndarray:
        scores = np.zeros(len(self.chunks), dtype=np.float32)
        if not self.chunks:
            return scores
        mean = float(self.lengths.mean()) or 1.0
        for term in set(terms):
            rows, counts = self.postings.get(term, (None, None))
            if rows is None:
                continue
            idf = math.log(1 + (len(self.chunks) - len(rows) + 0.5) / (len(rows) + 0.5))
            norm = K1 * (1 - B + B * self.lengths[rows] / mean)
            scores[rows] += idf * counts * (K1 + 1) / (counts + norm)
        return scores


class KnowledgeIndex:
    """Searches namespaces of a KnowledgeStore; thread-safe (the cache is swapped whole)."""

    def __init__(self, store: KnowledgeStore, embedder: Embedder, analyzer: Analyzer | None = None,
                 *, lexical_weight: float = LEXICAL_WEIGHT) -> None:
        self.store = store
        self.embedder = embedder
        self.analyzer = analyzer or Analyzer()
        self.lexical_weight = lexical_weight
        self._cache: dict[str, _Namespace] = {}
        self._lock = threading.Lock()

    def search(self, query: str, namespaces: Sequence[str], k: int = 10) -> list[RecallItem]:
        """The ``k`` best chunks of these namespaces for ``query``, best first, each citing
        its namespace, document, version and chunk number (``meta``) instead of messages."""
        loaded = [self._load(ns) for ns in dict.fromkeys(namespaces)]
        loaded = [ns for ns in loaded if ns.chunks]
        if not loaded or k <= 0:
            return []
        [vector] = normalise(self.embedder.embed([query]))
        terms = self.analyzer.tokens(query)
        scored: list[tuple[float, KnowledgeChunk]] = []
        for ns in loaded:
            lexical = ns.bm25(terms)
            best = float(lexical.max()) if lexical.size else 0.0
            fused = ns.vectors @ vector + (self.lexical_weight * lexical / best if best > 0 else 0.0)
            top = np.argsort(-fused, kind="stable")[:k]
            scored.extend((float(fused[i]), ns.chunks[i]) for i in top)
        scored.sort(key=lambda pair: -pair[0])
        return [knowledge_item(chunk, score) for score, chunk in scored[:k]]

    def _load(self, namespace: str) -> _Namespace:
        signature = self._signature(namespace)
        with self._lock:
            cached = self._cache.get(namespace)
        if cached is not None and cached.signature == signature:
            return cached
        for _ in range(3):  # a version replaced between the two reads: read the new one
            chunks, vectors = self.store.vectors(namespace)
            built = self._build(signature, chunks, vectors)
            now = self._signature(namespace)
            if now == signature:
                with self._lock:
                    self._cache[namespace] = built
                break
            signature = now
        return built  # after 3 changes in a row: the last read, served but not cached

    def _signature(self, namespace: str) -> tuple[tuple[str, int, str], ...]:
        return tuple((d.doc_id, d.version, d.digest) for d in self.store.documents(namespace))

    def _build(self, signature: tuple[tuple[str, int, str], ...], chunks: list[KnowledgeChunk],
               vectors: np.ndarray) -> _Namespace:
        counts: dict[str, tuple[list[int], list[int]]] = {}
        lengths = []
        for row, chunk in enumerate(chunks):
            tokens = Counter(self.analyzer.tokens(chunk.text))
            lengths.append(sum(tokens.values()))
            for term, n in tokens.items():
                rows, tfs = counts.setdefault(term, ([], []))
                rows.append(row)
                tfs.append(n)
        postings = {t: (np.asarray(r), np.asarray(c, dtype=np.float32)) for t, (r, c) in counts.items()}
        matrix = normalise(vectors) if len(chunks) else np.zeros((0, self.embedder.dim), np.float32)
        return _Namespace(signature, chunks, matrix, postings, np.asarray(lengths, dtype=np.float32))


def knowledge_item(chunk: KnowledgeChunk, score: float) -> RecallItem:
    return RecallItem(store="knowledge", text=chunk.text, score=round(score, 6), sources=[],
                      item_id=chunk.chunk_id,
                      meta={"namespace": chunk.namespace, "doc_id": chunk.doc_id,
                            "version": chunk.version, "chunk": chunk.index})


__all__ = ["KnowledgeIndex", "knowledge_item"]
