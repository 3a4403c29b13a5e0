"""An agent that manages its own memory through tools (MemGPT-style), fully offline.

The model's side is simulated: the tool_use blocks below are what Claude would send back
after seeing ``tools.schemas``; each is dispatched and its tool_result printed. With an
API key, pass ``tools.schemas`` as ``tools=`` to ``client.messages.create`` and feed every
``tool_use`` block of the reply to ``tools.dispatch`` in the same way.

    PYTHONPATH=src .venv/bin/python examples/agent_tools.py
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from memfold import Memory
from memfold.models import Message
from memfold.retrieval.tools import MemoryTools

USER = "ana"


def seed(memory: Memory) -> None:
    start = datetime.now(timezone.utc) - timedelta(days=3)
    lines = ["I just moved to Lisbon for a new job at a robotics startup.",
             "My sister Marta is visiting in June, she is vegetarian.",
             "Remind me to book a table somewhere nice for her birthday."]
    for n, text in enumerate(lines):
        memory.ingest(Message(msg_id=f"m{n}", user_id=USER, text=text, ts=start + timedelta(minutes=n)))


SIMULATED_TOOL_USES = [
    {"id": "toolu_1", "name": "memory_search", "input": {"query": "Where does Marta eat? vegetarian", "k": 3}},
    {"id": "toolu_2", "name": "profile_update",
     "input": {"action": "set", "subject": "Marta", "key": "diet", "value": "vegetarian",
               "evidence_msg_id": "m1", "reason": "stated by the user"}},
    {"id": "toolu_3", "name": "profile_update",  # no evidence: refused (hallucination filter)
     "input": {"action": "set", "key": "salary", "value": "high"}},
    {"id": "toolu_4", "name": "memory_write",
     "input": {"text": "Shortlisted two vegetarian restaurants in Lisbon for Marta's birthday.",
               "importance": 0.85}},
    {"id": "toolu_5", "name": "memory_search", "input": {"query": "restaurants for Marta's birthday"}},
]


def main() -> None:
    with Memory.in_memory() as memory:
        seed(memory)
        tools = MemoryTools(memory)
        print("tools offered to the model:", [schema["name"] for schema in tools.schemas])
        for block in SIMULATED_TOOL_USES:
            result = tools.dispatch(block["name"], block["input"], USER)
            print(f"\n> tool_use {block['name']} {json.dumps(block['input'])}")
            print(json.dumps({"type": "tool_result", "tool_use_id": block["id"], "content": result}, indent=1))
        print("\nprofile now:", [(f.subject, f.key, f.value, f.sources) for f in memory.profile(USER)])


if __name__ == "__main__":
    main()
