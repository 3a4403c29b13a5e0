"""Train the fact tagger (``memfold/llm/tagger.py``): all-MiniLM-L6-v2 with low-rank adapters
and two token classification heads, on the labelled corpus.

    .venv/bin/python training/train_tagger.py              # writes src/memfold/data/fact_tagger.npz
    .venv/bin/python training/train_tagger.py --validate   # train on 85%, figures on the other 15%
    .venv/bin/python training/train_tagger.py --check      # retrain and compare with the shipped file

Data: every user statement of ``training/corpus/`` that states facts (``facts.jsonl``,
``dialog.jsonl``, ``extra/facts_*.jsonl``) or none (``none.jsonl``, ``events.jsonl``,
``extra/negatives_*.jsonl``), and the change scenarios (``updates.jsonl``,
``extra/updates_*.jsonl``: the first message labelled with the old value, the change with
the new one alone), split into the sentences the extractor reads
(``llm.facts.fact_sentences``). Each labelled fact's value is found in its sentence (the
words, or the same words by their first four letters) and marked with its key family;
its subject and its keyed family's thing are marked as SUBJ and QUAL. A statement with a
fact of a tagged family whose value is not words of the statement ("I teach yoga" labelled
``job = yoga teacher``) is left out: its words would teach the network that the value is
not there (a normalised value, "married" from "my wife", is simply not marked). The development sets dev9-dev15 of ``benchmarks/data/`` (facts and change
scenarios written by other sessions, each set by other writers) are read as more of the same;
dev16 is kept out so that it still measures the tagger, and the held-out sets are never read.

Training is seeded (torch, Python and the data order) and runs on the CPU in 2 threads:
AdamW, linear decay, batches of 16. Needs torch and transformers (installed with
sentence-transformers); the runtime needs neither. ``training/tagger.json`` records the
corpus sha256, the settings and the validation figures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from memfold.llm import facts as fact_rules
from memfold.llm import tagger as T
from memfold.llm.facts import fact_sentences
from memfold.llm.keys import slug, speaker_subject
from memfold.models import Message
from train_heads import read_jsonl  # the scripts run from training/, side by side

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "training" / "corpus"
OUT = ROOT / "src" / "memfold" / "data" / "fact_tagger.npz"
MANIFEST = ROOT / "training" / "tagger.json"
DEV_DATA = ROOT / "benchmarks" / "data"
# dev16, the newest, stays out of training so that a retrained tagger can still be read on it.
DEV_SETS = tuple(f"dev{n}" for n in range(9, 16))
FACT_FILES = ("facts.jsonl", "dialog.jsonl")
NEGATIVE_FILES = ("none.jsonl", "events.jsonl")
CORPUS_NOW = datetime(2026, 6, 15, 12, 0, tzinfo=timezone.utc)
SEED = 20261202
RANK = 16
ALPHA = 16.0
EPOCHS = 10
LEARNING_RATE = 1e-3
BATCH = 16
ADAPTED = ("attention.self.query", "attention.self.key", "attention.self.value",
           "attention.output.dense", "intermediate.dense", "output.dense")


def corpus_files() -> list[Path]:
    files = [CORPUS / name for name in (*FACT_FILES, *NEGATIVE_FILES)]
    extra = CORPUS / "extra"
    if extra.is_dir():
        files += sorted(extra.glob("facts_*.jsonl")) + sorted(extra.glob("negatives_*.jsonl"))
    return files + [DEV_DATA / f"assistant_facts_{name}.jsonl" for name in DEV_SETS]


def update_files() -> list[Path]:
    extra = CORPUS / "extra"
    return [CORPUS / "updates.jsonl", *(sorted(extra.glob("updates_*.jsonl")) if extra.is_dir() else []),
            *(DEV_DATA / f"assistant_updates_{name}.jsonl" for name in DEV_SETS)]


def statements() -> list[dict[str, Any]]:
    rows = [{**row, "facts": row.get("facts") or []} for path in corpus_files()
            for row in read_jsonl(path) if row.get("role", "user") == "user"]
    return rows + [row for path in update_files() for scenario in read_jsonl(path)
                   for row in change_statements(scenario)]


def change_statements(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    """A change scenario as two labelled statements: the first message states the old value,
    the change states the new one (and only it)."""
    def fact(value: str) -> dict[str, str]:
        key = str(scenario["key"])
        if key in T.PER_VALUE:  # written as the family alone: the key follows the value
            key = f"{key}:{slug(value)}"
        return {"subject": str(scenario["subject"]), "key": key, "value": value}

    sid = str(scenario["id"])
    out = [{"id": f"{sid}-after", "text": scenario["after"], "facts": [fact(str(scenario["new"]))]}]
    before = scenario.get("before") or []
    if before:
        out.append({"id": f"{sid}-before", "text": before[0], "facts": [fact(str(scenario["old"]))]})
    return out


def is_validation(row_id: str) -> bool:
    return int(hashlib.sha256(row_id.encode()).hexdigest(), 16) % 100 < 15


def message_of(row: dict[str, Any]) -> Message:
    return Message(msg_id=str(row["id"]), user_id="train", role="user",
                   speaker=str(row.get("speaker") or "user"), text=str(row["text"]), ts=CORPUS_NOW)


@dataclass
class Sentence:
    ids: list[int]
    values: list[int]
    roles: list[int]


def labelled_sentences(row: dict[str, Any]) -> list[Sentence] | None:
    """The statement's sentences with their word-piece labels; None when a tagged fact's
    value is not words of the statement."""
    message = message_of(row)
    speaker = speaker_subject(message)
    tagged = [f for f in row["facts"] if f["key"].split(":", 1)[0] in T.FAMILIES]
    sentences = fact_sentences(message)
    placed: set[int] = set()
    out = []
    tokenizer = T.tagger_tokenizer()
    for sentence in sentences:
        where = {n: span for n, f in enumerate(tagged)
                 if (span := T.find_span(sentence, str(f["value"]))) is not None}
        placed |= set(where)
        encoding = tokenizer.encode(sentence)
        values = T.token_labels(encoding.offsets, [(span, tagged[n]["key"].split(":", 1)[0])
                                                   for n, span in where.items()], T.VALUE_LABELS)
        roles = T.token_labels(encoding.offsets, T.role_spans(sentence, tagged, speaker, where), T.ROLE_LABELS)
        length = sum(encoding.attention_mask)
        out.append(Sentence(encoding.ids[:length], values[:length], roles[:length]))
    unplaced = [f for n, f in enumerate(tagged) if n not in placed]
    return out if all(f["key"].split(":", 1)[0] in T.NORMALISED for f in unplaced) else None


# -- the network -----------------------------------------------------------------------------


def build_network() -> Any:
    import torch
    from transformers import AutoModel

    from memfold.embed.minilm import default_model_path

    class LoRA(torch.nn.Module):
        def __init__(self, base: torch.nn.Linear) -> None:
            super().__init__()
            self.base = base
            self.lora_a = torch.nn.Parameter(torch.randn(RANK, base.in_features) * 0.01)
            self.lora_b = torch.nn.Parameter(torch.zeros(base.out_features, RANK))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.base(x) + (x @ self.lora_a.T) @ self.lora_b.T * (ALPHA / RANK)

    class Tagger(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(str(default_model_path()))
            self.value_head = torch.nn.Linear(384, len(T.VALUE_LABELS))
            self.role_head = torch.nn.Linear(384, len(T.ROLE_LABELS))

        def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            hidden = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
            return self.value_head(hidden), self.role_head(hidden)

    net = Tagger()
    for parameter in net.encoder.parameters():
        parameter.requires_grad = False
    for layer in net.encoder.encoder.layer:
        for path in ADAPTED:
            owner_path, _, leaf = path.rpartition(".")
            owner = layer.get_submodule(owner_path)
            setattr(owner, leaf, LoRA(getattr(owner, leaf)))
        for norm in (layer.attention.output.LayerNorm, layer.output.LayerNorm):
            for parameter in norm.parameters():
                parameter.requires_grad = True
    return net


def batches(data: list[Sentence], rng: random.Random) -> Any:
    import torch

    order = list(range(len(data)))
    rng.shuffle(order)
    for start in range(0, len(order), BATCH):
        chunk = [data[i] for i in order[start:start + BATCH]]
        width = max(len(s.ids) for s in chunk)
        pad = lambda seq, fill: seq + [fill] * (width - len(seq))  # noqa: E731
        yield (torch.tensor([pad(s.ids, 0) for s in chunk]),
               torch.tensor([pad([1] * len(s.ids), 0) for s in chunk]),
               torch.tensor([pad(s.values, -100) for s in chunk]),
               torch.tensor([pad(s.roles, -100) for s in chunk]))


def train(data: list[Sentence], epochs: int = EPOCHS) -> Any:
    import torch

    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    rng = random.Random(SEED)
    net = build_network()
    trainable = [p for p in net.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trainable, lr=LEARNING_RATE, weight_decay=0.01)
    steps = epochs * ((len(data) + BATCH - 1) // BATCH)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda k: max(0.0, 1 - k / steps))
    loss_of = torch.nn.CrossEntropyLoss(ignore_index=-100)
    started = time.time()
    for epoch in range(epochs):
        net.train()
        total = 0.0
        for ids, mask, values, roles in batches(data, rng):
            value_logits, role_logits = net(ids, mask)
            loss = loss_of(value_logits.reshape(-1, len(T.VALUE_LABELS)), values.reshape(-1)) + \
                loss_of(role_logits.reshape(-1, len(T.ROLE_LABELS)), roles.reshape(-1))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / max(1, len(data) / BATCH):.4f} "
              f"({time.time() - started:.0f} s)", flush=True)
    net.eval()
    return net


def trained_weights(net: Any) -> dict[str, np.ndarray]:
    """What the runtime merges into the base weights: adapters, layer norms and heads."""
    out: dict[str, np.ndarray] = {}
    for name, tensor in net.state_dict().items():
        plain = name.removeprefix("encoder.").replace(".base.", ".")
        if ".lora_" in name or "LayerNorm" in name and "encoder.layer" in name or "_head." in name:
            out[plain] = tensor.detach().numpy().astype(np.float32)
    return out


class TorchTagger:
    """The network in training, behind the runtime tagger's ``tag`` (for validation)."""

    def __init__(self, net: Any) -> None:
        self.net = net

    def tag(self, sentences: list[str], speaker: str) -> list[list[T.TaggedFact]]:
        import torch

        encodings = T.tagger_tokenizer().encode_batch(list(sentences))
        ids = torch.tensor([e.ids for e in encodings])
        mask = torch.tensor([e.attention_mask for e in encodings])
        with torch.no_grad():
            values, roles = self.net(ids, mask)
        return [T.facts_from_logits(s, e.offsets, v.numpy(), r.numpy(), speaker)
                for s, e, v, r in zip(sentences, encodings, values, roles)]


def evaluate(tagger: Any, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """End to end through ``extract_facts`` (rules, templates and ``tagger``, None: the rules
    alone): a labelled fact counts when a fact has its subject, key and value (as
    benchmarks/assistant.py compares them); a fact read from a statement of no fact is false."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from assistant import fact_found  # the benchmark's own comparison

    found = total = false = 0
    for row in rows:
        extracted, _ = fact_rules.extract_facts(message_of(row), tagger=tagger)
        kept = [f for f in extracted if f.action != "delete"]
        if row["facts"]:
            total += len(row["facts"])
            found += sum(fact_found(f, kept) for f in row["facts"])
        else:
            false += len(kept)
    negatives = sum(not row["facts"] for row in rows)
    return {"facts": total, "accuracy": round(found / max(1, total), 4),
            "negatives": negatives, "facts_read_from_negatives": false}


def corpus_digest() -> str:
    digest = hashlib.sha256()
    for path in [*corpus_files(), *update_files()]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def training_data(rows: list[dict[str, Any]]) -> tuple[list[Sentence], int]:
    data, skipped = [], 0
    for row in rows:
        labelled = labelled_sentences(row)
        if labelled is None:
            skipped += 1
        else:
            data += labelled
    return data, skipped


def save_weights(path: Path, weights: dict[str, np.ndarray]) -> None:
    np.savez_compressed(path, rank_scale=np.float32(ALPHA / RANK),
                        **{k: v.astype(np.float16) for k, v in weights.items()})


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--validate", action="store_true", help="train on 85%%, report on 15%%, write nothing")
    parser.add_argument("--check", action="store_true", help="retrain; compare with the shipped file")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--save", type=Path, default=None,
                        help="with --validate: also write the 85%% tagger's weights here (to study its errors)")
    args = parser.parse_args()
    rows = statements()
    if args.validate:
        train_rows = [r for r in rows if not is_validation(str(r["id"]))]
        data, skipped = training_data(train_rows)
        print(f"{len(train_rows)} statements, {skipped} left out, {len(data)} sentences", flush=True)
        net = train(data, args.epochs)
        val = [r for r in rows if is_validation(str(r["id"]))]
        print("rules only:", evaluate(None, val))
        print("with the tagger:", evaluate(TorchTagger(net), val))
        if args.save:
            save_weights(args.save, trained_weights(net))
        return
    data, skipped = training_data(rows)
    print(f"{len(rows)} statements, {skipped} left out, {len(data)} sentences", flush=True)
    weights = trained_weights(train(data, args.epochs))
    if args.check:
        shipped = np.load(OUT)
        same = set(shipped.files) - {"rank_scale"} == set(weights) and all(
            np.allclose(shipped[k].astype(np.float32), v.astype(np.float16).astype(np.float32), atol=2e-3)
            for k, v in weights.items())
        print("the shipped tagger matches" if same else "the shipped tagger differs from a retrain")
        sys.exit(0 if same else 1)
    save_weights(OUT, weights)
    meta = {"corpus_sha256": corpus_digest(), "statements": len(rows), "left_out": skipped,
            "sentences": len(data), "rank": RANK, "alpha": ALPHA, "epochs": args.epochs,
            "learning_rate": LEARNING_RATE, "batch": BATCH, "seed": SEED}
    MANIFEST.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KB) and {MANIFEST}")


if __name__ == "__main__":
    main()
