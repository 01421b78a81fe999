"""The right pane: the current line's folder, its files and a preview (SPEC §6, ISO-3, ISO-8).

For a task it also lists the human messages the task was dispatched on, as the
task itself may read them (PROV-1, PROV-3, CAT-8).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QLocale, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileSystemModel,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import LineView
from xworkmate.domain.messages import Message
from xworkmate.domain.threads import ThreadStatus
from xworkmate.presentation.files import FilePreview  # Qt-free (issue 19)
from xworkmate.presentation.wording import english_plural, home_relative, plain_words

SOURCE_LINE_LIMIT = 160
SOURCE_ROWS_SHOWN = 5
PATH_LABEL_MIN_WIDTH = 40


def missing_folder_text(view: LineView) -> str:
    path = view.thread.workspace_binding.path
    if not path:
        return QCoreApplication.translate("WorkspacePane", "This line has no folder. Choose one with “Change folder…”.")
    if Path(path).is_symlink() or Path(path).is_dir():  # SBX-3: there, but not the folder the line was bound to
        return plain_words(view.explanation)
    return QCoreApplication.translate(
        "WorkspacePane",
        "This line's folder is missing:\n{path}\n\n"
        "Choose another with “Change folder…”, or “Recreate folder” to make the line's own folder again.",
    ).format(path=path)


def dispatch_sources_note(sources: Sequence[Message], *, category: str | None, dispatcher_category: str | None) -> str:
    """What the "Dispatched on" section says above the list, so an empty list is never a mystery."""
    if category is None and dispatcher_category is not None:
        return QCoreApplication.translate(
            "WorkspacePane",
            "This is a normal task dispatched from a “{category}” line. It cannot read that line's "
            "messages, so the words it was dispatched on are not shown here or to it: this is on "
            "purpose, not a missing record.",
        ).format(category=dispatcher_category)
    if not sources:
        return QCoreApplication.translate(
            "WorkspacePane",
            "No human messages were captured when this task was dispatched, so nothing you said backs its "
            "writes yet. Send it a follow-up to give it your words.",
        )
    count = len(sources)
    return english_plural(
        QCoreApplication.translate(
            "WorkspacePane",
            "The %n message(s) of yours this task was dispatched on: its authority "
            "for writes. Later chat in the dispatcher does not count; a follow-up replaces them.",
            "",
            count,
        ),
        count,
    )


def source_item_text(message: Message) -> str:
    first = (
        message.content.strip().splitlines()[0]
        if message.content.strip()
        else QCoreApplication.translate("WorkspacePane", "(empty)")
    )
    if len(first) > SOURCE_LINE_LIMIT:
        first = first[: SOURCE_LINE_LIMIT - 1] + "…"
    return f"{message.created_at.astimezone().strftime('%H:%M')} · {first}"


class WorkspaceFiles(QFileSystemModel):
    """The folder's files for the workspace tree; sizes in the window's language (issue 30: Qt's model
    writes them in the system's, "7 bytes" in a Chinese window on an English system)."""

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and index.column() == 1 and not self.isDir(index):
            return QLocale().formattedDataSize(self.size(index))
        return super().data(index, role)


class WorkspacePane(QWidget):
    """Right pane: path, Change folder… / Recreate folder, file tree and preview (view only).

    Signals: none of its own; the window connects to its child widgets.
    """

    def __init__(self, fs_model: QFileSystemModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workspacePane")
        self._fs_model = fs_model
        self._root: str | None = None

        title = QLabel(self.tr("Workspace"))
        title.setProperty("paneTitle", True)
        self.path_label = QLabel()
        self.path_label.setObjectName("workspacePathLabel")
        self.path_label.setTextFormat(Qt.TextFormat.PlainText)
        self.path_label.setProperty("elideMode", "middle")  # issue 30 item 2: both ends of a path say the most
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # A path is one long word: without an explicit minimum it would set the window's minimum
        # width, and change it on every switch. A path wider than the pane is elided in the middle (the window's
        # ``Elider``); the tooltip has it whole.
        self.path_label.setMinimumWidth(PATH_LABEL_MIN_WIDTH)
        self.change_folder_button = QPushButton(self.tr("Change folder…"))
        self.change_folder_button.setObjectName("changeFolderButton")
        self.change_folder_button.setToolTip(self.tr("Bind this task line to another folder"))
        self.recreate_folder_button = QPushButton(self.tr("Recreate folder"))
        self.recreate_folder_button.setObjectName("recreateFolderButton")
        self.recreate_folder_button.setToolTip(
            self.tr("Make this line's folder again, at the path it is bound to; to use another folder, Change folder…")
        )
        self.recreate_folder_button.setVisible(False)

        # Issue 34 item 4: each container is in its place before its children go in, so that Qt styles each
        # widget once where it stays: a subtree styled and then moved (into a splitter, a tab, the pane) is
        # styled again, widget by widget (``tests/ui/test_startup_styling.py``).
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(title)
        layout.addWidget(self.path_label)
        buttons = QHBoxLayout()
        layout.addLayout(buttons)
        buttons.addWidget(self.change_folder_button)
        buttons.addWidget(self.recreate_folder_button)
        buttons.addStretch(1)

        self.sources_box = QGroupBox(self.tr("Dispatched on"), self)
        self.sources_box.setObjectName("dispatchSourcesBox")
        self.sources_box.setToolTip(self.tr("The human messages this task was started on (its dispatch snapshot)"))
        self.sources_box.setVisible(False)
        layout.addWidget(self.sources_box)
        self.sources_note = QLabel()
        self.sources_note.setObjectName("dispatchSourcesNote")
        self.sources_note.setTextFormat(Qt.TextFormat.PlainText)
        self.sources_note.setWordWrap(True)
        self.sources_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sources_list = QListWidget(self.sources_box)
        self.sources_list.setObjectName("dispatchSourcesList")
        self.sources_list.setUniformItemSizes(True)
        self.sources_list.setWordWrap(False)
        self.sources_list.setMaximumHeight(self.sources_list.fontMetrics().lineSpacing() * SOURCE_ROWS_SHOWN + 12)
        sources_layout = QVBoxLayout(self.sources_box)
        sources_layout.setContentsMargins(6, 4, 6, 4)
        sources_layout.addWidget(self.sources_note)
        sources_layout.addWidget(self.sources_list)

        # Issue 16: "Files" (the tree and the preview) beside "Changes" (``add_changes_tab``).
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("workspaceTabs")
        self.tabs.setDocumentMode(True)
        layout.addWidget(self.tabs, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("workspaceSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.tabs.addTab(self.splitter, self.tr("Files"))
        self.stack = QStackedWidget()
        self.stack.setObjectName("workspaceStack")
        self.splitter.addWidget(self.stack)
        preview_box = QWidget()
        self.splitter.addWidget(preview_box)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)

        self.tree = QTreeView(self.stack)
        self.tree.setObjectName("workspaceTree")
        self.stack.addWidget(self.tree)
        self.tree.setModel(fs_model)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setDragEnabled(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setSortingEnabled(False)
        for column in (2, 3):  # type, date modified: name and size are enough here
            self.tree.setColumnHidden(column, True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setStretchLastSection(False)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("workspaceEmptyLabel")
        self.empty_label.setTextFormat(Qt.TextFormat.PlainText)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.empty_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.stack.addWidget(self.empty_label)

        self.preview_info = QLabel(self.tr("Select a file to preview it."))
        self.preview_info.setObjectName("filePreviewInfo")
        self.preview_info.setTextFormat(Qt.TextFormat.PlainText)
        self.preview_info.setWordWrap(True)
        self.preview = QPlainTextEdit(preview_box)
        self.preview.setObjectName("filePreview")
        self.preview.setReadOnly(True)
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.preview.setPlaceholderText(self.tr("No file selected."))
        preview_layout = QVBoxLayout(preview_box)
        preview_layout.setContentsMargins(0, 0, 0, 0)
        preview_layout.addWidget(self.preview_info)
        preview_layout.addWidget(self.preview, 1)

    def add_changes_tab(self, view: QWidget) -> None:
        """The Changes tab (issue 16): what the line's turns changed, beside its files."""
        self.tabs.addTab(view, self.tr("Changes"))

    def show_changes_tab(self) -> None:
        if self.tabs.count() > 1:
            self.tabs.setCurrentIndex(1)

    @property
    def root(self) -> str | None:
        """The folder the tree shows, or None when the line's folder is missing."""
        return self._root

    def show_line(self, view: LineView) -> bool:
        """Show the line's folder; returns whether the folder exists."""
        self.show_path(view)
        return self.show_folder(view)

    def show_path(self, view: LineView) -> None:
        """The line's folder as a path (no look at the disk)."""
        path = view.thread.workspace_binding.path
        self.path_label.setText(home_relative(path) if path else self.tr("(no folder bound)"))
        self.path_label.setToolTip(path or "")
        self.recreate_folder_button.setVisible(view.status is ThreadStatus.NEEDS_WORKSPACE)
        if path:
            self.recreate_folder_button.setToolTip(
                self.tr("Make {path} again and keep the line bound to it").format(path=path)
            )

    def show_folder(self, view: LineView) -> bool:
        """The line's folder in the tree (or why it is missing); returns whether the folder exists."""
        path = view.thread.workspace_binding.path
        # SBX-3: a folder swapped since the line was bound (a link to $HOME…) is not browsed as the line's own.
        exists = bool(path) and view.status is not ThreadStatus.NEEDS_WORKSPACE and Path(path or "").is_dir()
        if exists and path is not None:
            if path != self._root:
                self._root = path
                self.tree.setRootIndex(self._fs_model.setRootPath(path))
                self.clear_preview()
            self.stack.setCurrentWidget(self.tree)
        else:
            if self._root is not None:
                self._root = None
                self.clear_preview()
            self.empty_label.setText(missing_folder_text(view))
            self.stack.setCurrentWidget(self.empty_label)
        return exists

    def show_dispatch_sources(self, sources: Sequence[Message] | None, note: str = "") -> None:
        """A task's dispatch sources with a note about them; ``None`` hides the section (not a task)."""
        if sources is None:
            self.sources_box.setVisible(False)
            self.sources_list.clear()
            return
        self.sources_note.setText(note)
        self.sources_list.clear()
        for message in sources:
            item = QListWidgetItem(source_item_text(message))
            item.setData(Qt.ItemDataRole.UserRole, message.id)
            stamp = message.created_at.astimezone().strftime("%Y-%m-%d %H:%M")
            item.setToolTip(
                self.tr("message #{number} · {time}").format(number=message.id, time=stamp)
                + f"\n\n{message.content[:2000]}"
            )
            self.sources_list.addItem(item)
        self.sources_list.setVisible(bool(sources))
        self.sources_box.setVisible(True)

    def dispatch_source_texts(self) -> list[str]:
        return [self.sources_list.item(row).text() for row in range(self.sources_list.count())]

    def show_preview(self, preview: FilePreview) -> None:
        self.preview_info.setText(preview.note)
        self.preview.setPlainText(preview.text)

    def clear_preview(self) -> None:
        self.preview_info.setText(self.tr("Select a file to preview it."))
        self.preview.clear()
