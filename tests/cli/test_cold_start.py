"""Commands that need no vectors import no vector or model code (issue 18: cold start).

Each check runs the commands in a fresh interpreter, one after another in-process, and
reads ``sys.modules`` after each: chromadb, onnxruntime, tokenizers, torch,
sentence-transformers, bm25s, scipy and numpy cost 0.1-1 s each to import, so a command
that imports none of them starts in a few tenths of a second (benchmarks/cold_start.py
measures it). Structural, not timed: the figures depend on the machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memfold.config import EMBEDDER_IDENTITY, Settings, build_embedder, lazy_embedder
from memfold.memory import Memory

HEAVY = ("chromadb", "onnxruntime", "tokenizers", "torch", "sentence_transformers", "bm25s",
         "scipy", "numpy")
# Runs each command of argv[2] (a JSON list of argument lists) and prints, per command, its
# exit code and the HEAVY modules loaded so far.
RUNNER = """
import json, sys
from memfold.cli import app
heavy, report = json.loads(sys.argv[1]), []
for args in json.loads(sys.argv[2]):
    try:
        app(args, prog_name="memfold", standalone_mode=False)
        code = 0
    except SystemExit as exc:
        code = exc.code
    report.append([args, code, [name for name in heavy if name in sys.modules]])
print("\\nREPORT " + json.dumps(report))
"""
READS = [["stats"], ["stats", "--json"], ["profile", "show", "--user", "ana"],
         ["profile", "history", "--user", "ana"], ["events", "--user", "ana"],
         ["episodes", "--user", "ana"], ["semantic", "--user", "ana"], ["export"], ["--help"]]


def run_fresh(store: Path, commands: list[list[str]], *global_options: str) -> list[list]:
    argv = [["--store", str(store), *global_options, *args] for args in commands]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFOLD_")}
    env.pop("ANTHROPIC_API_KEY", None)
    done = subprocess.run([sys.executable, "-c", RUNNER, json.dumps(HEAVY), json.dumps(argv)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.rsplit("REPORT ", 1)[1])


def assert_light(report: list[list]) -> None:
    for args, code, loaded in report:
        assert code == 0, args
        assert loaded == [], f"memfold {' '.join(args)} imported {', '.join(loaded)}"


def test_reads_of_a_seeded_store_import_no_vector_or_model_code(cli) -> None:
    with cli.memory() as memory:
        fact = memory.profile("ana")[0]
    why = ["profile", "why", fact.key, "--user", "ana", "--subject", fact.subject]
    assert_light(run_fresh(cli.store, [*READS, why], "--embedder", "hashing", "--backend", "offline"))


def test_a_store_of_the_default_embedder_opens_for_reading_without_the_model(tmp_path: Path) -> None:
    store = tmp_path / "store"
    Memory.open(settings=Settings(store=store, backend="offline")).close()  # records its name
    report = run_fresh(store, [["stats", "--json"], ["profile", "show", "--user", "nobody"]],
                       "--backend", "offline")
    assert_light(report)


def test_recall_still_loads_what_it_needs(cli) -> None:
    report = run_fresh(cli.store, [["recall", "where does Ana live?", "--user", "ana"]],
                       "--embedder", "hashing", "--backend", "offline")
    [(_, code, loaded)] = report
    assert code == 0 and {"chromadb", "bm25s", "numpy"} <= set(loaded)


def test_the_names_known_without_importing_an_embedder_are_the_embedders_own() -> None:
    for setting, (name, dim) in EMBEDDER_IDENTITY.items():
        built = build_embedder(Settings(embedder=setting))  # cheap: models load on first embed
        assert (built.name, built.dim) == (name, dim), setting
        lazy = lazy_embedder(Settings(embedder=setting))
        assert (lazy.name, lazy.dim) == (name, dim) and not lazy.built  # type: ignore[attr-defined]
