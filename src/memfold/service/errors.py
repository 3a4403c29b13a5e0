"""One HTTP status per ``MemfoldError`` class, and the JSON body every error carries.

The body is ``{"error": {"type": "EvidenceRequiredError", "message": "...", "hint": "..."}}``
(plus ``field`` / ``msg_id`` / ``line`` when the error names them); the client raises the
class named by ``type`` again. Statuses (the table the README documents):

=====  ==========================================================================
400    MalformedInputError (a body that cannot be parsed)
401    AuthenticationError
403    PermissionDeniedError
404    UnknownUserError
409    DuplicateMessageError, WriteConflictError
413    RequestTooLargeError
422    InvalidInputError and the rest of its subtree, EvidenceRequiredError
429    RateLimitedError
502    BackendError (the LLM backend failed), except the two below
503    StoreLockedError, StoreClosedError, ServerUnavailableError,
       BackendRateLimitError, BackendOverloadedError
504    BackendTimeoutError
500    anything else in the tree (StoreError, EmbeddingError, ConfigError ...)
=====  ==========================================================================
"""

from __future__ import annotations

from typing import Any

from memfold import errors as e

# Most specific first: the first class an error is an instance of decides its status.
STATUS_BY_ERROR: tuple[tuple[type[e.MemfoldError], int], ...] = (
    (e.AuthenticationError, 401),
    (e.PermissionDeniedError, 403),
    (e.RequestTooLargeError, 413),
    (e.RateLimitedError, 429),
    (e.ServerUnavailableError, 503),
    (e.UnknownUserError, 404),
    (e.DuplicateMessageError, 409),
    (e.MalformedInputError, 400),
    (e.InvalidInputError, 422),
    (e.EvidenceRequiredError, 422),
    (e.WriteConflictError, 409),
    (e.StoreLockedError, 503),
    (e.StoreClosedError, 503),
    (e.BackendRateLimitError, 503),
    (e.BackendOverloadedError, 503),
    (e.BackendTimeoutError, 504),
    (e.BackendError, 502),
)

_DETAIL_FIELDS = ("field", "msg_id", "line")


def status_of(exc: e.MemfoldError) -> int:
    for cls, status in STATUS_BY_ERROR:
        if isinstance(exc, cls):
            return status
    return 500


def error_body(exc: e.MemfoldError) -> dict[str, Any]:
    message = exc.args[0] if exc.args else type(exc).__name__
    body: dict[str, Any] = {"type": type(exc).__name__, "message": str(message), "hint": exc.hint}
    for name in _DETAIL_FIELDS:
        value = getattr(exc, name, None)
        if value is not None:
            body[name] = value
    return {"error": body}


def error_from_body(status: int, body: Any) -> e.MemfoldError:
    """The client side: the error a response describes, as the class the server raised."""
    detail = body.get("error") if isinstance(body, dict) else None
    if not isinstance(detail, dict):
        return e.ServerResponseError(f"HTTP {status} without a memfold error body: {str(body)[:200]}")
    cls = getattr(e, str(detail.get("type")), None)
    message = str(detail.get("message", f"HTTP {status}"))
    hint = detail.get("hint") or None
    if not (isinstance(cls, type) and issubclass(cls, e.MemfoldError)):
        return _fallback_for(status)(message, hint=hint)
    return _build(cls, message, hint, detail)


def _build(cls: type[e.MemfoldError], message: str, hint: str | None,
           detail: dict[str, Any]) -> e.MemfoldError:
    extra = {name: detail[name] for name in _DETAIL_FIELDS if name in detail}
    try:
        return cls(message, hint=hint, **extra)
    except TypeError:  # a class whose constructor takes other arguments: keep the message
        error = cls.__new__(cls)
        e.MemfoldError.__init__(error, message, hint=hint)
        return error


def _fallback_for(status: int) -> type[e.MemfoldError]:
    fallback = {401: e.AuthenticationError, 403: e.PermissionDeniedError, 413: e.RequestTooLargeError,
                429: e.RateLimitedError, 503: e.ServerUnavailableError}
    if status in fallback:
        return fallback[status]
    if status in (400, 422):
        return e.InvalidInputError
    return e.ServerResponseError
