"""The task list's actions: new, archive, rename, category, fork, worktree lines, filters, the selection.

The list's selection only asks for a switch (``WindowServices.switch_to``); it never decides which line is
shown (ISO-5). Selection changes the window makes itself (keeping it on the shown line, filtering, rows a
record removes) are guarded so they are not read as the person picking a line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QObject, QPoint, Slot
from PySide6.QtWidgets import QApplication, QMenu

from xworkmate.controllers import (
    LineCreated,
    LineUpdated,
    LineView,
    UnknownSessionKeyError,
    WorkspaceBindingError,
)
from xworkmate.controllers.views import LinePanes, ReadAhead
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.threads import TaskThread, ThreadSummary, WorkspaceKind
from xworkmate.ui.dialogs import CategoryChooser, CategoryDialog, TitleChooser, TitleDialog
from xworkmate.ui.icons import ButtonIcons
from xworkmate.ui.lines.needs_you import NeedsYou
from xworkmate.ui.lines.rest_of_lines import read_rest_when_usable
from xworkmate.ui.lines.task_lines import KEY_ROLE, TaskLineFilterModel, TaskLineModel, TaskLinePane
from xworkmate.ui.lines.worktree_lines import WorktreeLineFlow
from xworkmate.ui.window.lines_ahead import LinesAhead
from xworkmate.ui.window.services import WindowServices


class TaskListActions(QObject):
    """The left pane's slots (``on_*``), its row menu and the list's selection.

    Replaceable hooks (STYLE 6): ``ask_title`` and ``ask_category``; ``worktree_lines`` holds the worktree
    questions. ``start_dir()`` is where a folder dialog starts. Signals: none.
    """

    def __init__(
        self,
        window: WindowServices,
        pane: TaskLinePane,
        model: TaskLineModel,
        proxy: TaskLineFilterModel,
        needs_you: NeedsYou,
        *,
        wanted_key: Callable[[], str | None],
        start_dir: Callable[[], str],
        focus_composer: Callable[[], None],
    ) -> None:
        super().__init__(window.window())
        self._window = window
        self._pane = pane
        self._list = pane.list_view
        self._model = model
        self._proxy = proxy
        self._needs_you = needs_you
        self._wanted_key = wanted_key
        self._start_dir = start_dir
        self._focus_composer = focus_composer
        self._guard = 0
        self.button_icons: ButtonIcons | None = None  # set once the window has its icons
        self.ask_title: TitleChooser = TitleDialog.ask
        self.ask_category: CategoryChooser = CategoryDialog.ask
        # Issue 16: worktree lines (create, archive, unarchive) with their questions as replaceable hooks.
        self.worktree_lines = WorktreeLineFlow(
            window.window(), window.controller, show_error=window.show_error, created=self._made_to_type_in
        )
        read_rest_when_usable(window, model, self._list, done=self._rest_came)  # issue 34 item 2
        self.lines_ahead = LinesAhead(window, self._list, KEY_ROLE)  # issue 34 item 1: a first switch paints at once

    # -- the selection -----------------------------------------------------

    @contextmanager
    def guarded(self) -> Iterator[None]:
        """Selection changes made by the window itself are not the person picking a line."""
        self._guard += 1
        try:
            yield
        finally:
            self._guard -= 1

    def proxy_index_of(self, key: str) -> QModelIndex:
        """The list's index of ``key`` (invalid when the filter hides it)."""
        row = self._model.row_of(key)
        if row is None:
            return QModelIndex()
        return self._proxy.mapFromSource(self._model.index(row, 0))

    def sync_selection(self) -> None:
        """Keep the list selection on the wanted line (or on nothing if the filter hides it). The list scrolls to
        the line only when the selection moves to it: after every store record it did (issue 34 item 1), so a
        person scrolling the list while lines streamed was pulled back to the shown line at once."""
        key = self._wanted_key()
        if key is None:
            return
        with self.guarded():
            selection = self._list.selectionModel()
            index = self.proxy_index_of(key)
            if index.isValid():
                if selection.currentIndex() != index or not selection.isSelected(index):
                    selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
                    self._list.scrollTo(index)
            elif selection.hasSelection() or selection.currentIndex().isValid():
                selection.clear()

    def _rest_came(self) -> None:
        """The rest of the lines are in: the shown line may be one of them, so revealed, selected, named."""
        if (key := self._wanted_key()) is not None:
            self.reveal(key)
        self.sync_selection()
        self.on_rows_changed()
        self._needs_you.show_title()

    def reveal(self, key: str) -> None:
        """Make ``key``'s row visible: the text filter, then "Needs you", cleared when they hide it."""
        if self._model.partial and self._model.row_of(key) is None:
            return  # not hidden but not read yet (issue 34 item 2): revealed when the rest of the lines come
        if not self.proxy_index_of(key).isValid():
            self._pane.filter_edit.clear()  # a line hidden by the text filter would look lost
            if not self.proxy_index_of(key).isValid():
                self._pane.needs_you_button.setChecked(False)

    # -- the shown line ------------------------------------------------------

    def show_line(self, view: LineView, previous: LineView | None, panes: LinePanes | None) -> None:
        if previous is None or previous.key != view.key:
            with self.guarded():
                self._proxy.keep(view.key)  # "Needs you" keeps the line it shows once it is seen
            self._window.shown.after_paint(self._needs_you.watch)  # the seen mark, once painted (issue 34)
        cached = self._model.cached_status(view.key)
        if cached is not None and cached is not view.status:
            self._model.invalidate_status(view.key)
        archive = self._pane.archive_button
        archive.setText(self.tr("Unarchive") if view.thread.archived else self.tr("Archive"))
        if self.button_icons is not None:
            self.button_icons.set_name(archive, "unarchive" if view.thread.archived else "archive")
        archive.setEnabled(not view.thread.is_main)
        if self._window.shown.switching:  # the title follows once the panes are painted (ISO-5 is the panes; the
            self._window.shown.after_paint(self._needs_you.show_title)  # title bar comes a frame on)
        else:
            self._needs_you.show_title()

    def on_line_created(self, change: LineCreated, ahead: ReadAhead) -> None:
        """A store record: the new line's row as the worker read it (LOOP-4); none: the line was gone by
        then (or the read failed) and the model does not read it here on the GUI thread."""
        if self._window.operations.applying and (summary := ahead.summaries.get(change.key)) is not None:
            self._model.add_line(change.key, summary)

    def on_line_updated(self, change: LineUpdated, ahead: ReadAhead) -> None:
        if (summary := ahead.summaries.get(change.key)) is not None:  # as for LineCreated
            self._model.refresh_line(change.key, summary)

    @Slot(object)
    def on_external_change(self, change: object) -> None:
        """The listener reconnected (issue 18): read the lines and the shown one again."""
        if not getattr(change, "everything", False) or self._window.closed:
            return
        controller = self._window.controller

        def reloaded(lines: list[ThreadSummary]) -> None:
            self._model.reload(lines)
            self._window.shown.refresh_shown()

        self._window.operations.query(
            lambda: controller.lines.list_lines(include_archived=True),
            done=reloaded,
            failed=self._window.failure(self.tr("Could not read the task lines — {error}")),
        )

    # -- slots -------------------------------------------------------------

    def on_line_made(self, thread: TaskThread) -> None:
        """A line this window made (new, forked, a worktree's) is shown at once, even if the filter hid it."""
        if not self.proxy_index_of(thread.thread_id).isValid():
            self._pane.filter_edit.clear()
        self._window.shown.switch_to(thread.thread_id)

    def _made_to_type_in(self, thread: TaskThread) -> None:
        """A new line (File → New, or a worktree's): shown, and the composer takes the keys."""
        self.on_line_made(thread)
        self._focus_composer()

    @Slot()
    def on_new_line_requested(self) -> None:
        self._window.operations.run(
            self._window.controller.lines.create_line,
            done=self._made_to_type_in,
            failed=self._window.failure(
                self.tr("Could not create a task line — {error}"),
                WorkspaceBindingError,
                UnknownSessionKeyError,
                OSError,
            ),
        )

    @Slot(QModelIndex, QModelIndex)
    def on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._guard or not current.isValid():
            return
        key = current.data(KEY_ROLE)
        if not key or key == (self._wanted_key() or self._window.shown.shown_key):
            return
        self._window.shown.switch_to(str(key))  # ISO-5: every pane shows the new line at once, from one view

    def _filtered(self, change: Callable[[], None]) -> None:
        with self.guarded():
            change()
        self.sync_selection()
        self.on_rows_changed()

    @Slot(str)
    def on_filter_changed(self, text: str) -> None:
        self._filtered(lambda: self._proxy.set_filter_text(text))

    @Slot(bool)
    def on_show_archived_toggled(self, checked: bool) -> None:
        self._filtered(lambda: self._proxy.set_show_archived(checked))

    def set_needs_you_filter(self, on: bool) -> None:
        """ "Needs you" (issue 17): only the lines waiting for the person, the longest waiting first."""
        self._filtered(lambda: self._proxy.set_needs_you(on))

    @Slot()
    def on_rows_changed(self) -> None:
        self._pane.show_empty_state(self._proxy.rowCount(), self._proxy.filter_text)
        self.lines_ahead.look()  # other lines may have come into view

    @Slot(int)
    def on_jump_shortcut(self, number: int) -> None:
        """Ctrl+1…9: the n-th visible line."""
        index = self._proxy.index(number - 1, 0)
        if index.isValid():
            self._list.setCurrentIndex(index)

    @Slot()
    def on_archive_current_requested(self) -> None:
        if (view := self._window.shown.view) is not None:
            self.set_archived(view.key, not view.thread.archived)

    def set_archived(self, key: str, archived: bool) -> None:
        controller = self._window.controller

        def archive() -> TaskThread | None:
            thread = self._worktree_thread(key)
            if thread is not None:
                return thread  # issue 16: asked on the GUI thread, then git works off it
            if archived:
                controller.lines.archive_line(key)
            else:
                controller.lines.unarchive_line(key)
            return None

        def done(worktree: TaskThread | None) -> None:
            if worktree is not None:
                (self.worktree_lines.archive if archived else self.worktree_lines.unarchive)(worktree)

        template = (
            self.tr("Could not archive the line — {error}")
            if archived
            else self.tr("Could not unarchive the line — {error}")
        )
        self._window.operations.run(
            archive,
            done=done,
            failed=self._window.failure(template, NotRunnable, UnknownSessionKeyError, ValueError),
        )

    def _worktree_thread(self, key: str) -> TaskThread | None:
        try:
            thread = self._window.controller.get_thread(key)
        except UnknownSessionKeyError:
            return None
        return thread if thread.workspace_binding.kind is WorkspaceKind.WORKTREE else None

    @Slot()
    def on_new_worktree_line_requested(self) -> None:
        """File → "New task line in a git worktree…" (issue 16)."""
        self.worktree_lines.new_line(self._start_dir())

    def rename_line(self, key: str) -> None:
        summary = self._model.summary(key)
        title = self.ask_title(self._window.window(), summary.title if summary is not None else "")
        if title is None:
            return
        lines = self._window.controller.lines
        self._window.operations.run(  # LineUpdated redraws the row and the title
            lambda: lines.rename_line(key, title),
            failed=self._window.failure(
                self.tr("Could not rename the line — {error}"), UnknownSessionKeyError, ValueError
            ),
        )

    def set_line_category(self, key: str) -> None:
        """ "Set category…": a human decision that relabels the line and its whole subtree (CAT-10)."""
        summary = self._model.summary(key)
        answer = self.ask_category(self._window.window(), (summary.category or "") if summary is not None else "")
        if answer is None:
            return
        tasks = self._window.controller.tasks
        self._window.operations.run(  # LineUpdated for every line moved
            lambda: tasks.set_category(key, answer.strip() or None),
            failed=self._window.failure(self.tr("Category not changed — {error}"), ValueError, LookupError),
        )

    def fork_line(self, key: str) -> None:
        """ "Fork": a copy of the line with its own folder, nested under it (it keeps the category, CAT-7)."""
        tasks = self._window.controller.tasks
        self._window.operations.run(
            lambda: tasks.fork(key),
            done=self.on_line_made,
            failed=self._window.failure(self.tr("Could not fork the line — {error}"), ValueError, LookupError, OSError),
        )

    def task_line_menu(self, key: str) -> QMenu:
        """The context menu of one row (built separately so it can be tested without exec)."""
        summary = self._model.summary(key)
        archived = summary.archived if summary is not None else False
        menu = QMenu(self._window.window())
        menu.setObjectName("taskLineMenu")
        menu.addAction(self.tr("Rename…"), partial(self.rename_line, key))
        category = menu.addAction(self.tr("Set category…"), partial(self.set_line_category, key))
        category.setToolTip(self.tr("Relabel this line and everything it dispatched; empty means normal content"))
        menu.addAction(self.tr("Fork"), partial(self.fork_line, key))
        archive = menu.addAction(
            self.tr("Unarchive") if archived else self.tr("Archive"), partial(self.set_archived, key, not archived)
        )
        archive.setEnabled(key != "main")
        menu.addAction(self.tr("Copy session key"), partial(QApplication.clipboard().setText, key))
        menu.addAction(self._needs_you.mute_action(key, menu))
        return menu

    @Slot(QPoint)
    def on_context_menu(self, pos: QPoint) -> None:
        index = self._list.indexAt(pos)
        if index.isValid():
            menu = self.task_line_menu(str(index.data(KEY_ROLE)))
            menu.exec(self._list.viewport().mapToGlobal(pos))
            menu.deleteLater()
