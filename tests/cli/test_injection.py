"""Hostile input through every argument of `sql`, `profile`, `events` and `recall`.

Each payload must give either a normal answer with no extra rows (nothing of another
user, nothing that was not asked for) or a clean failure (exit 1 with one `error:` line,
or a usage error); and no file outside the store may be read into the output, written,
or changed. A canary file sits next to the store; the commands run with the temporary
directory as the working directory so that relative paths point at it.

The full matrix (>= 50 payloads x every argument) is slow; the default run takes a sample.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import ANA, Cli, assert_clean_failure

CANARY_TEXT = "canary-4f1c9e-secret-never-print-me"

SQL_INJECTION = [
    "' OR '1'='1", "' OR 1=1 --", "\" OR \"\"=\"", "'; DROP TABLE messages; --",
    "1; DELETE FROM profile", "ana' --", "ana'/*", "*/ OR 1=1 /*",
    "' UNION SELECT * FROM messages --", "' UNION SELECT msg_id, text FROM messages WHERE '1'='1",
    "ana'); DROP TABLE events;--", "%", "_", "ana%", "\\", "\\'", "''", "';", "--", "/* comment */",
    "#", "NULL", "null", "' AND (SELECT count(*) FROM messages) > 0 --", "1' ORDER BY 1--",
    "ana\"; SELECT 1; --", "'||(SELECT text FROM messages LIMIT 1)||'", "$1", "?", ":user_id",
]
DUCKDB_FEATURES = [
    "read_csv('{canary}')", "' || (SELECT * FROM read_text('{canary}')) || '",
    "SELECT * FROM read_text('{canary}')", "SELECT * FROM '{canary}'",
    "SELECT * FROM read_csv_auto('canary.txt')", "SELECT * FROM read_json_auto('{canary}')",
    "SELECT * FROM glob('*')", "SELECT * FROM read_parquet('../*.parquet')",
    "ATTACH '{outside}/evil.duckdb' AS evil",
    "ATTACH ':memory:' AS m; CREATE TABLE m.t AS SELECT 1", "COPY messages TO '{outside}/dump.csv'",
    "COPY (SELECT 1) TO 'relative.csv'", "EXPORT DATABASE '{outside}/exp'",
    "IMPORT DATABASE '{outside}'", "PRAGMA database_list", "PRAGMA enable_profiling='json'",
    "SET enable_external_access = true", "SET lock_configuration = false",
    "RESET lock_configuration", "SET profiling_output = '{outside}/profile.json'", "INSTALL httpfs",
    "LOAD httpfs", "FORCE INSTALL sqlite", "CREATE TABLE pwn AS SELECT 1",
    "INSERT INTO profile SELECT * FROM profile", "UPDATE profile SET value = 'x'",
    "DELETE FROM messages", "DROP TABLE messages", "CHECKPOINT", "VACUUM", "CALL duckdb_settings()",
    "SELECT 1; COPY messages TO '{outside}/two.csv'", "CREATE MACRO m() AS 1",
]
PATHS_AND_UNICODE = [
    "../../etc/passwd", "../canary.txt", "canary.txt", "..\\..\\windows\\win.ini", "/etc/passwd",
    "{canary}", "file:///etc/passwd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "ʼ OR ʼ1ʼ=ʼ1",
    "＇ OR ＇1＇=＇1", "ǘñíçødé 🧠", "\u202e' OR 1=1", "a\u0000b", "a\nb'; DROP TABLE messages; --",
    "\t", "${HOME}", "$(touch pwned)", "`touch pwned`", "{{7*7}}", "%s%s%s%n",
    "last week'; DROP TABLE events; --", "x" * 5000,
]
RAW_PAYLOADS = SQL_INJECTION + DUCKDB_FEATURES + PATHS_AND_UNICODE
SAMPLE = ["' OR '1'='1", "'; DROP TABLE messages; --", "read_csv('{canary}')",
          "COPY messages TO '{outside}/dump.csv'", "../canary.txt", "a\u0000b"]


def test_there_are_at_least_fifty_payloads():
    assert len(set(RAW_PAYLOADS)) == len(RAW_PAYLOADS) >= 50


class Sandbox:
    """A store, a canary outside it, and a snapshot of every file around it."""

    def __init__(self, root: Path, store: Path) -> None:
        self.root, self.store = root, store
        self.outside = root / "outside"
        self.outside.mkdir()
        self.canary = root / "canary.txt"
        self.canary.write_text(CANARY_TEXT + "\n", encoding="utf-8")
        (self.outside / "note.csv").write_text(f"a,b\n{CANARY_TEXT},1\n", encoding="utf-8")
        self.cli = Cli(store)
        self.before = self.snapshot()
        self.records = self.export()

    def fill(self, payload: str) -> str:
        return payload.replace("{canary}", str(self.canary)).replace("{outside}", str(self.outside))

    def snapshot(self) -> dict[str, tuple[int, int]]:
        """Every file outside the store (and the root itself): size and mtime."""
        files = {}
        for path in [self.root, *self.root.rglob("*")]:
            if self.store not in path.parents and path != self.store:
                stat = path.stat()
                files[str(path)] = (stat.st_size, stat.st_mtime_ns)
        return files

    def export(self) -> list[str]:
        with self.cli.memory() as memory:
            return [json.dumps(r, sort_keys=True) for r in memory.export()]

    def run(self, *args: str):
        result = self.cli(*args)
        clean = result.exception is None or isinstance(result.exception, SystemExit)
        assert clean, (args, result.exception)
        assert result.exit_code in (0, 1, 2), (args, result.output)
        assert "Traceback" not in result.output
        assert CANARY_TEXT not in result.output, args
        if result.exit_code == 1:
            assert_clean_failure(result)
        return result

    def assert_untouched(self, *, store_too: bool = True) -> None:
        assert self.snapshot() == self.before
        assert not (Path.cwd() / "pwned").exists()
        if store_too:
            assert self.export() == self.records


@pytest.fixture
def sandbox(seeded, tmp_path, monkeypatch) -> Sandbox:
    monkeypatch.chdir(tmp_path)
    return Sandbox(tmp_path, seeded)


def _ids(payloads: list[str]) -> list[str]:
    return [repr(p)[:40] for p in payloads]


def check_sql(box: Sandbox, payload: str) -> None:
    """`sql` runs any read-only query (reading every row is its purpose): what must hold is no
    write, no file outside the store, no canary, and the hardening still on afterwards."""
    value = box.fill(payload)
    for query in (value, f"SELECT * FROM messages WHERE user_id = '{value}'"):
        result = box.run("sql", "--json", "--", query)  # after "--", "-x" is a query, not an option
        if result.exit_code == 0:
            json.loads(result.stdout)  # --json output parses whatever the query was
    assert box.run("sql", "SELECT 1", "--limit", value).exit_code == 2  # not an integer
    hardening = box.cli.json("sql", "SELECT current_setting('enable_external_access') AS external, "
                                    "current_setting('lock_configuration') AS locked")
    assert hardening["rows"] == [[False, True]]
    box.assert_untouched()


def check_profile(box: Sandbox, payload: str) -> None:
    value = box.fill(payload)
    box.records = box.export()  # earlier payloads' set + delete left changelog rows, as they should
    with box.cli.memory() as memory:
        ana_facts = memory.profile("ana")
    # as the user: nobody has that id, so nothing comes back and nothing can be written
    for args in (["profile", "show", "--user", value], ["profile", "history", "--user", value],
                 ["profile", "why", "diet", "--user", value]):
        result = box.run(*args, "--json")
        if result.exit_code == 0:
            data = json.loads(result.stdout)
            assert data in ([], None) or data.get("current") is None and data.get("changes") == []
    box.run("profile", "set", "city", "X", "--user", value, "--source", "a1")
    box.run("profile", "delete", "city", "--user", value)
    box.assert_untouched()
    # as key, value and subject of ana's facts: stored literally, or refused cleanly, then removable
    for key, val, subject in ((value, "v", "user"), ("k", value, "user"), ("k", "v", value)):
        result = box.run("profile", "set", "--user", "ana", "--source", "a1", "--subject", subject,
                         "--", key, val)
        with box.cli.memory() as memory:
            facts = memory.profile("ana")
        if result.exit_code == 0:
            added = [f for f in facts if f not in ana_facts]
            assert [(f.subject, f.key, f.value) for f in added] == [(subject, key, val)], added
            box.run("profile", "delete", "--user", "ana", "--subject", added[0].subject, "--",
                    added[0].key)
            with box.cli.memory() as memory:
                assert memory.profile("ana") == ana_facts
        else:
            assert facts == ana_facts
        why = box.run("profile", "why", "--user", "ana", "--subject", subject, "--json", "--", key)
        if why.exit_code == 0:
            assert json.loads(why.stdout)["current"] is None
    box.assert_untouched(store_too=False)


def check_events(box: Sandbox, payload: str) -> None:
    value = box.fill(payload)
    with box.cli.memory() as memory:
        ana_events = [e.model_dump(mode="json") for e in memory.events("ana")]
    for args in (["--user", value], ["--user", "ana", "--about", value],
                 ["--user", "ana", "--since", value], ["--user", "ana", "--until", value]):
        result = box.run("events", *args, "--json")
        if result.exit_code == 0:
            rows = json.loads(result.stdout)
            if args[1] == value:
                assert rows == []
            else:
                assert all(row in ana_events for row in rows)
    box.assert_untouched()


def check_recall(box: Sandbox, payload: str) -> None:
    value = box.fill(payload)
    ana_ids = {i for i, _ in ANA}
    result = box.run("recall", "--user", "ana", "--json", "--", value)
    if result.exit_code == 0:
        assert all(set(item["sources"]) <= ana_ids for item in json.loads(result.stdout)["items"])
    result = box.run("recall", "Where does Ana live?", "--user", value, "--json")
    if result.exit_code == 0:
        assert json.loads(result.stdout)["items"] == []
    box.assert_untouched()


CHECKS = {"sql": check_sql, "profile": check_profile, "events": check_events,
          "recall": check_recall}


def check_payload(command, sandbox, payload):
    """Each check asserts: no extra rows, a clean error at most, no file touched outside the store."""
    CHECKS[command](sandbox, payload)


@pytest.mark.parametrize("command", sorted(CHECKS))
@pytest.mark.parametrize("payload", SAMPLE, ids=_ids(SAMPLE))
def test_sample_of_payloads(sandbox, command, payload):
    check_payload(command, sandbox, payload)


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(CHECKS))
def test_every_payload(sandbox, command):
    for payload in RAW_PAYLOADS:
        check_payload(command, sandbox, payload)


def test_the_sandbox_would_notice_a_write_and_a_leak(sandbox):
    """The checks above can fail: a file written next to the store, or the canary printed."""
    (sandbox.outside / "new.csv").write_text("x", encoding="utf-8")
    with pytest.raises(AssertionError):
        sandbox.assert_untouched(store_too=False)
    os.remove(sandbox.outside / "new.csv")
    sandbox.before = sandbox.snapshot()  # the removal changed the directory's mtime
    sandbox.assert_untouched()
    with pytest.raises(AssertionError):
        sandbox.run("sql", f"SELECT '{CANARY_TEXT}' AS leak", "--json")
