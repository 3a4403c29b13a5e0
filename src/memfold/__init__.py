"""memfold: a multi-store memory router for LLM agents.

    from memfold import Memory
    with Memory.open("./memfold-store") as memory:
        memory.ingest(message)
        result = memory.recall("where does Ana live?", user_id="ana")
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# memfold's matrix products are small (a query against tens of vectors); with OpenBLAS's
# default of a thread per core, its idle worker spins after each product and took a whole
# core: context() used 107 ms of CPU for 57 ms of wall time, 48 ms with one thread
# (10,000-message store). Set before numpy loads OpenBLAS; a value already set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# The public records, importable from the top level (``from memfold import Message``);
# loaded on first use so that ``import memfold`` stays light.
_RECORDS = ("Message", "ProfileFact", "ProfileChange", "Event", "RecallItem", "RecallResult",
            "Context", "ContextSection", "Explanation", "IngestReport", "Rejection",
            "RouteDecision", "ForgetReport", "FoldState", "Episode", "SemanticMemory", "Note")

if TYPE_CHECKING:
    from memfold.api import MemoryAPI
    from memfold.client import MemoryClient
    from memfold.memory import Memory
    from memfold.models import (
        Context,
        ContextSection,
        Episode,
        Event,
        Explanation,
        FoldState,
        ForgetReport,
        IngestReport,
        Message,
        Note,
        ProfileChange,
        ProfileFact,
        RecallItem,
        RecallResult,
        Rejection,
        RouteDecision,
        SemanticMemory,
    )


def __getattr__(name: str) -> Any:
    # Imported lazily so `import memfold.models` stays light (no DuckDB/Chroma/torch).
    if name == "Memory":
        from memfold.memory import Memory

        return Memory
    if name == "MemoryClient":
        from memfold.client import MemoryClient

        return MemoryClient
    if name == "MemoryAPI":
        from memfold.api import MemoryAPI

        return MemoryAPI
    if name in _RECORDS:
        from memfold import models

        return getattr(models, name)
    raise AttributeError(f"module 'memfold' has no attribute {name!r}")


__all__ = ["Memory", "MemoryAPI", "MemoryClient", *_RECORDS, "__version__"]
