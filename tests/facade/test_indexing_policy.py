"""Which archive rows an ingest writes: raw rows always, extraction rows only on request."""

from __future__ import annotations

import pytest

from memfold.config import Settings
from memfold.embed import HashingEmbedder
from memfold.memory import Memory

from .conftest import msg

TEXTS = ["I moved to Lisbon in March 2024.", "I'm allergic to peanuts.", "hi!"]


@pytest.mark.parametrize("extractions", [False, True])
def test_extraction_rows_follow_the_setting(extractions: bool) -> None:
    mem = Memory.in_memory(Settings(index_extractions=extractions), embedder=HashingEmbedder())
    try:
        mem.ingest_many([msg(f"m{i}", text, minutes=i) for i, text in enumerate(TEXTS)])
        kinds = [item.kind for item in mem.stores.archive.list("ana")]
        structured = len(mem.profile("ana")) + len(mem.events("ana"))
    finally:
        mem.close()
    assert kinds.count("message") == len(TEXTS)  # every raw turn stays findable
    assert structured  # there was something to extract, and it is in the profile/event log
    extra = [k for k in kinds if k in ("fact", "event")]
    assert bool(extra) is extractions
