"""The right pane: the current line's folder, Change folder…, the tree and the preview (ISO-3, ISO-8)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.threads import BoundBy
from xworkmate.ui import MainWindow

from .support import click_line, label_text


def test_change_folder_rebinds_the_current_line_through_the_replaceable_hook(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """ISO-8: "Change folder…" is an explicit bind of the current key."""
    line = sqlite_controller.lines.create_line("Rebind me")
    other = sqlite_controller.lines.create_line("Untouched")
    click_line(qtbot, window, line.thread_id)
    target = tmp_path / "project"
    target.mkdir()
    asked: list[str] = []

    def choose(_parent: object, start: str) -> str:
        asked.append(start)
        return str(target)

    window.workspace.choose_folder = choose

    qtbot.mouseClick(window.workspace_pane.change_folder_button, Qt.MouseButton.LeftButton)

    assert asked == [line.workspace_binding.path]  # the dialog starts in the line's current folder
    binding = sqlite_controller.get_thread(line.thread_id).workspace_binding
    assert binding.path == str(target.resolve())
    assert binding.bound_by is BoundBy.EXPLICIT
    assert label_text(window, "workspacePathLabel") == str(target.resolve())
    assert window.workspace_pane.root == str(target.resolve())
    assert sqlite_controller.get_thread(other.thread_id).workspace_binding == other.workspace_binding


def test_change_folder_to_a_file_is_refused_and_the_binding_is_unchanged(
    xwm_window: MainWindow, tmp_path: Path
) -> None:
    """ISO-3: a file is not a folder; the refusal is shown, not raised (driven with WindowDriver, issue 21)."""
    driver = xwm_window.driver
    key = driver.new_line("Keep my folder")
    before = driver.workspace_path
    a_file = tmp_path / "notes.txt"
    a_file.write_text("hello", encoding="utf-8")

    driver.bind(key, a_file)

    assert driver.status_text.startswith("Folder not changed") and "not a folder" in driver.status_text
    assert driver.workspace_path == before
    assert xwm_window.controller.get_thread(key).workspace_binding.path == before


def test_cancelling_the_folder_dialog_changes_nothing(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    before = sqlite_controller.get_thread("main").workspace_binding
    window.workspace.choose_folder = lambda *_args: None
    qtbot.mouseClick(window.workspace_pane.change_folder_button, Qt.MouseButton.LeftButton)
    assert sqlite_controller.get_thread("main").workspace_binding == before
    assert label_text(window, "lineStatusLabel").startswith("Runnable")


def test_the_tree_shows_the_line_folder_and_clicking_a_file_previews_it(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """SPEC §6: file tree and preview of the current key's folder, read-only."""
    line = sqlite_controller.lines.create_line("With files")
    folder = Path(line.workspace_binding.path or "")
    (folder / "README.md").write_text("# Hello\nworld\n", encoding="utf-8")
    click_line(qtbot, window, line.thread_id)
    tree = window.workspace_pane.tree
    fs_model = window.fs_model
    assert fs_model.isReadOnly()
    root = tree.rootIndex()
    assert fs_model.filePath(root) == str(folder)
    qtbot.waitUntil(lambda: fs_model.rowCount(root) == 1, timeout=5000)

    index = fs_model.index(0, 0, root)
    tree.setCurrentIndex(index)

    assert window.workspace_pane.preview.toPlainText() == "# Hello\nworld\n"
    assert window.workspace_pane.preview.isReadOnly()
    assert "README.md" in window.workspace_pane.preview_info.text()
