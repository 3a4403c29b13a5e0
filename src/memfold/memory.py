"""The ``Memory`` facade: one object an agent holds to remember, recall and forget.

It composes the parts built by :mod:`memfold.config` and owns the ingest
transaction, so that a message, everything derived from it and the fold state land
together or not at all::

    validate -> embed each text once (batch) -> route -> BEGIN
        conversation log + profile/events/documents + archive rows + fold state
    COMMIT -> index the new archive rows in the vector index

``ingest_many`` pipelines batches: a worker thread embeds batch k+1 (and the rows batch k
derived, such as episodes leaving L2) while the main thread routes, folds and commits
batch k; batches still commit one after another, in order, and the worker writes nothing.

The vector index is derived from DuckDB: if the process dies between COMMIT and the
index upsert, the next ``open`` indexes whatever is missing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from pydantic import ValidationError

from memfold.errors import (
    InvalidInputError,
    InvalidMessageError,
    MemfoldError,
    StoreCorruptError,
    StoreError,
)
from memfold.layers import LayerMethods
from memfold.models import (
    Context,
    Event,
    Explanation,
    ForgetReport,
    FoldState,
    IngestReport,
    Message,
    ProfileChange,
    ProfileFact,
    RecallItem,
    RecallResult,
    RefusedWrite,
    Rejection,
    RouteDecision,
    SemanticMemory,
    utcnow,
)

if TYPE_CHECKING:
    from memfold.compaction.manager import ConversationManager
    from memfold.compaction.progressive import ProgressiveSummarizer
    from memfold.config import Settings
    from memfold.embed import Embedder
    from memfold.retrieval.context import ContextBuilder
    from memfold.retrieval.knowledge import KnowledgeIndex
    from memfold.retrieval.recall import Retriever
    from memfold.router import Router
    from memfold.stores import Stores
    from memfold.stores.retention import RetentionPolicy, RetentionReport
    from memfold.tokens import TokenCounter

Progress = Callable[[int], None]
_T = TypeVar("_T")
_S = TypeVar("_S", str, None)


@dataclass(frozen=True)
class Parts:
    """What routing, folding and recall run on. Built on first use (``Memory.parts``): their
    imports (router, compaction, retrieval with numpy and bm25s, the tokenizer) cost ~0.5 s,
    which reads of stored records (``profile()``, ``events()``, ``stats()``) never need."""

    router: Router
    manager: ConversationManager
    retriever: Retriever
    context_builder: ContextBuilder
    counter: TokenCounter
    summarizer: ProgressiveSummarizer | None = None
    knowledge: KnowledgeIndex | None = None


class Memory(LayerMethods):
    """Long-term memory for agents: profile KV, event log, vector archive, folded compaction;
    beside it each task's scratchpad and the shared knowledge base (``memfold.layers``)."""

    def __init__(self, *, stores: Stores, embedder: Embedder, settings: Settings,
                 parts: Callable[[], Parts], retention: RetentionPolicy | None = None) -> None:
        from memfold.stores.retention import RetentionPolicy

        self.stores = stores
        self.embedder = embedder
        self.settings = settings
        self.retention = retention or RetentionPolicy()
        self._build_parts = parts
        self._parts: Parts | None = None
        self._parts_lock = threading.Lock()
        self._write_lock = threading.RLock()
        # Held while committed rows are indexed; with the write lock by every other write
        # (_exclusive), so an ingest's upsert never runs beside a forget or a reindex.
        self._index_lock = threading.RLock()
        self._closed = False

    @property
    def parts(self) -> Parts:
        """The router, fold manager, retriever and context builder, built once (thread-safe)."""
        if self._parts is None:
            with self._parts_lock:
                if self._parts is None:
                    self._parts = self._build_parts()
        return self._parts

    @property
    def router(self) -> Router:
        return self.parts.router

    @property
    def manager(self) -> ConversationManager:
        return self.parts.manager

    @property
    def retriever(self) -> Retriever:
        return self.parts.retriever

    @property
    def context_builder(self) -> ContextBuilder:
        return self.parts.context_builder

    @property
    def counter(self) -> TokenCounter:
        return self.parts.counter

    @property
    def summarizer(self) -> ProgressiveSummarizer | None:
        return self.parts.summarizer

    # -- opening and closing ----------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path | None = None, settings: Settings | None = None, *,
             read_only: bool = False, embedder: Embedder | None = None,
             reembed: bool = False, fresh_index: bool = False) -> Memory:
        """Open (or create) the store at ``path``; a second writer process is refused.

        ``reembed=True`` accepts an embedder other than the one the vectors were built with
        (then call ``reindex()``); otherwise such a mismatch raises ConfigError.
        ``fresh_index=True`` starts the vector index from an empty directory (a corrupt
        one cannot stop the open); call ``reindex()`` next to rebuild it from DuckDB.
        """
        from memfold.config import Settings, build_memory

        settings = settings or Settings.from_env()
        if path is not None:
            settings = settings.model_copy(update={"store": Path(path)})
        memory = build_memory(settings, embedder=embedder, read_only=read_only,
                              fresh_index=fresh_index)
        try:
            memory._check_embedder(allow_change=reembed)
            if not read_only:
                memory.finish_pending_erasures()
                memory.sync_index()
                memory.expire_tasks()  # tasks left open past their time burn at the latest here
        except MemfoldError:
            memory.close()
            raise
        return memory

    def _check_embedder(self, *, allow_change: bool) -> None:
        """Vectors built by one model are meaningless to another: refuse a mismatch."""
        built_with = self.stores.db.get_meta("embedder")
        if built_with is None:
            if not self.stores.read_only:
                self.stores.db.set_meta("embedder", self.embedder.name)
            return
        if built_with != self.embedder.name and not allow_change:  # reindex() records the new one
            from memfold.errors import ConfigError

            raise ConfigError(
                f"this store's vectors were built with {built_with!r}, not {self.embedder.name!r}",
                hint="open it with the same embedder, or run `memfold reindex` with the new one")

    @classmethod
    def in_memory(cls, settings: Settings | None = None, *, embedder: Embedder | None = None) -> Memory:
        """A Memory on the in-memory reference stores (tests, notebooks)."""
        from memfold.config import Settings, build_memory
        from memfold.stores import Stores

        settings = settings or Settings(embedder="hashing", backend="offline")
        return build_memory(settings, stores=Stores.in_memory(), embedder=embedder)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.stores.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest -----------------------------------------------------------------------

    def ingest(self, message: Message | dict[str, Any]) -> RouteDecision:
        """Store one message; when this returns it is durable. Invalid input raises."""
        [result] = self.ingest_each([message])
        if isinstance(result, Rejection):
            raise InvalidMessageError(result.error, field=result.field, msg_id=result.msg_id)
        return result

    def ingest_each(self, messages: Sequence[Message | dict[str, Any]]) -> list[RouteDecision | Rejection]:
        """Store ``messages`` in one batch (one transaction, one embedding pass) and return one
        result per message, in order: its route decision, or the Rejection that kept it out.
        The service stores concurrent single-message requests together this way."""
        report, stored = self._ingest_batch(list(messages), start=1)
        results: list[RouteDecision | Rejection] = []
        rejected = {r.position: r for r in report.rejected}
        for position, message in enumerate(messages, start=1):
            if position in rejected:
                results.append(rejected[position])
            elif position in stored:
                results.append(stored[position])
            else:  # identical to a stored message: nothing written, say where it routes
                decision = self.route(message)
                results.append(decision.model_copy(update={
                    "reasons": [*decision.reasons, "already stored: identical message, nothing written"]}))
        return results

    def ingest_many(self, messages: Iterable[Message | dict[str, Any]], *,
                    progress: Progress | None = None) -> IngestReport:
        """Store many messages in batches; a bad one is reported, the others are kept.

        Pipelined: while one batch is routed, folded and committed (Python, holding the GIL),
        a worker thread embeds the next one (onnxruntime releases the GIL), so the two cores
        overlap the model's forward passes with the rest of ingest. Each batch still commits
        in order and is durable when its turn comes; the worker only computes vectors."""
        from concurrent.futures import ThreadPoolExecutor

        from memfold.embed.precomputed import PrecomputedEmbedder

        started = time.perf_counter()
        total = IngestReport()
        position = 1
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="memfold-embed") as worker:
            derived = _DerivedVectors(worker.submit, self.embedder)
            pending: _Prepared | None = None
            for batch in chain(_batched(messages, self.settings.ingest_batch_size), [None]):
                ready = None if batch is None else self._prepare(batch, position, worker.submit)
                position += len(batch or ())
                if pending is not None:
                    report, _ = self._store_prepared(pending, derived)
                    total = total.merged(report)
                    if progress:
                        progress(pending.size)
                pending = ready
            if derived.started:
                with self._exclusive():  # the last batch's derived rows, before returning
                    self.sync_index(PrecomputedEmbedder(self.embedder, derived.take()), full=False)
        return total.model_copy(update={"seconds": time.perf_counter() - started})

    def ingest_file(self, path: str | Path, *, user_id: str | None = None,
                    progress: Progress | None = None,
                    on_total: Callable[[int], None] | None = None) -> IngestReport:
        """Ingest a JSONL transcript (or LoCoMo JSON); rejections name the file's line numbers."""
        from memfold.transcripts import ingest_transcript

        return ingest_transcript(self, Path(path), user_id=user_id, progress=progress,
                                 on_total=on_total)

    def route(self, message: Message | dict[str, Any]) -> RouteDecision:
        """What the router would do with ``message``; nothing is stored."""
        valid = self._validate_one(message)
        [embedding], _ = self._embed_messages([valid])
        context = self._route_context(valid.user_id, embedding)
        return self.router.route(self._as_the_user([valid])[0], context)

    def _ingest_batch(self, raw: Sequence[Message | dict[str, Any]], *,
                      start: int) -> tuple[IngestReport, dict[int, RouteDecision]]:
        return self._store_prepared(self._prepare(raw, start, _run_now))

    def _prepare(self, raw: Sequence[Message | dict[str, Any]], start: int,
                 submit: Callable[..., Future[dict[str, Any]]]) -> _Prepared:
        """Validate a batch and start embedding the texts of its messages not stored yet."""
        messages, positions, rejected = self._validate(raw, start)
        if len(messages) > 1:  # a re-sent transcript is not embedded again
            self._check_open()
            # a hint, read without the write lock (reads see the last commit; the service's
            # next batch prepares while one commits): the commit checks again under the lock
            unseen, _, _ = self._drop_already_stored(messages, positions)
        else:  # one message: its lookup costs what its vector does; the commit checks it
            unseen = messages
        return _Prepared(len(raw), messages, positions, rejected, submit(self._embed_texts, unseen))

    def _store_prepared(self, batch: _Prepared,
                        derived: _DerivedVectors | None = None) -> tuple[IngestReport, dict[int, RouteDecision]]:
        """Store a prepared batch; the decisions are keyed by the stored messages' positions."""
        if not batch.messages:
            return IngestReport(rejected=batch.rejected), {}
        self._check_open()
        vectors = dict(batch.vectors.result())
        with self._write_lock:
            stored = self._users_write([m.user_id for m in batch.messages],
                                       lambda: self._route_and_commit(batch, vectors))
            self.retriever.archived(stored.archived)  # after the commit: BM25 only learns committed rows
            self._index_lock.acquire()  # before the write lock is let go: no forget between
        try:
            # The next batch commits while this one's vectors are upserted (the index call
            # is most of a write's time: ~17 ms a user's collection on an idle machine).
            self._index(vectors, derived)
        finally:
            self._index_lock.release()
        routed: dict[str, int] = {}
        for decision in stored.decisions:
            routed[decision.kind] = routed.get(decision.kind, 0) + 1
        report = IngestReport(accepted=len(stored.fresh), duplicates=stored.duplicates,
                              rejected=stored.rejected, routed=routed, folds=stored.folds,
                              refused=stored.refused)
        return report, {batch.positions[id(m)]: d for m, d in zip(stored.fresh, stored.decisions)}

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        """The write lock and the index lock: no ingest commits or indexes meanwhile."""
        with self._write_lock, self._index_lock:
            yield

    def _users_write(self, user_ids: Sequence[str], work: Callable[[], _T]) -> _T:
        """Run ``work`` as the only writer of these users. An embedded store has one writer
        process, whose ``_write_lock`` the caller holds: ``work`` runs as it is. Stores that
        several replicas share (``db.user_lock``: PostgreSQL) run it in one transaction that
        first takes the users' locks, so what it reads (stored ids, profile, fold state) is
        what it writes over; a deadlock or serialization failure replays it (``db.run``)."""
        user_lock = getattr(self.stores.db, "user_lock", None)
        if user_lock is None:
            return work()

        def locked() -> _T:
            user_lock(list(user_ids))
            return work()

        return self.stores.db.run(locked)

    def _user_transaction(self, user_ids: Sequence[str], work: Callable[[], _T]) -> _T:
        """``work`` in one transaction, as the only writer of these users (``_users_write``)."""
        def in_transaction() -> _T:
            with self.stores.db.transaction():
                return work()

        return self._users_write(user_ids, in_transaction)

    def _route_and_commit(self, batch: _Prepared, vectors: dict[str, Any]) -> _Stored:
        """Drop what is stored already, route the rest and commit it (under the users' locks)."""
        fresh, duplicates, conflicts = self._drop_already_stored(batch.messages, batch.positions)
        rejected = sorted([*batch.rejected, *conflicts], key=lambda r: r.position)
        vectors.update(self._embed_texts(fresh, known=vectors))  # stored meanwhile: none
        embeddings = self._pooled(fresh, vectors)
        # each user's last stored message, read once (the users' locks are held): the router
        # asks whether it was an assistant turn, the archive links the batch's first turn to it
        last = {uid: self._last_message(uid) for uid in {m.user_id for m in fresh}}
        fresh, decisions, underivable = self._route_isolated(fresh, embeddings, batch.positions, last)
        rejected = sorted([*rejected, *underivable], key=lambda r: r.position)
        folds, archived, refused = self._commit(fresh, decisions, last) if fresh else (0, [], [])
        return _Stored(fresh, decisions, rejected, duplicates, folds, archived, refused)

    def _route_isolated(self, messages: list[Message], embeddings: Any, positions: dict[int, int],
                        last: dict[str, Message | None]) -> tuple[list[Message], list[RouteDecision], list[Rejection]]:
        """Route the batch; if a value in one message breaks the derivation (a date past
        year 9999, a number too big), route one by one and reject only that message."""
        try:
            return messages, self._route_batch(messages, embeddings, last), []
        except (ValueError, OverflowError, ArithmeticError, RecursionError):
            pass
        kept, decisions, rejected = [], [], []
        for message, embedding in zip(messages, embeddings):
            try:
                [decision] = self._route_batch([message], [embedding], last)
            except (ValueError, OverflowError, ArithmeticError, RecursionError) as exc:
                rejected.append(Rejection(
                    position=positions[id(message)], msg_id=message.msg_id, field="text",
                    error=f"cannot derive memories from message {message.msg_id!r}: "
                          f"{type(exc).__name__}: {exc}"))
                continue
            kept.append(message)
            decisions.append(decision)
        return kept, decisions, rejected

    def _route_batch(self, messages: list[Message], embeddings: Any,
                     last: dict[str, Message | None] | None = None) -> list[RouteDecision]:
        contexts = []
        profiles: dict[str, Any] = {}
        for message, embedding in zip(messages, embeddings):
            if message.user_id not in profiles:
                profiles[message.user_id] = self.stores.profile.list(message.user_id)
            contexts.append(self._route_context(message.user_id, embedding, profiles[message.user_id]))
        return self.router.route_many(self._as_the_user(messages, last), contexts)

    def _as_the_user(self, messages: list[Message],
                     last: dict[str, Message | None] | None = None) -> list[Message]:
        """The user's own display name is an alias of "user": a role=user speaker named like
        the user id, or talking with an assistant (in this batch or just before it), is the
        user, so their facts land under subject "user" and every profile default finds them.
        Only the router sees the renamed copy; the log keeps the display name."""
        with_assistant = {(m.user_id, m.session_id) for m in messages if m.role == "assistant"}
        for user_id in {m.user_id for m in messages}:
            before = last[user_id] if last is not None and user_id in last else self._last_message(user_id)
            if before is not None and before.role == "assistant":
                with_assistant.add((user_id, before.session_id))
        return [m.model_copy(update={"speaker": "user"}) if m.role == "user" and m.speaker != "user" and (
            m.speaker.casefold() == m.user_id.casefold() or (m.user_id, m.session_id) in with_assistant)
            else m for m in messages]

    def _route_context(self, user_id: str, embedding: Any, profile: list[ProfileFact] | None = None) -> Any:
        from memfold.llm.base import RouteContext

        facts = profile if profile is not None else self.stores.profile.list(user_id)
        return RouteContext(profile=facts, embedding=embedding)

    def _commit(self, messages: list[Message], decisions: list[RouteDecision],
                previous: dict[str, Message | None]) -> tuple[int, list[Any], list[RefusedWrite]]:
        """One transaction: log, routed writes, archive rows and fold state; returns the
        folds done, the archive rows written (for BM25, once the caller committed) and
        the profile writes refused (by the router, then by the store)."""
        from memfold.retrieval.indexing import archive_items
        from memfold.router.apply import PendingWrites, apply_decision
        from memfold.stores.retention import enforce_for_batch

        folds = 0
        archived = []
        pending = PendingWrites()
        refused = [refusal for decision in decisions for refusal in decision.refused]
        with self.stores.db.transaction():
            self.stores.log.append(messages)
            for message, decision in zip(messages, decisions):
                refused += apply_decision(self.stores, message, decision, pending=pending).refused
                if decision.kind == "DOCUMENT":
                    self._layer_long_document(message)
            pending.flush(self.stores)  # one insert each for the batch's chunks and events
            for user_id, group in _group_by_user(messages, decisions):
                msgs = [m for m, _ in group]
                items = archive_items(msgs, [d for _, d in group], previous=previous[user_id],
                                      extractions=self.settings.index_extractions)
                outcome = self._fold(user_id, msgs)
                archived += items + outcome.archive
                folds += outcome.folds
            self.stores.archive.add(archived)  # one SELECT and one INSERT for all the batch's users
            for report in enforce_for_batch(self.stores, messages, policy=self.retention):
                archived += report.archived  # evicted_fact rows: indexed below with the batch
        return folds, archived, refused

    def _layer_long_document(self, message: Message) -> None:
        """Progressive summaries (key sentences, critical points, executive summary) of long
        content, so that context() can spend a few dozen tokens on it when the budget is tight."""
        from memfold.compaction.progressive import layers_as_chunks

        if self.summarizer is None or not self.summarizer.needs_layers(message.text):
            return
        summary = self.summarizer.summarize(message.text, source_id=message.msg_id, sources=[message.msg_id])
        self.stores.documents.add(layers_as_chunks(summary, user_id=message.user_id,
                                                   doc_id=message.msg_id, ts=message.ts))

    def _last_message(self, user_id: str) -> Message | None:
        last = self.stores.log.list(user_id, newest_first=True, limit=1)
        return last[0] if last else None

    def _fold(self, user_id: str, messages: list[Message]) -> Any:
        """L1 -> L2 -> L3 as the thresholds say; saved in the caller's transaction."""
        state = self.stores.folds.load(user_id) or _empty_state(user_id)
        outcome = self.manager.add(state, messages)
        self.stores.folds.save(outcome.state)
        return outcome

    def _embed_messages(self, messages: Sequence[Message]) -> tuple[Any, dict[str, Any]]:
        """One vector per message for the router, and the vectors by text (see below)."""
        vectors = self._embed_texts(messages)
        return self._pooled(messages, vectors), vectors

    def _embed_texts(self, messages: Sequence[Message],
                     known: dict[str, Any] | None = None) -> dict[str, Any]:
        """Embed each text once: a message's raw-row texts (itself, or its chunks when long),
        by text; the index reuses them. Texts in ``known`` are not embedded again."""
        from memfold.retrieval.indexing import row_texts

        known = known or {}
        texts = list(dict.fromkeys(t for m in messages for t in row_texts(m) if t not in known))
        return dict(zip(texts, self.embedder.embed(texts))) if texts else {}

    def _pooled(self, messages: Sequence[Message], vectors: dict[str, Any]) -> Any:
        """The router's vector of each message: a long message's is the mean of its chunks'
        vectors, weighted by their words (embedding the whole text as well would cost a
        second forward pass over the same words, and the model truncates it anyway)."""
        import numpy as np

        from memfold.embed.base import normalise
        from memfold.retrieval.indexing import row_texts

        if not messages:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        groups = [row_texts(m) for m in messages]
        pooled = [np.average([vectors[t] for t in group], axis=0,
                             weights=[max(1, len(t.split())) for t in group]) for group in groups]
        return normalise(np.stack(pooled))

    def _index(self, vectors: dict[str, Any], derived: _DerivedVectors | None = None) -> None:
        """Index what the transaction committed; texts already embedded are not embedded again.

        With ``derived`` (inside ``ingest_many``), rows whose text has no vector yet (an
        episode leaving L2, an evicted L3 note) stay pending while the worker embeds them,
        and are indexed with the next batch (or at the end): their forward passes overlap
        the next batch's routing and folding. A crash in between leaves them unindexed in
        DuckDB, which the next open indexes, as after any crash before the index upsert."""
        from memfold.embed.precomputed import PrecomputedEmbedder
        from memfold.stores.sync import index_known

        if derived is None:
            self.sync_index(PrecomputedEmbedder(self.embedder, vectors), full=False)
            return
        known = {**vectors, **derived.take()}
        derived.submit([item.key_text for item in index_known(self.stores, known)])

    def sync_index(self, embedder: Embedder | None = None, *, full: bool = True) -> Any:
        """Index archive rows committed to DuckDB but missing from the vector index
        (``full=False``: only the pending rows on stores replicas share; stores.sync)."""
        from memfold.stores.sync import sync_index

        return sync_index(self.stores, embedder or self.embedder, full=full)

    def reindex(self) -> Any:
        """Rebuild the vector index from DuckDB (``memfold reindex``)."""
        from memfold.stores.sync import reset_index, sync_index

        with self._exclusive():
            # every user's writes wait while the vectors are dropped and the rows queued: a
            # replica's ingest cannot index a row in between and have it dropped unqueued
            self._users_write(self.users(), lambda: reset_index(self.stores))
            report = sync_index(self.stores, self.embedder)
            self.stores.db.set_meta("embedder", self.embedder.name)
            return report

    # -- validation -------------------------------------------------------------------

    def _validate(self, raw: Sequence[Message | dict[str, Any]],
                  start: int) -> tuple[list[Message], dict[int, int], list[Rejection]]:
        valid: list[Message] = []
        positions: dict[int, int] = {}
        rejected: list[Rejection] = []
        seen: set[tuple[str, str]] = set()
        for offset, item in enumerate(raw):
            position = start + offset
            try:
                message = self._validate_one(item)
            except InvalidMessageError as exc:
                rejected.append(Rejection(position=position, msg_id=exc.msg_id, field=exc.field,
                                          error=str(exc)))
                continue
            key = (message.user_id, message.msg_id)
            if key in seen:
                rejected.append(Rejection(position=position, msg_id=message.msg_id, field="msg_id",
                                          error=f"duplicate msg_id {message.msg_id!r} in the same input"))
                continue
            seen.add(key)
            valid.append(message)
            positions[id(message)] = position
        return valid, positions, rejected

    def _validate_one(self, item: Message | dict[str, Any]) -> Message:
        msg_id = item.get("msg_id") if isinstance(item, dict) else getattr(item, "msg_id", None)
        try:
            message = item if isinstance(item, Message) else Message.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first.get("loc", ())) or None
            raise InvalidMessageError(f"{field or 'message'}: {first.get('msg')}", field=field,
                                      msg_id=msg_id if isinstance(msg_id, str) else None) from exc
        if len(message.text) > self.settings.max_text_chars:
            raise InvalidMessageError(
                f"text is {len(message.text)} characters, over the limit of {self.settings.max_text_chars}",
                field="text", msg_id=message.msg_id,
                hint="split it, or raise max_text_chars / MEMFOLD_MAX_TEXT_CHARS")
        if message.ts > utcnow() + timedelta(seconds=self.settings.max_future_skew_seconds):
            raise InvalidMessageError(f"ts {message.ts.isoformat()} is in the future", field="ts",
                                      msg_id=message.msg_id)
        return message

    def _drop_already_stored(self, messages: list[Message],
                             positions: dict[int, int]) -> tuple[list[Message], int, list[Rejection]]:
        """Re-ingesting a stored message is a no-op; other content under a stored id is rejected."""
        fresh_ids: set[int] = set()
        duplicates = 0
        rejected: list[Rejection] = []
        for user_id, group in _group_by_user(messages, messages):
            stored = {m.msg_id: m for m in self.stores.log.get(user_id, [m.msg_id for m, _ in group])}
            for message, _ in group:
                old = stored.get(message.msg_id)
                if old is None:
                    fresh_ids.add(id(message))
                elif old == message:
                    duplicates += 1
                else:
                    rejected.append(Rejection(
                        position=positions[id(message)], msg_id=message.msg_id, field="msg_id",
                        error=f"msg_id {message.msg_id!r} is already stored for user {user_id!r} "
                              "with other content (use a new msg_id, or remove the stored one first: "
                              "`memfold remove-message MSG_ID --user U` / Memory.remove_message())"))
        return [m for m in messages if id(m) in fresh_ids], duplicates, rejected

    # -- recall -----------------------------------------------------------------------

    def recall(self, query: str, user_id: str, now: datetime | None = None, k: int = 10) -> RecallResult:
        """Ranked memories for ``query``: the question chooses the store (KV, event log, archive);
        ``knowledge`` holds the best chunks of the namespaces granted to the user, apart."""
        self._check_open()
        user_id = _require_user(user_id)
        result = self.retriever.recall(query, user_id, now=now, k=k)
        knowledge = self._knowledge_for(query, user_id, k)
        if knowledge:
            result = result.model_copy(update={"knowledge": knowledge})
        if not self.context_builder.settings.redact_secrets:
            return result
        from memfold.retrieval.context import redact_item  # secrets: as context() shows them

        return result.model_copy(update={"items": [redact_item(i) for i in result.items]})

    def context(self, query: str, user_id: str, budget_tokens: int = 2000,
                now: datetime | None = None, task_id: str | None = None) -> Context:
        """A prompt context (L3 + profile, L2 digest, granted knowledge, recalled items, the
        task's scratchpad when ``task_id`` is given, L1) within ``budget_tokens``."""
        self._check_open()
        user_id = _require_user(user_id)
        task = self.task_read(user_id, task_id).items if task_id is not None else []
        knowledge = self._knowledge_for(query, user_id, self.context_builder.settings.knowledge_k)
        return self.context_builder.build(query, user_id, budget_tokens, now=now,
                                          knowledge=knowledge, task=task)

    def search(self, query: str, user_id: str, k: int = 10) -> list[RecallItem]:
        """Raw vector-archive search (dense only), for debugging what the index holds."""
        self._check_open()
        return self.retriever.search(query, _require_user(user_id), k=k)

    # -- profile ----------------------------------------------------------------------

    def profile(self, user_id: str, subject: str | None = None) -> list[ProfileFact]:
        return self.stores.profile.list(_require_user(user_id), _stored_subject(subject))

    def profile_history(self, user_id: str, subject: str | None = None,
                        key: str | None = None) -> list[ProfileChange]:
        return self.stores.profile.history(_require_user(user_id), _stored_subject(subject), key)

    def set_fact(self, user_id: str, key: str, value: str, *, sources: Sequence[str],
                 subject: str = "user", reason: str = "set by hand") -> ProfileChange | None:
        """Write a profile fact; ``sources`` must name stored messages (no evidence, no write)."""
        from memfold.errors import EvidenceRequiredError

        user_id, subject = _require_user(user_id), _stored_subject(subject)
        if not sources:
            raise EvidenceRequiredError("a profile write needs at least one source msg_id")
        from memfold.sensitive import is_secret_fact

        if is_secret_fact(key, value):
            raise InvalidInputError(f"profile fact {key!r} would hold a secret (a password, PIN, "
                                    "id, card or account number, or API key)",
                                    hint="secrets stay in the raw log only; never in the profile")
        missing = set(sources) - self.stores.log.exists(user_id, list(sources))
        if missing:
            raise EvidenceRequiredError(f"source messages not stored for {user_id!r}: {sorted(missing)}")
        try:
            fact = ProfileFact(user_id=user_id, subject=subject, key=key, value=value, sources=list(sources))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first.get("loc", ())) or "fact"
            raise InvalidInputError(f"{field}: {first.get('msg')}") from exc
        with self._exclusive():
            return self._user_transaction([user_id], lambda: self.stores.profile.upsert(
                fact, reason=reason, actor="user"))

    def delete_fact(self, user_id: str, key: str, *, subject: str = "user",
                    reason: str = "deleted by the user") -> ProfileChange | None:
        user_id, subject = _require_user(user_id), _stored_subject(subject)
        with self._exclusive():
            return self._user_transaction([user_id], lambda: self.stores.profile.delete(
                user_id, subject, key, reason=reason))

    def enforce_retention(self, user_id: str, now: datetime | None = None) -> RetentionReport:
        """Apply the deployment's forgetting policy to one user now (TTL, size cap); retired
        facts move to the vector archive, where recall and search still find them."""
        from memfold.stores.retention import enforce_retention

        user_id = _require_user(user_id)
        self._check_open()
        with self._exclusive():
            report = self._user_transaction([user_id], lambda: enforce_retention(
                self.stores, user_id, now=now or utcnow(), policy=self.retention))
            self.retriever.archived(report.archived)
            if report.archived:
                self.sync_index()
        return report

    # -- events, episodes, semantic ---------------------------------------------------

    def events(self, user_id: str, since: datetime | None = None, until: datetime | None = None,
               about: str | None = None, limit: int | None = None) -> list[Event]:
        return self.stores.events.range(_require_user(user_id), start=since, end=until,
                                        subject=about, limit=limit)

    def fold_state(self, user_id: str) -> FoldState:
        return self.stores.folds.load(_require_user(user_id)) or _empty_state(user_id)

    def episodes(self, user_id: str) -> list[Any]:
        return list(self.fold_state(user_id).episodes)

    def semantic(self, user_id: str) -> SemanticMemory:
        return self.fold_state(user_id).semantic

    def fold(self, user_id: str) -> FoldState:
        """Fold the user's working memory now, whatever the thresholds say."""
        user_id = _require_user(user_id)
        with self._exclusive():  # the state is read under the user's lock: no replica folds it meanwhile
            outcome = self._user_transaction([user_id], lambda: self._fold_now(user_id))
        self.retriever.archived(outcome.archive)
        self.sync_index()
        return outcome.state

    def _fold_now(self, user_id: str) -> Any:
        outcome = self.manager.fold_now(self.fold_state(user_id))
        self.stores.folds.save(outcome.state)
        self.stores.archive.add(outcome.archive)
        return outcome

    def explain(self, user_id: str, subject: str, key: str) -> Explanation:
        """How memfold knows a fact: the value, every change with its time, the sources quoted."""
        user_id, subject = _require_user(user_id), _stored_subject(subject)
        changes = self.stores.profile.history(user_id, subject, key)
        cited = list(dict.fromkeys(s for c in changes for s in c.sources))
        return Explanation(user_id=user_id, subject=subject, key=key,
                           current=self.stores.profile.get(user_id, subject, key),
                           changes=changes, evidence=self.stores.log.get(user_id, cited))

    # -- erasure ----------------------------------------------------------------------

    def forget(self, user_id: str) -> ForgetReport:
        """Erase a user: every row, every vector, the fold state; the DuckDB file is rewritten
        so that no deleted bytes remain on disk (a plain DELETE leaves them in the file)."""
        user_id = _require_user(user_id)
        started = time.perf_counter()
        with self._exclusive():
            self._mark_forget_pending(user_id, pending=True)
            counts, item_ids = self._user_transaction([user_id], lambda: self._erase_rows(user_id))
            # after the commit. A run killed past its commit left vectors whose rows are gone:
            # a resumed erasure finds no archive ids, so the user's leftovers are asked for by
            # user (the open's orphan sweep would come after the files are rewritten: too late)
            self.stores.index.delete(sorted(set(item_ids) | self.stores.index.ids(user_id)))
            self.retriever.invalidate(user_id)
            rewritten = self._rewrite_files()
            self._mark_forget_pending(user_id, pending=False)
        return ForgetReport(user_id=user_id, archive_items=len(item_ids), vectors=len(item_ids),
                            file_rewritten=rewritten, seconds=time.perf_counter() - started, **counts)

    def _erase_rows(self, user_id: str) -> tuple[dict[str, int], list[str]]:
        counts = {
            "messages": self.stores.log.delete_user(user_id),
            "facts": self.stores.profile.delete_user(user_id),
            "events": self.stores.events.delete_user(user_id),
            "documents": self.stores.documents.delete_user(user_id),
            "fold_state": self.stores.folds.delete_user(user_id),
            "task_items": self.stores.scratchpad.delete_user(user_id),  # never a namespace
        }
        return counts, self.stores.archive.delete_user(user_id)

    def _forget_marker(self) -> Path | None:
        directory = getattr(self.stores, "directory", None)
        return None if directory is None else Path(directory) / "forget-pending.json"

    def _mark_forget_pending(self, user_id: str, *, pending: bool) -> None:
        """A durable note of erasures in flight: if the process dies before the files are
        rewritten, the next open finishes the job (deleted bytes never stay on disk)."""
        import json
        import os

        shared = getattr(self.stores.db, "mark_forget_pending", None)
        if shared is not None:  # a database replicas share keeps the note (PostgreSQL)
            shared(user_id, pending=pending)
            return
        marker = self._forget_marker()
        if marker is None:
            return
        users = set(json.loads(marker.read_text())) if marker.exists() else set()
        users = users | {user_id} if pending else users - {user_id}
        if not users:
            marker.unlink(missing_ok=True)
            return
        tmp = marker.with_suffix(".tmp")
        with tmp.open("w") as handle:
            handle.write(json.dumps(sorted(users)))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, marker)

    def finish_pending_erasures(self) -> list[str]:
        """Complete any forget() that a crash interrupted (called by open())."""
        if self.stores.read_only:
            return []
        users = self._forgets_pending()
        for user_id in users:
            try:
                self.forget(user_id)
            except StoreCorruptError:
                raise  # its own message says how to recover
            except MemfoldError as exc:
                raise StoreError(
                    f"an interrupted forget of user {user_id!r} must finish before this store takes "
                    f"writes, and finishing it failed: {exc}",
                    hint="fix the cause above and open the store again (the erasure runs first); "
                         "read-only commands such as `memfold export` still work") from exc
        return users

    def _forgets_pending(self) -> list[str]:
        import json

        shared = getattr(self.stores.db, "forgets_pending", None)
        if shared is not None:
            return list(shared())
        marker = self._forget_marker()
        return [] if marker is None or not marker.exists() else list(json.loads(marker.read_text()))

    def remove_message(self, user_id: str, msg_id: str) -> dict[str, int]:
        """Delete one message and everything derived from it: facts, changelog rows, events,
        document chunks, archive rows and vectors, and episode/semantic notes citing it."""
        user_id = _require_user(user_id)
        ids = [msg_id]
        with self._exclusive():
            counts, item_ids = self._user_transaction(
                [user_id], lambda: self._delete_message_rows(user_id, ids))
            self.stores.index.delete(item_ids)
            self.retriever.invalidate(user_id)
        return counts

    def _delete_message_rows(self, user_id: str, ids: list[str]) -> tuple[dict[str, int], list[str]]:
        counts = {
            "messages": self.stores.log.delete(user_id, ids),
            "facts": self.stores.profile.delete_by_source(user_id, ids),
            "events": self.stores.events.delete_by_source(user_id, ids),
            "documents": self.stores.documents.delete_by_source(user_id, ids),
        }
        item_ids = self.stores.archive.delete_by_source(user_id, ids)
        counts["archive_items"] = len(item_ids)
        counts["fold_notes"] = self._scrub_fold_state(user_id, set(ids))
        return counts, item_ids

    def _scrub_fold_state(self, user_id: str, msg_ids: set[str]) -> int:
        from memfold.compaction.scrub import scrub_sources

        state = self.stores.folds.load(user_id)
        if state is None:
            return 0
        scrubbed, removed = scrub_sources(state, msg_ids)
        if removed:
            self.stores.folds.save(scrubbed)
        return removed

    def _rewrite_files(self) -> bool:
        rewrite = getattr(self.stores.db, "rewrite_file", None)
        if rewrite is None:  # in-memory stores hold no file
            return False
        rewrite()
        purge = getattr(self.stores.index, "purge_log", None)
        if purge is not None:
            purge()
        return True

    # -- export / import --------------------------------------------------------------

    def export(self, user_id: str | None = None) -> Iterator[dict[str, Any]]:
        """Every record of one user (with the scratchpads of its open tasks), or of all users
        and the knowledge base, as JSON-ready dicts, for `import`."""
        from memfold.portable import export_knowledge, export_records

        if user_id is not None:
            return export_records(self.stores, [_require_user(user_id)])
        return chain(export_records(self.stores, self.users()), export_knowledge(self.stores))

    def import_file(self, path: str | Path) -> dict[str, int]:
        """Read back a `memfold export` file exactly (same ids and versions, no re-routing),
        then index it; knowledge chunks are embedded again."""
        from memfold.portable import import_records, knowledge_groups, parse_records

        records = parse_records(Path(path))
        users = sorted({r.user_id for _, r in records if isinstance(getattr(r, "user_id", None), str)})
        knowledge = knowledge_groups(records)
        vectors = [self.embedder.embed([c.text for c in chunks]) for _, chunks in knowledge]

        def write() -> dict[str, int]:  # the user records and the knowledge, or nothing
            counts = import_records(self.stores, records)
            for (doc, chunks), matrix in zip(knowledge, vectors):
                self.stores.knowledge.replace(doc, chunks, matrix)
            return counts

        with self._exclusive():  # as the only writer of its users: no replica writes them meanwhile
            counts = self._user_transaction(users, write)
            self.retriever.invalidate()
            self.sync_index()
        return counts

    # -- housekeeping -----------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counts per user and store, per knowledge-base namespace, and the size of every file
        under the store directory."""
        users = {}
        for user_id in self.users():
            users[user_id] = {
                "messages": self.stores.log.count(user_id),
                "facts": len(self.stores.profile.list(user_id)),
                "events": self.stores.events.count(user_id),
                "archive": self.stores.archive.count(user_id),
            }
        disk: dict[str, int] = {}
        directory = getattr(self.stores, "directory", None)
        if directory is not None:
            for path in sorted(Path(directory).rglob("*")):
                if path.is_file():
                    disk[str(path.relative_to(directory))] = path.stat().st_size
        knowledge: dict[str, dict[str, int]] = {}
        for doc in self.stores.knowledge.documents():
            counts = knowledge.setdefault(doc.namespace, {"documents": 0, "chunks": 0})
            counts["documents"] += 1
            counts["chunks"] += doc.chunks
        return {"users": users, "vectors": self.stores.index.count(), "knowledge": knowledge,
                "disk": disk, "total_bytes": sum(disk.values())}

    @staticmethod
    def sql_readonly(store: str | Path, query: str, *, limit: int = 1000, timeout_s: float = 10.0,
                     memory_limit: str = "512MB") -> tuple[list[str], list[tuple[Any, ...]]]:
        """One read-only query over a store's DuckDB file on a hardened connection (debugging):
        no file access (the store's own raw files included), ``timeout_s`` and ``memory_limit``."""
        from memfold.stores.sql import run_readonly_sql

        return run_readonly_sql(Path(store) / "memfold.duckdb", query, limit=limit,
                                timeout_s=timeout_s, memory_limit=memory_limit)

    def users(self) -> list[str]:
        return self.stores.db.users()

    def _check_open(self) -> None:
        if self._closed:
            from memfold.errors import StoreClosedError

            raise StoreClosedError("this Memory was closed", hint="open it again with Memory.open()")


def _stored_subject(subject: _S) -> _S:
    """The subject as the router stores it: "user's grandad" is "user's grandpa"."""
    from memfold.llm.keys import canonical_subject

    return canonical_subject(subject) if isinstance(subject, str) else subject


def _require_user(user_id: str | None) -> str:
    from memfold.models import check_identity

    if not isinstance(user_id, str) or not user_id.strip():
        raise InvalidInputError("a user_id is required for every read and write",
                                hint="pass user_id= (memfold keeps every user's data apart)")
    try:  # exact, never stripped: "alice\u00a0" must not read or overwrite "alice"
        return check_identity(user_id)
    except ValueError as exc:
        raise InvalidInputError(str(exc), hint="user ids are exact strings") from exc


class _DerivedVectors:
    """Vectors of derived archive rows, computed by the ingest worker between batches."""

    def __init__(self, submit: Callable[..., Future[Any]], embedder: Embedder) -> None:
        self._submit = submit
        self._embedder = embedder
        self._futures: list[tuple[list[str], Future[Any]]] = []
        self._ready: dict[str, Any] = {}
        self.started = False

    def submit(self, texts: list[str]) -> None:
        texts = [t for t in dict.fromkeys(texts) if t not in self._ready]
        if texts:
            self.started = True
            self._futures.append((texts, self._submit(self._embedder.embed, texts)))

    def take(self) -> dict[str, Any]:
        """The vectors computed since the last take (waits for the ones in flight); they
        are handed over, not kept, so a long ingest holds no more than a batch's worth."""
        for texts, future in self._futures:
            self._ready.update(zip(texts, future.result()))
        self._futures = []
        ready, self._ready = self._ready, {}
        return ready


@dataclass
class _Prepared:
    """A validated batch whose texts are being embedded (by the worker, or already)."""

    size: int
    messages: list[Message]
    positions: dict[int, int]
    rejected: list[Rejection]
    vectors: Future[dict[str, Any]]


class _Stored(NamedTuple):
    """What one batch's locked write kept, rejected and wrote."""

    fresh: list[Message]
    decisions: list[RouteDecision]
    rejected: list[Rejection]
    duplicates: int
    folds: int
    archived: list[Any]
    refused: list[RefusedWrite]


def _run_now(function: Callable[..., Any], *args: Any) -> Future[Any]:
    """``executor.submit`` without an executor: the single-message path embeds in place."""
    future: Future[Any] = Future()
    try:
        future.set_result(function(*args))
    except MemfoldError as exc:  # raised again by result(), as the worker's would be
        future.set_exception(exc)
    return future


def _empty_state(user_id: str) -> FoldState:
    return FoldState(user_id=user_id, semantic=SemanticMemory(user_id=user_id))


def _batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _group_by_user(messages: Sequence[Message], payload: Sequence[Any]) -> Iterator[tuple[str, list[tuple[Message, Any]]]]:
    groups: dict[str, list[tuple[Message, Any]]] = {}
    for message, extra in zip(messages, payload):
        groups.setdefault(message.user_id, []).append((message, extra))
    yield from groups.items()



