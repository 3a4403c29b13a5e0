"""LLM backends: the Backend protocol, the offline backend and the Anthropic backend.

``memfold.llm.anthropic`` imports the Anthropic SDK; import it only when that backend is
configured. The names below load on first use, so that a light submodule (``llm.keys``,
the key vocabulary the profile commands fold subjects with) imports no model code.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memfold.llm.base import Backend, JsonCompleter, RouteContext
    from memfold.llm.offline import OfflineBackend

__all__ = ["Backend", "JsonCompleter", "OfflineBackend", "RouteContext"]
_HOMES = {"Backend": "memfold.llm.base", "JsonCompleter": "memfold.llm.base", "RouteContext": "memfold.llm.base",
          "OfflineBackend": "memfold.llm.offline"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'memfold.llm' has no attribute {name!r}")
    return getattr(import_module(_HOMES[name]), name)
