"""Every CLI command has help text and is documented in the README next to its Python equivalent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from memfold.cli import app

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _commands(group=None, prefix=()):  # -> list[tuple[str, ...]]
    group = group or get_command(app)
    found = []
    for name, command in group.commands.items():
        path = (*prefix, name)
        if hasattr(command, "commands"):  # a group (typer may ship its own click)
            found += _commands(command, path)
        else:
            found.append(path)
    return found


COMMANDS = _commands()


def test_the_cli_has_the_documented_commands():
    names = {" ".join(c) for c in COMMANDS}
    for expected in ("ingest", "route", "recall", "context", "profile show", "profile history", "profile set",
                     "profile delete", "profile why", "events", "search", "episodes", "semantic", "fold", "stats",
                     "sql", "reindex", "export", "import", "forget", "bench locomo", "bench questions"):
        assert expected in names


@pytest.mark.parametrize("path", COMMANDS, ids=lambda c: " ".join(c))
def test_every_command_has_help(path):
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    click_command = get_command(app)
    for part in path:
        click_command = click_command.commands[part]
    assert (click_command.help or "").strip(), f"{' '.join(path)} has no help text"


@pytest.mark.parametrize("path", COMMANDS, ids=lambda c: " ".join(c))
def test_every_command_is_in_the_readme_table_with_its_python_equivalent(path):
    rows = [line for line in README.splitlines()
            if line.startswith("| `memfold " + " ".join(path))]
    assert rows, f"README has no table row for memfold {' '.join(path)}"
    python_cell = rows[0].split("|")[2]
    assert re.search(r"`[\w.]+\(", python_cell), f"no Python equivalent next to memfold {' '.join(path)}"
