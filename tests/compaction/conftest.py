"""Fixtures for the compaction tests (whitespace token counter: no model files)."""

from __future__ import annotations

import pytest
from compaction_helpers import COUNTER

from memfold.compaction.base import FoldSettings
from memfold.compaction.manager import ConversationManager
from memfold.compaction.offline import OfflineCompactor


@pytest.fixture
def settings() -> FoldSettings:
    return FoldSettings()


@pytest.fixture
def compactor(settings: FoldSettings) -> OfflineCompactor:
    return OfflineCompactor(settings, COUNTER)


@pytest.fixture
def manager(settings: FoldSettings) -> ConversationManager:
    return ConversationManager(settings=settings, counter=COUNTER)
