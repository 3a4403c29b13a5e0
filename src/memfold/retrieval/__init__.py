"""Retrieval: what ingest indexes, query intent, hybrid store-routed recall, context assembly, agent tools.

The facade wires it as::

    items = archive_items(messages, decisions, previous=last_message)   # inside the ingest transaction
    retriever.archived(items)                                           # after commit: BM25 stays current
    retriever.recall(query, user_id, now=now, k=k)                      # -> RecallResult
    ContextBuilder(retriever, counter).build(query, user_id, budget_tokens, now=now)  # -> Context
"""

from __future__ import annotations

import importlib
from typing import Any

# Exported lazily: the stores import memfold.retrieval.indexing (pure Python), which must not
# pull in recall (numpy, bm25s, scipy) for commands that never search, such as `memfold stats`.
_EXPORTS = {"archive_items": "indexing", "HeuristicIntentClassifier": "intent",
            "IntentClassifier": "intent", "LLMIntentClassifier": "intent", "QueryIntent": "intent",
            "RecallSettings": "recall", "Retriever": "recall"}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)


__all__ = ["HeuristicIntentClassifier", "IntentClassifier", "LLMIntentClassifier", "QueryIntent",
           "RecallSettings", "Retriever", "archive_items"]
