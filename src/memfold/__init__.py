"""memfold: a multi-store memory router for LLM agents.

    from memfold import Memory
    with Memory.open("./memfold-store") as memory:
        memory.ingest(message)
        result = memory.recall("where does Ana live?", user_id="ana")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from memfold.memory import Memory


def __getattr__(name: str) -> Any:
    # Imported lazily so `import memfold.models` stays light (no DuckDB/Chroma/torch).
    if name == "Memory":
        from memfold.memory import Memory

        return Memory
    raise AttributeError(name)


__all__ = ["Memory", "__version__"]
