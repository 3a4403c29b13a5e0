"""The issue 17 hardening properties at benchmark counts (``benchmarks/reliability.py``,
rows 10-17). Each function returns the counts the README's Reliability table reports; the
tests in this directory run the same checks at small counts.

Inputs are generated here (random ids, payloads x fields, seeds); none comes from a
benchmark dataset.
"""

from __future__ import annotations

import json
import random
import re
import string
import subprocess
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

import rel_harness as h

from memfold.embed import HashingEmbedder
from memfold.errors import InvalidInputError, MemfoldError, StoreCorruptError, VectorIndexError
from memfold.memory import Memory

_WHITESPACE = " \t\u00a0\u2003\u3000\u2009\u202f\u205f\u1680"
_HIDDEN = "\u200b\u200d\u202e\u2066\ufeff\x00\x1b\u00ad"


def identity(operations: int, seed: int = 10) -> dict[str, Any]:
    """Random ids with whitespace or hidden characters around or inside: none may read or
    write the plain id's data; each is refused with an error, or stored as itself."""
    rng = random.Random(seed)
    memory = Memory.in_memory(embedder=HashingEmbedder())
    memory.ingest({"msg_id": "m0", "user_id": "alice", "text": "I live in Lisbon.", "ts": h.T0.isoformat()})
    merged = refused = stored_as_itself = 0
    for n in range(operations):
        variant = _variant(rng)
        report = memory.ingest_many([{"msg_id": f"v{n}", "user_id": variant, "text": "I moved to Porto.",
                                      "ts": h.T0.isoformat()}])
        alice_rows = memory.stats()["users"]["alice"]["messages"]
        merged += alice_rows != 1
        if report.accepted:
            stored_as_itself += unicodedata.normalize("NFC", variant) in memory.users()
        else:
            refused += 1
    memory.close()
    return {"operations": operations, "merged_into_alice": merged, "refused": refused,
            "stored_as_their_own_user": stored_as_itself}


def _variant(rng: random.Random) -> str:
    base = "alice"
    choice = rng.randrange(4)
    if choice == 0:
        return rng.choice(_WHITESPACE) + base
    if choice == 1:
        return base + rng.choice(_WHITESPACE)
    if choice == 2:
        cut = rng.randrange(1, len(base))
        return base[:cut] + rng.choice(_HIDDEN) + base[cut:]
    return base + rng.choice(string.ascii_letters)  # another user: must be stored as itself


def prompt_fields(payloads: list[str]) -> dict[str, Any]:
    """Payloads in speaker / msg_id / text: nothing of them outside a JSON string in the
    system text, no hidden character raw anywhere in the prompt."""
    json_string = re.compile(r'"(?:[^"\\]|\\.)*"')
    cases = unquoted = raw_hidden = refused = 0
    for payload in payloads:
        for field in ("speaker", "msg_id", "text"):
            cases += 1
            context = _context_with(field, payload)
            if context is None:
                refused += 1
                continue
            texts = [context.system, *(m["content"] for m in context.messages)]
            raw_hidden += any(c != "\n" and unicodedata.category(c) in {"Cc", "Cf", "Zl", "Zp"}
                              for t in texts for c in t)
            unquoted += "PWNED" in json_string.sub("", context.system)
    return {"cases": cases, "payload_outside_quotes": unquoted, "hidden_characters_raw": raw_hidden,
            "refused_at_ingest": refused}


def _context_with(field: str, payload: str) -> Any:
    memory = Memory.in_memory(embedder=HashingEmbedder())
    base = {"msg_id": "m1", "user_id": "ana", "speaker": "Ana", "text": "The PWNED wire transfer is Friday.",
            "ts": h.T0.isoformat()}
    try:
        memory.ingest({**base, field: payload if field != "text" else payload + " wire transfer"})
    except InvalidInputError:
        memory.close()
        return None
    context = memory.context("PWNED wire transfer", "ana", budget_tokens=2000)
    memory.close()
    return context


def secrets(turns: dict[str, tuple[str, list[str]]]) -> dict[str, Any]:
    """Secret-bearing turns: in the profile, L3 and the prompt (0 expected), in the raw log (all)."""
    from memfold.config import Settings

    fold = {"l1_max_turns": 4, "min_turns_before_fold": 0, "l2_max_episodes": 2}  # L3 fills up
    memory = Memory.in_memory(Settings(embedder="hashing", backend="offline", fold=fold),
                              embedder=HashingEmbedder())
    filler = ["I moved to Lisbon last spring and I really love the tram rides along the river.",
              "I work as a nurse at Santa Maria hospital, mostly night shifts in cardiology.",
              "We decided to take the train to Porto because the bus takes far too long.",
              "My sister Rita is a violinist who plays with the Gulbenkian orchestra."]
    secret = [(i, t) for i, (t, _) in turns.items()]
    rows = [r for pair in zip(secret, [(f"f{n}", t) for n, t in enumerate(filler)]) for r in pair]
    rows += secret[len(filler):]
    for msg_id, text in rows:  # one by one, as an assistant ingests turns: folds run as they go
        memory.ingest({"msg_id": msg_id, "user_id": "ana", "speaker": "Ana", "text": text,
                       "ts": h.T0.isoformat()})
    memory.fold("ana")
    values = [v for _, vs in turns.values() for v in vs]
    facts = memory.profile("ana")
    profile = " ".join(f"{f.key} {f.value}" for f in facts)
    sem = memory.semantic("ana")
    l3 = " ".join(n.text for n in [*sem.facts, *sem.patterns, *sem.history])
    prompts = " ".join(_prompt(memory, q) for q in ("password", "PIN and SSN", "card", "API key", "IBAN"))
    raw = " ".join(r["data"]["text"] for r in memory.export("ana") if r["type"] == "message")
    memory.close()
    return {"secret_values": len(values), "profile_facts": len(facts),
            "l3_items": len(sem.facts) + len(sem.patterns), "in_profile": sum(v in profile for v in values),
            "in_l3": sum(v in l3 for v in values), "in_context_or_recall": sum(v in prompts for v in values),
            "kept_in_raw_log": sum(v in raw for v in values)}


def _prompt(memory: Memory, query: str) -> str:
    context = memory.context(f"what is my {query}?", "ana", budget_tokens=2000)
    recalled = memory.recall(f"what is my {query}?", "ana").items
    return " ".join([context.system, *(m["content"] for m in context.messages),
                     *(i.text for i in context.items), *(i.text for i in recalled)])


def erasure_after_use(root: str, seeds: int) -> dict[str, Any]:
    """forget, more indexing in the same process, close: bytes of the user left anywhere."""
    from rel_erasure import FOLD, _messages

    leaks = 0
    for seed in range(seeds):
        rng = random.Random(100 + seed)
        tenants = {f"user-{rng.getrandbits(48):012x}": f"cnry{rng.getrandbits(64):016x}" for _ in range(3)}
        victim, canary = next(iter(tenants.items()))
        store = Path(root) / f"s{seed}"
        memory = Memory.open(store, h.settings(store, **FOLD))
        for user, word in tenants.items():
            memory.ingest_many(_messages(user, word, 100, rng))
        memory.forget(victim)
        for user, word in list(tenants.items())[1:]:
            memory.ingest_many([{**m, "msg_id": "n" + m["msg_id"]} for m in _messages(user, word, 60, rng)])
        memory.close()
        found = {**h.store_bytes_with(store, victim.encode()), **h.store_bytes_with(store, canary.encode())}
        leaks += any(found.values())
    return {"runs": seeds, "runs_with_bytes_left": leaks}


def corrupt_stores(root: str) -> dict[str, Any]:
    """A damaged DuckDB file acknowledges no write; a damaged Chroma file fails cleanly and
    ``reindex`` (fresh index directory) rebuilds it."""
    store = Path(root) / "db"
    _fill(store, 1200)
    path = store / "memfold.duckdb"
    data = bytearray(path.read_bytes())
    for offset in range(len(data) // 3, len(data) // 3 + 200_000, 4096):
        data[offset + 100] ^= 0xFF
    path.write_bytes(bytes(data))
    acknowledged = _writes_acknowledged(store, 20)
    index_store = Path(root) / "index"
    _fill(index_store, 200)
    sqlite = index_store / "chroma" / "chroma.sqlite3"
    sqlite.write_bytes(sqlite.read_bytes()[:4096])
    errors = [_open_error(index_store) for _ in range(5)]
    with Memory.open(index_store, h.settings(index_store), reembed=True, fresh_index=True) as memory:
        rebuilt = memory.reindex()
    return {"writes_tried_after_corruption": 20, "writes_acknowledged": acknowledged,
            "corrupt_index_open_errors": sorted(set(errors)),
            "reindex_rebuilt_vectors": rebuilt.indexed, "archive_rows": rebuilt.archive_rows}


def _fill(store: Path, count: int) -> None:
    with Memory.open(store, h.settings(store)) as memory:
        memory.ingest_many([{"msg_id": f"m{n}", "user_id": "ana", "ts": h.T0.isoformat(),
                             "text": f"I adopted a cat named Miso number {n} and " + "words " * 30}
                            for n in range(count)])
        memory.stores.db.checkpoint()  # type: ignore[attr-defined]


def _writes_acknowledged(store: Path, tries: int) -> int:
    acknowledged = 0
    for n in range(tries):
        try:
            with Memory.open(store, h.settings(store)) as memory:
                memory.ingest({"msg_id": f"w{n}", "user_id": "ana", "text": f"note {n}", "ts": h.T0.isoformat()})
            acknowledged += 1
        except StoreCorruptError:
            continue
    return acknowledged


def _open_error(store: Path) -> str:
    try:
        Memory.open(store, h.settings(store)).close()
    except VectorIndexError:
        return "VectorIndexError"
    except MemfoldError as exc:
        return type(exc).__name__
    except AttributeError:  # what chromadb's cache raised before the fix
        return "AttributeError"
    return "opened"


def terminal(root: str) -> dict[str, Any]:
    """Stored escape sequences and bidi controls: printed raw by any CLI command (0 expected)."""
    store = Path(root) / "term"
    text = "notes \x1b[31mred\x1b[0m \x1b]0;title\x07 pet:cat: [bold]x[/bold] \u202egnp \x9b2J"
    with Memory.open(store, h.settings(store)) as memory:
        memory.ingest({"msg_id": "t1", "user_id": "ana", "text": text, "ts": h.T0.isoformat()})
    raw, runs = 0, 0
    for args in (["recall", "notes", "--user", "ana"], ["search", "notes", "--user", "ana"],
                 ["context", "notes", "--user", "ana"], ["export", "--user", "ana"],
                 ["recall", "notes", "--user", "ana", "--json"]):
        result = subprocess.run([sys.executable, "-m", "memfold", "--store", str(store), "--embedder",
                                 "hashing", "--backend", "offline", *args],
                                capture_output=True, text=True, timeout=120)
        runs += 1
        raw += any(c in result.stdout for c in "\x1b\x07\u202e\x9b")
    return {"commands": runs, "commands_printing_control_characters": raw}


def reference_content(payloads: list[str], user_turns: list[str]) -> dict[str, Any]:
    """Payloads as tool output and as documents among user turns, folded into L2 and L3:
    how many reach an L2 note/decision or an L3 item (0 expected)."""
    promoted = notes_seen = 0
    for role in ("tool", "document"):
        memory = Memory.in_memory(embedder=HashingEmbedder())
        turns, n = [], 0
        for payload in payloads:
            for text in [*user_turns[:2], payload]:
                is_payload = text is payload
                turns.append({"msg_id": f"t{n}", "user_id": "ana", "role": role if is_payload else "user",
                              "speaker": "web" if is_payload else "Ana", "text": text,
                              "ts": h.T0.isoformat()})
                n += 1
        memory.ingest_many(turns)
        memory.fold("ana")
        state = memory.fold_state("ana")
        memory.close()
        texts = [n.text for e in state.episodes for n in e.notes]
        texts += [d.decision for e in state.episodes for d in e.decisions]
        sem = state.semantic
        texts += [x.text for x in [*sem.facts, *sem.patterns, *sem.history]] + [d.decision for d in sem.decisions]
        promoted += sum(any(p[:30] in t for t in texts) for p in payloads)
        notes_seen += len(texts)
    # notes_seen > 0 shows the folds ran (a zero above would otherwise prove nothing)
    return {"payloads": len(payloads), "roles": 2, "reached_l2_or_l3": promoted,
            "l2_l3_items_written": notes_seen}


def sql_limits(root: str) -> dict[str, Any]:
    """File-reading table functions on the store's own files, several statements, a long
    query and a memory bomb through ``memfold sql``'s function: all refused or stopped."""
    from memfold.stores.sql import run_readonly_sql

    store = Path(root) / "sql"
    _fill(store, 50)
    db = store / "memfold.duckdb"
    hostile = [f"SELECT * FROM read_blob('{db}')", f"SELECT * FROM read_text('{db}.wal')",
               f"SELECT * FROM read_csv_auto('{db}')", f"SELECT * FROM glob('{store}/*')",
               "SELECT 1; SELECT 2", "PRAGMA database_size", "SELECT * FROM query_table('messages')",
               f"WITH x AS (SELECT * FROM read_blob('{db}')) SELECT 1"]
    refused = sum(_refused(lambda q=q: run_readonly_sql(db, q)) for q in hostile)
    started = time.perf_counter()
    stopped = _refused(lambda: run_readonly_sql(db, "SELECT sum(range) FROM range(100000000000)",
                                                timeout_s=1.0))
    stop_seconds = round(time.perf_counter() - started, 2)
    capped = _refused(lambda: run_readonly_sql(db, "SELECT * FROM range(60000000) ORDER BY random()",
                                               memory_limit="64MB"))
    return {"hostile_queries": len(hostile), "refused": refused, "timeout_1s_stopped": stopped,
            "timeout_stop_seconds": stop_seconds, "memory_cap_64mb_stopped": capped}


def _refused(call: Any) -> bool:
    try:
        call()
    except InvalidInputError:
        return True
    return False


def bad_values(batches: int, seed: int = 17) -> dict[str, Any]:
    """Batches mixing good messages with timestamps anywhere in years 1-9999 (any offset)
    and relative dates: batches aborted by an exception (0 expected), good messages lost."""
    rng = random.Random(seed)
    phrases = ["Yesterday I ran a marathon.", "Two years ago I moved to Porto.", "Next week I fly to Rome.",
               "Last month I started a new job.", "Tomorrow at 9 I see the dentist.", "A decade ago I lived in Leeds."]
    aborted = lost = total = 0
    for batch in range(batches):
        memory = Memory.in_memory(embedder=HashingEmbedder())
        messages = [{"msg_id": f"b{n}", "user_id": "ana", "text": rng.choice(phrases),
                     "ts": f"{rng.randint(1, 9999):04d}-{rng.randint(1, 12):02d}-01T00:00:00"
                           f"{rng.choice(['+14:00', '-12:00', 'Z', '+05:30'])}"} for n in range(8)]
        messages.append({"msg_id": "good", "user_id": "ana", "text": "I like tea.", "ts": h.T0.isoformat()})
        total += len(messages)
        try:
            memory.ingest_many(messages)
        except (ValueError, OverflowError, ArithmeticError):
            aborted += 1
            continue
        finally:
            stored = {r["data"]["msg_id"] for r in memory.export("ana") if r["type"] == "message"}
            memory.close()
        lost += "good" not in stored
    return {"batches": batches, "messages": total, "batches_aborted": aborted, "good_messages_lost": lost}
