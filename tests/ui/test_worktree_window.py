"""Worktree lines in the window (issue 16, item 4): the dialog, the branch in the header, archive and unarchive.

Real git, the real dialog's widgets filled with qtbot, the controller's git work off the GUI thread on
the qasync loop (``loop``); the questions are the window's replaceable hooks (STYLE 6).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from tests.support.git_repos import git, make_repo
from xworkmate.controllers import SessionController
from xworkmate.domain.threads import TaskThread, WorkspaceKind
from xworkmate.ui import MainWindow
from xworkmate.ui.background import jobs_waiting
from xworkmate.ui.lines.worktree_lines import WorktreeArchiveDialog, WorktreeLineDialog, WorktreeRequest

from .conftest import open_window
from .support import label_text, settled
from .support_runs import run, wait_until


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "project", {"README.md": "hello\n"})


@pytest.fixture
def wt_window(qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController) -> MainWindow:
    return open_window(qtbot, sqlite_controller)


def fill_dialog(qtbot: QtBot, parent: QWidget | None, start: str, repo: str, branch: str) -> WorktreeRequest | None:
    """The real dialog, typed into and accepted with a click, as ``ask`` would run it (without a nested loop)."""
    dialog = WorktreeLineDialog(parent, start)
    qtbot.addWidget(dialog)
    dialog.show()
    assert not dialog.ok_button.isEnabled()  # nothing to create from yet
    qtbot.keyClicks(dialog.repo_edit, repo)
    qtbot.keyClicks(dialog.branch_edit, branch)
    assert dialog.ok_button.isEnabled()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    return dialog.request() if dialog.result() == WorktreeLineDialog.DialogCode.Accepted else None


def create_from_menu(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, window: MainWindow, repo: Path, branch: str
) -> TaskThread:
    controller = window.controller
    before = {s.thread_id for s in controller.lines.list_lines(include_archived=True)}
    window.task_list.worktree_lines.ask_worktree = lambda parent, start: fill_dialog(
        qtbot, parent, start, str(repo), branch
    )
    window.chrome.new_worktree_line_action.trigger()
    run(loop, wait_until(lambda: window.shown_key not in before, what="the new worktree line is shown"))
    return controller.get_thread(str(window.shown_key))


def test_new_worktree_line_from_the_dialog_shows_its_branch(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, wt_window: MainWindow, repo: Path
) -> None:
    file_menu = wt_window.menuBar().actions()[0].menu()
    assert wt_window.chrome.new_worktree_line_action in file_menu.actions()

    thread = create_from_menu(qtbot, loop, wt_window, repo, "feature/ui")

    assert thread.workspace_binding.kind is WorkspaceKind.WORKTREE
    assert thread.workspace_binding.branch == "feature/ui"
    assert (Path(thread.workspace_binding.path or "") / "README.md").is_file()
    branch_label = wt_window.message_pane.branch_label
    assert branch_label.isVisible() and label_text(wt_window, "lineBranchLabel") == "⎇ feature/ui"
    assert label_text(wt_window, "workspacePathLabel") == thread.workspace_binding.path
    wt_window.grab().save("/tmp/i16b_worktree_line.png")

    wt_window.controller.lines.switch_session("main")
    settled(qtbot, wt_window)  # a switch from outside the window is read on the store worker (issue 33 item 3)
    assert not branch_label.isVisible()  # an ordinary line has no branch


def test_a_refused_branch_is_one_line_in_the_status_and_nothing_is_made(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, wt_window: MainWindow, repo: Path
) -> None:
    lines_before = wt_window.controller.lines.list_lines(include_archived=True)
    wt_window.task_list.worktree_lines.ask_worktree = lambda parent, start: fill_dialog(
        qtbot, parent, start, str(repo), "main"
    )
    wt_window.chrome.new_worktree_line_action.trigger()
    run(loop, wait_until(lambda: jobs_waiting() == 0, what="the refusal"))
    status = label_text(wt_window, "lineStatusLabel")
    assert status.startswith("Could not create the worktree line") and "already exists" in status
    assert "\n" not in status
    assert wt_window.controller.lines.list_lines(include_archived=True) == lines_before


def test_archive_asks_refuses_a_dirty_worktree_until_forced_and_unarchive_recreates_it(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, wt_window: MainWindow, repo: Path
) -> None:
    controller = wt_window.controller
    thread = create_from_menu(qtbot, loop, wt_window, repo, "to-archive")
    folder = Path(thread.workspace_binding.path or "")
    (folder / "wip.txt").write_text("not committed\n")
    asked: list[str] = []
    forced: list[bool] = []
    wt_window.task_list.worktree_lines.confirm_archive = lambda _p, t: (
        asked.append(WorktreeArchiveDialog.text(t)) or True
    )

    def force(_parent: object, reason: str) -> bool:
        forced.append("uncommitted changes" in reason)
        return len(forced) > 1  # no the first time, yes the second

    wt_window.task_list.worktree_lines.confirm_force = force

    qtbot.mouseClick(wt_window.task_pane.archive_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(lambda: forced == [True] and jobs_waiting() == 0, what="asked to force"))
    assert "removes its git worktree" in asked[0] and "to-archive stays" in asked[0]
    status = label_text(wt_window, "lineStatusLabel")
    assert status.startswith("Not archived — ") and "uncommitted changes" in status
    assert folder.is_dir() and not controller.get_thread(thread.thread_id).archived

    qtbot.mouseClick(wt_window.task_pane.archive_button, Qt.MouseButton.LeftButton)
    # Archived in the store first, then the job ends and the window applies what it changed: wait for both, as
    # for the first click (the archive runs off the GUI thread, not as a store operation ``settled`` waits for).
    run(
        loop,
        wait_until(
            lambda: controller.get_thread(thread.thread_id).archived and jobs_waiting() == 0, what="archived, forced"
        ),
    )
    assert not folder.exists()
    assert "to-archive" in git(repo, "branch", "--list", "to-archive")

    controller.lines.switch_session(thread.thread_id)  # an archived line can still be shown
    settled(qtbot, wt_window)  # a switch from outside the window is read on the store worker (issue 33 item 2)
    assert wt_window.task_pane.archive_button.text() == "Unarchive"
    qtbot.mouseClick(wt_window.task_pane.archive_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(lambda: not controller.get_thread(thread.thread_id).archived, what="unarchived"))
    assert (folder / "README.md").is_file()
    assert label_text(wt_window, "lineBranchLabel") == "⎇ to-archive"
