"""Every error memfold raises, in one tree.

Callers catch :class:`MemfoldError` to handle anything the library reports, or a
subclass for one kind of failure. Exceptions from DuckDB, Chroma, the Anthropic SDK
and the embedding model are translated at the boundary (``raise ... from exc``) so
that the original stays available as ``__cause__``::

    MemfoldError
    ├── ConfigError                    bad settings, missing API key, unknown option
    ├── InvalidInputError              input the caller must fix; nothing was stored
    │   ├── InvalidMessageError        a Message that fails validation (field named)
    │   ├── MalformedInputError        a transcript line/file that cannot be parsed (line named)
    │   ├── DuplicateMessageError      a msg_id already stored for that user
    │   └── UnknownUserError           a read for a user the store has never seen
    ├── EvidenceRequiredError          a profile write without a source msg_id (hallucination filter)
    ├── StoreError                     the storage layer failed
    │   ├── StoreLockedError           another process holds the store for writing (PID named)
    │   ├── StoreClosedError           the store was used after close()
    │   ├── StoreCorruptError          files under the store directory cannot be read
    │   ├── WriteConflictError         a DuckDB write conflict that outlived its retries
    │   └── VectorIndexError           the vector index (Chroma) failed
    ├── EmbeddingError                 the embedding model cannot load or run
    │   └── ModelIntegrityError        the weights' sha256 differs from the expected one
    ├── BackendError                   the LLM backend failed
    │   ├── BackendAuthError           401/403 from the API (check the key)
    │   ├── BackendRateLimitError      429 (retry later)
    │   ├── BackendOverloadedError     529 (retry later)
    │   ├── BackendTimeoutError        the request timed out
    │   ├── BackendConnectionError     the API could not be reached
    │   └── BackendResponseError       any other API error, or output that is not valid JSON
    └── ServiceError                   talking to a `memfold serve` server failed
        ├── AuthenticationError        401: no API key, or one the server does not know
        ├── PermissionDeniedError      403: the key is not scoped to that user id
        ├── RequestTooLargeError       413: the request body is over the server's limit
        ├── RateLimitedError           429: the key's request rate is over the limit
        ├── ServerUnavailableError     503/connection refused: not running, or not ready yet
        └── ServerResponseError        any other answer the client cannot read as a result

The REST service maps each class to one HTTP status (``memfold.service.errors``) and sends
``{"error": {"type": <class name>, "message": ..., "hint": ...}}``; the client raises the
same class again, so code written against the embedded ``Memory`` handles a remote one.
"""

from __future__ import annotations


class MemfoldError(Exception):
    """Root of every error raised by memfold. ``hint`` says what to do about it."""

    hint: str = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base} ({self.hint})" if self.hint else base

    @property
    def summary(self) -> str:
        """The message as one line, cut before DuckDB's echo of the statement (a line
        starting ``LINE `` with a caret under it): what the CLI and the MCP tools show."""
        message = str(self.args[0]) if self.args else ""
        kept = []
        for line in message.splitlines():
            if line.startswith("LINE "):
                break
            if line.strip():
                kept.append(line.strip())
        return " ".join(kept)


class ConfigError(MemfoldError):
    """Settings that cannot work: unknown backend, missing API key, bad path."""


class InvalidInputError(MemfoldError):
    """Input the caller must fix. Nothing from the rejected item was stored."""


class InvalidMessageError(InvalidInputError):
    """A message failed validation; ``field`` names the offending field."""

    def __init__(self, message: str, *, field: str | None = None, msg_id: str | None = None,
                 hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.field = field
        self.msg_id = msg_id


class MalformedInputError(InvalidInputError):
    """A transcript file or line that cannot be parsed; ``line`` is 1-based."""

    def __init__(self, message: str, *, line: int | None = None, path: str | None = None,
                 hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.line = line
        self.path = path


class DuplicateMessageError(InvalidInputError):
    """A msg_id that is already stored for the same user with different content."""


class UnknownUserError(InvalidInputError):
    """A read for a user id that has no data in this store."""


class NotStoredError(InvalidInputError):
    """A task item, knowledge-base document or namespace that is not stored (or no longer:
    a task's scratchpad burns when the task ends or expires)."""


class EvidenceRequiredError(MemfoldError):
    """A profile write carried no source message id; memfold refuses unsupported facts."""

    hint = "pass the msg_id of the message that states the fact"


class StoreError(MemfoldError):
    """The storage layer failed (DuckDB, Chroma or the store directory)."""


class StoreLockedError(StoreError):
    """Another process holds the store for writing."""

    def __init__(self, path: str, pid: int | None, *, reader: bool = False) -> None:
        who = f"process {pid}" if pid else "another process"
        if reader:  # DuckDB lets no writer in while any other process has the file open
            message = (f"store {path} is open for reading by {who} (a `memfold sql` query or a "
                       "read-only open); a writer cannot open it until that reader closes")
        else:
            message = f"store {path} is held for writing by {who}"
        super().__init__(message, hint="stop that process, or point --store / MEMFOLD_STORE "
                                       "at another directory")
        self.path = path
        self.pid = pid
        self.reader = reader


class StoreClosedError(StoreError):
    """The store was used after ``close()``."""


class StoreCorruptError(StoreError):
    """Files under the store directory cannot be read."""


class WriteConflictError(StoreError):
    """A DuckDB transaction conflict that persisted through every retry."""


class VectorIndexError(StoreError):
    """The vector index (Chroma) failed; DuckDB still holds the data (``memfold reindex``)."""


class EmbeddingError(MemfoldError):
    """The embedding model could not be loaded or run."""


class ModelIntegrityError(EmbeddingError):
    """The model weights on disk do not match the expected sha256."""


class BackendError(MemfoldError):
    """The LLM backend failed."""


class BackendAuthError(BackendError):
    """The API rejected the credentials (HTTP 401/403)."""

    hint = "check ANTHROPIC_API_KEY, or run with the offline backend"


class BackendRateLimitError(BackendError):
    """The API rate limit was hit (HTTP 429)."""

    hint = "retry later or lower the request rate"


class BackendOverloadedError(BackendError):
    """The API is overloaded (HTTP 529)."""

    hint = "retry later"


class BackendTimeoutError(BackendError):
    """The request to the API timed out."""


class BackendConnectionError(BackendError):
    """The API could not be reached."""


class BackendResponseError(BackendError):
    """The API answered with an error, or with output that is not the JSON asked for."""


class ServiceError(MemfoldError):
    """A request to a memfold server failed before it reached the store, or its answer."""


class AuthenticationError(ServiceError):
    """The request carried no API key, or a key the server does not know (HTTP 401)."""

    hint = "pass api_key= / --api-key / MEMFOLD_API_KEY with a key from the server's key file"


class PermissionDeniedError(ServiceError):
    """The API key is valid but not scoped to the user id asked for (HTTP 403)."""


class RequestTooLargeError(ServiceError):
    """The request body is larger than the server accepts (HTTP 413)."""

    hint = "send fewer messages per request, or raise the server's --max-request-bytes"


class RateLimitedError(ServiceError):
    """The key sent requests faster than the server allows (HTTP 429)."""

    hint = "retry after the delay the server gave (Retry-After), or raise --rate-limit"


class ServerUnavailableError(ServiceError):
    """The server cannot be reached, or is not ready (HTTP 503)."""

    hint = "start it with `memfold serve`, or check the URL"


class ServerResponseError(ServiceError):
    """The server answered with something the client cannot read as a result."""
