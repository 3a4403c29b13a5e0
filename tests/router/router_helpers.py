"""Constants shared by the router tests (imported by name: tests/ is not a package)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

from memfold.models import Message

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)  # a Monday

MessageFactory = Callable[..., Message]
