# Two commands on a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 2222
HOST   ?= 0.0.0.0
SERVE_ARGS ?=

.PHONY: serve test check bench chaos install clean fuse

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall whenever pyproject.toml changes; test extras always, so one venv serves both.
# uv installs the same packages in well under half pip's time (a fresh clone: 23 s with pip,
# 14 s with uv, bytecode compiled, nothing cached); pip does it where uv cannot be had.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet uv && \
	  $(BIN)/python -m uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[test]' || \
	  $(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

serve: $(STAMP)
	$(BIN)/truco-ssh serve --host $(HOST) --port $(PORT) $(SERVE_ARGS)

# The suite spreads over the cores with pytest-xdist. Part of a test's time is spent waiting
# (for a server, an SSH round trip, a screen), so three workers a core keep the cores busy;
# more only contend for them (a fresh clone on 2 cores, 2026-12-07: 4 workers 357 s, 6
# workers 320 s, 8 workers 349 s, the CPU 636 s with 6 and 710 s with 8); each takes the
# ports of its servers from a block of its own (tests/ports.py). Python writes its bytecode
# here even where the environment says not to (PYTHONDONTWRITEBYTECODE): every worker and every server
# a test starts would compile the whole project again (measured: collection 6.9 -> 2.9 s of
# CPU per worker, a server's start 1.3 -> 0.6 s).
TEST_WORKERS ?= $(shell n=$$(( $$(nproc) * 3 )); [ $$n -gt 24 ] && n=24; echo $$n)
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q

# No test measures time (a bound on time would measure the machine's other load as well):
# `make bench` does, so the whole suite runs in one parallel stage.
# The power cuts of the chaos tests need FUSE (tests/chaos/lazyfs.py, a filesystem that loses
# what was not synced): Debian's fuse3, installed here when it is missing and make runs as root
# (as CI does). Elsewhere those tests say why they are skipped.
fuse:
	@if ! ldconfig -p 2>/dev/null | grep -q 'libfuse3\.so\.3'; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing fuse3 (the chaos tests' power-cut filesystem)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fuse3 >/dev/null; \
	  else echo "make: libfuse3 is missing (apt-get install fuse3): the power-cut tests are skipped"; fi; \
	fi

# Before the workers start, two processes collect the suite once between them: pytest
# rewrites each test module's asserts and keeps the result (tests/**/__pycache__), and the
# i18n tests keep the keys they parse from the sources (.pytest_cache). On a clean checkout
# every worker did both itself, all at once: 7 s more CPU each (measured with cProfile on
# `pytest --collect-only`: 11 s cold, 4 s warm), a minute of the suite's CPU.
WARM_A := tests/tui tests/e2e tests/protocol
WARM_B := tests/server tests/engine tests/cluster tests/chaos $(wildcard tests/test_*.py)
test: $(STAMP) fuse
	@# (what fails to collect here is reported by the run itself, below)
	@$(PYTEST) --collect-only $(WARM_A) >/dev/null 2>&1 & $(PYTEST) --collect-only $(WARM_B) >/dev/null 2>&1; wait
	$(PYTEST) -n $(TEST_WORKERS) --dist worksteal

# The fast inner loop: the engine, the protocol and the server's unit tests (no SSH, no
# subprocesses, nothing marked slow). They keep the cores busy: one worker a core.
check: $(STAMP)
	$(PYTEST) -n $(shell nproc) --dist worksteal -m "not e2e and not slow" tests/engine tests/protocol tests/server

# The benches' and the chaos harness's own SSH clients import asyncssh, which names
# cryptography's deprecated DSA (server/__init__.py silences it for the server): not on the
# terminal of someone reading the figures.
QUIET := PYTHONWARNINGS="ignore:DSA is deprecated"

bench: $(STAMP)
	$(QUIET) $(BIN)/python tests/bench/run.py

# The bots' strength (issue 36): every pairing in every game at 2, 4 and 6 players over
# duplicate deals, with 95% intervals, CPU per decision, the targets and the never-peek
# check's count; one process a core, ended within BENCH_BOTS_MINUTES (tests/bench/bench_bots.py).
BENCH_BOTS_MINUTES ?= 25
.PHONY: bench-bots
bench-bots: $(STAMP)
	$(QUIET) $(BIN)/python tests/bench/bench_bots.py --minutes $(BENCH_BOTS_MINUTES)

# Faults (NATS nodes and serve processes killed, paused, their power cut) injected into a
# playing 3-node cluster and into a server on SQLite, the history checked
# (tests/chaos/harness.py): 100 faults shared between the two, at most 10 minutes. `make test`
# runs a short one of each (tests/chaos/test_chaos.py).
chaos: $(STAMP) fuse
	$(QUIET) $(BIN)/python -m tests.chaos.harness --faults 100 --budget 600

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
