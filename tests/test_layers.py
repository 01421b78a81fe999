"""The layers are proven, not promised (SPEC §1, STYLE lesson 1, issue 19).

The real proof is the Qt-free job (`make test-core`, run by `.ci/run`): a venv
without the ``gui`` extra runs every non-UI test and the CLI. Here, cheaply, in
the suite's own environment: every module below ``xworkmate.ui`` imports in a
process where importing PySide6, shiboken6, qasync or pytest-qt fails, and
``xworkmate gui`` there says in one line how to install the window.
"""

from __future__ import annotations

import ast
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


# -- issue 19: the controllers in small pieces ------------------------------------------------------

CONTROLLERS = ROOT / "xworkmate" / "controllers"


def _controller_imports() -> dict[str, set[str]]:
    """Each controllers module → the controllers modules it imports anywhere: at the top, under
    ``TYPE_CHECKING``, or inside a function (a lazy import is still a dependency)."""
    names = {path.stem for path in CONTROLLERS.glob("*.py") if path.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in names:
        deps: set[str] = set()
        for node in ast.walk(ast.parse((CONTROLLERS / f"{name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "xworkmate.controllers":
                deps |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("xworkmate.controllers."):
                deps.add((node.module or "").split(".")[2])
            elif isinstance(node, ast.Import):
                deps |= {a.name.split(".")[2] for a in node.names if a.name.startswith("xworkmate.controllers.")}
        graph[name] = deps & names
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for dep in sorted(graph[node]):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_controllers_modules_import_each_other_without_a_cycle() -> None:
    """Issue 19: ``controllers.session``↔``runs`` was a hidden cycle (runs reached into the session's
    privates). The facade imports its sections; no section, and not ``runs``, imports the facade."""
    graph = _controller_imports()
    assert {"session", "runs", "lines", "turns", "approvals", "tasks", "providers", "context"} <= set(graph)
    assert _cycles(graph) == []
    importers_of_the_facade = sorted(name for name, deps in graph.items() if "session" in deps)
    assert importers_of_the_facade == []


def test_the_cycle_check_finds_a_cycle() -> None:
    """Without this, the check above could pass by never seeing an edge."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"a"}}) == [["a"]]
    assert "runs" in _controller_imports()["turns"]  # a TYPE_CHECKING import counts


def _private_reaches(source: str) -> list[tuple[int, str]]:
    """``x._name`` where ``x`` is not ``self``/``cls``: a reach into another object's private member."""
    reaches = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        reaches.append((node.lineno, node.attr))
    for node in ast.walk(ast.parse(source)):  # getattr(x, "_name") is the same reach, spelled to hide
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and str(node.args[1].value).startswith("_")
            and not str(node.args[1].value).startswith("__")
        ):
            reaches.append((node.lineno, str(node.args[1].value)))
    return reaches


def test_no_controllers_module_reaches_into_another_objects_private_members() -> None:
    """Issue 19: the pieces talk through the ``ControllerContext`` and each other's public methods. A private
    member is used only on ``self``/``cls`` (``runs.py`` once did ``controller._store`` 24 times)."""
    offenders = [
        f"{path.name}:{line}: .{attr}"
        for path in sorted(CONTROLLERS.glob("*.py"))
        for line, attr in _private_reaches(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], offenders


def test_the_private_reach_check_sees_a_reach() -> None:
    source = "def f(self, other):\n    self._ok = other._bad\n    getattr(other, '_hidden')\n    self.__dict__\n"
    assert _private_reaches(source) == [(2, "_bad"), (3, "_hidden")]
