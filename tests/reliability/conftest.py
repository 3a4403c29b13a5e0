"""Fixtures of the reliability suite: one zygote process per test session for the crash
tests (it imports memfold once and forks a worker per run, see ``rel_harness``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rel_harness import Zygote


@pytest.fixture(scope="session")
def zygote() -> Iterator[Zygote]:
    process = Zygote()
    yield process
    process.close()
