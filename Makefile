# Carom scoreboard: the two set-up commands are `make sim` and `make test`.
# Each creates .venv and installs what it needs by itself.

VENV := .venv

# Python writes its bytecode cache for the tests and the `carom` processes they start: an
# environment that sets PYTHONDONTWRITEBYTECODE (some CI images do) made every pytest worker and
# every subprocess compile the project again (15-20 s of collection a run under load).
unexport PYTHONDONTWRITEBYTECODE
PY := $(VENV)/bin/python
MPY := $(VENV)/bin/micropython

.PHONY: sim test check lint test-cpython test-micropython bench docs pictures venv clean

venv: $(VENV)/.stamp

$(VENV)/.stamp: pyproject.toml tools/venv.sh
	sh tools/venv.sh

# The main job: the simulator page at http://$(SIM_LISTEN) (Ctrl-C stops it).
# make sim SIM_LISTEN=127.0.0.1:9000 SIM_ARGS="--boards 2 --flash sim-flash"
SIM_LISTEN ?= 127.0.0.1:8080
SIM_ARGS ?=
sim: venv
	$(VENV)/bin/carom sim --listen $(SIM_LISTEN) $(SIM_ARGS)

# make test: the MicroPython runs beside pytest (tools/test.sh), pytest in TEST_JOBS workers
# (pytest-xdist; 0: one process). About half of the host tests' time is spent waiting in real time
# (brokers, keepalives, boards that follow the wall clock), so more workers than cores pay.
TEST_JOBS ?= 4

test: lint
	sh tools/deps.sh
	MAKE="$(MAKE)" sh tools/test.sh

test-cpython: venv
	$(PY) -m pytest -n $(TEST_JOBS) -m "not alone"
	$(PY) -m pytest -m alone

# The house's style, checked as the tools we model ourselves on check theirs (pyproject.toml holds
# the settings): ruff's formatter and linter (pycodestyle, pyflakes, complexity at most 15) and
# codespell. `ruff format .` and `ruff check --fix .` fix most of what it finds.
lint: venv
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/codespell

# Before each commit, in about a minute: the lint, the firmware tests on CPython, and the host
# tests that need no broker, browser or board running in real time (a few seconds a file).
# make test runs them all.
CHECK_HOST := bench_figures bigdigits board_e2e boards_host card chiptime config_fuzz docs_site docs_reference firmware_names hardware_parts \
	hardware_wiring ht16k33_oracle web_server web_server_hostile input_times packaging radio_fuzz \
	rules_properties scripted segments shortnames store_fuzz tournament vboard_board vboard_chip \
	vboard_probe vboard_radio wall_clock speech_vboard

check: lint
	$(PY) -m pytest -q -n 2 tests/fw $(patsubst %,tests/host/test_%.py,$(CHECK_HOST))

# The firmware's own tests on the real MicroPython unix port, 64-bit (PyPI) and 32-bit
# (4-byte objects and 31-bit small ints, like the ESP32: CAROM_MICROPYTHON32, else
# ../shared/tools/micropython32/micropython); without the 32-bit one, one line says so.
MPY32 := $(or $(CAROM_MICROPYTHON32),../shared/tools/micropython32/micropython)

test-micropython: venv
	$(MPY) -X heapsize=8M tests/mp_runner.py tests/fw
	@if [ -x "$(MPY32)" ]; then \
		echo "$(MPY32) -X heapsize=8M tests/mp_runner.py tests/fw"; \
		"$(MPY32)" -X heapsize=8M tests/mp_runner.py tests/fw; \
	else \
		echo "carom: SKIPPED the firmware tests on the 32-bit MicroPython: none at $(MPY32) (set CAROM_MICROPYTHON32)"; \
	fi

bench: venv
	$(PY) -m tools.bench

# The documentation site (mkdocs.yml): the generated pages written again (each board's page and
# files in docs/build/boards/ from boards/*.json, the reference in docs/reference/ from the code),
# then the site built offline into build/site/ in strict mode: a broken link or a warning fails it.
# Run it after editing a board, a command's options or a config key; a test fails until you do.
docs: venv
	sh tools/deps.sh
	$(VENV)/bin/carom board docs
	$(PY) -m tools.docs_reference
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
	@echo "carom: the site is in build/site/ (open build/site/index.html)"

# Every picture of the docs: the drawings made from the board definitions (each board's wiring,
# the bigger digits' buffer stage: carom board docs), then the screenshots in docs/pictures/, taken
# in Chromium from the running software (tools/pictures.py: carom sim, carom hall with a mosquitto
# and boards of its own, carom report), each from a scripted match: the same picture every run.
# make pictures PICTURES="simulator report" makes only those screenshots.
PICTURES ?=
pictures: venv
	sh tools/deps.sh
	$(VENV)/bin/carom board docs
	$(PY) -m tools.pictures $(PICTURES)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
