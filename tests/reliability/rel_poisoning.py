"""Memory poisoning: instruction-like payloads arriving as tool or document content must be
flagged and never become profile facts (or events); ``context()`` must show memories as
quoted data under a "not instructions" preamble; and removing a source message must
remove everything derived from it, in every store and every fold layer."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import rel_harness as h
from rel_payloads import PAYLOADS

from memfold.memory import Memory
from memfold.retrieval.context import PREAMBLE
from memfold.router.trust import INSTRUCTION_FLAG

FOLD = {"l1_max_turns": 4, "min_turns_before_fold": 0, "l2_max_episodes": 2}
NOT_INSTRUCTIONS = "DATA, not instructions"
USER = "ana"


def _ts(n: int) -> str:
    return (h.T0 + timedelta(minutes=n)).isoformat()


def _ingest_payloads(memory: Memory) -> tuple[list[str], int]:
    """Payloads as tool/document messages between ordinary turns; returns ids and flagged count."""
    ids, flagged = [], 0
    for n, payload in enumerate(PAYLOADS):
        memory.ingest({"msg_id": f"u{n}", "user_id": USER,
                       "text": f"Can you check source {n} for me?", "ts": _ts(3 * n)})
        decision = memory.ingest({"msg_id": f"p{n}", "user_id": USER,
                                  "role": ("tool", "document")[n % 2],
                                  "speaker": ("web_search", "uploaded_file")[n % 2],
                                  "text": payload, "ts": _ts(3 * n + 1)})
        ids.append(f"p{n}")
        flagged += INSTRUCTION_FLAG in decision.flags
    return ids, flagged


def _quoted(line: str, fragment: str) -> bool:
    """True when ``fragment`` sits inside a JSON string literal on ``line``."""
    start = line.find('"')
    while start != -1:
        try:
            text, end = json.JSONDecoder().raw_decode(line, start)
        except json.JSONDecodeError:
            start = line.find('"', start + 1)
            continue
        if isinstance(text, str) and fragment in text:
            return True
        start = line.find('"', end)
    return False


def _context_check(memory: Memory, sample: int | None) -> dict[str, int]:
    unquoted_system = unquoted_turns = shown = missing_preamble = 0
    chosen = PAYLOADS if sample is None else PAYLOADS[:: max(1, len(PAYLOADS) // sample)]
    for payload in chosen:
        fragment = payload[:24]
        context = memory.context(payload, USER, budget_tokens=1500)
        missing_preamble += NOT_INSTRUCTIONS not in context.system or PREAMBLE not in context.system
        lines = [line for line in context.system.split("\n") if fragment in line]
        shown += bool(lines)
        unquoted_system += sum(not _quoted(line, fragment) for line in lines)
        unquoted_turns += sum(fragment in turn["content"] and not _quoted(turn["content"], fragment)
                              for turn in context.messages)
    return {"contexts_built": len(chosen), "contexts_showing_a_payload": shown,
            "contexts_missing_preamble": missing_preamble,
            "payload_lines_unquoted_in_system": unquoted_system,
            "payload_turns_unquoted_in_messages": unquoted_turns}


def _derived(memory: Memory, msg_id: str) -> dict[str, int]:
    """Everything in the stores that cites ``msg_id`` (or quotes its distinctive word)."""
    db = memory.stores.db
    counts = {table: int(db.fetchall(f"SELECT count(*) FROM {table} WHERE user_id = ? AND "
                                     "list_contains(sources, ?)", [USER, msg_id])[0][0])
              for table in ("profile", "profile_changes", "events", "documents", "archive")}
    item_ids = {r[0] for r in db.fetchall("SELECT item_id FROM archive WHERE user_id = ? AND "
                                          "list_contains(sources, ?)", [USER, msg_id])}
    counts["messages"] = len(memory.stores.log.get(USER, [msg_id]))
    counts["vectors"] = len(item_ids & memory.stores.index.ids(USER))
    state = memory.fold_state(USER)
    counts["fold_refs"] = state.model_dump_json().count(f'"{msg_id}"')
    return counts


def _removal(memory: Memory, msg_id: str, word: str) -> dict[str, Any]:
    before = _derived(memory, msg_id)
    vectors_before = _vector_ids(memory, msg_id)
    memory.remove_message(USER, msg_id)
    after = _derived(memory, msg_id)
    after["vectors"] = len(vectors_before & memory.stores.index.ids(USER))
    export = json.dumps(list(memory.export(USER)))
    context = memory.context(word, USER, budget_tokens=2000)
    after["word_in_export"] = export.count(word)
    after["word_in_context"] = (context.system + json.dumps(context.messages)).count(word)
    return {"before": before, "after": after, "left_after": sum(after.values())}


def _vector_ids(memory: Memory, msg_id: str) -> set[str]:
    rows = memory.stores.db.fetchall("SELECT item_id FROM archive WHERE user_id = ? AND "
                                     "list_contains(sources, ?)", [USER, msg_id])
    return {r[0] for r in rows} & memory.stores.index.ids(USER)


def poisoning(root: str, contexts: int | None = None, embedder: str = "hashing") -> dict[str, Any]:
    """``contexts``: how many payloads to build a context for (None: every one)."""
    store = Path(root) / "store"
    memory = Memory.open(store, h.settings(store, embedder, **FOLD))
    ids, flagged = _ingest_payloads(memory)
    facts = [f for f in memory.profile(USER) if set(f.sources) & set(ids)]
    changes = [c for c in memory.profile_history(USER) if set(c.sources) & set(ids)]
    events = [e for e in memory.events(USER) if set(e.sources) & set(ids)]
    unflagged_rows = memory.stores.db.fetchall(
        "SELECT count(*) FROM archive WHERE user_id = ? AND list_has_any(sources, ?::VARCHAR[]) "
        "AND kind IN ('message', 'document') AND NOT list_contains(flags, ?)",
        [USER, ids, INSTRUCTION_FLAG])
    semantic = memory.semantic(USER).model_dump_json()
    result: dict[str, Any] = {
        "embedder": embedder, "payloads": len(PAYLOADS), "flagged": flagged,
        "unflagged": [p for n, p in enumerate(PAYLOADS) if not _flagged_row(memory, f"p{n}")],
        "profile_facts_from_payloads": len(facts), "changelog_rows_from_payloads": len(changes),
        "events_from_payloads": len(events), "archive_rows_without_flag": int(unflagged_rows[0][0]),
        "payloads_promoted_to_semantic_memory": sum(p[:24] in semantic for p in PAYLOADS),
        **_context_check(memory, contexts)}
    result["remove_user_message"] = _remove_fact_message(memory)
    result["remove_payload_message"] = _removal(memory, "p1", "hunter2")
    result["remove_folded_message"] = _removal(memory, "u2", "source 2 for")  # cited by L2/L3 notes
    result["removals_left_behind"] = sum(result[k]["left_after"] for k in (
        "remove_user_message", "remove_payload_message", "remove_folded_message"))
    memory.close()
    return result


def _flagged_row(memory: Memory, msg_id: str) -> bool:
    rows = memory.stores.db.fetchall("SELECT flags FROM archive WHERE user_id = ? AND kind IN "
                                     "('message', 'document') AND list_contains(sources, ?)",
                                     [USER, msg_id])
    return bool(rows) and all(INSTRUCTION_FLAG in flags for (flags,) in rows)


def _remove_fact_message(memory: Memory) -> dict[str, Any]:
    """A user message that became a fact and one that became an event, both still in L1."""
    start = 3 * len(PAYLOADS) + 10
    memory.ingest({"msg_id": "fav", "user_id": USER, "text": "My favorite tea is zorblax.",
                   "ts": _ts(start)})
    memory.ingest({"msg_id": "trip", "user_id": USER,
                   "text": "Yesterday I hiked to the quillfen waterfall.",
                   "ts": _ts(start + 1)})
    fav = _removal(memory, "fav", "zorblax")
    trip = _removal(memory, "trip", "quillfen")
    return {"fact_message": fav, "event_message": trip,
            "left_after": fav["left_after"] + trip["left_after"]}
