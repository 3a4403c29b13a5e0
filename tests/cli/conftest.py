"""Fixtures for the CLI tests: a real on-disk store seeded through `memfold ingest`, and a runner.

Every command runs in-process through typer's CliRunner with ``--embedder hashing
--backend offline`` (fast, offline); results are checked through the Python API.
The seeded store is built once per session and copied for each test that needs one.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import typer.testing
from typer.main import get_command
from typer.testing import CliRunner

from memfold.cli import app
from memfold.config import Settings
from memfold.memory import Memory

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
FAST = ["--embedder", "hashing", "--backend", "offline"]

# Two users, so that every test can also check isolation. Written for these tests.
ANA = [
    ("a1", "My name is Ana Duarte."),
    ("a2", "I live in Lisbon, near the river."),
    ("a3", "I'm vegetarian, so no meat please."),
    ("a4", "Yesterday I ran a half marathon in Porto."),
    ("a5", "My sister Rita works as a nurse."),
    ("a6", "Last Monday I started a new job at the museum."),
    ("a7", "What's a good book about the history of Lisbon?"),
    ("a8", "I moved to Coimbra last week."),
    ("a9", "Remind me: the plumber comes on Friday."),
    ("a10", "I'm allergic to peanuts."),
]
BEN = [
    ("b1", "I'm Ben and I live in Leeds."),
    ("b2", "I adopted a dog called Pixel two days ago."),
    ("b3", "I work as a carpenter."),
]


def message(msg_id: str, text: str, user: str, minutes: int) -> dict:
    return {"msg_id": msg_id, "user_id": user, "session_id": "s1", "speaker": user.title(),
            "role": "user", "text": text, "ts": (T0 + timedelta(hours=minutes)).isoformat()}


def transcript_lines() -> list[dict]:
    lines = [message(i, t, "ana", n * 7) for n, (i, t) in enumerate(ANA)]
    lines += [message(i, t, "ben", n * 5) for n, (i, t) in enumerate(BEN)]
    return lines


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records),
                    encoding="utf-8")
    return path


COMMAND = get_command(app)


class CachedRunner(CliRunner):
    """typer's CliRunner rebuilds the click tree on every invoke (0.3-0.6 s here): build it once."""

    def invoke(self, *args, **kwargs):
        built, typer.testing._get_command = typer.testing._get_command, lambda _app: COMMAND
        try:
            return super().invoke(app, *args, **kwargs)
        finally:
            typer.testing._get_command = built


class Cli:
    """Runs `memfold --store STORE --embedder hashing --backend offline ARGS...` in-process."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.runner = CachedRunner()

    def __call__(self, *args: str, input: str | None = None, store: Path | None = None):
        argv = ["--store", str(store or self.store), *FAST, *args]
        env = {"MEMFOLD_STORE": None, "ANTHROPIC_API_KEY": None}
        return self.runner.invoke(argv, input=input, env=env)

    def ok(self, *args: str, **kwargs):
        result = self(*args, **kwargs)
        assert result.exit_code == 0, (args, result.output, result.exception)
        return result

    def json(self, *args: str, **kwargs):
        return json.loads(self.ok(*args, "--json", **kwargs).stdout)

    def settings(self, store: Path | None = None) -> Settings:
        return Settings(store=store or self.store, embedder="hashing", backend="offline")

    @contextmanager
    def memory(self, *, read_only: bool = True, store: Path | None = None) -> Iterator[Memory]:
        mem = Memory.open(settings=self.settings(store), read_only=read_only)
        try:
            yield mem
        finally:
            mem.close()


def assert_clean_failure(result, *, code: int = 1) -> str:
    """A user mistake: non-zero exit, one `error:` line on stderr, no traceback."""
    assert result.exit_code == code, (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    if code == 1:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        return lines[0]
    return result.stderr


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory) -> Path:
    """A store holding ANA and BEN, ingested once through the CLI."""
    root = tmp_path_factory.mktemp("template")
    source = write_jsonl(root / "transcript.jsonl", transcript_lines())
    store = root / "store"
    Cli(store).ok("ingest", str(source))
    return store


@pytest.fixture
def seeded(seeded_template, tmp_path) -> Path:
    store = tmp_path / "store"
    shutil.copytree(seeded_template, store)
    return store


@pytest.fixture
def cli(seeded) -> Cli:
    return Cli(seeded)


@pytest.fixture
def empty_cli(tmp_path) -> Cli:
    return Cli(tmp_path / "empty-store")
