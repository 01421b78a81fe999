"""ERR-1 in the window: a bad database at start-up is said in the window, not on a terminal nobody reads;
a window operation that fails on a full disk is one line in the window, and nothing is half-made."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.cli.test_faults import fill, line_folders, small_disk  # noqa: F401 - the fixture
from xworkmate.cli import EXIT_DATABASE, main
from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.ui.app import install_error_boundary
from xworkmate.ui.window.main_window import MainWindow

from .conftest import open_window
from .support import label_text


def test_a_bad_database_at_start_up_is_said_in_the_window_with_where_it_is(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 19, item 7: the window shows before the store opens, so a store that does not open is said in
    it (one line, then which database and how to use another), not in a dialog before any window."""
    home = tmp_path / "home"
    home.mkdir()
    database = home / "xworkmate.sqlite3"
    database.write_bytes(b"this is not a database, just some bytes " * 100)
    monkeypatch.setenv("XWORKMATE_HOME", str(home))
    monkeypatch.delenv("XWORKMATE_DATABASE_URL", raising=False)
    shown: list[tuple[str, str]] = []

    def read_and_close() -> None:
        windows = [w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        page = windows[0].opening_page if windows else None
        if page is None or not page.failed:
            QTimer.singleShot(20, read_and_close)
            return
        shown.append((page.notice.text(), page.help.text()))
        windows[0].close()

    QTimer.singleShot(20, read_and_close)
    assert main([]) == EXIT_DATABASE
    [(text, info)] = shown
    assert str(database) in text and "\n" not in text
    assert f"Database: SQLite database {database}" in info and "xworkmate doctor" in info
    assert QApplication.activeModalWidget() is None  # no dialog on top of the window
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert database.read_bytes().startswith(b"this is not a database")  # never overwritten


def test_a_window_operation_on_a_full_disk_is_one_line_in_the_window_and_makes_no_folder(
    qtbot: QtBot,
    small_disk: Path,  # noqa: F811 - the fixture
) -> None:
    home = small_disk / "home"
    settings = Settings(home=home, database_url=None, workspace_root=None)
    store = open_store(settings.effective_database_url)
    try:
        controller = SessionController(store, settings)
        window = open_window(qtbot, controller)
        restore = install_error_boundary(window)
        holder = sqlite3.connect(settings.sqlite_path)  # keeps the WAL index, as a second window would
        try:
            lines_before = len(controller.lines.list_lines())
            folders_before = line_folders(home)
            fill(small_disk)
            for _ in range(20):
                window.chrome.new_line_action.trigger()
                if label_text(window, "lineStatusLabel").startswith("That did not work"):
                    break
            status = label_text(window, "lineStatusLabel")
            assert status.startswith("That did not work — ") and "is full" in status
            assert "\n" not in status
        finally:
            restore()
            holder.close()
            for filler in small_disk.glob("filler-*"):
                filler.unlink()
        stored = {Path(line.workspace_path or "").name for line in controller.lines.list_lines(include_archived=True)}
        assert line_folders(home) == stored  # the failed line left no folder behind
        assert len(stored) >= lines_before and folders_before <= line_folders(home)
        window.close()
    finally:
        store.close()
