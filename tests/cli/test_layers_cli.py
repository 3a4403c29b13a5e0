"""`memfold kb ...` and `memfold task ...` against a real on-disk store, checked through the API."""

from __future__ import annotations

from .conftest import assert_clean_failure

GUIDE = "Hold the reset button for ten seconds to restart the router. " * 30


def test_kb_add_list_search_and_remove(empty_cli, tmp_path):
    guide = tmp_path / "router-guide.txt"
    guide.write_text(GUIDE, encoding="utf-8")
    faq = tmp_path / "faq.txt"
    faq.write_text("Firmware updates install overnight and keep every setting.", encoding="utf-8")
    report = empty_cli.json("kb", "add", str(guide), str(faq), "--namespace", "manual")
    assert sorted(d["doc_id"] for d in report["added"]) == ["faq.txt", "router-guide.txt"]
    guide.write_text(GUIDE + " Then wait for the green light.", encoding="utf-8")
    again = empty_cli.json("kb", "add", str(guide), "--namespace", "manual", "--doc-id", "router-guide.txt")
    assert again["replaced"] == ["router-guide.txt"] and again["added"][0]["version"] == 2
    listed = empty_cli.json("kb", "list")
    assert {(d["doc_id"], d["version"]) for d in listed} == {("faq.txt", 1), ("router-guide.txt", 2)}
    assert "faq.txt" in empty_cli.ok("kb", "list", "--namespace", "manual").stdout
    found = empty_cli.json("kb", "search", "how do I restart the router", "--namespace", "manual", "--k", "2")
    assert found[0]["meta"]["doc_id"] == "router-guide.txt" and found[0]["meta"]["version"] == 2
    empty_cli.ok("kb", "remove", "--namespace", "manual", "--doc-id", "faq.txt", "--yes")
    with empty_cli.memory() as memory:
        assert [d.doc_id for d in memory.knowledge("manual")] == ["router-guide.txt"]
    refused = empty_cli("kb", "remove", "--namespace", "manual", input="n\n")
    assert refused.exit_code == 1 and "nothing removed" in refused.stderr
    empty_cli.ok("kb", "remove", "--namespace", "manual", "--yes")
    with empty_cli.memory() as memory:
        assert memory.knowledge() == []


def test_kb_bad_input_is_one_clear_line_and_stores_nothing(empty_cli, tmp_path):
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\xff\xfe\x00bad")
    line = assert_clean_failure(empty_cli("kb", "add", str(binary), "--namespace", "manual"))
    assert "not UTF-8" in line
    text = tmp_path / "a.txt"
    text.write_text("words", encoding="utf-8")
    line = assert_clean_failure(empty_cli("kb", "add", str(text), str(text), "--namespace", "m", "--doc-id", "x"))
    assert "--doc-id" in line
    assert "no document" in assert_clean_failure(
        empty_cli("kb", "remove", "--namespace", "manual", "--doc-id", "nope", "--yes"))


def test_task_show_and_end(cli):
    with cli.memory(read_only=False) as memory:
        memory.task_write("ana", "t1", "plan", ["call the plumber", "pay the bill"], kind="plan")
        memory.task_write("ben", "t1", "plan", "ben's own plan", kind="plan")
    shown = cli.json("task", "show", "--user", "ana", "--task", "t1")
    assert [(i["key"], i["value"]) for i in shown["items"]] == [("plan", ["call the plumber", "pay the bill"])]
    assert "call the plumber" in cli.ok("task", "show", "--user", "ana", "--task", "t1").stdout
    assert cli.json("task", "end", "--user", "ana", "--task", "t1")["items"] == 1
    assert cli.json("task", "show", "--user", "ana", "--task", "t1")["items"] == []
    assert cli.json("task", "show", "--user", "ben", "--task", "t1")["items"][0]["value"] == "ben's own plan"


def test_context_with_a_task_shows_its_scratchpad(cli):
    with cli.memory(read_only=False) as memory:
        memory.task_write("ana", "t9", "draft", "zqxdraft reply to the plumber", kind="plan")
    assert "zqxdraft" in cli.ok("context", "plumber", "--user", "ana", "--task", "t9").stdout
    assert "zqxdraft" not in cli.ok("context", "plumber", "--user", "ana").stdout
