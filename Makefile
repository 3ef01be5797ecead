# QML Studio: `make run` installs everything and starts the product on its embedded default;
# `make test` installs what the tests need and runs every suite. Installs are skipped while their
# lockfiles are unchanged (stamps in .stamps/).
SHELL := /bin/bash
.DEFAULT_GOAL := run
STAMPS := .stamps
VENV := worker/.venv
PYTHON ?= python3
# This machine keeps the CPU build of torch in a local wheel directory; use it when present.
PIP_FLAGS := --disable-pip-version-check $(if $(wildcard /opt/wheels),--find-links /opt/wheels,)
WEB_SOURCES := $(shell find src schemas -type f 2>/dev/null) index.html vite.config.ts

.PHONY: run dev test install build worker-venv chromium clean lint typecheck

$(STAMPS)/node: package.json package-lock.json
	@mkdir -p $(STAMPS)
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(STAMPS)/venv: worker/requirements.lock worker/pyproject.toml
	@mkdir -p $(STAMPS)
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q $(PIP_FLAGS) -r worker/requirements.lock
	$(VENV)/bin/python -m pip install -q $(PIP_FLAGS) --no-deps -e worker
	@touch $@

dist/index.html: $(STAMPS)/node $(WEB_SOURCES)
	npx vite build --logLevel warn

# The synthetic brain tumor sample (about 45 MB, not committed): drawn from the manifest's seed and checked
# against its sha256. Order-only on the venv, so a new worker package does not redraw it.
BRAIN_TUMOR_GENERATOR := worker/scripts/generate_brain_tumor_sample.py worker/qmlstudio_worker/problems/brain_tumor/synthetic_mri.py worker/qmlstudio_worker/problems/brain_tumor/mat_write.py
samples/brain_tumor_dataset.mat: $(BRAIN_TUMOR_GENERATOR) | $(STAMPS)/venv
	$(VENV)/bin/python worker/scripts/generate_brain_tumor_sample.py --mat-only

install: $(STAMPS)/node $(STAMPS)/venv samples/brain_tumor_dataset.mat

build: dist/index.html

run: install build
	npx tsx server/main.ts

dev: install
	npx tsx watch server/main.ts & npx vite

# Debian's Chromium drives the end-to-end tests (Playwright cannot download its own browser here).
chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

test: install build chromium
	npx tsx tests/run-all.ts

typecheck: $(STAMPS)/node
	npx tsc -p tsconfig.json --noEmit

lint: $(STAMPS)/node $(STAMPS)/venv
	npx eslint . --max-warnings 0 && npx prettier --check . && $(VENV)/bin/ruff check worker && $(VENV)/bin/ruff format --check worker && $(VENV)/bin/mypy --config-file worker/pyproject.toml worker/qmlstudio_worker

clean:
	rm -rf $(STAMPS) dist node_modules $(VENV)
