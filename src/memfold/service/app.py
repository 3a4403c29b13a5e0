"""The REST application: one route per ``MemoryAPI`` method, and nothing else in them.

Every route authenticates the caller (``Authorization: Bearer KEY`` or ``X-API-Key``),
takes a token from the key's rate bucket, checks that the key is scoped to the user id
asked for (403 otherwise) and calls one method. User ids travel as a query parameter or a
body field, never as a path segment: an id may hold ``/`` or spaces.

Writes run one at a time (a lock around every write method); reads run concurrently in
the thread pool, with each other and with the write in progress. A write is acknowledged
(HTTP 2xx) only after its transaction committed, so an acknowledged write survives a crash.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from memfold import __version__
from memfold.api import MemoryAPI
from memfold.errors import (
    InvalidInputError,
    InvalidMessageError,
    MemfoldError,
    PermissionDeniedError,
    RateLimitedError,
    ServerUnavailableError,
)
from memfold.models import (
    Context,
    Episode,
    Event,
    Explanation,
    FoldState,
    ForgetReport,
    IngestReport,
    KnowledgeDoc,
    KnowledgeReport,
    ProfileChange,
    ProfileFact,
    RecallItem,
    RecallResult,
    Rejection,
    RouteDecision,
    ScratchItem,
    SemanticMemory,
    TaskEnd,
    TaskInfo,
    TaskState,
)
from memfold.service.auth import ApiKey, KeyRing
from memfold.service.errors import error_body, status_of
from memfold.service.limits import BodySizeLimit, RateLimiter

T = TypeVar("T")
MAX_BATCH = 5000  # messages per batch request; a larger import belongs in `memfold ingest`
Query_ = Field(min_length=1, max_length=20_000, description="The question or search text.")
UserField = Field(min_length=1, max_length=256, description="The user whose memory is read or written.")
TaskField = Field(min_length=1, max_length=256, description="The task whose scratchpad is read or written.")
NamespaceField = Field(min_length=1, max_length=256, description="A knowledge-base namespace.")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RecallBody(_Body):
    user_id: str = UserField
    query: str = Query_
    k: int = Field(10, ge=1, le=200, description="How many items to return.")
    now: AwareDatetime | None = Field(None, description="Resolve 'last week' against this time.")


class ContextBody(_Body):
    user_id: str = UserField
    query: str = Query_
    budget_tokens: int = Field(2000, ge=1, le=200_000, description="Token budget of the prompt.")
    now: AwareDatetime | None = None
    task_id: str | None = Field(None, min_length=1, max_length=256,
                                description="Include this task's scratchpad.")


class SearchBody(_Body):
    user_id: str = UserField
    query: str = Query_
    k: int = Field(10, ge=1, le=200)


class FactBody(_Body):
    user_id: str = UserField
    key: str = Field(min_length=1, max_length=256, description="Profile key, e.g. diet.")
    value: str = Field(max_length=20_000)
    sources: list[str] = Field(description="msg_ids of stored messages that state the fact.")
    subject: str = Field("user", min_length=1, max_length=256)
    reason: str = Field("set by hand", max_length=2_000)


class UserBody(_Body):
    user_id: str = UserField


class BatchBody(_Body):
    messages: list[dict[str, Any]] = Field(max_length=MAX_BATCH,
                                           description="Message objects, as `POST /v1/messages` takes.")


User = Annotated[str, Query(min_length=1, max_length=256, description="The user id.")]
Subject = Annotated[str | None, Query(max_length=256, description="Whose facts (default: all).")]
FactKey = Annotated[str, Query(alias="key", min_length=1, max_length=256,
                               description="Profile key, e.g. diet.")]
TaskId = Annotated[str, Query(min_length=1, max_length=256, description="The task id.")]
Namespace = Annotated[str, Query(min_length=1, max_length=256, description="A knowledge-base namespace.")]


def create_app(memory: MemoryAPI, *, keys: KeyRing | None = None, rate: float = 0.0,
               burst: int = 100, max_request_bytes: int = 8 * 1024 * 1024) -> FastAPI:
    """The FastAPI app over ``memory``; the caller owns ``memory`` and closes it."""
    app = FastAPI(title="memfold", version=__version__,
                  description="Long-term memory for LLM agents: profile, events, archive, folds.")
    service = _Service(memory, keys or KeyRing(), RateLimiter(rate, burst))
    _add_error_handlers(app)
    _add_health_routes(app, service)
    _add_write_routes(app, service)
    _add_read_routes(app, service)
    _add_profile_routes(app, service)
    _add_task_routes(app, service)
    _add_knowledge_routes(app, service)
    app.add_middleware(BodySizeLimit, max_bytes=max_request_bytes)
    app.state.service = service
    return app


class _Service:
    """What the routes share: the memory, the keys, the rate buckets, the write lock."""

    def __init__(self, memory: MemoryAPI, keys: KeyRing, limiter: RateLimiter) -> None:
        self.memory = memory
        self.keys = keys
        self.limiter = limiter
        self.write_lock = threading.Lock()
        self.ingests = _IngestBatcher(memory, self.write_lock)

    def caller(self, request: Request) -> ApiKey:
        key = self.keys.authenticate(_secret_of(request))
        bucket = key.name if self.keys.enabled else f"ip:{request.client.host if request.client else '-'}"
        self.limiter.take(bucket)
        return key

    def write(self, work: Callable[[], T]) -> T:
        with self.write_lock:
            return work()


class _Pending:
    """One single-message ingest waiting for a batch."""

    def __init__(self, message: dict[str, Any]) -> None:
        self.message = message
        self.taken = False  # in a batch being stored
        self.result: RouteDecision | Rejection | None = None
        self.failure: MemfoldError | None = None  # the whole batch failed

    @property
    def done(self) -> bool:
        return self.result is not None or self.failure is not None


class _IngestBatcher:
    """Group commit for ``POST /v1/messages``: single-message ingests that arrive while
    batches are being stored wait, and the next request to lead stores all of them in one
    ``ingest_each`` call (one transaction, one embedding pass) and hands each its result.

    An assistant sends one message per turn; stored one by one, every message paid for its
    own transaction, embedding call and index upsert (~150-230 ms each on 2 cores), so the
    write path, one at a time, was what saturated first (benchmarks/load_http.py). Two
    batches may be in flight: the Memory commits one while it upserts the other's vectors
    (its write and index locks). Each request is acknowledged only after its batch committed."""

    MAX_BATCH = 64
    LEADERS = 2

    def __init__(self, memory: MemoryAPI, write_lock: threading.Lock) -> None:
        self.memory = memory
        self.write_lock = write_lock
        self._queue: list[_Pending] = []
        self._leaders = 0
        self._changed = threading.Condition()
        self._each = getattr(memory, "ingest_each", None)  # the embedded Memory has it

    def ingest(self, message: dict[str, Any]) -> RouteDecision:
        if self._each is None:  # e.g. a MemoryClient behind this app: one at a time
            with self.write_lock:
                return self.memory.ingest(message)
        pending = _Pending(message)
        with self._changed:
            self._queue.append(pending)
        while (batch := self._lead_or_wait(pending)) is not None:
            try:
                self._store(batch)
            finally:
                with self._changed:
                    for left in batch:  # an unexpected error: its waiters must not hang
                        if not left.done:
                            left.failure = ServerUnavailableError(
                                "the ingest was not processed; send it again")
                    self._leaders -= 1
                    self._changed.notify_all()
        return _decision_or_raise(pending)

    def _lead_or_wait(self, pending: _Pending) -> list[_Pending] | None:
        """The next batch for this request to store, or None once its message is stored."""
        with self._changed:
            while not pending.done and (pending.taken or self._leaders >= self.LEADERS):
                self._changed.wait()
            if pending.done:
                return None
            self._leaders += 1
            batch, self._queue = self._queue[: self.MAX_BATCH], self._queue[self.MAX_BATCH:]
            for taken in batch:
                taken.taken = True
            return batch

    def _store(self, batch: list[_Pending]) -> None:
        try:
            results = self._each([p.message for p in batch])
        except MemfoldError as exc:  # the whole batch failed (the store, not one message)
            for pending in batch:
                pending.failure = exc
            return
        for pending, result in zip(batch, results):
            pending.result = result


def _decision_or_raise(pending: _Pending) -> RouteDecision:
    if pending.failure is not None:
        raise pending.failure
    result = pending.result
    if isinstance(result, RouteDecision):
        return result
    if result is None:  # cannot happen: the leader sets every result it took
        raise ServerUnavailableError("the ingest was not processed; send it again")
    raise InvalidMessageError(result.error, field=result.field, msg_id=result.msg_id)


def _secret_of(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.headers.get("x-api-key") or None


def _caller_dependency(service: _Service) -> Any:
    def caller(request: Request) -> ApiKey:
        return service.caller(request)

    return Depends(caller)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(MemfoldError)
    async def memfold_error(_: Request, exc: MemfoldError) -> JSONResponse:
        headers = {}
        if isinstance(exc, RateLimitedError):
            headers["Retry-After"] = str(getattr(exc, "retry_after", 1))
        return JSONResponse(error_body(exc), status_code=status_of(exc), headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(error_body(InvalidInputError(_first_problem(exc))), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        body = {"error": {"type": "HTTPError", "message": str(exc.detail), "hint": ""}}
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


def _first_problem(exc: RequestValidationError) -> str:
    problems = exc.errors()
    if not problems:
        return "the request does not match the API"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}"


def _add_health_routes(app: FastAPI, service: _Service) -> None:
    @app.get("/healthz", tags=["health"], summary="Liveness: the process answers")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"], summary="Readiness: the store answers a query",
             responses={503: {"description": "the store is not usable"}})
    def readyz() -> dict[str, Any]:
        try:
            count = len(service.memory.users())
        except MemfoldError as exc:
            raise ServerUnavailableError(f"the store is not ready: {exc}") from exc
        return {"status": "ready", "users": count}


def _add_write_routes(app: FastAPI, service: _Service) -> None:
    caller = _caller_dependency(service)
    memory = service.memory

    @app.post("/v1/messages", response_model=RouteDecision, tags=["write"],
              summary="Store one message (ingest); durable when this answers")
    def ingest(message: dict[str, Any], key: ApiKey = caller) -> RouteDecision:
        _require_message_scope(service, key, [message])
        return service.ingests.ingest(message)

    @app.post("/v1/messages/batch", response_model=IngestReport, tags=["write"],
              summary="Store many messages (ingest_many); bad ones are reported, not fatal")
    def ingest_many(body: BatchBody, key: ApiKey = caller) -> IngestReport:
        _require_message_scope(service, key, body.messages)
        return service.write(lambda: memory.ingest_many(body.messages))

    @app.delete("/v1/messages", tags=["write"],
                summary="Remove one message and everything derived from it (remove_message)")
    def remove_message(user_id: User, msg_id: Annotated[str, Query(min_length=1, max_length=256)],
                       key: ApiKey = caller) -> dict[str, int]:
        service.keys.require(key, user_id)
        return service.write(lambda: memory.remove_message(user_id, msg_id))

    @app.post("/v1/fold", response_model=FoldState, tags=["write"],
              summary="Fold the user's working memory now (fold)")
    def fold(body: UserBody, key: ApiKey = caller) -> FoldState:
        service.keys.require(key, body.user_id)
        return service.write(lambda: memory.fold(body.user_id))

    @app.delete("/v1/users", response_model=ForgetReport, tags=["write"],
                summary="Erase a user: every row, vector and fold note (forget)")
    def forget(user_id: User, key: ApiKey = caller) -> ForgetReport:
        service.keys.require(key, user_id)
        return service.write(lambda: memory.forget(user_id))


def _require_message_scope(service: _Service, key: ApiKey, messages: list[Any]) -> None:
    """Every message names its user; one outside the key's scope refuses the whole request
    (nothing stored), so a batch never half-succeeds on permissions."""
    for message in messages:
        user_id = message.get("user_id") if isinstance(message, dict) else None
        if isinstance(user_id, str):  # without one, the store rejects the message itself
            service.keys.require(key, user_id)  # exact: ids are never stripped


def _add_read_routes(app: FastAPI, service: _Service) -> None:
    caller = _caller_dependency(service)
    memory = service.memory
    require = service.keys.require

    @app.post("/v1/route", response_model=RouteDecision, tags=["read"],
              summary="What the router would do with a message; nothing is stored (route)")
    def route(message: dict[str, Any], key: ApiKey = caller) -> RouteDecision:
        _require_message_scope(service, key, [message])
        return memory.route(message)

    @app.post("/v1/recall", response_model=RecallResult, tags=["read"],
              summary="Ranked memories for a question (recall)")
    def recall(body: RecallBody, key: ApiKey = caller) -> RecallResult:
        require(key, body.user_id)
        return memory.recall(body.query, body.user_id, now=body.now, k=body.k)

    @app.post("/v1/context", response_model=Context, tags=["read"],
              summary="The prompt an agent receives, within a token budget (context)")
    def context(body: ContextBody, key: ApiKey = caller) -> Context:
        require(key, body.user_id)
        return memory.context(body.query, body.user_id, budget_tokens=body.budget_tokens, now=body.now,
                              task_id=body.task_id)

    @app.post("/v1/search", response_model=list[RecallItem], tags=["read"],
              summary="Raw vector-archive search, for debugging (search)")
    def search(body: SearchBody, key: ApiKey = caller) -> list[RecallItem]:
        require(key, body.user_id)
        return memory.search(body.query, body.user_id, k=body.k)

    @app.get("/v1/events", response_model=list[Event], tags=["read"], summary="Events in a time range")
    def events(user_id: User, key: ApiKey = caller, since: AwareDatetime | None = None,
               until: AwareDatetime | None = None,
               about: Annotated[str | None, Query(max_length=256)] = None,
               limit: Annotated[int | None, Query(ge=1, le=100_000)] = None) -> list[Event]:
        require(key, user_id)
        return memory.events(user_id, since=since, until=until, about=about, limit=limit)

    @app.get("/v1/episodes", response_model=list[Episode], tags=["read"], summary="L2 episodes")
    def episodes(user_id: User, key: ApiKey = caller) -> list[Episode]:
        require(key, user_id)
        return memory.episodes(user_id)

    @app.get("/v1/semantic", response_model=SemanticMemory, tags=["read"], summary="L3 semantic memory")
    def semantic(user_id: User, key: ApiKey = caller) -> SemanticMemory:
        require(key, user_id)
        return memory.semantic(user_id)

    _add_listing_routes(app, service)


def _add_listing_routes(app: FastAPI, service: _Service) -> None:
    caller = _caller_dependency(service)
    memory = service.memory

    @app.get("/v1/users", response_model=list[str], tags=["read"],
             summary="User ids in the store that this key may see (users)")
    def users(key: ApiKey = caller) -> list[str]:
        return [u for u in memory.users() if key.allows(u)]

    @app.get("/v1/stats", tags=["read"], summary="Counts per user and file sizes (stats)")
    def stats(key: ApiKey = caller) -> dict[str, Any]:
        found = memory.stats()
        found["users"] = {u: c for u, c in found.get("users", {}).items() if key.allows(u)}
        return found

    @app.get("/v1/export", tags=["read"], response_class=StreamingResponse,
             responses={200: {"content": {"application/x-ndjson": {}},
                              "description": "One JSON record per line, as `memfold export` writes"}},
             summary="Every record of a user (or of every user the key may see), as NDJSON")
    def export(key: ApiKey = caller,
               user_id: Annotated[str | None, Query(min_length=1, max_length=256)] = None) -> StreamingResponse:
        if user_id is not None:
            service.keys.require(key, user_id)
        if user_id is None and key.users is None:  # the whole store: the knowledge base too
            return StreamingResponse(_ndjson([memory.export()]), media_type="application/x-ndjson")
        chosen = [user_id] if user_id is not None else [u for u in memory.users() if key.allows(u)]
        # started here, not in the stream: a bad user id is a 422 before the 200 is sent
        exports = [memory.export(u) for u in chosen]
        return StreamingResponse(_ndjson(exports), media_type="application/x-ndjson")


def _ndjson(exports: list[Iterator[dict[str, Any]]]) -> Iterator[bytes]:
    for records in exports:
        for record in records:
            yield (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


def _add_profile_routes(app: FastAPI, service: _Service) -> None:
    caller = _caller_dependency(service)
    memory = service.memory
    require = service.keys.require

    @app.get("/v1/profile", response_model=list[ProfileFact], tags=["profile"],
             summary="Current profile facts (profile)")
    def profile(user_id: User, key: ApiKey = caller, subject: Subject = None) -> list[ProfileFact]:
        require(key, user_id)
        return memory.profile(user_id, subject)

    @app.get("/v1/profile/history", response_model=list[ProfileChange], tags=["profile"],
             summary="The changelog of profile facts (profile_history)")
    def history(user_id: User, key: ApiKey = caller, subject: Subject = None,
                fact_key: Annotated[str | None, Query(alias="key", max_length=256)] = None) -> list[ProfileChange]:
        require(key, user_id)
        return memory.profile_history(user_id, subject, fact_key)

    @app.get("/v1/profile/explain", response_model=Explanation, tags=["profile"],
             summary="How memfold knows a fact: value, changes, quoted sources (explain)")
    def explain(user_id: User, fact_key: FactKey,
                key: ApiKey = caller,
                subject: Annotated[str, Query(min_length=1, max_length=256)] = "user") -> Explanation:
        require(key, user_id)
        return memory.explain(user_id, subject, fact_key)

    @app.put("/v1/profile/facts", response_model=ProfileChange | None, tags=["profile"],
             summary="Write a profile fact with its evidence (set_fact)")
    def set_fact(body: FactBody, key: ApiKey = caller) -> ProfileChange | None:
        require(key, body.user_id)
        return service.write(lambda: memory.set_fact(
            body.user_id, body.key, body.value, sources=body.sources, subject=body.subject,
            reason=body.reason))

    @app.delete("/v1/profile/facts", response_model=ProfileChange | None, tags=["profile"],
                summary="Delete a profile fact; the changelog keeps it (delete_fact)")
    def delete_fact(user_id: User, fact_key: FactKey, key: ApiKey = caller,
                    subject: Annotated[str, Query(min_length=1, max_length=256)] = "user",
                    reason: Annotated[str, Query(max_length=2_000)] = "deleted by the user") -> ProfileChange | None:
        require(key, user_id)
        return service.write(lambda: memory.delete_fact(user_id, fact_key, subject=subject, reason=reason))


class TaskItemBody(_Body):
    user_id: str = UserField
    task_id: str = TaskField
    key: str = Field(min_length=1, max_length=256, description="The item's key in the task.")
    value: Any = Field(description="Any JSON value: an intermediate result, a tool call, a plan.")
    kind: str = Field("note", max_length=32, description="note, result, tool_call or plan.")


class PromoteBody(_Body):
    user_id: str = UserField
    task_id: str = TaskField
    key: str = Field(min_length=1, max_length=256)
    role: str = Field("tool", max_length=32, description="Role of the message it becomes.")
    msg_id: str | None = Field(None, min_length=1, max_length=256)


class ExpireBody(_Body):
    now: AwareDatetime | None = None


class KnowledgeBody(_Body):
    namespace: str = NamespaceField
    documents: list[dict[str, Any]] = Field(max_length=MAX_BATCH,
                                            description="{doc_id, text, title?} objects.")


class KnowledgeSearchBody(_Body):
    namespace: str = NamespaceField
    query: str = Query_
    k: int = Field(10, ge=1, le=200)


def _require_all_users(key: ApiKey) -> None:
    """The knowledge base belongs to no user: only a key scoped to every user ("*") manages
    it (users read their granted namespaces through recall and context)."""
    if key.users is not None:
        raise PermissionDeniedError(f"API key {key.name!r} is scoped to some users; the knowledge "
                                    "base and task expiry need a key for every user (\"*\")")


def _add_task_routes(app: FastAPI, service: _Service) -> None:
    caller = _caller_dependency(service)
    memory = service.memory
    require = service.keys.require

    @app.put("/v1/tasks/items", response_model=ScratchItem, tags=["tasks"],
             summary="Write one scratchpad item of a task (task_write)")
    def task_write(body: TaskItemBody, key: ApiKey = caller) -> ScratchItem:
        require(key, body.user_id)
        return service.write(lambda: memory.task_write(body.user_id, body.task_id, body.key,
                                                       body.value, kind=body.kind))

    @app.get("/v1/tasks/items", response_model=TaskState, tags=["tasks"],
             summary="A task's scratchpad, in write order (task_read)")
    def task_read(user_id: User, task_id: TaskId, key: ApiKey = caller) -> TaskState:
        require(key, user_id)
        return memory.task_read(user_id, task_id)

    @app.get("/v1/tasks", response_model=list[TaskInfo], tags=["tasks"],
             summary="The user's open tasks (tasks)")
    def tasks(user_id: User, key: ApiKey = caller) -> list[TaskInfo]:
        require(key, user_id)
        return memory.tasks(user_id)

    @app.delete("/v1/tasks", response_model=TaskEnd, tags=["tasks"],
                summary="End a task: its scratchpad is deleted (end_task)")
    def end_task(user_id: User, task_id: TaskId, key: ApiKey = caller) -> TaskEnd:
        require(key, user_id)
        return service.write(lambda: memory.end_task(user_id, task_id))

    @app.post("/v1/tasks/promote", response_model=RouteDecision, tags=["tasks"],
              summary="Keep one scratchpad item as a message with its provenance (promote)")
    def promote(body: PromoteBody, key: ApiKey = caller) -> RouteDecision:
        require(key, body.user_id)
        return service.write(lambda: memory.promote(body.user_id, body.task_id, body.key,
                                                    role=body.role, msg_id=body.msg_id))

    @app.post("/v1/tasks/expire", response_model=list[TaskInfo], tags=["tasks"],
              summary="Burn every task idle past the task TTL (expire_tasks)")
    def expire_tasks(body: ExpireBody, key: ApiKey = caller) -> list[TaskInfo]:
        _require_all_users(key)
        return service.write(lambda: memory.expire_tasks(now=body.now))


def _add_knowledge_routes(app: FastAPI, service: _Service) -> None:
    caller = _caller_dependency(service)
    memory = service.memory

    @app.post("/v1/knowledge", response_model=KnowledgeReport, tags=["knowledge"],
              summary="Add or replace documents of a namespace (add_knowledge)")
    def add_knowledge(body: KnowledgeBody, key: ApiKey = caller) -> KnowledgeReport:
        _require_all_users(key)
        return service.write(lambda: memory.add_knowledge(body.namespace, body.documents))

    @app.delete("/v1/knowledge", response_model=KnowledgeReport, tags=["knowledge"],
                summary="Remove a document, or a whole namespace (remove_knowledge)")
    def remove_knowledge(namespace: Namespace, key: ApiKey = caller,
                         doc_id: Annotated[str | None, Query(min_length=1, max_length=256)] = None) -> KnowledgeReport:
        _require_all_users(key)
        return service.write(lambda: memory.remove_knowledge(namespace, doc_id))

    @app.get("/v1/knowledge", response_model=list[KnowledgeDoc], tags=["knowledge"],
             summary="Documents and versions of a namespace, or of all (knowledge)")
    def knowledge(key: ApiKey = caller,
                  namespace: Annotated[str | None, Query(min_length=1, max_length=256)] = None) -> list[KnowledgeDoc]:
        _require_all_users(key)
        return memory.knowledge(namespace)

    @app.post("/v1/knowledge/search", response_model=list[RecallItem], tags=["knowledge"],
              summary="The best chunks of one namespace for a query (search_knowledge)")
    def search_knowledge(body: KnowledgeSearchBody, key: ApiKey = caller) -> list[RecallItem]:
        _require_all_users(key)
        return memory.search_knowledge(body.query, body.namespace, k=body.k)
