# Quick start: `make run` (set up, generate the default KITMUS suite, print its summary)
#              `make test` (set up, lint, type-check, run the tests)
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1

.PHONY: setup run test lint bench golden

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/refbench kitmus generate --out kitmus-suite --overwrite

lint: setup
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/mypy

test: lint
	$(BIN)/pytest -q

bench: setup
	$(BIN)/python benchmarks/kitmus_generate.py

golden: setup
	$(BIN)/python scripts/regen_golden.py
