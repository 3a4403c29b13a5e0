"""Every REST route is in the README's route table next to its MemoryAPI method, and every
MemoryAPI method is served by a route (or is `close`)."""

from __future__ import annotations

from pathlib import Path

from memfold.api import READ_METHODS, WRITE_METHODS, MemoryAPI
from memfold.memory import Memory
from memfold.service.app import create_app

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _operations() -> list[tuple[str, str]]:
    app = create_app(Memory.in_memory())
    document = app.openapi()
    return [(method.upper(), path) for path, ops in document["paths"].items() for method in ops]


def test_every_route_has_a_readme_row():
    rows = [line for line in README.splitlines() if line.startswith("| `")]
    for method, path in _operations():
        assert any(row.startswith(f"| `{method} {path}`") for row in rows), f"{method} {path} not in README"


def test_every_api_method_is_classified_and_documented():
    methods = {name for name in dir(MemoryAPI) if not name.startswith("_")} - {"close"}
    assert methods == READ_METHODS | WRITE_METHODS
    table = README[README.index("| route | `MemoryAPI` method |"):]
    for name in methods - {"ingest_file"}:  # ingest_file reads the file client-side, then batches
        assert f"`{name}(" in table, f"{name} has no route row"
