"""The right pane: the current line's folder, Change folder…, the tree and the preview (ISO-3, ISO-8)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.threads import BoundBy
from xworkmate.presentation.files import FilePreview
from xworkmate.ui import MainWindow
from xworkmate.ui.window import workspace as workspace_actions

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

    qtbot.waitUntil(lambda: window.workspace_pane.preview.toPlainText() == "# Hello\nworld\n")  # read on a worker
    assert window.workspace_pane.preview.isReadOnly()
    assert "README.md" in window.workspace_pane.preview_info.text()


def test_a_preview_is_read_off_the_gui_thread_and_a_late_one_never_replaces_the_file_selected_since(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    window: MainWindow,
    sqlite_controller: SessionController,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LOOP-1: a line's folder may be on a network disk; the preview's read (up to 256 KB) ran on the GUI
    thread. Now on a worker; the slow read of a file selected before arrives after the next one's and is
    dropped."""
    line = sqlite_controller.lines.create_line("Two files")
    folder = Path(line.workspace_binding.path or "")
    (folder / "a.txt").write_text("slow to read\n")
    (folder / "b.txt").write_text("the one selected\n")
    readers: dict[str, str] = {}
    real = workspace_actions.read_preview

    def read(path: Path) -> FilePreview:  # the real read, noting where it ran; a.txt as from a slow disk
        readers[path.name] = threading.current_thread().name
        if path.name == "a.txt":
            time.sleep(0.5)
        return real(path)

    monkeypatch.setattr(workspace_actions, "read_preview", read)
    click_line(qtbot, window, line.thread_id)
    tree, fs_model = window.workspace_pane.tree, window.fs_model
    root = tree.rootIndex()
    qtbot.waitUntil(lambda: fs_model.rowCount(root) == 2, timeout=5000)
    tree.setCurrentIndex(fs_model.index(str(folder / "a.txt")))
    tree.setCurrentIndex(fs_model.index(str(folder / "b.txt")))
    qtbot.waitUntil(lambda: window.workspace_pane.preview.toPlainText() == "the one selected\n")
    qtbot.waitUntil(lambda: "a.txt" in readers and "b.txt" in readers)
    qtbot.wait(700)  # a.txt's read has come back by now
    assert window.workspace_pane.preview.toPlainText() == "the one selected\n"
    assert "b.txt" in window.workspace_pane.preview_info.text()
    assert threading.main_thread().name not in readers.values(), readers
