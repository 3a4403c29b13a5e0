"""LLM backends: the Backend protocol, the offline backend and the Anthropic backend.

``memfold.llm.anthropic`` imports the Anthropic SDK; import it only when that backend is
configured.
"""

from memfold.llm.base import Backend, JsonCompleter, RouteContext
from memfold.llm.offline import OfflineBackend

__all__ = ["Backend", "JsonCompleter", "OfflineBackend", "RouteContext"]
