# Two commands on a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 2222
HOST   ?= 0.0.0.0
SERVE_ARGS ?=

.PHONY: serve test bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall whenever pyproject.toml changes; test extras always, so one venv serves both.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

serve: $(STAMP)
	$(BIN)/truco-ssh serve --host $(HOST) --port $(PORT) $(SERVE_ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python tests/bench/run.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
