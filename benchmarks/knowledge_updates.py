"""Knowledge updates on a held-out set: the newest value wins in recall, context and profile.

    .venv/bin/python benchmarks/knowledge_updates.py [--data FILE ...]

Three held-out sets, all run by default, none ever used to tune:

* ``knowledge_updates_heldout.jsonl``: 20 short conversations, each with an old value,
  distractors and a later value that replaces it (written 2026-12-01, before any of the
  knowledge-update code was tuned); results in ``results/knowledge_updates.json``;
* ``knowledge_updates_heldout2.jsonl``: 35 longer assistant-style conversations (user turns
  and assistant replies that echo the old value; written 2026-12-01 before tuning the
  supersession links): 27 updates phrased with few of the question's words (amounts,
  places, people, dates changing) and 8 non-updates, where a later statement on a nearby
  topic (a sibling's city, a son's allergy, a half-marathon time) must *not* rank above the
  older statement that answers the question (category ``non-update``: the answer's turn
  counts as "newest", the later look-alike as "replaced"); ``results/knowledge_updates_heldout2.json``;
* ``knowledge_updates_heldout3.jsonl``: 40 assistant conversations (30 updates, 10
  non-updates) written 2026-12-02 00:45-00:49 UTC by a separate session that saw no code and
  no other data, before the statement links were written; ``results/knowledge_updates_heldout3.json``.

The statement links were tuned on ``training/corpus/update_conversations.jsonl`` (60 development
conversations of the same kind, written 2026-12-02 for tuning); pass it with ``--data`` to see
the development figure.

Each conversation is ingested into a fresh store through the public facade (real DuckDB file, Chroma directory and the configured MiniLM embedder, the
offline router) and the baselines (BM25, dense, hybrid, recency) on the raw turns, by the
same runner as `memfold bench`. Reported per system: the newest value's turn in the prompt
at 1,000 tokens, and ranked above every turn whose value it replaced. For the cases that
name a profile key, memfold's profile must hold the new value with the changelog keeping
the old one.

Caveat: these are short synthetic-style turns written by us, not real transcripts; the
LongMemEval knowledge-update questions (`memfold bench longmemeval`) are the realistic check.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from memfold import Memory
from memfold.bench.api import default_memfold_settings, run_dataset
from memfold.bench.dataset import BenchConversation, BenchDataset, BenchQuestion
from memfold.bench.report import write_json
from memfold.bench.systems import ALL_SYSTEMS, default_factories
from memfold.embed import MiniLMQ8Embedder
from memfold.models import Message

HERE = Path(__file__).parent
T0 = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)


def messages_of(case: dict[str, Any], user_id: str) -> list[Message]:
    """One session a day; turns of one day a minute apart (the first set has one turn a day)."""
    messages: list[Message] = []
    for turn in case["turns"]:
        role = turn.get("role", "user")
        minute = sum(1 for m in messages if m.session_id == f"s{turn['day']}")
        messages.append(Message(msg_id=turn["id"], user_id=user_id, session_id=f"s{turn['day']}",
                                speaker=role, role=role, text=turn["text"],
                                ts=T0 + timedelta(days=turn["day"], minutes=minute)))
    return messages


def conversation(case: dict[str, Any]) -> BenchConversation:
    """An update asks for the newest value over the older ones; a non-update asks for an
    older answer over a later look-alike (scored the same way, its own category)."""
    user_id = f"ku-{case['case']}"
    messages = messages_of(case, user_id)
    now = messages[-1].ts + timedelta(days=1)
    update = case.get("kind", "update") == "update"
    first, below = (case["newest"], case["older"]) if update else (case["answer"], case["later"])
    question = BenchQuestion(question=case["question"], user_id=user_id, evidence=[first],
                             category="knowledge-update" if update else "non-update", now=now,
                             newest_evidence=first, replaced_evidence=below)
    return BenchConversation(user_id=user_id, messages=messages, questions=[question])


def profile_check(case: dict[str, Any], settings: Any) -> dict[str, Any]:
    """The profile holds the new value and the changelog keeps the old one."""
    conv = conversation(case)
    key, wanted = case["profile"]["key"], case["profile"]["value"].lower()
    with tempfile.TemporaryDirectory(prefix="memfold-ku-") as workdir:
        memory = Memory.open(Path(workdir) / "store", settings)
        try:
            memory.ingest_many(conv.messages)
            facts = {f.key: f.value for f in memory.profile(conv.user_id, subject="user")}
            history = memory.profile_history(conv.user_id, subject="user", key=key)
        finally:
            memory.close()
    values = [v for change in history for v in (change.old_value, change.new_value) if v]
    return {"case": case["case"], "key": key, "value": facts.get(key),
            "holds_new_value": wanted in (facts.get(key) or "").lower(),
            "changelog_values": values, "changelog_keeps_old": len(set(values)) >= 2}


SETS = {"knowledge_updates_heldout.jsonl": "knowledge_updates.json",
        "knowledge_updates_heldout2.jsonl": "knowledge_updates_heldout2.json",
        "knowledge_updates_heldout3.jsonl": "knowledge_updates_heldout3.json"}


WRITTEN = {"knowledge_updates_heldout.jsonl": "2026-12-01, before tuning",
           "knowledge_updates_heldout2.jsonl": "2026-12-01, before tuning",
           "knowledge_updates_heldout3.jsonl": "2026-12-02 00:45-00:49 UTC, before tuning"}


def run_set(data: Path, out: Path, settings: Any) -> None:
    cases = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    dataset = BenchDataset(name=data.name, conversations=[conversation(c) for c in cases])
    results = run_dataset(dataset, default_factories(ALL_SYSTEMS, MiniLMQ8Embedder, settings),
                          ks=(1, 3), budget=1000, details=True)
    profile = [profile_check(c, settings) for c in cases if "profile" in c]
    summary = {name: {category: block["updates"] for category, block in s["by_category"].items()
                      if "updates" in block} for name, s in results["systems"].items()}
    out_json = {"data": str(data), "cases": len(cases), "written": WRITTEN.get(data.name, "development set"),
                "updates": summary, "profile": profile,
                "profile_holds_new_value": sum(p["holds_new_value"] for p in profile),
                "profile_changelog_keeps_old": sum(p["changelog_keeps_old"] for p in profile),
                "per_question": [{k: row.get(k) for k in ("system", "question_id", "category", "update_in_context",
                                                          "update_ranked_first")} for row in results["details"]],
                "date": results["date"], "git_commit": results["git_commit"], "machine": results["machine"]}
    write_json(out, out_json)
    print(data.name)
    for name, blocks in summary.items():
        for category, block in blocks.items():
            print(f"  {name:8s} {category:16s} in context@1000 {block['newest_in_context']:.3f}  "
                  f"ranked first {block['newest_ranked_first']:.3f}  (n={block['n']})")
    print(f"  profile: new value held {out_json['profile_holds_new_value']}/{len(profile)}, "
          f"changelog keeps the old value {out_json['profile_changelog_keeps_old']}/{len(profile)}; wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description="knowledge updates on the held-out sets")
    parser.add_argument("--data", type=Path, nargs="+", default=[HERE / "data" / name for name in SETS])
    parser.add_argument("--out-dir", type=Path, default=HERE / "results")
    args = parser.parse_args()
    settings = default_memfold_settings()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for data in args.data:
        run_set(data, args.out_dir / SETS.get(data.name, f"{data.stem}.json"), settings)


if __name__ == "__main__":
    main()
