"""The xworkmate pytest plugin as a tester meets it (issue 21): loaded by its entry point, Qt-free at
import, clear when Qt is missing, on PostgreSQL when asked, and leaving no window or warning behind.

Each run here is a separate ``python -m pytest`` in a folder of its own, outside this repository's
conftest, as a tester's project is.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from xworkmate.testing.plugin import QT_MISSING

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "tester"
HAS_QT = all(importlib.util.find_spec(m) is not None for m in ("PySide6", "qasync"))


def run_pytest(folder: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "XWORKMATE_"))}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--strict-markers", "-q", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_plugin_imports_pytest_alone() -> None:
    """It loads in every pytest run where xworkmate is installed, the Qt-free core job included."""
    probe = (
        "import sys, xworkmate.testing.plugin as p; "
        "ours = sorted(m for m in sys.modules if m.startswith(('xworkmate', 'PySide6', 'pytestqt', 'qasync',"
        " 'sqlalchemy', 'httpx')));"
        "print(ours)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['xworkmate', 'xworkmate.testing', 'xworkmate.testing.plugin']"


def test_without_pytest_qt_the_home_works_and_the_window_fixture_says_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "test_core.py").write_text(
        textwrap.dedent(
            """
            def test_home(xwm_home):
                line = xwm_home.controller.lines.create_line("Core")
                assert xwm_home.controller.get_thread(line.thread_id).title == "Core"
                assert xwm_home.settings.sqlite_path.is_file()

            def test_window(xwm_window):
                pass
            """
        )
    )
    done = run_pytest(tmp_path, "-p", "no:pytest-qt", "-W", "error")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 passed, 1 error" in done.stdout  # the fixture's set-up fails, so the test errors
    assert QT_MISSING.format(fixture="xwm_window") in done.stdout
    assert "Traceback" not in done.stdout  # one clear line, not a stack


@pytest.mark.qt
@pytest.mark.skipif(not HAS_QT, reason="the example tests drive the window: they need the gui extra")
def test_the_example_tests_pass_from_their_folder_and_leave_no_window_or_warning(tmp_path: Path) -> None:
    folder = tmp_path / "tester"
    shutil.copytree(EXAMPLES, folder)
    # Runs last (files run in name order): every window the examples opened is closed by then.
    (folder / "test_zz_nothing_left.py").write_text(
        textwrap.dedent(
            """
            from PySide6.QtWidgets import QApplication

            def test_no_window_is_left_open(qapp):
                assert [w.objectName() for w in QApplication.topLevelWidgets() if w.isVisible()] == []
            """
        )
    )
    done = run_pytest(folder, "-W", "error", "-p", "no:randomly")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "6 passed" in done.stdout
    assert "warning" not in output.lower()


@pytest.mark.qt
@pytest.mark.skipif(not HAS_QT, reason="needs the gui extra")
def test_a_window_left_open_would_be_seen(tmp_path: Path) -> None:
    """The check above can fail: a test that shows its own window and never closes it is caught."""
    (tmp_path / "test_leak.py").write_text(
        textwrap.dedent(
            """
            from PySide6.QtWidgets import QApplication, QWidget

            KEEP = []

            def test_leaks(qapp):
                KEEP.append(QWidget())
                KEEP[0].setObjectName("leaked")
                KEEP[0].show()

            def test_zz_nothing_left(qapp):
                assert [w.objectName() for w in QApplication.topLevelWidgets() if w.isVisible()] == []
            """
        )
    )
    done = run_pytest(tmp_path)
    assert "1 failed, 1 passed" in done.stdout and "leaked" in done.stdout


@pytest.mark.postgres
def test_the_database_option_gives_each_test_a_fresh_postgresql_database(tmp_path: Path, pg_admin_url: str) -> None:
    (tmp_path / "test_pg.py").write_text(
        textwrap.dedent(
            """
            import os

            def test_one(xwm_home, xwm_database_url):
                assert xwm_home.settings.effective_database_url == xwm_database_url
                assert os.environ["XWORKMATE_DATABASE_URL"] == xwm_database_url
                assert xwm_database_url.startswith("postgresql+psycopg://") and "/xwm_test_" in xwm_database_url
                xwm_home.controller.lines.create_line("On PostgreSQL")
                print("DB", xwm_database_url.rpartition("/")[2])

            def test_two(xwm_home, xwm_pg_template):
                assert [line.title for line in xwm_home.controller.lines.list_lines()] == ["Main"]
                print("DB", xwm_home.database_url.rpartition("/")[2])
                print("DB", xwm_pg_template.name)  # issue 33: the session's migrated template
            """
        )
    )
    done = run_pytest(tmp_path, "-s", "-p", "no:pytest-qt", f"--xwm-database-url={pg_admin_url}")
    assert done.returncode == 0, done.stdout + done.stderr
    names = re.findall(r"DB (xwm_test_\w+)", done.stdout)
    names += re.findall(r"DB (xwm_tpl_\w+)", done.stdout)
    assert len(names) == 3 and names[0] != names[1]
    import psycopg

    with psycopg.connect(pg_admin_url.replace("+psycopg", ""), autocommit=True) as conn:
        rows = conn.execute("SELECT datname FROM pg_database WHERE datname = ANY(%s)", (names,)).fetchall()
    assert rows == []  # both dropped after their test, the template after the session


def test_no_module_of_the_package_shadows_an_installed_one() -> None:
    """The scripted agents also run by path (``python xworkmate/testing/acp_agent.py``), which puts that
    folder first on ``sys.path``: a module there named like an installed one (``acp``) would hide it."""
    folder = ROOT / "xworkmate" / "testing"
    stems = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
    assert "acp_agent" in stems
    assert [stem for stem in stems if importlib.util.find_spec(stem) is not None] == []
