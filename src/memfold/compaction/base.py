"""The compaction contract: the Compactor protocol, fold settings and a fold's outcome.

Layers (spec: folded-memory.txt): L1 working turns -> L2 episodes -> L3 semantic memory.
A :class:`Compactor` turns turns into an :class:`~memfold.models.Episode` (L1 -> L2) and
distils episodes into :class:`~memfold.models.SemanticMemory` (L2 -> L3), merging into
what L3 already holds. *When* to fold is the manager's business (``manager.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memfold.models import ArchiveItem, Episode, FoldState, Message, SemanticMemory

Strategy = Literal["truncate", "summarize", "folded"]


def episode_heading(episode_id: int, started_at: datetime | None) -> str:
    """How an episode is introduced in a prompt. Part of the contract because a fold's token
    budget (``target_ratio``) pays for it: the ratio is what the episode costs as injected."""
    when = f", {started_at.date().isoformat()}" if started_at else ""
    return f"### Episode {episode_id}{when}"


def line_markup(sources: list[str]) -> str:
    """The quoting and source tag around one rendered episode line (its text goes inside)."""
    return f'- "" [{", ".join(sources)}]'


@runtime_checkable
class Compactor(Protocol):
    """Turns raw turns into episodes and episodes into durable knowledge."""

    name: str

    def compact_episode(self, turns: list[Message], *, episode_id: int,
                        turn_range: tuple[int, int], user_id: str) -> Episode:
        """L1 -> L2: one episode for ``turns``; ``sources`` lists the msg_ids whose words it keeps."""
        ...

    def distil(self, episodes: list[Episode], existing: SemanticMemory) -> SemanticMemory:
        """L2 -> L3: merge what is durable in ``episodes`` into ``existing`` (never append blindly)."""
        ...


class FoldSettings(BaseModel):
    """When and how much to fold. Defaults follow the spec (folded-memory.txt, step 6)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    strategy: Strategy = "folded"
    l1_max_turns: int = Field(default=20, ge=2)  # fold the oldest half when L1 reaches this
    l2_max_episodes: int = Field(default=8, ge=2)  # distil the oldest half when L2 reaches this
    min_turns_before_fold: int = Field(default=10, ge=0)  # never fold within the first N turns
    l1_token_budget: int = Field(default=3000, ge=50)
    fold_at_token_share: float = Field(default=0.6, gt=0.0, le=1.0)  # predictive early trigger
    semantic_cap: int = Field(default=20, ge=1)  # L3 items injected into a prompt
    semantic_store_cap: int = Field(default=200, ge=1)  # unpinned L3 items kept before eviction
    digest_episodes: int = Field(default=5, ge=1)  # L2 episodes injected into a prompt
    pin_threshold: float = Field(default=0.8, ge=0.0, le=1.0)
    # Episode tokens / folded tokens. With budget_includes_markup the episode is counted as
    # injected (heading, quotes, source tags: about 0.12 of the input on LoCoMo), so 0.35
    # leaves kept sentences about 0.23; the spec's "25-30%" start point is for content alone.
    target_ratio: float = Field(default=0.35, gt=0.0, le=1.0)
    # True: the budget covers the episode's heading and each rendered line's speaker, quoting
    # and source tag (prompt cost); False: only the kept "Speaker: sentence" tokens
    budget_includes_markup: bool = True
    distil_min_importance: float = Field(default=0.6, ge=0.0, le=1.0)  # L2 notes promoted to L3
    long_turn_tokens: int = Field(default=1000, ge=1)  # longer turns: documents, tool dumps
    long_turn_keep_tokens: int = Field(default=120, ge=1)  # what such a turn offers a fold
    duplicate_jaccard: float = Field(default=0.75, gt=0.0, le=1.0)
    summary_max_tokens: int = Field(default=300, ge=20)  # `summarize` strategy rolling summary

    @model_validator(mode="after")
    def _consistent(self) -> FoldSettings:
        if self.min_turns_before_fold > 10 * self.l1_max_turns:
            raise ValueError("min_turns_before_fold is implausibly large for l1_max_turns")
        return self

    @property
    def token_trigger(self) -> int:
        """L1 token count at which a fold starts early (fold_at_token_share of the budget)."""
        return int(self.l1_token_budget * self.fold_at_token_share)


class FoldOutcome(BaseModel):
    """What one ``ConversationManager.add``/``fold_now`` call did.

    The facade saves ``state`` with ``FoldStore.save`` and adds ``archive`` rows (plus
    archive rows for ``folded_out`` turns, per the indexing policy) in the same
    transaction: folded content is compressed in the prompt, never discarded.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    state: FoldState
    episodes: list[Episode] = Field(default_factory=list)  # L2 episodes created by this call
    distilled: list[Episode] = Field(default_factory=list)  # episodes that left L2 for L3
    semantic_changed: bool = False
    folded_out: list[Message] = Field(default_factory=list)  # raw turns that left L1
    fold_ranges: list[tuple[int, int]] = Field(default_factory=list)  # turn range of each fold
    archive: list[ArchiveItem] = Field(default_factory=list)  # distilled episodes, evicted L3 items
    folds: int = 0
    distils: int = 0
    warnings: list[str] = Field(default_factory=list)
