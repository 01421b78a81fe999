"""The layers are proven, not promised (SPEC §1, STYLE lesson 1).

The domain, store and controller tests run in a subprocess where importing
PySide6, shiboken6, qasync or pytest-qt fails; they must all pass there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_BLOCKER = """
import importlib.abc, sys

class _NoQt(importlib.abc.MetaPathFinder):
    blocked = ("PySide6", "shiboken6", "qasync", "pytestqt")

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.blocked:
            raise ImportError(f"{name} is unavailable in the headless layer test")
        return None

sys.meta_path.insert(0, _NoQt())
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""

_QT_IMPORT = re.compile(r"^\s*(from|import)\s+(PySide6|shiboken6|qasync)\b", re.MULTILINE)

HEADLESS_SUITES = ["tests/domain", "tests/store", "tests/llm", "tests/agents", "tests/acp", "tests/controllers"]


@pytest.mark.timeout(600)  # it re-runs the Qt-free suites in a subprocess
def test_domain_store_and_controllers_run_without_qt() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _BLOCKER,
            *HEADLESS_SUITES,
            "-p",
            "no:pytest-qt",
            "-p",
            "no:cacheprovider",
            "-m",
            "not postgres",
            "-q",
            "-W",
            "ignore::pytest.PytestConfigWarning",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout


def test_the_blocker_really_blocks_pyside6() -> None:
    """Without this, the test above could pass by never trying to import Qt."""
    probe = _BLOCKER.replace("import pytest\nsys.exit(pytest.main(sys.argv[1:]))", "import PySide6")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert "unavailable in the headless layer test" in proc.stderr


def test_no_module_below_the_ui_imports_qt() -> None:
    """A static check to go with the dynamic one: no Qt import outside xworkmate/ui."""
    offenders = []
    for path in (ROOT / "xworkmate").rglob("*.py"):
        if "ui" in path.relative_to(ROOT / "xworkmate").parts[:1]:
            continue
        if _QT_IMPORT.search(path.read_text(encoding="utf-8")):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == [], offenders
