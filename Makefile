# memfold: two commands set up a fresh machine (`make demo`) and run the tests (`make test`).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-fast test-slow install bench bench-locomo clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first, pinned to the CPU wheel: an unpinned torch pulls a multi-GB CUDA build
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/memfold demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"
	$(BIN)/python -m pytest -q -m slow

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

bench: $(STAMP)
	$(BIN)/python -m memfold bench locomo ../shared/data/locomo/locomo-dev.json --out benchmarks/results/locomo

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
