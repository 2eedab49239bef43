# Two commands on a fresh machine: `make demo` and `make test`. Each builds .venv itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The benchmark data: $MATHPROBE_DATA_DIR if set, else this workplace's shared copy beside the
# checkout (../shared/data), else the workplace's fixed location (for clones made elsewhere).
MATHPROBE_DATA_DIR ?= $(abspath $(firstword $(wildcard ../shared/data /work/shared/data) ../shared/data))
export MATHPROBE_DATA_DIR

.PHONY: install demo test test-fast lint bench clean postgres chromium

# PostgreSQL server binaries for the DuckLake / Prefect-on-PostgreSQL tests (deploy/postgres.sh
# starts a server of their own): Debian's `postgresql` package, installed when none is there.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
postgres:
	@ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1 || \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	      --no-install-recommends postgresql >/dev/null; }

# The HTML report is tested in a real browser: Debian's chromium, driven by playwright (never
# `playwright install`, which downloads). Installed when it is not there.
chromium:
	@test -x /usr/bin/chromium || \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	      --no-install-recommends chromium >/dev/null; }

# The core install (`pip install mathprobe`: baseline runs, store, report, compare, deploy) for
# the demo; the test suite adds every extra (the model SDKs, the HTML report, DuckLake stores,
# .xlsx imports, the ROUGE probe, Triton, data selection) and its tools.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e .
	touch $(STAMP)

$(STAMP)-test: $(STAMP)
	$(BIN)/pip install -q -c constraints.txt -e '.[test,openai,anthropic,html,lake,xlsx,rouge,triton,select]'
	touch $(STAMP)-test

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/mathprobe demo
	@echo "mathprobe is installed in $(VENV): 'source $(VENV)/bin/activate' puts it on PATH as 'mathprobe'."

# The lint (ruff, as pyproject.toml declares it) over every folder of code, then the type check
# (mypy over the library, flows and tasks at the strictness pyproject.toml's [tool.mypy]
# declares), before the tests.
LINTED := mathprobe flows tasks tests perf triton_models deploy
lint: $(STAMP)-test
	$(BIN)/ruff check -q $(LINTED)
	$(BIN)/mypy

test: lint postgres chromium
	$(BIN)/python -m pytest -q -n 2

# The inner loop: every test but those needing PostgreSQL, a browser, tritonserver, a wheel
# build or a real Prefect server (their markers, tests/conftest.py); `make test` runs them all.
FAST := not (postgres or browser or triton or wheel or server)
test-fast: lint
	$(BIN)/python -m pytest -q -n 2 -m "$(FAST)"

# The speed scripts (perf/), each printing its figures, at sizes that keep the whole under about
# 15 minutes on this workplace's 2-core machines; each script's own defaults are the full
# measurements of docs/performance.md (`python perf/<script>.py --help`).
# On a loaded machine Prefect's temporary server can take longer than its 20 s to start
# (fanout.py and startup.py start one): wait for it rather than fail.
bench: export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS ?= 120
bench: $(STAMP)-test postgres
	$(BIN)/python perf/cmmath_rules.py
	$(BIN)/python perf/wemath_views.py --runs 50 --repeat 3
	$(BIN)/python perf/report_build.py --runs 50 --repeat 3
	$(BIN)/python perf/thumbnails.py --repeat 1
	$(BIN)/python perf/views.py --scale 0.2 --repeat 3
	$(BIN)/python perf/lake.py --rows 1000 --runs 20 --repeat 3
	$(BIN)/python perf/cli_errors.py --repeat 1
	$(BIN)/python perf/global_limit.py
	$(BIN)/python perf/fanout.py --repeat 1
	$(BIN)/python perf/kill_loss.py --concurrency 16 128 512 --repeat 1
	$(BIN)/python perf/startup.py --repeat 1
	$(BIN)/python perf/adaptive.py --repeat 1
	$(BIN)/python perf/select_data.py --docs 50000
	$(BIN)/python perf/samples.py --samples 8 --repeat 3
	@echo "skipped perf/triton_grpc.py: it starts tritonserver (the triton extra) on a model it builds;"
	@echo "  on CPU: python perf/triton_grpc.py [--requests 200]; for a GPU machine:"
	@echo "  --write-requests DIR here, then --requests-file DIR/requests.jsonl --device cuda there"
	@echo "skipped mathprobe beside inspect_ai (perf/inspect_wemath.py): it needs inspect-ai in a"
	@echo "  virtualenv of its own: python perf/startup.py --inspect VENV/bin --only-side-by-side"
	@echo "skipped perf/install_size.py: it builds the wheel, installs it twice into fresh"
	@echo "  virtualenvs (5-10 min) and writes the README's install figure: python perf/install_size.py"

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
