"""Start-up (issue 19, item 7): the window is painted before the store opens; the store opens, migrates
and is first read on a worker; the list fills after; a failure to open is one line in the window."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from sqlalchemy import event, text
from sqlalchemy.engine import Engine

from xworkmate.cli.run import run_window
from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.ui.shell import WindowShell
from xworkmate.ui.window.main_window import MainWindow

from .support import label_text, selected_key
from .support_opening import HeldOpen, opening_for, shown_opening
from .support_runs import run, wait_until


@pytest.fixture
def statements() -> Iterator[list[str]]:
    """The name of the thread each SQL statement ran on, in order, for every engine of the test."""
    seen: list[str] = []

    def before(*_args: object) -> None:
        seen.append(threading.current_thread().name)

    event.listen(Engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", before)


def _seeded(settings: Settings, *titles: str) -> list[str]:
    """Lines made beforehand (as a previous run would have), the last one current; returns their keys."""
    store = open_store(settings.effective_database_url)
    try:
        controller = SessionController(store, settings)
        keys = [controller.lines.create_line(title).thread_id for title in titles]
        controller.lines.switch_session(keys[-1])
        return keys
    finally:
        store.close()


def test_the_window_is_painted_before_the_store_opens_and_the_list_fills_after(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, settings: Settings, database_url: str, statements: list[str]
) -> None:
    """On a SQLite file and on a PostgreSQL database of its own."""
    settings = settings.model_copy(update={"database_url": database_url})
    keys = _seeded(settings, "First", "Second")
    statements.clear()
    held = HeldOpen(settings, wait_s=10)
    failures: list[BaseException] = []
    attached: list[SessionController] = []
    window, opening = shown_opening(
        qtbot, opening_for(settings, held, failures), attached=attached.append, failed=lambda _: None
    )
    try:
        run(loop, wait_until(held.asked.is_set, timeout=5, what="the open to be asked for"))
        # Painted, saying so, and nothing that needs the store exists yet; no SQL has run anywhere.
        assert opening.painted
        assert label_text(window, "openingNotice") == "Opening the database…"
        assert window.findChild(QObject, "composer") is None and window.findChild(QObject, "taskLineList") is None
        assert statements == []
        held.release.set()
        run(loop, wait_until(lambda: bool(attached) or bool(failures), timeout=10, what="the window to attach"))
        assert failures == []
        assert window.attached and window.opening_page is None
        assert window.task_model.line_keys() == ["main", *keys]
        assert selected_key(window) == keys[-1] == window.shown_key
        assert label_text(window, "sessionKeyLabel") == keys[-1]
        assert window.composer.isEnabled()
        # LOOP-4: the open, the migrations check and the first reads all ran on the worker.
        assert held.thread != threading.main_thread().name
        assert statements and threading.main_thread().name not in statements
    finally:
        held.release.set()
        window.close()
        for controller in attached:
            controller.close()


def test_a_store_that_does_not_open_is_one_line_in_the_window_and_no_traceback(
    qtbot: QtBot,
    settings: Settings,
    capsys: pytest.CaptureFixture[str],
    qapp: QApplication,
) -> None:
    """ERR-1, through the command's own path: ``xworkmate gui`` with a database of a newer schema shows the
    window, says in it why the store did not open, and ends with the database's exit code once closed."""
    store = open_store(settings.effective_database_url)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'f00dfeed9999'"))
    store.close()
    seen: list[str] = []

    def close_once_said() -> None:
        windows = [w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        page = windows[0].opening_page if windows else None
        if page is not None and page.failed:
            seen.extend([page.notice.text(), page.help.text()])
            qapp.closeAllWindows()
        else:
            QTimer.singleShot(20, close_once_said)

    QTimer.singleShot(0, close_once_said)
    code = run_window(argparse.Namespace(smoke_test=False), settings, None)
    assert code == 3
    [line, help_text] = seen
    assert line.startswith("The database did not open — ") and "\n" not in line and "does not know" in line
    assert f"Database: SQLite database {settings.sqlite_path}" in help_text and "xworkmate doctor" in help_text
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("xworkmate: error: ") and "Traceback" not in err


def test_the_smoke_test_checks_the_window_built_after_the_store_opened(
    settings: Settings, capsys: pytest.CaptureFixture[str], qapp: QApplication
) -> None:
    icon, stylesheet = qapp.windowIcon(), qapp.styleSheet()
    try:
        _seeded(settings, "Seeded")
        code = run_window(argparse.Namespace(smoke_test=True), settings, None)
    finally:
        qapp.setWindowIcon(icon)
        qapp.setStyleSheet(stylesheet)
    out = capsys.readouterr()
    assert (code, out.out.strip(), out.err) == (0, "ok", "")


def test_an_unreachable_postgresql_fails_the_smoke_test_in_one_line(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    unreachable = settings.model_copy(update={"database_url": "postgresql+psycopg://postgres@127.0.0.1:1/none"})
    code = run_window(argparse.Namespace(smoke_test=True), unreachable, None)
    err = capsys.readouterr().err
    assert code == 3
    assert err.count("\n") == 1 and "cannot open" in err and "Traceback" not in err


def test_the_real_run_attaches_after_the_first_paint_and_ends_with_0_when_closed(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], qapp: QApplication
) -> None:
    """``xworkmate gui`` (what ``make run`` starts): the window fills, then closing it ends the command with 0
    and saves its layout through the controller opened on the worker."""
    from xworkmate.cli import main
    from xworkmate.ui.shell import GEOMETRY_STATE

    keys = _seeded(settings, "Remembered")
    monkeypatch.setenv("XWORKMATE_HOME", str(settings.home))
    monkeypatch.delenv("XWORKMATE_DATABASE_URL", raising=False)
    seen: list[list[str]] = []

    def close_once_filled() -> None:
        windows = [w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if windows and windows[0].attached:
            seen.append(windows[0].task_model.line_keys())
            windows[0].close()
        else:
            QTimer.singleShot(20, close_once_filled)

    icon, stylesheet = qapp.windowIcon(), qapp.styleSheet()
    QTimer.singleShot(0, close_once_filled)
    try:
        assert main(["gui"]) == 0
    finally:
        qapp.setWindowIcon(icon)
        qapp.setStyleSheet(stylesheet)
    assert seen == [["main", *keys]]
    assert capsys.readouterr().err == ""
    store = open_store(settings.effective_database_url)
    try:
        assert SessionController(store, settings).lines.ui_state(GEOMETRY_STATE)
    finally:
        store.close()


# -- issue 19, item 7: ``xworkmate gui`` paints its window before the stack loads ----------------------

_FIRST_PAINT_PROBE = """
import builtins, json, sys
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget
from xworkmate import entry
from xworkmate.ui import start

HEAVY = (
    "sqlalchemy",
    "pydantic",
    "xworkmate.controllers.session",
    "xworkmate.store.database",
    "xworkmate.ui.window.main_window",
    "qasync",
)
seen = {}


class Probe(QObject):
    def eventFilter(self, watched, event):
        if event.type() != QEvent.Type.Paint or not isinstance(watched, QWidget):
            return False
        if "loaded" not in seen:
            window = watched.window()
            seen["loaded"] = sorted(name for name in HEAVY if name in sys.modules)
            seen["window"] = [window.objectName(), type(window).__name__]
            seen["painted"] = window
        parent = watched.parent()
        if "first_list" not in seen and parent is not None and parent.objectName() == "firstTaskLineList":
            model = parent.model()
            seen["first_list"] = {
                "loaded": sorted(name for name in HEAVY if name in sys.modules),
                "titles": [model.index(row, 0).data() for row in range(model.rowCount())],
            }
        return False


made = start._application


def application():
    app = made()
    app.installEventFilter(Probe(app))
    return app


start._application = application
hook = builtins.__import__
code = entry.main(sys.argv[1:])
from xworkmate.ui.window.main_window import MainWindow

painted = seen.pop("painted")
seen["became"] = [type(painted).__name__, isinstance(painted, MainWindow) and painted.attached]
seen["hook_back"] = builtins.__import__ is hook
print(json.dumps(seen), file=sys.stderr)
sys.exit(code)
"""


def _gui_process(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    full_env.update({"XWORKMATE_HOME": str(home), "QT_QPA_PLATFORM": "offscreen", **(env or {})})
    return subprocess.run(
        [sys.executable, "-c", _FIRST_PAINT_PROBE, *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
        check=False,
    )


def test_the_gui_command_paints_the_main_window_before_the_stack_loads_and_that_window_gets_the_panes(
    settings: Settings,
) -> None:
    """The first window painted is the app's ``mainWindow`` (a ``WindowShell``) with neither SQLAlchemy,
    pydantic, the controllers, the window's own code nor qasync loaded; its first list shows the lines,
    archived hidden, while none of them is loaded yet either; the same window then becomes the attached
    ``MainWindow``, and PySide6's import hook, set aside while that code loaded, is back."""
    _seeded(settings, "Seeded", "Old", "Last")
    store = open_store(settings.effective_database_url)
    try:
        SessionController(store, settings).lines.archive_line(
            next(s.thread_id for s in store.threads.summaries() if s.title == "Old")
        )
    finally:
        store.close()
    proc = _gui_process(settings.home, "gui", "--smoke-test")
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    seen = json.loads(proc.stderr.strip().splitlines()[-1])
    assert seen == {
        "loaded": [],
        "window": ["mainWindow", "WindowShell"],
        "first_list": {"loaded": [], "titles": ["Main", "Seeded", "Last"]},
        "became": ["MainWindow", True],
        "hook_back": True,
    }


def test_the_gui_command_with_a_bad_database_url_says_one_line_and_exits_3(tmp_path: Path) -> None:
    proc = _gui_process(tmp_path, "gui", "--smoke-test", env={"XWORKMATE_DATABASE_URL": "nonsense://nowhere"})
    assert proc.returncode == 3
    [line, _probe] = proc.stderr.strip().splitlines()
    assert line.startswith("xworkmate: error: ") and "nonsense://nowhere" in line
    assert proc.stdout == ""


def test_a_window_shell_becomes_a_main_window_only_once(qtbot: QtBot, window: MainWindow) -> None:
    shell = WindowShell()
    qtbot.addWidget(shell)
    became = MainWindow.take_over(shell)
    assert became is shell and isinstance(shell, MainWindow) and not shell.attached
    with pytest.raises(TypeError):
        MainWindow.take_over(shell)
    with pytest.raises(TypeError):
        MainWindow.take_over(window)


def test_settings_that_are_not_valid_are_said_in_the_window_as_a_failure_to_open(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``xworkmate gui`` reads its settings after the first paint (``cli/run.window_opening``): bad ones are
    the window's failure to open, one line on stderr and exit 1 (ERR-1), as a refused command's are."""
    from xworkmate.cli import CliError
    from xworkmate.cli import run as cli_run

    def refused() -> Settings:
        raise CliError("invalid setting XWORKMATE_WORKSPACE_ROOT: not a folder")

    monkeypatch.setattr(cli_run, "_settings", refused)
    opening = cli_run.window_opening()
    with pytest.raises(CliError) as raised:
        opening.open()
    assert opening.failed(raised.value) == ("invalid setting XWORKMATE_WORKSPACE_ROOT: not a folder", 1)
    assert capsys.readouterr().err == "xworkmate: error: invalid setting XWORKMATE_WORKSPACE_ROOT: not a folder\n"
