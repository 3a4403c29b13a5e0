"""memfold.compaction: L1 working turns -> L2 episodes -> L3 semantic memory.

    manager = ConversationManager(OfflineCompactor(settings), settings)
    outcome = manager.add(state, messages)      # pure: returns the new FoldState
    # facade, inside its ingest transaction:
    #   stores.folds.save(outcome.state); stores.archive.add(outcome.archive)
    prompt_block = render_layers(outcome.state, budget_tokens=800)

Strategies: ``truncate`` (sliding window), ``summarize`` (rolling extractive summary),
``folded`` (default). Long documents: :mod:`memfold.compaction.progressive`.
"""

from memfold.compaction.base import Compactor, FoldOutcome, FoldSettings, Strategy
from memfold.compaction.manager import ConversationManager, enforce_cap
from memfold.compaction.offline import OfflineCompactor
from memfold.compaction.render import (
    render_episodes,
    render_layers,
    render_semantic,
    render_summary,
)

__all__ = ["Compactor", "ConversationManager", "FoldOutcome", "FoldSettings", "OfflineCompactor",
           "Strategy", "enforce_cap", "render_episodes", "render_layers", "render_semantic",
           "render_summary"]
