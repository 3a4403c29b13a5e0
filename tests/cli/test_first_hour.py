"""Issue 17, a new user's first hour: the README's Python snippet runs twice, the public
records import from the top level, `memfold remove-message` exists (an error message
recommends it), and plain flags show no value type in --help."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ANA, Cli

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _python_snippet() -> str:
    section = README[README.index("## Python API"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_snippet_runs_twice(tmp_path):
    env = {**os.environ, "MEMFOLD_EMBEDDER": "hashing", "MEMFOLD_BACKEND": "offline"}
    for run in (1, 2):
        result = subprocess.run([sys.executable, "-c", _python_snippet()], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, f"run {run}: {result.stderr[-2000:]}"


def test_public_records_import_from_the_top_level():
    result = subprocess.run([sys.executable, "-c", (
        "import sys, memfold\n"
        "from memfold import Message, RecallResult, Context, ProfileFact, IngestReport, MemoryAPI\n"
        "assert all(hasattr(memfold, n) for n in memfold.__all__)\n"
        "print('chromadb' in sys.modules, 'duckdb' in sys.modules)")],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False"]  # still light


def test_remove_message_command(seeded):
    cli = Cli(seeded)
    msg_id = ANA[1][0]
    counts = cli.json("remove-message", msg_id, "--user", "ana")
    assert counts["messages"] == 1
    with cli.memory() as memory:
        assert not memory.stores.log.exists("ana", [msg_id])
    again = cli("remove-message", msg_id, "--user", "ana")
    assert again.exit_code == 1 and "no message" in again.stderr


@pytest.mark.parametrize("command", [["forget"], ["recall"], ["profile", "show"], ["serve"]])
def test_plain_flags_show_no_value_type(command):
    result = Cli(Path("unused"))(*command, "--help")
    assert result.exit_code == 0
    flag_lines = [line for line in result.stdout.splitlines() if "--json" in line or "--yes" in line
                  or "--help" in line or "--allow-unauthenticated" in line]
    assert flag_lines and not [line for line in flag_lines if "<bool>" in line]
