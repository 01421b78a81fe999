"""The centre pane's status line (``lineStatusLabel``): a notice stands over the line's run status (issue 19).

A failed operation's one line (ERR-1) is not replaced by "Runnable" when the line is drawn again a moment
later (a turn's end, another process's change); it goes on a click on it, a switch of line, the person's
next Send, or after ``ERROR_NOTICE_MS``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.threads import PermissionLevel
from xworkmate.testing.openai_server import OpenAIServer, TextReply
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation import pane as pane_module

from .support import click_line, finished, label_text, open_new_line, send, settled
from .support_runs import run, wait_until


def _status(window: MainWindow) -> str:
    return label_text(window, "lineStatusLabel")


def _fail_a_folder_change(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> str:
    """A real failed operation on the shown line: "Change folder…" to a file. Returns the error line shown."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("hello", encoding="utf-8")
    window.workspace.choose_folder = lambda *_: str(a_file)
    window.workspace.on_change_folder_requested()
    settled(qtbot, window)
    status = _status(window)
    assert status.startswith("Folder not changed") and "not a folder" in status
    return status


def test_an_error_stays_when_the_line_is_drawn_again(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Another process (here the controller, as the CLI would) changes the shown line: the pane redraws it
    (its permission picker follows) but the error is still what the status line says."""
    line = open_new_line(qtbot, window, "Keep the error")
    error = _fail_a_folder_change(qtbot, window, tmp_path)

    sqlite_controller.line_settings.set_permission(line.thread_id, PermissionLevel.FULL)
    qtbot.waitUntil(lambda: window.permission_picker.currentData() == PermissionLevel.FULL.value, timeout=5000)
    settled(qtbot, window)

    assert _status(window) == error
    assert window.message_pane.status_label.property("severity") == "error"


def test_a_click_on_the_error_dismisses_it_and_shows_the_lines_status(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    open_new_line(qtbot, window, "Click it away")
    _fail_a_folder_change(qtbot, window, tmp_path)
    assert window.message_pane.status_label.toolTip() == "Click to dismiss"

    qtbot.mouseClick(window.message_pane.status_label, Qt.MouseButton.LeftButton)

    assert _status(window).startswith("Runnable")
    assert not window.message_pane.notice_shown and window.message_pane.status_label.toolTip() == ""


def test_switching_to_another_line_clears_the_error(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    other = window.controller.lines.create_line("Elsewhere")
    open_new_line(qtbot, window, "Failed here")
    _fail_a_folder_change(qtbot, window, tmp_path)

    click_line(qtbot, window, other.thread_id)

    assert window.shown_key == other.thread_id
    assert _status(window).startswith("Runnable")


def test_an_error_goes_by_itself_after_its_time(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pane_module, "ERROR_NOTICE_MS", 200)  # the real one is 15 s; the rule is the same
    open_new_line(qtbot, window, "Time it out")
    _fail_a_folder_change(qtbot, window, tmp_path)

    qtbot.waitUntil(lambda: _status(window).startswith("Runnable"), timeout=5000)
    assert not window.message_pane.notice_shown


def test_the_next_send_replaces_the_error_with_the_new_turns_status(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    tmp_path: Path,
) -> None:
    window = agent_window
    line = open_new_line(qtbot, window, "Send again")
    _fail_a_folder_change(qtbot, window, tmp_path)
    openai_server.script(TextReply(["Fine."]))

    send(qtbot, window, "carry on")
    assert _status(window).startswith("Running")
    run(loop, wait_until(finished(agent_controller, line.thread_id), what="the turn"))
    assert _status(window).startswith("Runnable")
