"""Issue 17 item 10: stored text is printed literally. Escape sequences (``\\x1b[31m``,
``\\x1b]0;...``), C1 controls and bidi overrides are shown as visible ``\\u`` escapes, never
sent to the terminal; rich markup and emoji codes in stored text print as typed."""

from __future__ import annotations

import json

import pytest

from .conftest import Cli, message, write_jsonl

HOSTILE = ("I keep \x1b[31mred\x1b[0m notes \x1b]0;pwned-title\x07 about my pet:cat: "
           "[bold]loudly[/bold] \u202egnp.exe \x9b2J done")
RAW = ["\x1b", "\x07", "\u202e", "\x9b"]


@pytest.fixture
def cli(tmp_path) -> Cli:
    store = tmp_path / "store"
    cli = Cli(store)
    cli.ok("ingest", str(write_jsonl(tmp_path / "t.jsonl", [message("h1", HOSTILE, "ana", 0)])))
    return cli


@pytest.mark.parametrize("args", [
    ("recall", "what notes about my pet", "--user", "ana"),
    ("search", "notes about my pet", "--user", "ana"),
    ("context", "notes about my pet", "--user", "ana", "--budget", "500"),
    ("events", "--user", "ana"),
    ("export", "--user", "ana"),
], ids=lambda a: a[0])
def test_stored_text_reaches_the_terminal_inert(cli, args):
    for extra in ((), ("--json",)) if args[0] != "export" else ((),):
        result = cli.ok(*args, *extra)
        shown = result.stdout
        assert not [c for c in RAW if c in shown], repr(shown[:400])
        if args[0] in ("recall", "search", "context"):
            assert ":cat:" in shown and "[bold]" in shown  # literal, not an emoji or bold text


def test_json_output_still_decodes_to_the_stored_text(cli):
    data = json.loads(cli.ok("search", "notes about my pet", "--user", "ana", "--json").stdout)
    texts = json.dumps(data, ensure_ascii=False)
    assert "\u202e" in texts and "\x9b" in texts  # escaped on screen, exact for a parser
