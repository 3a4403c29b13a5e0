"""Knowledge updates on a held-out set: the newest value wins in recall, context and profile.

    .venv/bin/python benchmarks/knowledge_updates.py [--data benchmarks/data/knowledge_updates_heldout.jsonl]

The set (20 short conversations, each with an old value, distractors and a later value that
replaces it) was written on 2026-12-01 before any of the knowledge-update code was tuned,
and is never used to tune it. Each conversation is ingested into a fresh store through the
public facade (real DuckDB file, Chroma directory and the configured MiniLM embedder, the
offline router) and the baselines (BM25, dense, hybrid, recency) on the raw turns, by the
same runner as `memfold bench`. Reported per system: the newest value's turn in the prompt
at 1,000 tokens, and ranked above every turn whose value it replaced. For the cases that
name a profile key, memfold's profile must hold the new value with the changelog keeping
the old one. Writes benchmarks/results/knowledge_updates.json.

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


def conversation(case: dict[str, Any]) -> BenchConversation:
    user_id = f"ku-{case['case']}"
    messages = [Message(msg_id=t["id"], user_id=user_id, session_id=f"s{t['day']}", speaker="user",
                        role="user", text=t["text"], ts=T0 + timedelta(days=t["day"]))
                for t in case["turns"]]
    now = messages[-1].ts + timedelta(days=1)
    question = BenchQuestion(question=case["question"], user_id=user_id, evidence=[case["newest"]],
                             category="knowledge-update", now=now, newest_evidence=case["newest"],
                             replaced_evidence=case["older"])
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


def main() -> None:
    parser = argparse.ArgumentParser(description="knowledge updates on the held-out set")
    parser.add_argument("--data", type=Path, default=HERE / "data" / "knowledge_updates_heldout.jsonl")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "knowledge_updates.json")
    args = parser.parse_args()
    cases = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    settings = default_memfold_settings()
    dataset = BenchDataset(name=args.data.name, conversations=[conversation(c) for c in cases])
    results = run_dataset(dataset, default_factories(ALL_SYSTEMS, MiniLMQ8Embedder, settings),
                          ks=(1, 3), budget=1000, details=True)
    profile = [profile_check(c, settings) for c in cases if "profile" in c]
    summary = {name: s["by_category"]["knowledge-update"]["updates"] for name, s in results["systems"].items()}
    out = {"data": str(args.data), "cases": len(cases), "written": "2026-12-01, before tuning",
           "updates": summary, "profile": profile,
           "profile_holds_new_value": sum(p["holds_new_value"] for p in profile),
           "profile_changelog_keeps_old": sum(p["changelog_keeps_old"] for p in profile),
           "per_question": [{k: row.get(k) for k in ("system", "question_id", "update_in_context",
                                                     "update_ranked_first")} for row in results["details"]],
           "date": results["date"], "git_commit": results["git_commit"], "machine": results["machine"]}
    write_json(args.out, out)
    for name, block in summary.items():
        print(f"{name:8s} newest in context@1000 {block['newest_in_context']:.3f}  "
              f"newest ranked first {block['newest_ranked_first']:.3f}  (n={block['n']})")
    print(f"profile: new value held {out['profile_holds_new_value']}/{len(profile)}, "
          f"changelog keeps the old value {out['profile_changelog_keeps_old']}/{len(profile)}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
