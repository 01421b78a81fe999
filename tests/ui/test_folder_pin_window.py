"""Issue 29, table row 5 in the window (SBX-3, ISO-4): a line whose folder was swapped for a link says so.

The line's status line and its row's tooltip give the reason (where a missing folder's reason shows), Send
is disabled, and
"Change folder…" to its folder again makes it runnable.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController

from .conftest import open_window
from .support import click_line, label_text, proxy_index


def test_a_line_whose_folder_became_a_link_says_why_and_cannot_send_until_bound_again(
    qtbot: QtBot, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    line = sqlite_controller.lines.create_line("Swapped")
    folder = Path(line.workspace_binding.path or "")
    shutil.rmtree(folder)
    folder.symlink_to(tmp_path, target_is_directory=True)
    window = open_window(qtbot, sqlite_controller)
    click_line(qtbot, window, line.thread_id)
    expected = f"Not runnable — the line's folder {folder} was replaced by a symbolic link to {tmp_path}"
    qtbot.waitUntil(lambda: label_text(window, "lineStatusLabel").startswith(expected))
    assert not window.send_button.isEnabled()
    tooltip = proxy_index(window, line.thread_id).data(Qt.ItemDataRole.ToolTipRole)
    assert f"{folder} was replaced by a symbolic link to {tmp_path}" in tooltip  # the list says it too
    pane = window.workspace_pane
    assert pane.stack.currentWidget() is pane.empty_label and pane.root is None  # the target is not browsed
    assert "was replaced by a symbolic link" in pane.empty_label.text()
    folder.unlink()
    folder.mkdir()
    sqlite_controller.lines.bind_workspace(line.thread_id, folder)
    qtbot.waitUntil(lambda: label_text(window, "lineStatusLabel").startswith("Runnable"))
    qtbot.waitUntil(lambda: pane.root == str(folder))
