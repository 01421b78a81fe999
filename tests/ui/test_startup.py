"""Start-up (issue 19, item 7): the window is painted before the store opens; the store opens, migrates
and is first read on a worker; the list fills after; a failure to open is one line in the window."""

from __future__ import annotations

import argparse
import asyncio
import threading
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from sqlalchemy import event, text
from sqlalchemy.engine import Engine

from xworkmate.cli.run import run_window
from xworkmate.controllers import SessionController
from xworkmate.controllers.app import open_controller
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.ui.app import Opening, StoreOpening
from xworkmate.ui.main_window import MainWindow

from .support import label_text, selected_key
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
        keys = [controller.create_line(title).thread_id for title in titles]
        controller.switch_session(keys[-1])
        return keys
    finally:
        store.close()


class _Held:
    """An ``Opening.open`` that waits for ``release`` before it opens the store, and notes when it was asked."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.asked = threading.Event()
        self.release = threading.Event()
        self.thread = ""

    def __call__(self) -> SessionController:
        self.thread = threading.current_thread().name
        self.asked.set()
        assert self.release.wait(10), "the test never released the open"
        return open_controller(self._settings)


def _opening(settings: Settings, open_: Callable[[], SessionController], failures: list[BaseException]) -> Opening:
    def failed(error: BaseException) -> tuple[str, int]:
        failures.append(error)
        return str(error), 3

    return Opening(open=open_, home=settings.home, database_url=settings.effective_database_url, failed=failed)


def test_the_window_is_painted_before_the_store_opens_and_the_list_fills_after(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, settings: Settings, database_url: str, statements: list[str]
) -> None:
    """On a SQLite file and on a PostgreSQL database of its own."""
    settings = settings.model_copy(update={"database_url": database_url})
    keys = _seeded(settings, "First", "Second")
    statements.clear()
    held = _Held(settings)
    failures: list[BaseException] = []
    attached: list[SessionController] = []
    window = MainWindow()
    qtbot.addWidget(window)
    opening = StoreOpening(window, _opening(settings, held, failures), attached=attached.append, failed=lambda _: None)
    opening.start_after_first_paint()
    window.show()
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
    from xworkmate.ui.main_window import GEOMETRY_STATE

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
        assert SessionController(store, settings).ui_state(GEOMETRY_STATE)
    finally:
        store.close()
