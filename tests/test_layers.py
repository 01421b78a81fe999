"""The layers are proven, not promised (SPEC §1, STYLE lesson 1, issue 19).

The real proof is the Qt-free job (`make test-core`, run by `.ci/run`): a venv
without the ``gui`` extra runs every non-UI test and the CLI. Here, cheaply, in
the suite's own environment: every module below ``xworkmate.ui`` imports in a
process where importing PySide6, shiboken6, qasync or pytest-qt fails, and
``xworkmate gui`` there says in one line how to install the window.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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
"""

_IMPORT_ALL = """
import pkgutil, xworkmate
names = [m.name for m in pkgutil.walk_packages(xworkmate.__path__, "xworkmate.")]
core = [n for n in names if not n.startswith(("xworkmate.ui", "xworkmate.store.migrations", "xworkmate.__main__"))]
core = [n for n in core if n != "xworkmate.testing.driver"]  # issue 21: the tester's page object over the window
for name in core:
    __import__(name)
print(len(core), "modules")
"""

# Issue 21: xworkmate.testing sits above the ui. Its driver is a page object over the window; its plugin
# imports qasync inside the Qt fixtures only (the dynamic check above imports the plugin with Qt blocked).
ABOVE_THE_UI = {"testing/driver.py", "testing/plugin.py"}

_QT_IMPORT = re.compile(r"^\s*(from|import)\s+(PySide6|shiboken6|qasync)\b", re.MULTILINE)


def _run_blocked(code: str, *, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    if home is not None:
        env["XWORKMATE_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-c", _BLOCKER + code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_every_module_below_the_ui_imports_without_qt() -> None:
    proc = _run_blocked(_IMPORT_ALL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    count = int(proc.stdout.split()[0])
    assert count > 40  # the walk really found the core's modules


def test_the_window_without_qt_says_how_to_install_it(tmp_path: Path) -> None:
    proc = _run_blocked("import sys\nfrom xworkmate.entry import main\nsys.exit(main(['gui']))", home=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "pip install 'xworkmate[gui]'" in lines[0]
    assert "PySide6" in lines[0]
    assert "Traceback" not in proc.stderr


def test_the_command_line_works_without_qt(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom xworkmate.entry import main\nsys.exit(main(['thread', 'new', '--title', 'core', '--json']))"
    )
    proc = _run_blocked(code, home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert '"core"' in proc.stdout


def test_the_blocker_really_blocks_pyside6() -> None:
    """Without this, the tests above could pass by never trying to import Qt."""
    proc = _run_blocked("import PySide6")
    assert proc.returncode != 0
    assert "unavailable in the headless layer test" in proc.stderr


def test_no_module_below_the_ui_imports_qt() -> None:
    """A static check to go with the dynamic one: no Qt import outside xworkmate/ui."""
    offenders = []
    for path in (ROOT / "xworkmate").rglob("*.py"):
        if "ui" in path.relative_to(ROOT / "xworkmate").parts[:1]:
            continue
        if path.relative_to(ROOT / "xworkmate").as_posix() in ABOVE_THE_UI:
            continue
        if _QT_IMPORT.search(path.read_text(encoding="utf-8")):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == [], offenders
