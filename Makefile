# XWorkmate: `make run` opens the app, `make test` runs every test. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-core lint bench smoke package clean screenshots

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "XWorkmate needs Python 3.11 or newer; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[gui,test]'
	$(BIN)/python packaging/qt_preflight.py --warn
	touch $(STAMP)

# Bytecode up front: with PYTHONDONTWRITEBYTECODE set (as on CI machines) an editable install
# would otherwise compile every module on every start (issue 7: about 60 ms of start-up).
BYTECODE := $(BIN)/python -m compileall -q xworkmate >/dev/null

# Issue 18: the X11 libraries the Qt xcb plugin links (installed when root or sudo -n, else one line saying how).
run: $(STAMP)
	$(BIN)/python packaging/qt_preflight.py
	$(BYTECODE)
	$(BIN)/xworkmate

test: $(STAMP)
	bash tests/support/install_agents.sh
	QT_QPA_PLATFORM=offscreen QT_API=pyside6 $(BIN)/python -m pytest
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Issue 19: the Qt-free core as a real install. A venv without the gui extra (no PySide6, no qasync) runs
# every non-UI test with pytest-qt disabled, and the CLI; `.ci/run` runs it after `make test`.
CORE_VENV := .venv-core
CORE_STAMP := $(CORE_VENV)/.installed
CORE_TESTS := tests --ignore=tests/ui --ignore=tests/packaging --ignore=tests/test_qt_binding.py

$(CORE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(CORE_VENV)
	$(CORE_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(CORE_VENV)/bin/python -m pip install --quiet -e '.[test]'
	touch $(CORE_STAMP)

test-core: $(CORE_STAMP)
	@$(CORE_VENV)/bin/python -c 'import importlib.util as u, sys; sys.exit("PySide6 is in the core venv" if u.find_spec("PySide6") or u.find_spec("qasync") else 0)'
	$(CORE_VENV)/bin/python -m pytest -p no:pytest-qt -p no:cacheprovider -q $(CORE_TESTS)
	bash tests/support/core_cli_check.sh $(CORE_VENV)/bin/xworkmate

smoke: $(STAMP)
	$(BYTECODE)
	QT_QPA_PLATFORM=offscreen $(BIN)/xworkmate gui --smoke-test

bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m benchmarks

# Issue 18: the README's light and dark pictures of the real window (offscreen), checked non-empty and different.
screenshots: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python packaging/screenshots.py docs/screenshots

package: $(STAMP)
	bash packaging/build.sh

clean:
	rm -rf $(VENV) $(CORE_VENV) build dist *.egg-info
