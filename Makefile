# Two commands on a fresh machine: `make demo` and `make test`. Each builds .venv itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The benchmark data: $MATHPROBE_DATA_DIR if set, else this workplace's shared copy beside the
# checkout (../shared/data), else the workplace's fixed location (for clones made elsewhere).
MATHPROBE_DATA_DIR ?= $(abspath $(firstword $(wildcard ../shared/data /work/shared/data) ../shared/data))
export MATHPROBE_DATA_DIR

# The HTML report is tested in a real browser: Debian's chromium, driven by playwright (never
# `playwright install`, which downloads). Installed once; a no-op when it is already there.
CHROMIUM := /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: install demo test bench clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/mathprobe demo

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium

test: $(STAMP) $(CHROMIUM)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/wemath_views.py
	$(BIN)/python benchmarks/report_build.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
