# QML Studio: `make run` installs everything and starts the product on its embedded default;
# `make test` installs what the tests need and runs every suite. Installs are skipped while their
# lockfiles are unchanged (stamps in .stamps/).
SHELL := /bin/bash
.DEFAULT_GOAL := run
# Independent steps run side by side: npm ci beside the Python venv, the web build beside the venv and the
# brain tumor sample. Not --output-sync: it would hold back the server's own output under `make run`.
MAKEFLAGS += --jobs=3
STAMPS := .stamps
# Python's bytecode cache stays on for everything make starts (this machine's environment turns it off):
# without it every worker process compiles numpy, scikit-learn, torch and qiskit again, 14 s of imports
# here against 5.6 s once the venv's __pycache__ is written.
unexport PYTHONDONTWRITEBYTECODE
VENV := worker/.venv
PYTHON ?= python3
# This machine keeps the CPU build of torch in a local wheel directory; use it when present.
PIP_FLAGS := --disable-pip-version-check $(if $(wildcard /opt/wheels),--find-links /opt/wheels,)
# The web build also runs the Vite plugins in codegen/ (precompression, the browser build without ajv's compiler).
WEB_SOURCES := $(shell find src schemas -type f 2>/dev/null) index.html vite.config.ts $(wildcard codegen/browser-without-ajv.ts codegen/precompress-assets.ts)

.PHONY: run dev test install build worker-venv chromium clean lint typecheck

$(STAMPS)/node: package.json package-lock.json
	@mkdir -p $(STAMPS)
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The venv is installed with uv (pinned; bootstrapped into .stamps/uv by pip, or UV=/path/to/uv): it downloads
# and installs the lock's wheels side by side, and keeps them in its cache (~/.cache/uv) for the next clone.
# Measured in a fresh venv at load ~15: pip 589 s wall (60 s CPU), uv 49 s with an empty cache, 8 s with a
# warm one; the same 90 packages (pip freeze identical, torch 2.13.0+cpu from /opt/wheels, pip check clean).
# uv reads neither pip.conf nor PIP_*: worker/scripts/uv_index_args.py hands it pip's indexes, wheel
# directories and constraints. uv does not byte-compile (Python compiles what a process imports on first use).
# UV=pip installs with pip as before.
UV_VERSION := 0.13.8
UV ?= $(STAMPS)/uv/bin/uv
$(STAMPS)/uv/bin/uv:
	$(PYTHON) -m pip install -q $(PIP_FLAGS) --target $(STAMPS)/uv uv==$(UV_VERSION)

$(STAMPS)/venv: worker/requirements.lock worker/pyproject.toml | $(filter $(STAMPS)/uv/bin/uv,$(UV))
	@mkdir -p $(STAMPS)
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
ifeq ($(UV),pip)
	$(VENV)/bin/python -m pip install -q --no-compile $(PIP_FLAGS) -r worker/requirements.lock
	$(VENV)/bin/python -m pip install -q --no-compile $(PIP_FLAGS) --no-deps -e worker
else
	$(UV) pip install -q --python $(VENV)/bin/python $$($(PYTHON) worker/scripts/uv_index_args.py) -r worker/requirements.lock
	$(UV) pip install -q --python $(VENV)/bin/python $$($(PYTHON) worker/scripts/uv_index_args.py) --no-deps -e worker
endif
	@touch $@

dist/index.html: $(STAMPS)/node $(WEB_SOURCES)
	npx vite build --logLevel warn

# The synthetic brain tumor sample (about 45 MB, not committed): drawn from the manifest's seed and checked
# against its sha256. Order-only on the venv, so a new worker package does not redraw it.
BRAIN_TUMOR_GENERATOR := worker/scripts/generate_brain_tumor_sample.py worker/qmlstudio_worker/problems/brain_tumor/synthetic_mri.py worker/qmlstudio_worker/problems/brain_tumor/mat_write.py
BRAIN_TUMOR_SAMPLE := samples/brain_tumor_dataset.mat
$(BRAIN_TUMOR_SAMPLE): $(BRAIN_TUMOR_GENERATOR) | $(STAMPS)/venv
	$(VENV)/bin/python worker/scripts/generate_brain_tumor_sample.py --mat-only

install: $(STAMPS)/node $(STAMPS)/venv $(BRAIN_TUMOR_SAMPLE)

build: dist/index.html

# The server needs neither the brain tumor sample nor Chromium to serve: when the sample is missing or stale
# it is written in the background (niced, one writer at a time; the server offers it once it is in place).
run: $(STAMPS)/node $(STAMPS)/venv build
	@[ -f $(BRAIN_TUMOR_SAMPLE) ] && [ -z "$$(find $(BRAIN_TUMOR_GENERATOR) -newer $(BRAIN_TUMOR_SAMPLE))" ] || { \
	  echo "Writing the brain tumor sample in the background (log: $(STAMPS)/brain-tumor-sample.log)"; \
	  setsid flock --nonblock $(STAMPS)/brain-tumor-sample.lock nice -n 10 \
	    $(VENV)/bin/python worker/scripts/generate_brain_tumor_sample.py --mat-only \
	    >$(STAMPS)/brain-tumor-sample.log 2>&1 & }
	node --import tsx server/main.ts

dev: install
	npx tsx watch server/main.ts & npx vite

# Debian's Chromium drives the end-to-end tests (Playwright cannot download its own browser here).
chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# The web build runs inside tests/run-all.ts (lane A, before the unit tests), beside lane B's pytest.
test: install chromium
	npx tsx tests/run-all.ts

typecheck: $(STAMPS)/node
	npx tsc -p tsconfig.json --noEmit

lint: $(STAMPS)/node $(STAMPS)/venv
	npx eslint . --max-warnings 0 && npx prettier --check . && $(VENV)/bin/ruff check worker && $(VENV)/bin/ruff format --check worker && $(VENV)/bin/mypy --config-file worker/pyproject.toml worker/qmlstudio_worker

clean:
	rm -rf $(STAMPS) dist node_modules $(VENV)
