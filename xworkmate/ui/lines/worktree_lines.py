"""Worktree lines in the window (issue 16, item 4): the "New task line in a git worktree…" dialog and the
questions archiving one asks. Each behind an ``ask`` classmethod (STYLE 6) the window keeps as a hook.

The git work itself runs in the controller, off the GUI thread (``*_off_thread``); ``background.run_on_loop``
schedules it on the qasync loop and applies the result on the GUI thread, with no nested event loop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import SessionController
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.threads import TaskThread
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.background import run_on_loop
from xworkmate.ui.marks import QT_TRANSLATE_NOOP

if TYPE_CHECKING:  # issue 34 item 4: git's code loads at the first worktree action, not with the window
    from xworkmate.controllers.worktrees import WorktreeDirtyError

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class WorktreeRequest:
    """What the person asked for: a repository folder and, optionally, the new branch's name."""

    repo: str
    branch: str | None


WorktreeAsker = Callable[[QWidget | None, str], WorktreeRequest | None]
ArchiveAsker = Callable[[QWidget | None, TaskThread], bool]
ForceAsker = Callable[[QWidget | None, str], bool]


class WorktreeLineDialog(QDialog):
    """Asks for a repository folder and a branch name for a new worktree line.

    objectNames: ``worktreeLineDialog``, ``worktreeRepoEdit``, ``worktreeRepoBrowseButton``,
    ``worktreeBranchEdit``. Signals: none of its own (``accepted``/``rejected`` from ``QDialog``).
    """

    def __init__(self, parent: QWidget | None, start_dir: str) -> None:
        super().__init__(parent)
        self.setObjectName("worktreeLineDialog")
        self.setWindowTitle(self.tr("New task line in a git worktree"))
        self._start_dir = start_dir
        intro = QLabel(
            self.tr(
                "The line gets its own git worktree of the repository, on a new branch, in its own folder. "
                "Archiving the line removes the worktree and keeps the branch."
            )
        )
        intro.setWordWrap(True)
        self.repo_edit = QLineEdit()
        self.repo_edit.setObjectName("worktreeRepoEdit")
        self.repo_edit.setPlaceholderText(self.tr("a folder in a git repository"))
        self.browse_button = QPushButton(self.tr("Choose…"))
        self.browse_button.setObjectName("worktreeRepoBrowseButton")
        self.branch_edit = QLineEdit()
        self.branch_edit.setObjectName("worktreeBranchEdit")
        self.branch_edit.setPlaceholderText(self.tr("default: xworkmate/<the line's folder name>"))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText(self.tr("Create line"))
        self.ok_button.setEnabled(False)

        repo_row = QHBoxLayout()
        repo_row.addWidget(self.repo_edit, 1)
        repo_row.addWidget(self.browse_button)
        form = QFormLayout()
        form.addRow(self.tr("Repository:"), repo_row)
        form.addRow(self.tr("New branch:"), self.branch_edit)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.buttons)

        self.repo_edit.textChanged.connect(self.on_repo_changed)
        self.browse_button.clicked.connect(self.on_browse_requested)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.resize(520, self.sizeHint().height())

    def on_repo_changed(self, text: str) -> None:
        self.ok_button.setEnabled(bool(text.strip()))

    def on_browse_requested(self) -> None:
        chosen = QFileDialog.getExistingDirectory(
            self, self.tr("Choose the repository"), self.repo_edit.text() or self._start_dir
        )
        if chosen:
            self.repo_edit.setText(chosen)

    def request(self) -> WorktreeRequest:
        """What the fields say; an empty branch field means the default name (the controller checks both)."""
        branch = self.branch_edit.text()
        return WorktreeRequest(repo=self.repo_edit.text().strip(), branch=branch if branch.strip() else None)

    @classmethod
    def ask(cls, parent: QWidget | None, start_dir: str) -> WorktreeRequest | None:
        dialog = cls(parent, start_dir)
        try:
            return dialog.request() if dialog.exec() == QDialog.DialogCode.Accepted else None
        finally:
            dialog.deleteLater()


class WorktreeArchiveDialog:
    """Archiving a worktree line: removing its worktree is said first; the branch stays."""

    @classmethod
    def text(cls, thread: TaskThread) -> str:
        binding = thread.workspace_binding
        return QCoreApplication.translate(
            "WorktreeLineFlow",
            "Archiving “{title}” removes its git worktree at {path}. "
            "The branch {branch} stays in {repo}; unarchiving checks it out there again.",
        ).format(title=thread.title, path=binding.path, branch=binding.branch, repo=binding.repo)

    @classmethod
    def ask(cls, parent: QWidget | None, thread: TaskThread) -> bool:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            QCoreApplication.translate("WorktreeLineFlow", "Archive worktree line"),
            cls.text(thread),
            parent=parent,
        )
        box.setObjectName("worktreeArchiveDialog")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText(
            QCoreApplication.translate("WorktreeLineFlow", "Archive and remove worktree")
        )
        return box.exec() == QMessageBox.StandardButton.Yes


class WorktreeForceDialog:
    """The worktree has uncommitted changes: remove it anyway (they are lost) only if the person says so."""

    @classmethod
    def ask(cls, parent: QWidget | None, reason: str) -> bool:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            QCoreApplication.translate("WorktreeLineFlow", "Uncommitted changes"),
            plain_words(reason),
            parent=parent,
        )
        box.setObjectName("worktreeForceDialog")
        box.setInformativeText(
            QCoreApplication.translate(
                "WorktreeLineFlow", "Removing the worktree anyway loses those changes. The branch stays."
            )
        )
        box.setStandardButtons(QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Discard).setText(
            QCoreApplication.translate("WorktreeLineFlow", "Remove anyway")
        )
        return box.exec() == QMessageBox.StandardButton.Discard


class WorktreeLineFlow:
    """The window's worktree-line actions: create from the dialog, archive (ask, then remove), unarchive.

    Hooks tests replace (STYLE 6): ``ask_worktree``, ``confirm_archive``, ``confirm_force``.
    ``created(thread)`` is called with a new line once it is stored; ``show_error`` gets one line.
    """

    def __init__(
        self,
        parent: QWidget,
        controller: SessionController,
        *,
        show_error: Callable[[str], None],
        created: Callable[[TaskThread], None],
    ) -> None:
        self._parent = parent
        self._controller = controller
        self._show_error = show_error
        self._created = created
        self.ask_worktree: WorktreeAsker = WorktreeLineDialog.ask
        self.confirm_archive: ArchiveAsker = WorktreeArchiveDialog.ask
        self.confirm_force: ForceAsker = WorktreeForceDialog.ask

    def _run(
        self, coro: Coroutine[Any, Any, T], on_result: Callable[[T], None], what: str, *, key: str | None = None
    ) -> None:
        def failed(exc: BaseException) -> None:
            from xworkmate.controllers.worktrees import WorktreeDirtyError

            if isinstance(exc, WorktreeDirtyError) and key is not None:
                self._show_error(
                    QCoreApplication.translate("WorktreeLineFlow", "Not archived — {error}").format(
                        error=plain_words(str(exc))
                    )
                )
                # Asked from a timer, not from inside the loop's callback: no nested loop in a coroutine's wake.
                QTimer.singleShot(0, self._parent, partial(self._ask_force, key, exc))
            elif isinstance(exc, (ValueError, LookupError, NotRunnable, OSError)):
                self._show_error(
                    QCoreApplication.translate("WorktreeLineFlow", "{what} — {error}").format(
                        what=QCoreApplication.translate("WorktreeLineFlow", what), error=plain_words(str(exc))
                    )
                )
            else:
                log.error("worktree line: %s", what, exc_info=exc)
                self._show_error(
                    QCoreApplication.translate("WorktreeLineFlow", "{what} — {error}").format(
                        what=QCoreApplication.translate("WorktreeLineFlow", what), error=plain_words(str(exc))
                    )
                )

        run_on_loop(coro, on_result, failed, parent=self._parent)

    def new_line(self, start_dir: str) -> None:
        """File → "New task line in a git worktree…"."""
        request = self.ask_worktree(self._parent, start_dir)
        if request is None:
            return
        self._run(
            self._controller.lines.create_worktree_line_off_thread(request.repo, branch=request.branch),
            self._created,
            QT_TRANSLATE_NOOP("WorktreeLineFlow", "Could not create the worktree line"),
        )

    def archive(self, thread: TaskThread) -> None:
        if not self.confirm_archive(self._parent, thread):
            return
        key = thread.thread_id
        self._run(
            self._controller.lines.archive_line_off_thread(key),
            _ignore,
            QT_TRANSLATE_NOOP("WorktreeLineFlow", "Could not archive the line"),
            key=key,
        )

    def _ask_force(self, key: str, refused: WorktreeDirtyError) -> None:
        if not self.confirm_force(self._parent, str(refused)):
            return
        self._run(
            self._controller.lines.archive_line_off_thread(key, force=True),
            _ignore,
            QT_TRANSLATE_NOOP("WorktreeLineFlow", "Could not archive the line"),
        )

    def unarchive(self, thread: TaskThread) -> None:
        self._run(
            self._controller.lines.unarchive_line_off_thread(thread.thread_id),
            _ignore,
            QT_TRANSLATE_NOOP("WorktreeLineFlow", "Could not unarchive the line"),
        )


def _ignore(_thread: TaskThread) -> None:
    """The controller's ``LineUpdated`` redraws the window; nothing else to apply."""
