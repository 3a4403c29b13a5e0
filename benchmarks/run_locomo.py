"""Thin wrapper: the LoCoMo benchmark without the memfold CLI entry point.

    .venv/bin/python benchmarks/run_locomo.py /path/to/locomo10.json --out benchmarks/results/locomo

Same options as ``memfold bench locomo`` (see ``--help``); the code is memfold.bench.
"""

from __future__ import annotations

import sys

from memfold.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "bench", "locomo", *sys.argv[1:]]
    main()
