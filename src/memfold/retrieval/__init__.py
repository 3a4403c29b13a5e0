"""Retrieval: what ingest indexes, query intent, hybrid store-routed recall, context assembly, agent tools.

The facade wires it as::

    items = archive_items(messages, decisions, previous=last_message)   # inside the ingest transaction
    retriever.archived(items)                                           # after commit: BM25 stays current
    retriever.recall(query, user_id, now=now, k=k)                      # -> RecallResult
    ContextBuilder(retriever, counter).build(query, user_id, budget_tokens, now=now)  # -> Context
"""

from memfold.retrieval.indexing import archive_items
from memfold.retrieval.intent import HeuristicIntentClassifier, IntentClassifier, LLMIntentClassifier, QueryIntent
from memfold.retrieval.recall import RecallSettings, Retriever

__all__ = ["HeuristicIntentClassifier", "IntentClassifier", "LLMIntentClassifier", "QueryIntent",
           "RecallSettings", "Retriever", "archive_items"]
