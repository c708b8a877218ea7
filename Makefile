# labcalc: `make lab` opens the notebooks, `make test` runs everything CI runs.
# Both create the virtual environment .venv on first use.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PYTEST := $(PY) -m pytest -p no:cacheprovider
# `make test` runs on one worker per core, at most 4 (pytest-xdist). --dist loadfile keeps
# every file on one worker: a notebook's cells run in order in one kernel, and a test
# module's fixtures (ns-3's warm worker, a JupyterLab server) are made once.
WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && n=4; echo $$n)

.PHONY: lab test test-browser install bench clean help

help:
	@echo "make lab    - create .venv if needed, install labcalc, open JupyterLab on notebooks/"
	@echo "make test   - create .venv if needed, install, run unit tests, doctests and nbval"
	@echo "make test-browser - only the JupyterLab-in-Chromium test (fails without Chromium)"
	@echo "make bench  - print the benchmark tables (benchmarks/*.py)"

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[all]'
	@touch $(STAMP)

install: $(STAMP)

# JupyterLab on notebooks/, opening 00-start-here.ipynb; prints the URL with its token.
lab: $(STAMP)
	$(PY) -m labcalc._lab

# Unit tests, doctests of every module and nbval replay of every notebook, in one run.
# pytest exits 5 when it collects nothing (e.g. no notebooks yet): that is not a failure,
# any other non-zero code is.
test: $(STAMP)
	@if [ ! -x /usr/bin/chromium ]; then \
	    echo "NOTE: browser test skipped: /usr/bin/chromium not found (apt-get install chromium; .ci/run does it)"; fi
	@$(PYTEST) -n $(WORKERS) --dist loadfile tests labcalc --doctest-modules \
	    $(wildcard notebooks/*.ipynb) --nbval-lax --nbval-current-env \
	    --nbval-sanitize-with tests/nbval_sanitize.cfg; \
	rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests (exit 5): nothing to run, not a failure"; exit 0; fi; \
	exit $$rc

# The JupyterLab + Chromium end-to-end test alone; here a missing browser is a failure.
test-browser: $(STAMP)
	LABCALC_REQUIRE_BROWSER=1 $(PYTEST) tests/browser -v

bench: $(STAMP)
	@for script in benchmarks/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
