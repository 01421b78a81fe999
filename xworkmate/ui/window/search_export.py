"""Search (Ctrl+K, the palette) and File → Export… of the shown line and its tasks (LOOP-3, CAT-4).

The palette searches on its own worker and opens a hit through the window's one switch path; an export
reads the line on the export worker, asks about any category content it would carry, then writes the
file a page at a time (issue 34 item 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QAction, QKeySequence

from xworkmate.presentation.shortcuts import shortcut_keys
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.background import BackgroundCalls
from xworkmate.ui.conversation import MessageListModel, MessagePane
from xworkmate.ui.window.services import WindowServices

if TYPE_CHECKING:  # issue 34 item 4: opened on demand; the export's code loads at the first export
    from PySide6.QtWidgets import QWidget

    from xworkmate.domain.export import ExportFormat, LineExport
    from xworkmate.ui.lines.export_dialog import CategoryExportConfirm, ExportChooser
    from xworkmate.ui.lines.search_palette import SearchPalette


def ask_export_file(parent: QWidget | None, suggested: str) -> tuple[Path, ExportFormat] | None:
    """``ExportDialog.ask``, its module imported at the first export (issue 34 item 4)."""
    from xworkmate.ui.lines.export_dialog import ExportDialog

    return ExportDialog.ask(parent, suggested)


def confirm_category_export(parent: QWidget | None, title: str, category: str) -> bool:
    """``CategoryExportConfirmation.ask``, its module imported at the first export (issue 34 item 4)."""
    from xworkmate.ui.lines.export_dialog import CategoryExportConfirmation

    return CategoryExportConfirmation.ask(parent, title, category)


class SearchAndExport(QObject):
    """``search_action`` (Ctrl+K) and ``export_action``, the palette, and the export's two steps.

    Replaceable hooks (STYLE 6): ``ask_export_file`` and ``confirm_category_export``. Signals: none.
    """

    def __init__(self, window: WindowServices, pane: MessagePane, messages: MessageListModel) -> None:
        parent = window.window()
        super().__init__(parent)
        self._window = window
        self._pane = pane
        self._messages = messages
        self.search_action = QAction(self.tr("&Search lines…"), parent)
        self.search_action.setObjectName("searchAction")
        self.search_action.setShortcut(QKeySequence(shortcut_keys("searchAction")[0]))
        self.search_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.export_action = QAction(self.tr("&Export…"), parent)
        self.export_action.setObjectName("exportAction")
        self.export_action.setToolTip(self.tr("Export the shown line and its tasks to Markdown or JSON"))
        self.search_palette: SearchPalette | None = None
        self.ask_export_file: ExportChooser = ask_export_file
        self.confirm_category_export: CategoryExportConfirm = confirm_category_export
        self.export_worker = BackgroundCalls(self, name="xworkmate-export")
        self._export_reads: dict[int, tuple[Path, ExportFormat]] = {}
        self._exports: dict[int, Path] = {}

    @Slot()
    def on_search_requested(self) -> SearchPalette:
        if self.search_palette is None:
            from xworkmate.ui.lines.search_palette import SearchPalette

            self.search_palette = SearchPalette(self._window.controller, self._window.window())
            self.search_palette.chosen.connect(self.on_search_hit_chosen)
            self.search_palette.failed.connect(self._window.show_error)
        self.search_palette.open_palette()
        return self.search_palette

    @Slot(str, int)
    def on_search_hit_chosen(self, key: str, message_id: int) -> None:
        """Switch to the hit's line (ISO-5) and scroll its conversation to the message, selected."""

        def missing() -> None:
            self._window.show_error(self.tr("Message #{number} is no longer in this line").format(number=message_id))

        def reveal() -> None:
            if message_id:  # its older pages, if any, are read on the store worker (issue 19)
                query = self.search_palette.shown_query() if self.search_palette is not None else None
                from xworkmate.ui.lines.search_palette import reveal_message

                reveal_message(self._pane.message_list, self._messages, message_id, missing, query or "")

        self._window.shown.open_line(key, then=reveal)

    @Slot()
    def on_export_requested(self) -> None:
        from xworkmate.domain.export import ExportFormat, export_file_name

        view = self._window.shown.view
        if view is None:
            return
        chosen = self.ask_export_file(self._window.window(), export_file_name(view.thread.title, ExportFormat.MARKDOWN))
        if chosen is None:
            return
        path, fmt = chosen
        key, controller = view.key, self._window.controller
        # Read first, write once asked: the question names every category the file would carry (CAT-4).
        # Without the messages: they are read a page at a time as the file is written (issue 34 item 2).
        number = self.export_worker.submit(lambda: controller.line_export(key, with_messages=False))
        self._export_reads[number] = (path, fmt)
        self._pane.show_status(self.tr("Exporting to {path}…").format(path=path), "info")

    def _write_export(self, export: LineExport, path: Path, fmt: ExportFormat) -> None:
        """CAT-4: category content anywhere in the export (the line, its tasks, their sources) is asked about."""
        categories = ", ".join(export.categories)
        if categories and not self.confirm_category_export(self._window.window(), export.root.title, categories):
            self._pane.clear_notice()
            return  # the person declined to take category content away
        write = self._window.controller.write_line_export  # the writer loads on the export worker (issue 34 item 4)
        self._exports[self.export_worker.submit(lambda: write(export, path, fmt))] = path

    @Slot(int, object, object)
    def on_export_finished(self, number: int, result: object, error: object) -> None:
        from xworkmate.domain.export import LineExport

        read = self._export_reads.pop(number, None)
        if read is not None and error is None and isinstance(result, LineExport):
            self._write_export(result, *read)
            return
        path = read[0] if read is not None else self._exports.pop(number, None)
        if path is None:
            return
        if error is not None:
            self._window.show_error(self.tr("Export failed — {error}").format(error=plain_words(str(error))))
        else:
            self._pane.show_status(self.tr("Exported to {path}").format(path=path), "info")
