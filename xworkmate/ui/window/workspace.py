"""The right pane's actions: the shown line's folder (bind, recreate, preview, watched for ISO-4), a task's
"Dispatched on" sources (PROV-), and the Changes tab with the conversation's "n files changed" chips
(issue 16, LOOP-1).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QFileSystemWatcher, QModelIndex, QObject, Slot

from xworkmate.controllers import (
    ChangesRecorded,
    LineView,
    MessagesAppended,
    UnknownSessionKeyError,
    WorkspaceBindingError,
)
from xworkmate.controllers.views import LinePanes, ReadAhead
from xworkmate.domain.messages import Message, MessageRole
from xworkmate.domain.threads import ThreadKind, ThreadSummary
from xworkmate.presentation.files import FilePreview, read_preview
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.background import run_off_thread
from xworkmate.ui.changes.workspace import WorkspaceFiles, WorkspacePane, dispatch_sources_note
from xworkmate.ui.conversation import MessageListModel
from xworkmate.ui.dialogs import FolderChooser, FolderDialog
from xworkmate.ui.layout import RIGHT, PaneLayout
from xworkmate.ui.window.services import WindowServices

if TYPE_CHECKING:  # issue 34 item 4: built once the window can be used
    from xworkmate.ui.changes.changes_view import ChangesView


class WorkspaceActions(QObject):
    """The workspace pane's slots, its folder watch, the dispatch sources and the Changes tab.

    Replaceable hook (STYLE 6): ``choose_folder`` (a ``FolderDialog.ask``-shaped callable).
    ``invalidate_status(key)`` has the task list show a line's status afresh. Signals: none.
    """

    def __init__(
        self,
        window: WindowServices,
        pane: WorkspacePane,
        files: WorkspaceFiles,
        messages: MessageListModel,
        pane_layout: PaneLayout,
        *,
        invalidate_status: Callable[[str], None],
    ) -> None:
        super().__init__(window.window())
        self._window = window
        self._pane = pane
        self._files = files
        self._messages = messages
        self._pane_layout = pane_layout
        self._invalidate_status = invalidate_status
        self.choose_folder: FolderChooser = FolderDialog.ask
        self.folder_watcher = QFileSystemWatcher(self)
        self._sources_key: str | None = None  # the task whose "Dispatched on" section is shown
        self._shown_folder_exists = False
        self._previewing: Path | None = None  # the file whose preview is being read or shown
        # Issue 16: the Changes tab, and the "n files changed" chips it finds for the conversation: built once
        # the window can be used (issue 34 item 4), or when first asked for (``changes_view``).
        self._changes_view: ChangesView | None = None
        self.changes_view_pending = False  # its code is loading on a worker (``build_changes_view``)
        self.chip_turns: dict[int, int] = {}

    def show_line(self, view: LineView, previous: LineView | None, panes: LinePanes | None) -> None:
        self._pane.show_path(view)
        self._show_dispatch_sources(view, panes)
        if previous is None or previous.key != view.key:
            # Issue 34 item 1: a switch shows the conversation first; the folder (a look at the disk, the tree's
            # root, the watch) and the Changes tab follow right after its paint.
            self._window.shown.after_paint(self.show_folder)
        else:
            self.show_folder()

    def show_folder(self) -> None:
        """The shown line's folder: the tree, the watch, the Changes tab (what a switch leaves for after the
        conversation's paint)."""
        if (view := self._window.shown.view) is None:
            return
        self._shown_folder_exists = self._pane.show_folder(view)
        if self._changes_view is not None:  # else it shows the current line when it is built
            self._changes_view.show_line(view.key, view.thread.workspace_binding.path)
        self._watch_folder(view)

    def stop(self) -> None:
        if self.folder_watcher.directories():
            self.folder_watcher.removePaths(self.folder_watcher.directories())

    # -- the folder ----------------------------------------------------------------

    def folder_start_dir(self) -> str:
        """Where a folder dialog starts: the shown line's folder, else the workspace root (the nearest that is)."""
        view = self._window.shown.view
        path = view.thread.workspace_binding.path if view is not None else None
        candidate = Path(path) if path else self._window.controller.settings.effective_workspace_root
        while not candidate.is_dir() and candidate != candidate.parent:
            candidate = candidate.parent
        return str(candidate)

    @Slot()
    def on_change_folder_requested(self) -> None:
        if (view := self._window.shown.view) is None:
            return
        key, lines = view.key, self._window.controller.lines
        chosen = self.choose_folder(self._window.window(), self.folder_start_dir())
        if not chosen:
            return
        self._window.operations.run(  # ISO-8: an explicit bind
            lambda: lines.bind_workspace(key, chosen),
            failed=self._window.failure(
                self.tr("Folder not changed — {error}"), WorkspaceBindingError, UnknownSessionKeyError
            ),
        )

    @Slot()
    def on_recreate_folder_requested(self) -> None:
        if (view := self._window.shown.view) is None:
            return
        key, lines = view.key, self._window.controller.lines
        self._window.operations.run(  # its own path, not the default (issue 18); LineUpdated redraws the panes
            lambda: lines.recreate_folder(key),
            failed=self._window.failure(
                self.tr("Could not recreate the folder — {error}"),
                WorkspaceBindingError,
                UnknownSessionKeyError,
                OSError,
            ),
        )

    @Slot(QModelIndex, QModelIndex)
    def on_file_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        """The file's preview, read on a worker (LOOP-1: a folder may be on a network disk, a file there
        slow to read); shown if that file is still the one selected."""
        self._previewing = None
        if not current.isValid():
            self._pane.clear_preview()
            return
        path = Path(self._files.filePath(current))
        self._previewing = path

        def show(preview: FilePreview) -> None:
            if self._previewing == path:
                self._pane.show_preview(preview)

        def failed(error: BaseException) -> None:  # read_preview says its own errors; this is a fault
            if self._previewing == path:
                self._pane.show_preview(FilePreview("", plain_words(str(error))))

        run_off_thread(partial(read_preview, path), show, failed, parent=self)

    @Slot(str)
    def on_folder_changed(self, _path: str) -> None:
        self.recheck_workspace()

    def recheck_workspace(self) -> None:
        """The shown folder appeared or vanished behind our back: re-read the line (ISO-4)."""
        if (view := self._window.shown.view) is None:
            return
        path = view.thread.workspace_binding.path
        exists = bool(path) and Path(path or "").is_dir()
        if exists != self._shown_folder_exists:
            self._invalidate_status(view.key)
            self._window.shown.read_shown_again()

    def _watch_folder(self, view: LineView) -> None:
        watched = self.folder_watcher.directories()
        path = view.thread.workspace_binding.path
        target: str | None = None
        if path:
            folder = Path(path)
            # A missing folder is noticed through its parent when it comes back.
            target = str(folder) if folder.is_dir() else (str(folder.parent) if folder.parent.is_dir() else None)
        if watched == ([target] if target else []):
            return
        if watched:
            self.folder_watcher.removePaths(watched)
        if target:
            self.folder_watcher.addPath(target)

    # -- a task's sources (PROV-) ---------------------------------------------------------

    def on_messages_appended(self, change: MessagesAppended, ahead: ReadAhead) -> None:
        """A store record: a follow-up on the shown task re-captures its sources (PROV-4)."""
        view = self._window.shown.view
        if (
            view is not None
            and change.key == view.key
            and view.thread.kind is ThreadKind.TASK
            and (not change.messages or any(m.role is MessageRole.USER for m in change.messages))
        ):
            self._show_dispatch_sources(view, again=True)

    def _show_dispatch_sources(self, view: LineView, panes: LinePanes | None = None, *, again: bool = False) -> None:
        """The "Dispatched on" section of the workspace pane: a task's sources as it may read them.

        From the panes a switch read; else the section already shown for this task stays, unless ``again``
        (a follow-up re-captured them, PROV-4); else they are read on the store worker (LOOP-4)."""
        thread = view.thread
        if thread.kind is not ThreadKind.TASK:
            self._sources_key = None
            self._pane.show_dispatch_sources(None)
            return
        if panes is not None and panes.sources is not None:
            self._show_sources(view, list(panes.sources), panes.dispatcher)
            return
        if self._sources_key == view.key and not again:
            return
        if self._sources_key != view.key:  # another task's sources are never shown for this one meanwhile
            self._sources_key = None
            self._pane.show_dispatch_sources(None)
        key, parent_key, controller = view.key, thread.parent_key, self._window.controller

        def read() -> tuple[list[Message], ThreadSummary | None]:
            return controller.tasks.task_sources(key), controller.lines.line_summary(parent_key) if parent_key else None

        def done(read: tuple[list[Message], ThreadSummary | None]) -> None:
            if (shown := self._window.shown.view) is not None and shown.key == key:
                self._show_sources(shown, *read)

        def failed(error: BaseException) -> None:
            if not isinstance(error, (LookupError, ValueError)):
                self._window.failure("")(error)  # the ERR-1 line, as for any operation
                return
            self._pane.show_dispatch_sources(
                [],
                self.tr("Could not read what this task was dispatched on — {error}").format(
                    error=plain_words(str(error))
                ),
            )

        self._window.operations.query(read, done=done, failed=failed)

    def _show_sources(self, view: LineView, sources: list[Message], parent: ThreadSummary | None) -> None:
        self._sources_key = view.key
        note = dispatch_sources_note(
            sources, category=view.thread.category, dispatcher_category=parent.category if parent is not None else None
        )
        self._pane.show_dispatch_sources(sources, note)

    # -- changes (issue 16) -----------------------------------------------------------------

    def build_changes_view(self) -> None:
        """Once the window can be used (issue 34 item 4): the Changes tab's code, and its checkpoints section's,
        load on a worker, as the turn code does, so that the GUI thread takes keys meanwhile (30 ms and more of
        imports); then the tab is built here. A failure to load is raised here, to the error boundary (ERR-1)."""

        def build(_loaded: object = None) -> None:
            self.changes_view_pending = False
            self.changes_view  # noqa: B018  (the Changes tab and the conversation's chips)

        self.changes_view_pending = self._changes_view is None
        run_off_thread(_load_changes_code, build, build, parent=self)

    @property
    def changes_view_busy(self) -> bool:
        """The Changes tab's code still loading, or one of its reads on its way (its chips after it was built)."""
        return self.changes_view_pending or (self._changes_view is not None and self._changes_view.busy)

    @property
    def changes_view(self) -> ChangesView:
        """The Changes tab, built on first use: after the window became usable, or when asked."""
        if self._changes_view is None:
            from xworkmate.ui.changes.changes_view import ChangesView

            view = ChangesView(self._window.controller)
            self._changes_view = view
            self._pane.add_changes_tab(view)
            view.chips_changed.connect(self.on_changes_chips)
            if (shown := self._window.shown.view) is not None:
                view.show_line(shown.key, shown.thread.workspace_binding.path)
        return self._changes_view

    def on_changes_recorded(self, change: ChangesRecorded) -> None:
        if self._changes_view is not None:  # else it reads them once built
            self._changes_view.on_changes_recorded(change.key)  # LOOP-1: the tab and the chips read again

    @Slot(str, object)
    def on_changes_chips(self, key: str, chips: dict[int, tuple[int, str]]) -> None:
        """The shown line's "n files changed" chips, on the messages its turns ended on."""
        if key != self._messages.key:
            return
        self.chip_turns = {message_id: turn for message_id, (turn, _text) in chips.items()}
        self._messages.set_chips(key, {message_id: text for message_id, (_turn, text) in chips.items()})

    @Slot(int)
    def on_changes_chip_clicked(self, message_id: int) -> None:
        """A chip opens its turn's changes in the Changes tab, bringing back the workspace pane when it is
        hidden (by the person or by a narrow window: issue 30, the click otherwise changed nothing seen)."""
        turn = self.chip_turns.get(message_id)
        if turn is not None:
            if not self._pane_layout.is_shown(RIGHT):
                self._pane_layout.set_shown(RIGHT, True, by_person=True)
            self._pane.show_changes_tab()
            self.changes_view.open_turn(turn)


def _load_changes_code() -> None:
    """The modules the Changes tab and the checkpoints section are made of: imports only (no widget, no read)."""
    for name in ("xworkmate.controllers.checkpoints", "xworkmate.ui.changes.changes_view"):
        importlib.import_module(name)
