"""``MemoryClient``: the ``MemoryAPI`` over HTTP, for processes that share a `memfold serve`.

    from memfold.client import MemoryClient
    with MemoryClient("http://127.0.0.1:8750", api_key="...") as memory:
        memory.ingest({"user_id": "ana", "msg_id": "m1", "speaker": "Ana", "text": "...",
                       "ts": "2026-05-08T13:56:00Z"})
        memory.recall("where does Ana live?", user_id="ana")

The methods, arguments, returned records and raised errors are those of the embedded
``Memory`` (the contract suite in ``tests/api`` runs against both). A server error comes
back as the same ``MemfoldError`` subclass the server raised; a server that cannot be
reached is ``ServerUnavailableError``. Importing this module loads no store or model code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python

from memfold.errors import ServerResponseError, ServerUnavailableError
from memfold.models import (
    Context,
    Episode,
    Event,
    Explanation,
    FoldState,
    ForgetReport,
    IngestReport,
    KnowledgeDoc,
    KnowledgeInput,
    KnowledgeReport,
    Message,
    ProfileChange,
    ProfileFact,
    RecallItem,
    RecallResult,
    RouteDecision,
    ScratchItem,
    SemanticMemory,
    TaskEnd,
    TaskInfo,
    TaskState,
)
from memfold.service.errors import error_from_body

if TYPE_CHECKING:
    from memfold.tasks import Task

M = TypeVar("M")
DEFAULT_URL = "http://127.0.0.1:8750"
BATCH_SIZE = 500  # messages per request in ingest_many (the server takes up to 5,000)


class MemoryClient:
    """A remote memfold store; thread-safe (one pooled HTTP client)."""

    def __init__(self, url: str = DEFAULT_URL, api_key: str | None = None, *, timeout: float = 60.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout,
                                  transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes -------------------------------------------------------------------------
    def ingest(self, message: Message | dict[str, Any]) -> RouteDecision:
        return self._model(RouteDecision, "POST", "/v1/messages", body=_message_json(message))

    def ingest_many(self, messages: Iterable[Message | dict[str, Any]], *,
                    progress: Callable[[int], None] | None = None) -> IngestReport:
        """Sent in requests of ``BATCH_SIZE``; positions in ``rejected`` count from 1 over
        the whole input, as the embedded ``Memory`` reports them."""
        total = IngestReport()
        batch: list[Any] = []
        sent = 0
        for message in messages:
            batch.append(_message_json(message))
            if len(batch) >= BATCH_SIZE:
                total, sent = self._send_batch(batch, total, sent, progress), sent + len(batch)
                batch = []
        if batch:
            total = self._send_batch(batch, total, sent, progress)
        return total

    def ingest_file(self, path: str | Path, *, user_id: str | None = None,
                    progress: Callable[[int], None] | None = None,
                    on_total: Callable[[int], None] | None = None) -> IngestReport:
        """The file is read here (its line numbers name the rejections) and sent in batches."""
        from memfold.transcripts import ingest_transcript

        return ingest_transcript(self, Path(path), user_id=user_id, progress=progress,
                                 on_total=on_total)

    def _send_batch(self, batch: list[Any], total: IngestReport, offset: int,
                    progress: Callable[[int], None] | None) -> IngestReport:
        report = self._model(IngestReport, "POST", "/v1/messages/batch", body={"messages": batch})
        if progress:
            progress(len(batch))
        return total.merged(report, offset=offset)

    def set_fact(self, user_id: str, key: str, value: str, *, sources: Sequence[str],
                 subject: str = "user", reason: str = "set by hand") -> ProfileChange | None:
        body = {"user_id": user_id, "key": key, "value": value, "sources": list(sources),
                "subject": subject, "reason": reason}
        return self._optional(ProfileChange, "PUT", "/v1/profile/facts", body=body)

    def delete_fact(self, user_id: str, key: str, *, subject: str = "user",
                    reason: str = "deleted by the user") -> ProfileChange | None:
        params = {"user_id": user_id, "key": key, "subject": subject, "reason": reason}
        return self._optional(ProfileChange, "DELETE", "/v1/profile/facts", params=params)

    def fold(self, user_id: str) -> FoldState:
        return self._model(FoldState, "POST", "/v1/fold", body={"user_id": user_id})

    def remove_message(self, user_id: str, msg_id: str) -> dict[str, int]:
        found = self._call("DELETE", "/v1/messages", params={"user_id": user_id, "msg_id": msg_id})
        return _validated(TypeAdapter(dict[str, int]), found)

    def forget(self, user_id: str) -> ForgetReport:
        return self._model(ForgetReport, "DELETE", "/v1/users", params={"user_id": user_id})

    # -- the scratchpad and the knowledge base --------------------------------------------
    def task(self, user_id: str, task_id: str) -> Task:
        from memfold.tasks import Task

        return Task(self, user_id, task_id)

    def task_write(self, user_id: str, task_id: str, key: str, value: Any, *,
                   kind: str = "note") -> ScratchItem:
        body = {"user_id": user_id, "task_id": task_id, "key": key, "value": value, "kind": kind}
        return self._model(ScratchItem, "PUT", "/v1/tasks/items", body=to_jsonable_python(body, fallback=_refuse))

    def task_read(self, user_id: str, task_id: str) -> TaskState:
        return self._model(TaskState, "GET", "/v1/tasks/items", params={"user_id": user_id, "task_id": task_id})

    def tasks(self, user_id: str) -> list[TaskInfo]:
        return self._list(TaskInfo, "GET", "/v1/tasks", params={"user_id": user_id})

    def end_task(self, user_id: str, task_id: str) -> TaskEnd:
        return self._model(TaskEnd, "DELETE", "/v1/tasks", params={"user_id": user_id, "task_id": task_id})

    def promote(self, user_id: str, task_id: str, key: str, *, role: str = "tool",
                msg_id: str | None = None) -> RouteDecision:
        body = {"user_id": user_id, "task_id": task_id, "key": key, "role": role, "msg_id": msg_id}
        return self._model(RouteDecision, "POST", "/v1/tasks/promote", body=body)

    def expire_tasks(self, now: datetime | None = None) -> list[TaskInfo]:
        return self._list(TaskInfo, "POST", "/v1/tasks/expire", body={"now": _iso(now)})

    def add_knowledge(self, namespace: str,
                      documents: Sequence[KnowledgeInput | dict[str, Any]]) -> KnowledgeReport:
        body = {"namespace": namespace, "documents": [_message_json(d) for d in documents]
                if isinstance(documents, list | tuple) else documents}
        return self._model(KnowledgeReport, "POST", "/v1/knowledge", body=body)

    def remove_knowledge(self, namespace: str, doc_id: str | None = None) -> KnowledgeReport:
        return self._model(KnowledgeReport, "DELETE", "/v1/knowledge",
                           params={"namespace": namespace, "doc_id": doc_id})

    def knowledge(self, namespace: str | None = None) -> list[KnowledgeDoc]:
        return self._list(KnowledgeDoc, "GET", "/v1/knowledge", params={"namespace": namespace})

    def search_knowledge(self, query: str, namespace: str, k: int = 10) -> list[RecallItem]:
        body = {"query": query, "namespace": namespace, "k": k}
        return self._list(RecallItem, "POST", "/v1/knowledge/search", body=body)

    # -- reads --------------------------------------------------------------------------
    def route(self, message: Message | dict[str, Any]) -> RouteDecision:
        return self._model(RouteDecision, "POST", "/v1/route", body=_message_json(message))

    def recall(self, query: str, user_id: str, now: datetime | None = None,
               k: int = 10) -> RecallResult:
        body = {"user_id": user_id, "query": query, "k": k, "now": _iso(now)}
        return self._model(RecallResult, "POST", "/v1/recall", body=body)

    def context(self, query: str, user_id: str, budget_tokens: int = 2000,
                now: datetime | None = None, task_id: str | None = None) -> Context:
        body = {"user_id": user_id, "query": query, "budget_tokens": budget_tokens, "now": _iso(now),
                "task_id": task_id}
        return self._model(Context, "POST", "/v1/context", body=body)

    def search(self, query: str, user_id: str, k: int = 10) -> list[RecallItem]:
        body = {"user_id": user_id, "query": query, "k": k}
        return self._list(RecallItem, "POST", "/v1/search", body=body)

    def profile(self, user_id: str, subject: str | None = None) -> list[ProfileFact]:
        return self._list(ProfileFact, "GET", "/v1/profile",
                          params={"user_id": user_id, "subject": subject})

    def profile_history(self, user_id: str, subject: str | None = None,
                        key: str | None = None) -> list[ProfileChange]:
        params = {"user_id": user_id, "subject": subject, "key": key}
        return self._list(ProfileChange, "GET", "/v1/profile/history", params=params)

    def explain(self, user_id: str, subject: str, key: str) -> Explanation:
        params = {"user_id": user_id, "subject": subject, "key": key}
        return self._model(Explanation, "GET", "/v1/profile/explain", params=params)

    def events(self, user_id: str, since: datetime | None = None, until: datetime | None = None,
               about: str | None = None, limit: int | None = None) -> list[Event]:
        params = {"user_id": user_id, "since": _iso(since), "until": _iso(until),
                  "about": about, "limit": limit}
        return self._list(Event, "GET", "/v1/events", params=params)

    def episodes(self, user_id: str) -> list[Episode]:
        return self._list(Episode, "GET", "/v1/episodes", params={"user_id": user_id})

    def semantic(self, user_id: str) -> SemanticMemory:
        return self._model(SemanticMemory, "GET", "/v1/semantic", params={"user_id": user_id})

    def export(self, user_id: str | None = None) -> Iterator[dict[str, Any]]:
        """Streamed: records arrive as the server reads them."""
        params = _params({"user_id": user_id})
        with self._guard(), self._http.stream("GET", "/v1/export", params=params) as response:
            if response.status_code >= 400:
                response.read()
                raise _error_of(response)
            for line in response.iter_lines():
                if line.strip():
                    yield json.loads(line)

    def stats(self) -> dict[str, Any]:
        return _validated(TypeAdapter(dict[str, Any]), self._call("GET", "/v1/stats"))

    def users(self) -> list[str]:
        return _validated(TypeAdapter(list[str]), self._call("GET", "/v1/users"))

    def health(self) -> dict[str, Any]:
        """The server's readiness (``/readyz``): raises ServerUnavailableError when not ready."""
        return _validated(TypeAdapter(dict[str, Any]), self._call("GET", "/readyz"))

    # -- plumbing -----------------------------------------------------------------------
    def _model(self, model: type[M], method: str, path: str, **kw: Any) -> M:
        return _validated(TypeAdapter(model), self._call(method, path, **kw))

    def _optional(self, model: type[M], method: str, path: str, **kw: Any) -> M | None:
        return _validated(TypeAdapter(model | None), self._call(method, path, **kw))  # type: ignore[operator]

    def _list(self, model: type[M], method: str, path: str, **kw: Any) -> list[M]:
        return _validated(TypeAdapter(list[model]), self._call(method, path, **kw))  # type: ignore[valid-type]

    def _call(self, method: str, path: str, *, params: dict[str, Any] | None = None,
              body: Any = None) -> Any:
        with self._guard():
            response = self._http.request(method, path, params=_params(params or {}),
                                          json=body if body is not None else None)
        if response.status_code >= 400:
            raise _error_of(response)
        try:
            return response.json()
        except ValueError as exc:
            raise ServerResponseError(f"{method} {path}: the answer is not JSON") from exc

    def _guard(self) -> _TransportErrors:
        return _TransportErrors(self.url)


class _TransportErrors:
    """Translate httpx's transport failures into the memfold tree (at the boundary)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> bool:
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.RemoteProtocolError):
            raise ServerUnavailableError(f"cannot reach the memfold server at {self.url}: {exc}") from exc
        if isinstance(exc, httpx.TimeoutException):
            raise ServerUnavailableError(f"the memfold server at {self.url} timed out: {exc}",
                                         hint="raise timeout=, or check the server's load") from exc
        if isinstance(exc, httpx.HTTPError):
            raise ServerResponseError(f"HTTP failure talking to {self.url}: {exc}") from exc
        return False


def _error_of(response: httpx.Response) -> Exception:
    try:
        body = response.json()
    except ValueError:
        body = response.text
    return error_from_body(response.status_code, body)


def _validated(adapter: TypeAdapter[M], data: Any) -> M:
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        raise ServerResponseError(f"the server's answer does not match the API: {exc}") from exc


def _message_json(message: Message | dict[str, Any]) -> Any:
    if isinstance(message, BaseModel):
        return message.model_dump(mode="json")
    return to_jsonable_python(message, fallback=str)


def _refuse(value: Any) -> Any:
    """A scratchpad value must be JSON, as the embedded store requires."""
    from memfold.errors import InvalidInputError

    raise InvalidInputError(f"scratchpad value must be JSON-serialisable, not {type(value).__name__}")


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _params(params: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in params.items() if value is not None}


def wait_until_ready(url: str, *, timeout: float = 60.0, api_key: str | None = None,
                     alive: Callable[[], bool] = lambda: True) -> None:
    """Poll ``/readyz`` until the server at ``url`` answers; ServerUnavailableError if it
    does not within ``timeout`` seconds, or as soon as ``alive()`` says its process is gone."""
    import time

    deadline = time.monotonic() + timeout
    with MemoryClient(url, api_key=api_key, timeout=5.0) as client:
        while True:
            if not alive():
                raise ServerUnavailableError(f"the server for {url} exited before it was ready")
            try:
                client.health()
                return
            except ServerUnavailableError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.1)
