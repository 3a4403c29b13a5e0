"""The demo: a shipped multi-session personal-assistant transcript, ingested and queried.

Run with ``memfold demo`` (or ``make demo``). It prints what was routed where, the
profile with its changelog, the event log, and the answers to a few recall questions
with the ids of the messages they come from.
"""

from __future__ import annotations

import tempfile
from datetime import datetime
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.table import Table

from memfold.models import Message

DEMO_USER = "maya"
QUESTIONS: list[tuple[str, str | None]] = [
    ("Where does Maya live now?", None),
    ("What does Maya eat? Any dietary restrictions or allergies?", None),
    ("What did Maya do last week?", "2026-03-20T12:00:00+00:00"),
    ("What should be packed for the Azores trip?", None),
    ("What is the dog called and who looks after him during the trip?", None),
    ("How much budget did the council approve for the park?", None),
]


def demo_messages() -> list[Message]:
    text = resources.files("memfold").joinpath("data/demo_transcript.jsonl").read_text(encoding="utf-8")
    return [Message.model_validate_json(line) for line in text.splitlines() if line.strip()]


def run_demo(store: Path | None = None, console: Console | None = None) -> None:
    from memfold.memory import Memory

    console = console or Console()
    with tempfile.TemporaryDirectory(prefix="memfold-demo-") as tmp:
        path = store or Path(tmp) / "store"
        with Memory.open(path) as memory:
            _ingest(memory, console)
            _show_profile(memory, console)
            _show_events(memory, console)
            _ask(memory, console)
        console.print(f"\nstore: {path}" + ("" if store else " (temporary, removed)"))


def _ingest(memory: object, console: Console) -> None:
    table = Table(title="Routing (every message also stays in the conversation log)")
    for column in ("msg", "role", "routed to", "what was written", "text"):
        table.add_column(column, overflow="fold")
    store_of = {"FACT": "profile KV", "EVENT": "event log", "DOCUMENT": "vector archive", "NONE": "log only"}
    for message in demo_messages():
        decision = memory.ingest(message)  # type: ignore[attr-defined]
        written = "; ".join(f"{f.subject}.{f.key}={f.value}" for f in decision.facts)
        if decision.event:
            written = f"{decision.event.occurred_at:%Y-%m-%d}: {decision.event.text}"
        table.add_row(message.msg_id, message.role, f"{decision.kind} -> {store_of[decision.kind]}",
                      written, message.text[:70])
    console.print(table)


def _show_profile(memory: object, console: Console) -> None:
    table = Table(title=f"Profile of {DEMO_USER}")
    for column in ("subject", "key", "value", "sources"):
        table.add_column(column)
    for fact in memory.profile(DEMO_USER):  # type: ignore[attr-defined]
        table.add_row(fact.subject, fact.key, fact.value, ", ".join(fact.sources))
    console.print(table)
    changes = [c for c in memory.profile_history(DEMO_USER) if c.action != "add"]  # type: ignore[attr-defined]
    for change in changes:
        console.print(f"  changelog: {change.changed_at:%Y-%m-%d} {change.subject}.{change.key}: "
                      f"{change.old_value!r} -> {change.new_value!r} (evidence {', '.join(change.sources)})")


def _show_events(memory: object, console: Console) -> None:
    table = Table(title=f"Event log of {DEMO_USER}")
    for column in ("when", "subject", "event", "sources"):
        table.add_column(column, overflow="fold")
    for event in memory.events(DEMO_USER):  # type: ignore[attr-defined]
        table.add_row(f"{event.occurred_at:%Y-%m-%d}", event.subject, event.text, ", ".join(event.sources))
    console.print(table)


def _ask(memory: object, console: Console) -> None:
    for question, now in QUESTIONS:
        when = datetime.fromisoformat(now) if now else None
        result = memory.recall(question, DEMO_USER, now=when, k=3)  # type: ignore[attr-defined]
        intents = ", ".join(f"{name} {weight:.2f}" for name, weight in result.intents.items())
        console.print(f"\n[bold]Q: {question}[/]  [dim](intent: {intents})[/]")
        for item in result.items:
            console.print(f"  [{item.store}] {item.text}  [dim]<- {', '.join(item.sources)}[/]",
                          highlight=False)
