"""Every command against a real on-disk store; what it prints is checked against the Python API."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from memfold.cli import parse_when
from memfold.models import Message

from .conftest import ANA, BEN, T0, assert_clean_failure, message, transcript_lines, write_jsonl

NOW = (T0 + timedelta(days=5)).isoformat()


# -- ingest ---------------------------------------------------------------------------


def test_ingest_stores_every_message_and_reports_routed_counts(empty_cli, tmp_path):
    source = write_jsonl(tmp_path / "t.jsonl", transcript_lines())
    report = empty_cli.json("ingest", str(source))
    assert report["accepted"] == len(ANA) + len(BEN)
    assert sum(report["routed"].values()) == report["accepted"]
    assert report["rejected"] == []
    with empty_cli.memory() as memory:
        assert memory.users() == ["ana", "ben"]
        assert [m.msg_id for m in memory.stores.log.list("ben")] == [i for i, _ in BEN]
        assert memory.stats()["users"]["ana"]["messages"] == len(ANA)


def test_ingest_table_output_names_the_routed_kinds(empty_cli, tmp_path):
    source = write_jsonl(tmp_path / "t.jsonl", transcript_lines())
    out = empty_cli.ok("ingest", str(source)).stdout
    assert f"{len(ANA) + len(BEN)} messages stored" in out
    assert "Routed" in out and "kind" in out


def test_ingest_again_is_a_no_op(cli, seeded_template):
    source = seeded_template.parent / "transcript.jsonl"
    report = cli.json("ingest", str(source))
    assert (report["accepted"], report["duplicates"]) == (0, len(ANA) + len(BEN))


def test_ingest_reports_bad_line_numbers_and_keeps_the_good_lines(empty_cli, tmp_path):
    good = transcript_lines()[:3]
    lines = [good[0], "{not json", good[1], '["a", "list"]',
             {"msg_id": "x1", "user_id": "ana", "text": "no ts"}, "", good[2],
             {**message("x2", "from the future", "ana", 0), "ts": "2999-01-01T00:00:00Z"}]
    source = write_jsonl(tmp_path / "bad.jsonl", lines)
    result = empty_cli.ok("ingest", str(source))
    assert "3 messages stored" in result.stdout and "4 rejected" in result.stdout
    report = empty_cli.json("ingest", str(source))
    assert [r["position"] for r in report["rejected"]] == [2, 4, 5, 8]
    assert all(r["error"].startswith(f"line {r['position']}:") for r in report["rejected"])
    assert report["rejected"][2]["field"] == "ts" and report["rejected"][3]["field"] == "ts"
    with empty_cli.memory() as memory:
        stored = sorted(m.msg_id for m in memory.stores.log.list("ana"))
    assert stored == sorted(g["msg_id"] for g in good)


def test_ingest_of_a_file_with_no_good_line_fails(empty_cli, tmp_path):
    source = write_jsonl(tmp_path / "bad.jsonl", ["{oops", "{}"])
    result = empty_cli("ingest", str(source))
    assert result.exit_code == 1
    assert "line 1" in result.stdout and "line 2" in result.stdout


def test_ingest_user_override(empty_cli, tmp_path):
    source = write_jsonl(tmp_path / "t.jsonl", transcript_lines())
    empty_cli.ok("ingest", str(source), "--user", "zoe")
    with empty_cli.memory() as memory:
        assert memory.users() == ["zoe"]
        assert memory.stores.log.count("zoe") == len(ANA) + len(BEN)


def test_ingest_detects_locomo_json(empty_cli, tmp_path):
    sample = {"sample_id": "conv-x", "qa": [], "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I just got back from Kyoto."},
                      {"speaker": "Bo", "dia_id": "D1:2", "text": "How was the trip?"}],
        "session_2_date_time": "10:00 am on 9 May, 2023",
        "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "I work as a baker."}]}}
    source = tmp_path / "locomo.json"
    source.write_text(json.dumps([sample]), encoding="utf-8")
    report = empty_cli.json("ingest", str(source))
    assert report["accepted"] == 3
    with empty_cli.memory() as memory:
        assert [m.msg_id for m in memory.stores.log.list("conv-x")] == ["D1:1", "D1:2", "D2:1"]


def test_ingest_of_a_missing_file_is_a_usage_error(empty_cli, tmp_path):
    result = empty_cli("ingest", str(tmp_path / "nope.jsonl"))
    assert_clean_failure(result, code=2)
    assert "does not exist" in result.stderr


# -- route, recall, context, search -----------------------------------------------------


def test_route_stores_nothing_and_matches_the_api(cli):
    text = "I live in Madrid now."
    decision = cli.json("route", text, "--user", "ana", "--ts", NOW)
    with cli.memory() as memory:
        expected = memory.route({"msg_id": "cli-route", "user_id": "ana", "speaker": "user",
                                 "role": "user", "text": text, "ts": datetime.fromisoformat(NOW)})
        assert memory.stores.log.count("ana") == len(ANA)
    assert decision["kind"] == expected.kind
    assert decision["facts"] == [f.model_dump(mode="json") for f in expected.facts]


def test_route_without_a_store_works_and_creates_none(empty_cli):
    from memfold.config import Settings
    from memfold.memory import Memory

    got = empty_cli.json("route", "Yesterday I went hiking.", "--ts", NOW)
    with Memory.in_memory(Settings(embedder="hashing", backend="offline")) as memory:
        expected = memory.route({"msg_id": "cli-route", "user_id": "user", "speaker": "user",
                                 "role": "user", "text": "Yesterday I went hiking.",
                                 "ts": datetime.fromisoformat(NOW)})
    assert got["kind"] == expected.kind and got["reasons"] == expected.reasons
    assert not empty_cli.store.exists()


def test_recall_json_matches_the_api(cli):
    got = cli.json("recall", "Where does Ana live?", "--user", "ana", "--now", NOW, "-k", "5")
    with cli.memory() as memory:
        expected = memory.recall("Where does Ana live?", "ana", now=datetime.fromisoformat(NOW),
                                 k=5)
    assert got["items"] == [i.model_dump(mode="json") for i in expected.items]
    assert got["items"] and all(s.startswith("a") for i in got["items"] for s in i["sources"])


def test_recall_table(cli):
    out = cli.ok("recall", "Where does Ana live?", "--user", "ana", "--now", NOW).stdout
    assert "Lisbon" in out or "Coimbra" in out


def test_context_json_matches_the_api(cli):
    got = cli.json("context", "What does Ana eat?", "--user", "ana", "--budget", "300",
                   "--now", NOW)
    with cli.memory() as memory:
        expected = memory.context("What does Ana eat?", "ana", budget_tokens=300,
                                  now=datetime.fromisoformat(NOW))
    assert got["system"] == expected.system and got["messages"] == expected.messages
    assert got["tokens"] <= 300


def test_search_json_matches_the_api(cli):
    got = cli.json("search", "dog", "--user", "ben", "-k", "50")  # all: ties come in any order
    with cli.memory() as memory:
        expected = memory.search("dog", "ben", k=50)
    assert sorted(got, key=_by_id) == sorted([i.model_dump(mode="json") for i in expected],
                                             key=_by_id)
    assert any("Pixel" in i["text"] for i in got)
    assert all(s.startswith("b") for i in got for s in i["sources"])


def _by_id(item: dict) -> str:
    return item["item_id"]


# -- profile ------------------------------------------------------------------------------


def test_profile_show_history_why_match_the_api(cli):
    facts = cli.json("profile", "show", "--user", "ana")
    history = cli.json("profile", "history", "--user", "ana")
    with cli.memory() as memory:
        assert facts == [f.model_dump(mode="json") for f in memory.profile("ana")]
        assert history == [c.model_dump(mode="json") for c in memory.profile_history("ana")]
        first = memory.profile("ana")[0]
        why = cli.json("profile", "why", first.key, "--user", "ana", "--subject", first.subject)
        assert why == memory.explain("ana", first.subject, first.key).model_dump(mode="json")
    assert facts and why["evidence"]
    why_text = cli.ok("profile", "why", first.key, "--user", "ana", "--subject", first.subject)
    assert "=" in why_text.stdout


def test_profile_set_then_delete_through_the_api(cli):
    change = cli.json("profile", "set", "favourite_colour", "green", "--user", "ana",
                      "--source", "a1")
    assert change["new_value"] == "green"
    with cli.memory() as memory:
        fact = {(f.subject, f.key): f for f in memory.profile("ana")}[("user", "favourite_colour")]
        assert (fact.value, fact.sources) == ("green", ["a1"])
        assert not any(f.key == "favourite_colour" for f in memory.profile("ben"))
    again = cli.ok("profile", "set", "favourite_colour", "green", "-u", "ana", "-s", "a1")
    assert "unchanged" in again.stdout
    assert "deleted" in cli.ok("profile", "delete", "favourite_colour", "--user", "ana").stdout
    with cli.memory() as memory:
        assert not any(f.key == "favourite_colour" for f in memory.profile("ana"))
        assert memory.profile_history("ana", "user", "favourite_colour")[-1].action == "delete"
    assert "no fact" in cli.ok("profile", "delete", "favourite_colour", "--user", "ana").stdout


def test_profile_set_needs_stored_evidence(cli):
    line = assert_clean_failure(cli("profile", "set", "city", "Paris", "--user", "ana",
                                    "--source", "b1"))
    assert "b1" in line
    assert_clean_failure(cli("profile", "set", "city", "Paris", "--user", "ana"), code=2)
    with cli.memory() as memory:
        assert not any(f.value == "Paris" for f in memory.profile("ana"))


# -- events, episodes, semantic, fold -----------------------------------------------------


def test_events_json_matches_the_api_with_every_filter(cli):
    with cli.memory() as memory:
        everything = memory.events("ana")
        assert len(everything) >= 2
        middle = everything[1].occurred_at
        assert cli.json("events", "--user", "ana") == [e.model_dump(mode="json")
                                                       for e in everything]
        since = cli.json("events", "--user", "ana", "--since", middle.isoformat())
        assert since == [e.model_dump(mode="json") for e in memory.events("ana", since=middle)]
        until = cli.json("events", "--user", "ana", "--until", middle.isoformat())
        assert until == [e.model_dump(mode="json") for e in memory.events("ana", until=middle)]
        subject = everything[0].subject
        about = cli.json("events", "--user", "ana", "--about", subject)
        assert about == [e.model_dump(mode="json") for e in memory.events("ana", about=subject)]
    assert len(since) + len(until) == len(everything)


def test_events_until_a_date_includes_that_day(cli):
    with cli.memory() as memory:
        first = memory.events("ana")[0]
    day = first.occurred_at.date().isoformat()
    ids = [e["event_id"] for e in cli.json("events", "--user", "ana", "--until", day)]
    assert first.event_id in ids


def test_events_relative_dates_are_accepted(cli):
    assert cli.json("events", "--user", "ana", "--since", "7d") == []  # seeded events are old
    assert cli.json("events", "--user", "ana", "--since", "last week") == []
    every = cli.json("events", "-u", "ana")
    assert len(cli.json("events", "--user", "ana", "--since", "5000d")) == len(every)


def test_events_bad_dates_fail_cleanly(cli):
    line = assert_clean_failure(cli("events", "--user", "ana", "--since", "banana"))
    assert "cannot read" in line
    assert "swap" in assert_clean_failure(cli("events", "-u", "ana", "--since", "2026-03-05",
                                              "--until", "2026-03-01"))


def test_fold_episodes_semantic(cli):
    state = cli.json("fold", "--user", "ana")
    with cli.memory() as memory:
        stored = memory.fold_state("ana")
        assert state == stored.model_dump(mode="json")
        episodes = [e.model_dump(mode="json") for e in memory.episodes("ana")]
        assert cli.json("episodes", "--user", "ana") == episodes
        semantic = memory.semantic("ana").model_dump(mode="json")
        assert cli.json("semantic", "--user", "ana") == semantic
    assert stored.episodes and stored.folds >= 1
    assert "Episodes of ana" in cli.ok("episodes", "--user", "ana").stdout
    assert "Semantic memory of ana" in cli.ok("semantic", "--user", "ana").stdout


# -- store maintenance ------------------------------------------------------------------


def test_stats_json_matches_the_api(cli):
    got = cli.json("stats")
    with cli.memory() as memory:
        expected = memory.stats()
    assert got["users"] == expected["users"] and got["vectors"] == expected["vectors"]
    assert got["users"]["ben"]["messages"] == len(BEN) and got["disk"]["memfold.duckdb"] > 0
    table = cli.ok("stats").stdout
    assert "vectors indexed" in table and "(all users)" in table


def test_sql_reads_and_matches_the_api(cli):
    query = "SELECT user_id, count(*) AS n FROM messages GROUP BY user_id ORDER BY user_id"
    got = cli.json("sql", query)
    assert got == {"columns": ["user_id", "n"], "rows": [["ana", len(ANA)], ["ben", len(BEN)]]}
    assert len(cli.json("sql", "SELECT msg_id FROM messages", "--limit", "2")["rows"]) == 2
    assert "ana" in cli.ok("sql", query).stdout


@pytest.mark.parametrize("query", ["DELETE FROM messages", "CREATE TABLE t (x INT)",
                                   "SELECT * FROM read_csv('/etc/passwd')",
                                   "SET lock_configuration = false",
                                   "ATTACH ':memory:' AS other", "SELEC 1"])
def test_sql_refuses_writes_and_file_access(cli, query):
    line = assert_clean_failure(cli("sql", query))
    assert any(why in line for why in ("SQL error", "only queries run here", "not allowed here"))
    with cli.memory() as memory:
        assert memory.stores.log.count("ana") == len(ANA)


def test_reindex_rebuilds_the_vector_index(cli):
    report = cli.json("reindex")
    with cli.memory() as memory:
        archive = sum(memory.stores.archive.count(u) for u in memory.users())
        assert memory.stores.index.count() == archive
    assert report["index_vectors"] == archive


def test_export_import_round_trip_through_files(cli, tmp_path):
    out = tmp_path / "all.jsonl"
    cli.ok("export", "--out", str(out))
    target = tmp_path / "copy"
    counts = cli.json("import", str(out), store=target)
    assert counts["message"] == len(ANA) + len(BEN)
    again = tmp_path / "again.jsonl"
    cli.ok("export", "--out", str(again), store=target)
    assert again.read_text() == out.read_text()
    with cli.memory(store=target) as memory:
        assert memory.recall("Where does Ben live?", "ben").items


def test_export_of_one_user_to_stdout(cli):
    lines = [json.loads(line) for line in cli.ok("export", "--user", "ben").stdout.splitlines()]
    assert {r["data"]["user_id"] for r in lines} == {"ben"}
    assert [r["data"]["msg_id"] for r in lines if r["type"] == "message"] == [i for i, _ in BEN]
    assert "no user" in assert_clean_failure(cli("export", "--user", "nobody"))


def test_import_of_a_malformed_file_names_the_line(cli, tmp_path):
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"type": "message", "data": {}}])
    assert ":1:" in assert_clean_failure(cli("import", str(bad)))


def test_forget_erases_the_user_and_keeps_the_others(cli):
    report = cli.json("forget", "--user", "ana", "--yes")
    assert report["messages"] == len(ANA)
    with cli.memory() as memory:
        assert memory.users() == ["ben"]
        assert memory.profile("ana") == [] and memory.events("ana") == []
        assert memory.recall("Where does Ana live?", "ana").items == []
        assert list(memory.export("ana")) == []
        assert memory.stores.log.count("ben") == len(BEN)
    assert cli.ok("export").stdout.count('"ana"') == 0


def test_forget_asks_first(cli):
    result = cli("forget", "--user", "ana", input="n\n")
    assert result.exit_code == 1 and "nothing erased" in result.stderr
    with cli.memory() as memory:
        assert memory.stores.log.count("ana") == len(ANA)


# -- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["stats"], ["profile", "show", "-u", "ana"], ["sql", "SELECT 1"],
                                  ["recall", "x", "-u", "ana"], ["export"]])
def test_reads_of_a_missing_store_fail_in_one_line(empty_cli, args):
    line = assert_clean_failure(empty_cli(*args))
    assert "no memfold store" in line and "ingest" in line
    assert not empty_cli.store.exists()


def test_a_blank_user_is_a_clean_error(cli):
    assert "user_id" in assert_clean_failure(cli("profile", "show", "--user", "  "))


def test_debug_shows_the_traceback(empty_cli):
    result = empty_cli.runner.invoke(["--store", str(empty_cli.store), "--debug", "stats"])
    assert result.exit_code == 1
    assert type(result.exception).__name__ == "InvalidInputError"


def test_bad_settings_from_the_environment_are_one_line(empty_cli):
    result = empty_cli.runner.invoke(["--store", str(empty_cli.store), "route", "hi"],
                                     env={"MEMFOLD_EMBEDDER": "word2vec"})
    assert "MEMFOLD_" in assert_clean_failure(result)


def test_a_store_held_by_this_process_is_refused_at_once(cli):
    import os

    from memfold.stores.lock import WriterLock

    with WriterLock(cli.store):
        for args in (["stats"], ["sql", "SELECT 1"], ["profile", "show", "-u", "ana"]):
            line = assert_clean_failure(cli(*args))
            assert f"process {os.getpid()}" in line and "not even to read" in line
        line = assert_clean_failure(cli("profile", "set", "k", "v", "-u", "ana", "-s", "a1"))
        assert f"kill {os.getpid()}" in line and "one writer per store" in line
    assert cli.json("stats")["users"]["ana"]["messages"] == len(ANA)


# -- time options -----------------------------------------------------------------------


def test_parse_when():
    now = datetime(2026, 3, 18, 12, 0, tzinfo=timezone.utc)  # a Wednesday
    assert parse_when("7d", now=now) == now - timedelta(days=7)
    assert parse_when("12h", now=now) == now - timedelta(hours=12)
    assert parse_when("2026-03-01", now=now) == datetime(2026, 3, 1, tzinfo=timezone.utc)
    assert parse_when("2026-03-01", now=now, end=True) == datetime(2026, 3, 2, tzinfo=timezone.utc)
    ten = datetime(2026, 3, 1, 10, tzinfo=timezone.utc)
    assert parse_when("2026-03-01T10:00:00Z", now=now, end=True) == ten
    assert parse_when("last week", now=now) == datetime(2026, 3, 9, tzinfo=timezone.utc)
    assert parse_when("last week", now=now, end=True) == datetime(2026, 3, 16, tzinfo=timezone.utc)
    assert parse_when(None) is None


def test_message_model_accepts_the_transcript_format():
    assert Message.model_validate(transcript_lines()[0]).msg_id == "a1"


def test_help_names_the_default_store():
    from typer.testing import CliRunner

    from memfold.cli import app

    out = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).stdout
    assert "default ./memfold-store" in out and "MEMFOLD_STORE" in out


def test_demo_follows_the_global_options(empty_cli, tmp_path):
    import os
    import sys

    store = tmp_path / "demo-store"
    model_loaded_before = "sentence_transformers" in sys.modules
    out = empty_cli.ok("demo", "--store", str(store)).stdout
    if not model_loaded_before:  # --embedder hashing reached the demo: MiniLM was never imported
        assert "sentence_transformers" not in sys.modules
    assert "MEMFOLD_EMBEDDER" not in os.environ
    assert "Profile of maya" in out and "Q: Where does Maya live now?" in out
    with empty_cli.memory(store=store) as memory:
        assert memory.stores.log.count("maya") == 61
        assert memory.profile("maya")
    assert not empty_cli.store.exists()


def test_an_unknown_user_reads_as_empty_with_a_warning(cli):
    result = cli.ok("profile", "show", "--user", "anna", "--json")
    assert json.loads(result.stdout) == []
    assert "no data for user 'anna'" in result.stderr and "'ana'" in result.stderr
    assert "warning" not in cli.ok("profile", "show", "--user", "ana").stderr
