"""Pull one JSON object out of a model's text answer (fences and chatter tolerated)."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


class NotJsonError(ValueError):
    """The text holds no parseable JSON object."""


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text``: inside a ```json fence, or the outermost braces."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start:end + 1])
    candidates.append(text)
    for candidate in candidates:
        try:
            value = json.loads(candidate.strip())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise NotJsonError(f"no JSON object in model output: {text[:200]!r}")
