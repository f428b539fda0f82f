# One place for what people and CI run.
#   make serve   start the sidecar on its defaults (127.0.0.1:30500, data in ~/.local/share/vtt-bridge)
#   make test    install everything the tests need, then run every test (Python and JavaScript at once)
#   make test-core  the pure rules' tests alone (tests/rules: no I/O, no server; about 12 CPU seconds)
#   make check   ruff, mypy --strict, eslint, tsc --checkJs
#   make bench   the benchmarks (ratios against a reply-only websocket server)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
NPM_DIR := foundry_module
NEEDS_PYTHON := import sys; sys.exit(sys.version_info < (3, 11))

.PHONY: serve test test-core test-python test-js check bench deps system-deps clean docs
.DEFAULT_GOAL := $(VENV)/.installed

# A .venv made by a Python older than 3.11 (or one whose Python is gone) is made again.
ifneq ($(wildcard $(VENV)),)
ifneq ($(shell $(PY) -c '$(NEEDS_PYTHON)' >/dev/null 2>&1 && echo ok),ok)
$(info .venv has no Python 3.11 or newer: making it again)
$(shell rm -rf $(VENV))
endif
endif

$(VENV)/.created:
	@$(PYTHON) -c '$(NEEDS_PYTHON)' || { echo "vtt-bridge needs Python 3.11 or newer; $(PYTHON) is \
	$$($(PYTHON) --version 2>&1). Run make again with PYTHON=python3.12 (or another)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	touch $@

# setuptools tells every editable install, as a 10-line warning, that a folder named like the package
# could shadow it: true of any checkout, and nothing for a user to act on
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"

# the modules setup.py compiles (NATIVE): an edit to one builds the package again
NATIVE := vtt_bridge/rules/areas.py vtt_bridge/document/areas.py vtt_bridge/document/visibility.py \
	vtt_bridge/engine/patch.py

# what serving needs: the package and its dependencies
$(VENV)/.serve-installed: pyproject.toml setup.py $(NATIVE) $(VENV)/.created
	$(QUIET_EDITABLE) $(PY) -m pip install -q -e .
	touch $@

# what the tests and checks need besides: pytest, mypy, ruff, build, jsonschema
$(VENV)/.installed: pyproject.toml setup.py $(NATIVE) $(VENV)/.created
	$(QUIET_EDITABLE) $(PY) -m pip install -q -e '.[dev]'
	touch $@

$(NPM_DIR)/node_modules/.installed: $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

system-deps:
	./scripts/install-system-deps.sh

# the venv (its compile: one core) and the module's npm packages at the same time, once Node is here
deps: system-deps
	@$(MAKE) --no-print-directory -j2 $(VENV)/.installed $(NPM_DIR)/node_modules/.installed

serve: $(VENV)/.serve-installed
	$(VENV)/bin/vtt-bridge serve

# both suites at once, one core each (the JavaScript suite's output is kept and shown whole once
# Python's is done); each runs to its end whatever the other does; make test fails when either did
test: deps
	@js_log=$$(mktemp); \
	echo "make test: the JavaScript tests run alongside; their output follows Python's"; \
	$(MAKE) --no-print-directory test-js >"$$js_log" 2>&1 & js=$$!; \
	py=ok; $(MAKE) --no-print-directory test-python || py=FAILED; \
	js_status=ok; wait $$js || js_status=FAILED; cat "$$js_log"; rm -f "$$js_log"; \
	echo "make test: Python tests $$py, JavaScript tests $$js_status"; \
	[ $$py = ok ] && [ $$js_status = ok ]

test-core: $(VENV)/.installed
	$(PY) -m pytest -q tests/rules

test-python: $(VENV)/.installed
	$(PY) -m pytest -q

test-js: $(NPM_DIR)/node_modules/.installed
	cd $(NPM_DIR) && VTT_BRIDGE_PYTHON=$(abspath $(PY)) npm test

check: deps
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	cd $(NPM_DIR) && npm run lint && npm run typecheck

bench: $(VENV)/.installed
	$(PY) -m benchmarks.bench_roundtrip
	$(PY) -m benchmarks.bench_scene
	$(PY) -m benchmarks.bench_big_scenes
	$(PY) -m benchmarks.bench_lean_wire
	$(PY) -m benchmarks.bench_foundry
	$(PY) -m benchmarks.bench_areas

clean:
	rm -rf $(VENV) $(NPM_DIR)/node_modules .pytest_cache .mypy_cache .ruff_cache

docs: $(VENV)/.installed
	{ cat docs/protocol.head.md; echo; $(VENV)/bin/vtt-bridge schema --markdown; } > docs/protocol.md
	$(VENV)/bin/vtt-bridge schema --step-fields > $(NPM_DIR)/scripts/core/step-fields.mjs
