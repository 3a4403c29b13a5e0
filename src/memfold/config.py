"""Settings, and the only place that builds memfold's parts from them.

Everything else takes objects in its constructor (a ``Router`` takes a backend, a
``Retriever`` takes stores and an embedder); this module turns a :class:`Settings`
into those objects. Settings come from keyword arguments or ``MEMFOLD_*`` variables::

    MEMFOLD_STORE            store directory (default ./memfold-store)
    MEMFOLD_EMBEDDER         minilm-q8 (default: int8 ONNX with int8 matrix products, no torch)
                             | minilm-int8 (int8 weights, fp32 products) | minilm (fp32, torch)
                             | hashing (fast, for tests only)
    MEMFOLD_MODEL_CACHE      where minilm-q8's derived model file is kept (default
                             ~/.cache/memfold/models)
    MEMFOLD_BACKEND          auto (default: anthropic when ANTHROPIC_API_KEY is set) | offline | anthropic
    MEMFOLD_ANTHROPIC_MODEL  model for the anthropic backend (default claude-haiku-4-5)
    MEMFOLD_ANTHROPIC_TIMEOUT seconds per Anthropic request (default 30; 2 SDK retries)
    MEMFOLD_INTENT           auto (default: learned offline head, Claude with the anthropic
                             backend) | learned | heuristic (the regular-expression cues alone)
    MEMFOLD_MAX_TEXT_CHARS   longest message accepted (default 200000)
    MEMFOLD_CONTEXT          ContextSettings overrides as JSON, e.g. {"redact_secrets": false}
    MEMFOLD_RETENTION        profile forgetting policy as JSON, e.g.
                             {"ttl_by_key": {"mood": "7d"}, "max_facts": 200} (default: forget nothing)
    MEMFOLD_KNOWLEDGE_GRANTS which knowledge-base namespaces each user reads, as JSON, e.g.
                             {"*": ["product-manual"], "ana": ["internal-faq"]} ("*": every user)
    MEMFOLD_TASK_TTL_SECONDS a task's scratchpad burns after this long without a write (86400)
    MEMFOLD_VECTOR_CACHE_MB  recent users' vectors kept in the writer's memory for recall (256; 0: off)
    MEMFOLD_FACT_TAGGER      true (default) | false: the learned fact tagger beside the rules
    MEMFOLD_DATABASE_URL     postgresql://... : PostgreSQL as the system of record (with
    MEMFOLD_CHROMA_URL       http://host:port : the Chroma server holding the vectors; set
                             both or neither; default: the store directory, nothing to start)
"""

from __future__ import annotations

import os
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memfold.errors import ConfigError, MemfoldError

if TYPE_CHECKING:
    from memfold.embed import Embedder
    from memfold.llm.base import Backend
    from memfold.memory import Memory, Parts
    from memfold.stores import Stores

DEFAULT_STORE = Path("memfold-store")
ENV_PREFIX = "MEMFOLD_"


class Settings(BaseModel):
    """Deployment settings. Unknown keys are errors, so typos do not pass silently."""

    model_config = ConfigDict(extra="forbid")

    store: Path = DEFAULT_STORE
    # int8 arithmetic by default: long texts embed ~1.8x faster than with the int8-weight
    # graph (whose products run in fp32), LoCoMo-dev recall unchanged; no torch import.
    # Figures and commands: README, "The embedder" (benchmarks/embedders.py).
    embedder: Literal["minilm-q8", "minilm-int8", "minilm", "hashing"] = "minilm-q8"
    backend: Literal["auto", "offline", "anthropic"] = "auto"
    anthropic_model: str = "claude-haiku-4-5"
    anthropic_timeout: float = Field(default=30.0, gt=0)  # seconds per request
    intent: Literal["auto", "learned", "heuristic"] = "auto"  # the query-intent classifier
    anthropic_max_retries: int = Field(default=2, ge=0)
    anthropic_api_key: str | None = Field(default=None, repr=False)
    max_text_chars: int = Field(default=200_000, gt=0)
    max_future_skew_seconds: int = Field(default=24 * 3600, ge=0)
    # The ingest worker embeds batch k+1 while batch k is routed and folded. On three
    # LongMemEval haystacks 64 / 128 / 256 gave 41-46 / 43-47 / 42-46 messages/s: 128 keeps
    # a transaction small at no cost (benchmarks/longmemeval_ingest.py --batch N)
    ingest_batch_size: int = Field(default=128, gt=0)
    # Archive a FACT/EVENT message a second time as its extraction text? Off: on LoCoMo-dev
    # the extra rows cost 0.47 embeddings per message at ingest and lowered evidence recall
    # (benchmarks/retrieval_dev.py --router, int8 model: R@10 0.758 / within 1,000 tokens
    # 0.845 with them, 0.769 / 0.859 without); the fact and the event stay findable
    # through the profile and the event log.
    index_extractions: bool = False
    fold: dict[str, Any] = Field(default_factory=dict)  # overrides of compaction.FoldSettings
    recall: dict[str, Any] = Field(default_factory=dict)  # overrides of retrieval settings
    context: dict[str, Any] = Field(default_factory=dict)  # overrides of ContextSettings
    retention: dict[str, Any] = Field(default_factory=dict)  # profile forgetting policies
    # The knowledge base belongs to no user: a deployment grants namespaces to user ids
    # ("*": to every user); recall and context() read only the granted ones.
    knowledge_grants: dict[str, list[str]] = Field(default_factory=dict)
    # A task left open (no end_task) burns this long after its last scratchpad write.
    task_ttl_seconds: int = Field(default=24 * 3600, gt=0)
    # Scale-out: PostgreSQL + a Chroma server instead of the store directory (README,
    # "PostgreSQL + Chroma server"). The URL may carry a password: never in repr.
    database_url: str | None = Field(default=None, repr=False)
    chroma_url: str | None = None
    # The store directory's Chroma index in a child process (`memfold serve` turns it on):
    # Chroma holds the GIL through each call, which stalled every other request
    # (stores/index_process.py has the figures). Off for one-shot commands: the child
    # costs a second interpreter and a chromadb import at start.
    index_process: bool = False
    # The vectors of the users read last, kept in the writer's process for recall (exact
    # search; stores/vector_cache.py): a recall no longer waits for the index's upserts.
    # MiB, about 1.6 KB a row; 0 turns it off. Never with PostgreSQL: replicas share the index.
    vector_cache_mb: int = Field(default=256, ge=0)
    # The learned fact tagger beside the rules (llm/tagger.py); off: rules and templates alone
    fact_tagger: bool = True

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        values: dict[str, Any] = {}
        for name in ("store", "embedder", "backend", "anthropic_model", "max_text_chars",
                     "database_url", "chroma_url", "task_ttl_seconds", "intent", "anthropic_timeout",
                     "vector_cache_mb", "fact_tagger"):
            env = os.environ.get(ENV_PREFIX + name.upper())
            if env:
                values[name] = env
        if os.environ.get(ENV_PREFIX + "RETENTION"):
            values["retention"] = _json_env(ENV_PREFIX + "RETENTION")
        if os.environ.get(ENV_PREFIX + "CONTEXT"):
            values["context"] = _json_env(ENV_PREFIX + "CONTEXT")
        if os.environ.get(ENV_PREFIX + "KNOWLEDGE_GRANTS"):
            values["knowledge_grants"] = _json_env(ENV_PREFIX + "KNOWLEDGE_GRANTS")
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def granted_namespaces(self, user_id: str) -> list[str]:
        """The knowledge-base namespaces ``user_id`` reads: its own grants, then everyone's."""
        grants = [*self.knowledge_grants.get(user_id, []), *self.knowledge_grants.get("*", [])]
        return list(dict.fromkeys(grants))

    def resolved_backend(self) -> Literal["offline", "anthropic"]:
        if self.backend != "auto":
            return self.backend
        return "anthropic" if self.api_key() else "offline"

    def api_key(self) -> str | None:
        return self.anthropic_api_key or os.environ.get("ANTHROPIC_API_KEY") or None


def _json_env(name: str) -> dict[str, Any]:
    import json

    try:
        value = json.loads(os.environ[name])
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{name} is not valid JSON: {exc.msg}",
                          hint='e.g. {"ttl_by_key": {"mood": "7d"}, "max_facts": 200}') from exc
    if not isinstance(value, dict):
        raise ConfigError(f"{name} must be a JSON object")
    return value


def build_embedder(settings: Settings) -> Embedder:
    from memfold.embed import HashingEmbedder, MiniLMEmbedder, MiniLMInt8Embedder, MiniLMQ8Embedder

    if settings.embedder == "hashing":
        return HashingEmbedder()
    if settings.embedder == "minilm":
        return MiniLMEmbedder()
    if settings.embedder == "minilm-int8":
        return MiniLMInt8Embedder()
    return MiniLMQ8Embedder()


# The name and dimension each embedder records in a store, known without importing it (numpy,
# onnxruntime or torch): opening a store compares the name with the recorded one.
# LazyEmbedder refuses a built embedder that disagrees; tests/embed checks each entry.
EMBEDDER_IDENTITY = {"minilm-q8": ("all-MiniLM-L6-v2-q8", 384),
                     "minilm-int8": ("all-MiniLM-L6-v2-int8", 384),
                     "minilm": ("all-MiniLM-L6-v2", 384), "hashing": ("hashing-384-0", 384)}


def lazy_embedder(settings: Settings) -> Embedder:
    """The configured embedder, imported and built when it first embeds."""
    from memfold.embed.lazy import LazyEmbedder

    name, dim = EMBEDDER_IDENTITY[settings.embedder]
    return LazyEmbedder(name, dim, partial(build_embedder, settings))


def build_backend(settings: Settings, embedder: Embedder) -> Backend:
    from memfold.llm.offline import OfflineBackend

    offline = OfflineBackend(embedder=embedder, tagger=settings.fact_tagger)
    if settings.resolved_backend() == "offline":
        return offline
    key = _anthropic_key(settings)
    import anthropic

    from memfold.llm.anthropic import AnthropicBackend

    # explicit limits: a request waits at most anthropic_timeout seconds and transient
    # failures (429, 529, connection) are retried twice by the SDK with backoff
    client = anthropic.Anthropic(api_key=key, timeout=settings.anthropic_timeout,
                                 max_retries=settings.anthropic_max_retries)
    return AnthropicBackend(client, model=settings.anthropic_model, fallback=offline,
                            timeout=settings.anthropic_timeout)


def build_memory(settings: Settings, *, stores: Stores | None = None,
                 embedder: Embedder | None = None, read_only: bool = False,
                 fresh_index: bool = False) -> Memory:
    """Assemble a Memory: stores on disk (or the ones given), embedder, and the router,
    compaction and recall parts, which the Memory builds (``build_parts``) on first use."""
    from memfold.memory import Memory
    from memfold.stores.retention import policy_from_settings

    _check_part_settings(settings)  # a typo in fold/recall settings fails here, not later
    retention = policy_from_settings(settings.retention)
    if stores is None:  # first: a store held by another process is refused before any model loads
        stores = build_stores(settings, read_only=read_only, fresh_index=fresh_index)
    embedder = embedder or lazy_embedder(settings)
    return Memory(stores=stores, embedder=embedder, settings=settings, retention=retention,
                  parts=partial(build_parts, settings, stores, embedder))


def build_stores(settings: Settings, *, read_only: bool = False, fresh_index: bool = False) -> Stores:
    """The store directory (default), or PostgreSQL + a Chroma server when their URLs are set.
    ``fresh_index``: the store directory's vector index starts empty (``memfold reindex``)."""
    if settings.database_url is None and settings.chroma_url is None:
        from memfold.stores import open_stores

        return open_stores(Path(settings.store), read_only=read_only, fresh_index=fresh_index,
                           index_process=settings.index_process,
                           vector_cache_bytes=settings.vector_cache_mb * 1024 * 1024)
    database_url, chroma_url = _server_urls(settings)
    from memfold.stores.chroma import ChromaVectorIndex, http_client
    from memfold.bm25 import DEFAULT_WINDOW_GAP
    from memfold.stores.postgres import connect, postgres_stores

    db = connect(database_url, read_only=read_only)
    try:
        index = ChromaVectorIndex(client=http_client(chroma_url))
    except MemfoldError:
        db.close()
        raise
    # the lexical windows are linked when rows are stored, with recall's gap
    hours = settings.recall.get("window_gap_hours")
    gap = DEFAULT_WINDOW_GAP if hours is None else timedelta(hours=float(hours))
    try:
        return postgres_stores(db, index, window_gap=gap)
    except MemfoldError:
        db.close()
        raise


def _server_urls(settings: Settings) -> tuple[str, str]:
    if not settings.database_url or not settings.chroma_url:
        raise ConfigError("MEMFOLD_DATABASE_URL and MEMFOLD_CHROMA_URL go together",
                          hint="a PostgreSQL deployment keeps its vectors on a Chroma server: set "
                               "both, or neither for the store directory")
    if not settings.database_url.startswith(("postgresql://", "postgres://")):
        raise ConfigError("MEMFOLD_DATABASE_URL must be a postgresql:// URL",
                          hint="e.g. postgresql://memfold@db.internal:5432/memfold")
    if not settings.chroma_url.startswith(("http://", "https://")):
        raise ConfigError("MEMFOLD_CHROMA_URL must be an http:// URL",
                          hint="e.g. http://chroma.internal:8000")
    return settings.database_url, settings.chroma_url


def _check_part_settings(settings: Settings) -> None:
    """Fail at open, not at first use, on settings the parts will refuse: overrides of the
    fold, recall or context settings (validated only when given: the defaults are valid, and
    the retrieval modules import numpy and bm25s), and the anthropic backend without a key."""
    if settings.fold:
        from memfold.compaction.base import FoldSettings

        FoldSettings(**settings.fold)
    if settings.recall:
        from memfold.retrieval.recall import RecallSettings

        RecallSettings(**settings.recall)
    if settings.context:
        from memfold.retrieval.context import ContextSettings

        ContextSettings(**settings.context)
    if settings.resolved_backend() == "anthropic":
        _anthropic_key(settings)


def _anthropic_key(settings: Settings) -> str:
    key = settings.api_key()
    if not key:
        raise ConfigError("backend 'anthropic' needs an API key",
                          hint="set ANTHROPIC_API_KEY, or MEMFOLD_BACKEND=offline")
    return key


def build_parts(settings: Settings, stores: Stores, embedder: Embedder) -> Parts:
    """The router, fold manager, retriever and context builder of one Memory (memory.Parts)."""
    from memfold.compaction.base import FoldSettings
    from memfold.compaction.manager import ConversationManager
    from memfold.memory import Parts
    from memfold.retrieval.context import ContextBuilder, ContextSettings
    from memfold.retrieval.knowledge import KnowledgeIndex
    from memfold.retrieval.recall import RecallSettings, Retriever
    from memfold.router import Router
    from memfold.tokens import default_counter

    backend = build_backend(settings, embedder)
    counter = default_counter()
    fold_settings = FoldSettings(**settings.fold)
    retriever = Retriever(stores, embedder,
                          intent_classifier=build_intent_classifier(settings, backend, embedder),
                          settings=RecallSettings(**settings.recall))
    return Parts(
        router=Router(backend), retriever=retriever, counter=counter,
        knowledge=KnowledgeIndex(stores.knowledge, embedder, retriever.analyzer),
        manager=ConversationManager(build_compactor(backend, fold_settings, counter), fold_settings, counter),
        context_builder=ContextBuilder(retriever, counter, settings=ContextSettings(**settings.context)),
        summarizer=build_summarizer(backend, counter))


def build_intent_classifier(settings: Settings, backend: Backend, embedder: Embedder) -> Any:
    """The learned offline classifier; with Claude on, Claude's weights (the learned one
    answers whenever the backend fails); ``intent=heuristic``: the cues alone."""
    from memfold.retrieval.intent import (
        HeuristicIntentClassifier,
        LearnedIntentClassifier,
        LLMIntentClassifier,
    )

    if settings.intent == "heuristic":
        return HeuristicIntentClassifier()
    learned = LearnedIntentClassifier(embedder)
    if settings.intent == "learned" or backend.name == "offline":
        return learned
    return LLMIntentClassifier(backend, fallback=learned)


def build_summarizer(backend: Backend, counter: Any) -> Any:
    """Progressive summaries of long documents: extractive offline, sentence-picking with Claude."""
    from memfold.compaction.progressive import AnthropicProgressiveSummarizer, ProgressiveSummarizer

    offline = ProgressiveSummarizer(counter=counter)
    if getattr(backend, "name", "offline") != "anthropic":
        return offline
    return AnthropicProgressiveSummarizer(backend, offline)


def build_compactor(backend: Backend, fold_settings: Any, counter: Any) -> Any:
    from memfold.compaction.offline import OfflineCompactor

    offline = OfflineCompactor(fold_settings, counter)
    if getattr(backend, "name", "offline") != "anthropic":
        return offline
    from memfold.compaction.anthropic import AnthropicCompactor

    return AnthropicCompactor(backend, fallback=offline)
