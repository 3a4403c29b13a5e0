"""Long documents get progressive layers at ingest; context() picks a layer that fits."""

from __future__ import annotations

from .conftest import msg


def _report() -> str:
    parts = []
    for i in range(120):
        parts.append(f"In quarter {i % 4 + 1} the Orion division shipped {1000 + i * 7} units to Kestrel Labs. "
                     f"Routine note number {i} about the weather and the office plants.")
    return " ".join(parts)


def test_long_document_gets_layers_and_context_stays_in_budget(memory):
    text = _report()
    memory.ingest(msg("doc1", text, role="document"))
    layers = sorted(c.layer for c in memory.stores.documents.get("ana", "doc1") if c.layer > 1)
    assert layers == [2, 3, 4]
    for chunk in memory.stores.documents.get("ana", "doc1"):
        if chunk.layer > 1:
            # extractive: every layer's text is made of the document's own sentences
            for sentence in chunk.text.splitlines():
                assert sentence.strip() and sentence.strip() in text
    ctx = memory.context("How many units did Orion ship to Kestrel Labs?", "ana", budget_tokens=300)
    assert ctx.tokens <= 300
    assert "doc1" in ctx.sources()


def test_short_document_is_not_layered(memory):
    memory.ingest(msg("doc2", "Packing list: boots, rain jacket, headlamp.", role="document"))
    assert all(c.layer == 1 for c in memory.stores.documents.get("ana", "doc2"))
