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

# The two suites run side by side: each keeps about one core busy (alone on the 2-core
# machine, fast 6:16 and slow 12:27 in a row: 20:50 with the install). The fast suite's
# output is printed after the slow one's; make fails if either failed.
test: $(STAMP)
	@$(BIN)/python -m pytest -q -m "not slow" > .test-fast.log 2>&1 & fast=$$!; \
	$(BIN)/python -m pytest -q -m slow; slow=$$?; \
	wait $$fast; fastrc=$$?; echo "--- fast suite ---"; cat .test-fast.log; \
	[ $$fastrc -eq 0 ] && [ $$slow -eq 0 ]

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

bench: $(STAMP)
	$(BIN)/python -m memfold bench locomo ../shared/data/locomo/locomo-dev.json --out benchmarks/results/locomo

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
