"""'Recreate folder' makes the line's own bound folder again (issue 18, item 7; ISO-4, ISO-8).

Pins: a line bound to a custom folder that vanished gets that same folder
back, still bound to it; its default folder is not made or bound instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.threads import ThreadStatus

from .conftest import open_window
from .support import click_line, label_text


def test_recreate_folder_recreates_the_bound_custom_folder(
    qtbot: QtBot, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    custom = tmp_path / "projects" / "custom-folder"
    custom.mkdir(parents=True)
    line = sqlite_controller.lines.create_line("Custom", workspace=custom)
    shutil.rmtree(custom)
    window = open_window(qtbot, sqlite_controller)
    click_line(qtbot, window, line.thread_id)
    button = window.workspace_pane.recreate_folder_button
    qtbot.waitUntil(lambda: not button.isHidden())
    assert str(custom) in button.toolTip()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: custom.is_dir())
    thread = sqlite_controller.get_thread(line.thread_id)
    assert thread.workspace_binding.path == str(custom)  # still bound to its own folder
    assert not sqlite_controller.lines.default_workspace_for(line.thread_id).exists()
    assert sqlite_controller.lines.status_of(thread) is ThreadStatus.RUNNABLE
    qtbot.waitUntil(lambda: label_text(window, "workspacePathLabel") == str(custom))
