"""The LLM backend protocol: structured request in, validated pydantic result out.

Two implementations: :class:`memfold.llm.offline.OfflineBackend` (the default:
heuristics plus the local embedding model, deterministic, no network) and
:class:`memfold.llm.anthropic.AnthropicBackend` (Claude, falling back to the offline
backend when the model's answer cannot be used). Neither stores anything: the router
applies trust rules on top, and ``router.apply`` writes a decision into the stores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from memfold.models import Message, ProfileFact, RouteDecision

T = TypeVar("T", bound=BaseModel)


class RouteContext(BaseModel):
    """What a backend may know besides the message itself.

    ``embedding`` is the message's vector as the facade already computed it (one batch
    per ingest): backends must use it rather than embed the text again. It is the
    embedding of ``Message.indexed_text()``, unit length.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    profile: list[ProfileFact] = Field(default_factory=list)
    embedding: np.ndarray | None = None

    @field_validator("embedding", mode="before")
    @classmethod
    def _as_array(cls, value: Any) -> np.ndarray | None:
        if value is None:
            return None
        array = np.asarray(value, dtype=np.float32)
        if array.ndim != 1:
            raise ValueError("embedding must be one vector")
        return array


@runtime_checkable
class JsonCompleter(Protocol):
    """Ask a model for JSON that validates against ``schema``.

    Never returns unvalidated data: when the model's output cannot be parsed or does not
    validate (after one retry), ``fallback()`` is returned instead, with a logged warning.
    API failures raise the matching :class:`memfold.errors.BackendError` subclass.
    """

    def complete_json(self, system: str, user: str, schema: type[T], *,
                      fallback: Callable[[], T]) -> T: ...


@runtime_checkable
class Backend(JsonCompleter, Protocol):
    """Classifies one utterance into FACT / EVENT / DOCUMENT / NONE and extracts it."""

    name: str

    def route(self, message: Message, context: RouteContext) -> RouteDecision: ...

    def route_many(self, messages: Sequence[Message],
                   contexts: Sequence[RouteContext]) -> list[RouteDecision]:
        """Same as ``route`` per message, in order; batched where the backend can."""
        ...
