# XWorkmate: `make run` opens the app, `make test` runs every test. Both set up .venv (and test .venv-core) first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-core lint bench smoke package clean screenshots i18n translations

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "XWorkmate needs Python 3.11 or newer; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[gui,test]'
	$(BIN)/python packaging/qt_preflight.py --warn
	touch $(STAMP)
	@$(MAKE) --no-print-directory translations

# Issue 20: the window's catalogues. `make i18n` refreshes the .ts from the sources (pyside6-lupdate), fills
# them from resources/i18n/fragments/*.ts (packaging/i18n_merge.py) and compiles them; the .qm files are
# built at set-up and before run/test/package (pyside6-lrelease) and never committed.
I18N := resources/i18n
I18N_SOURCES = $(shell find xworkmate -name '*.py' -not -path '*/__pycache__/*' | LC_ALL=C sort)
LUPDATE = $(BIN)/pyside6-lupdate $(I18N_SOURCES) -locations none -no-obsolete
QM := $(I18N)/xworkmate_zh_CN.qm $(I18N)/xworkmate_en.qm

i18n: $(STAMP)
	@echo "pyside6-lupdate: $(words $(I18N_SOURCES)) files of xworkmate/ -> $(I18N)/xworkmate_zh_CN.ts, xworkmate_en.ts"
	@$(LUPDATE) -ts $(I18N)/xworkmate_zh_CN.ts
	@$(LUPDATE) -pluralonly -ts $(I18N)/xworkmate_en.ts
	$(BIN)/python packaging/i18n_merge.py fill $(I18N)/xworkmate_zh_CN.ts $(wildcard $(I18N)/fragments/*.ts)
	$(BIN)/python packaging/i18n_merge.py plurals $(I18N)/xworkmate_en.ts
	@$(LUPDATE) -silent -ts $(I18N)/xworkmate_zh_CN.ts
	@$(LUPDATE) -silent -pluralonly -ts $(I18N)/xworkmate_en.ts
	@$(BIN)/python packaging/i18n_merge.py check $(I18N)/xworkmate_zh_CN.ts $(I18N)/xworkmate_en.ts \
	  || echo "i18n: translate the entries above (tests/test_translations.py fails until they are)"
	@$(MAKE) --no-print-directory translations

translations: $(QM)

$(I18N)/%.qm: $(I18N)/%.ts | $(STAMP)
	$(BIN)/pyside6-lrelease -silent $< -qm $@

# Bytecode up front: with PYTHONDONTWRITEBYTECODE set (as on CI machines) an editable install
# would otherwise compile every module on every start (issue 7: about 60 ms of start-up).
BYTECODE := $(BIN)/python -m compileall -q xworkmate >/dev/null

# Issue 18: the X11 libraries the Qt xcb plugin links (installed when root or sudo -n, else one line saying how).
run: $(STAMP) translations
	$(BIN)/python packaging/qt_preflight.py
	$(BYTECODE)
	$(BIN)/xworkmate

# Issue 33 item 5: the whole suite, each test once: the tests marked `qt` in .venv (pytest-qt offscreen),
# every other one in the Qt-free .venv-core (`test-core`), side by side; tests/support/halves.py defines the
# halves and its `check` fails when a test is in neither half or in both.
test: $(STAMP) translations
	@$(MAKE) --no-print-directory $(CORE_STAMP)
	bash tests/support/install_agents.sh
	$(BIN)/python -m tests.support.halves check
	@# Both halves side by side (each log printed whole when its half ends), then the Qt-free CLI check,
	@# ruff and mypy (strict over the whole package, issue 33 item 4); each runs even when one fails, so
	@# one run reports every failure; the exit status is non-zero if any of them failed.
	@status=0; \
	  $(CORE_NO_QT) || status=1; \
	  $(BIN)/python -m tests.support.halves run qt core || status=1; \
	  $(CORE_CLI_CHECK) || status=1; \
	  $(BIN)/ruff check . || status=1; \
	  $(BIN)/ruff format --check . || status=1; \
	  $(BIN)/mypy || status=1; \
	  exit $$status

# Issue 19: the Qt-free core as a real install. A venv without the gui extra (no PySide6, no qasync) runs
# every test not marked `qt` with pytest-qt disabled, and the CLI; `make test` runs it beside the Qt half.
CORE_VENV := .venv-core
CORE_STAMP := $(CORE_VENV)/.installed

$(CORE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(CORE_VENV)
	$(CORE_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(CORE_VENV)/bin/python -m pip install --quiet -e '.[test]'
	touch $(CORE_STAMP)

CORE_NO_QT := $(CORE_VENV)/bin/python -c 'import importlib.util as u, sys; sys.exit("PySide6 is in the core venv" if u.find_spec("PySide6") or u.find_spec("qasync") else 0)'
CORE_CLI_CHECK := bash tests/support/core_cli_check.sh $(CORE_VENV)/bin/xworkmate

test-core: $(CORE_STAMP)
	@$(CORE_NO_QT)
	$(CORE_VENV)/bin/python -m tests.support.halves run core
	$(CORE_CLI_CHECK)

smoke: $(STAMP) translations
	$(BYTECODE)
	QT_QPA_PLATFORM=offscreen $(BIN)/xworkmate gui --smoke-test

bench: $(STAMP) translations
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m benchmarks

# Issue 18: the README's light and dark pictures of the real window (offscreen), checked non-empty and different.
screenshots: $(STAMP) translations
	QT_QPA_PLATFORM=offscreen $(BIN)/python packaging/screenshots.py docs/screenshots

package: $(STAMP) translations
	bash packaging/build.sh

clean:
	rm -rf $(VENV) $(CORE_VENV) build dist *.egg-info
