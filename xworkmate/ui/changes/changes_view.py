"""The Changes tab of the workspace pane (issue 16, item 2; LOOP-1).

What a line's turns changed, from ``SessionController.checkpoints`` (CHECKPOINT_API.md): a scope
(one turn, the whole line, or the folder's uncommitted work when it is a git repository), the
files with their +/− counts (``changesFileList``, a Qt item model), one file's unified diff
(``diffView``, read-only, coloured by line kind), and the ways back: revert a hunk
(``revertHunkButton``) or a file (``revertFileButton``), restore the folder to before the turn
(``restoreTurnButton``, optionally forking the line there) and undo that (``undoRestoreButton``).

Everything the controller does here runs git, so it runs on a worker thread
(``asyncio.to_thread`` on the qasync loop); each answer is applied on the GUI thread only if
it still answers the latest request (a newer line, scope or file drops it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QBrush,
    QFont,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import SessionController
from xworkmate.domain.checkpoints import (
    ChangedTurn,
    ChangeScope,
    FileChange,
    FileChangeKind,
    RestoreResult,
    TurnChanges,
)
from xworkmate.presentation.wording import english_plural, plain_words
from xworkmate.ui.background import run_off_thread
from xworkmate.ui.changes.diff_view import ADDED_TEXT, FILE_TEXT, REMOVED_TEXT, DiffView, theme_colour
from xworkmate.ui.marks import QT_TRANSLATE_NOOP

log = logging.getLogger(__name__)

T = TypeVar("T")
ModelIndex = QModelIndex | QPersistentModelIndex

SCOPE_LABELS: dict[ChangeScope, str] = {
    ChangeScope.TURN: QT_TRANSLATE_NOOP("ChangesView", "Turn"),
    ChangeScope.LINE: QT_TRANSLATE_NOOP("ChangesView", "Whole line"),
    ChangeScope.UNCOMMITTED: QT_TRANSLATE_NOOP("ChangesView", "Uncommitted"),
}
KIND_NAMES = {
    FileChangeKind.ADDED: QT_TRANSLATE_NOOP("ChangesView", "added"),
    FileChangeKind.MODIFIED: QT_TRANSLATE_NOOP("ChangesView", "modified"),
    FileChangeKind.DELETED: QT_TRANSLATE_NOOP("ChangesView", "deleted"),
}
KIND_LETTERS = {FileChangeKind.ADDED: "A", FileChangeKind.MODIFIED: "M", FileChangeKind.DELETED: "D"}


MIN_BUTTON_WIDTH = 40
MIN_LIST_HEIGHT = 36


def chip_text(count: int) -> str:
    """A turn's chip: "n files changed"."""
    return english_plural(QCoreApplication.translate("ChangesView", "%n file(s) changed", "", count), count)


def turn_chips(turns: Sequence[ChangedTurn]) -> dict[int, tuple[int, str]]:
    """The conversation's chips: the message each turn ends on → (its turn, "n files changed")."""
    return {t.message_id: (t.turn, chip_text(t.files)) for t in turns if t.message_id is not None}


def counts_text(change: FileChange) -> tuple[str, str]:
    if change.too_large:
        return QCoreApplication.translate("ChangesView", "large"), ""
    if change.binary:
        return QCoreApplication.translate("ChangesView", "binary"), ""
    return f"+{change.additions}", f"−{change.deletions}"


@dataclass(frozen=True)
class FileListing:
    """The files of one scope made ready to list: each file's row by its path, and for each narrow column the
    rows among which its widest text is. Made where the files are read (a worker): a turn may change tens
    of thousands of files (an ``npm install``), and the GUI thread then does nothing per file."""

    files: tuple[FileChange, ...] = ()
    rows: Mapping[str, int] = field(default_factory=dict)
    widest: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    additions: int = 0
    deletions: int = 0
    """The lines all the files gained and lost."""

    @classmethod
    def of(cls, files: Sequence[FileChange]) -> FileListing:
        """For each narrow column, the first row of each text it shows that could be its widest: each kind's
        letter (or the reverted mark), the largest count, each word ("large", "binary"). Digits are as wide
        as each other in the fonts Qt gives text, so the largest count has the widest of the counts."""
        marks: dict[str, int] = {}
        words: dict[str, int] = {}
        most: dict[int, int] = {}  # column → row of its largest count
        additions = deletions = 0
        for row, change in enumerate(files):
            marks.setdefault("↶" if change.reverted else KIND_LETTERS[change.kind], row)
            if change.too_large or change.binary:
                words.setdefault("large" if change.too_large else "binary", row)
            if change.additions > files[most.setdefault(2, row)].additions:
                most[2] = row
            if change.deletions > files[most.setdefault(3, row)].deletions:
                most[3] = row
            additions += change.additions
            deletions += change.deletions
        count = {column: (row,) for column, row in most.items()}
        widest = {0: tuple(marks.values()), 2: (*count.get(2, ()), *words.values()), 3: count.get(3, ())}
        return cls(tuple(files), {change.path: row for row, change in enumerate(files)}, widest, additions, deletions)


def is_git_folder(folder: str | None) -> bool:
    """Whether the uncommitted scope applies: the line's folder is a repository (or a worktree) of its own."""
    return bool(folder) and (Path(folder or "") / ".git").exists()


# -- the file list -----------------------------------------------------------------------------


class ChangedFilesModel(QAbstractTableModel):
    """The files of one scope: kind letter, path, additions, deletions (read-only, rows from a tuple).

    A turn may change tens of thousands of files (an ``npm install``): the model finds a file's row by its
    path at once, and names the rows whose text may be the widest in each narrow column (``widest_rows``),
    so the view sizes those columns from a few rows, not by reading every row (``ChangedFilesList``)."""

    HEADERS = ("", QT_TRANSLATE_NOOP("ChangesView", "File"), "+", "−")
    PATH_ROLE = int(Qt.ItemDataRole.UserRole) + 1
    NARROW_COLUMNS = (0, 2, 3)
    """Sized to their widest text; the path column takes the rest."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._listing = FileListing()

    @property
    def files(self) -> tuple[FileChange, ...]:
        return self._listing.files

    def set_files(self, files: Sequence[FileChange] | FileListing) -> None:
        """The files to list; a ``FileListing`` made off the GUI thread, or the files (listed here)."""
        self.beginResetModel()
        self._listing = files if isinstance(files, FileListing) else FileListing.of(files)
        self.endResetModel()

    def row_of(self, path: str) -> int | None:
        return self._listing.rows.get(path)

    def change(self, path: str) -> FileChange | None:
        """The shown change of the file at ``path``, if it is listed."""
        row = self._listing.rows.get(path)
        return self._listing.files[row] if row is not None else None

    def widest_rows(self, column: int) -> tuple[int, ...]:
        """The rows among which ``column``'s widest text is (one a kind of text: a letter, a count, a word)."""
        return self._listing.widest.get(column, ())

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._listing.files)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation is Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return (
                QCoreApplication.translate("ChangesView", self.HEADERS[section])
                if 0 <= section < len(self.HEADERS)
                else None
            )
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        files = self._listing.files
        if not index.isValid() or not 0 <= index.row() < len(files):
            return None
        change = files[index.row()]
        column = index.column()
        if role == self.PATH_ROLE:
            return change.path
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return "↶" if change.reverted else KIND_LETTERS[change.kind]
            if column == 1:
                mode_only = change.mode_changed and change.kind is FileChangeKind.MODIFIED
                if change.reverted:
                    return QCoreApplication.translate("ChangesView", "{path} (reverted)").format(path=change.path)
                return change.path + (QCoreApplication.translate("ChangesView", " (mode)") if mode_only else "")
            added, removed = counts_text(change)
            return added if column == 2 else removed
        if role == Qt.ItemDataRole.FontRole and change.reverted:
            font = QFont()
            font.setStrikeOut(column in (2, 3))  # what the turn did, now taken back
            return font
        if role == Qt.ItemDataRole.ForegroundRole:
            if change.reverted:
                return QBrush(theme_colour(FILE_TEXT))
            if column == 2 or (column == 0 and change.kind is FileChangeKind.ADDED):
                return QBrush(theme_colour(ADDED_TEXT))
            if column == 3 or (column == 0 and change.kind is FileChangeKind.DELETED):
                return QBrush(theme_colour(REMOVED_TEXT))
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (2, 3):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            notes = [QCoreApplication.translate("ChangesView", KIND_NAMES[change.kind])]
            if change.reverted:
                notes.append(QCoreApplication.translate("ChangesView", "reverted: back as it was before this turn"))
            if change.binary:
                notes.append(QCoreApplication.translate("ChangesView", "binary: no text diff"))
            if change.too_large:
                notes.append(
                    QCoreApplication.translate(
                        "ChangesView", "over the size cap: listed, not stored, cannot be reverted"
                    )
                )
            if change.mode_changed:
                notes.append(QCoreApplication.translate("ChangesView", "executable bit changed"))
            return QCoreApplication.translate("ChangesView", "{path} — {notes}").format(
                path=change.path, notes=QCoreApplication.translate("ChangesView", ", ").join(notes)
            )
        return None


class ChangedFilesList(QTableView):
    """``changesFileList``: the files of one scope, one row each, the selected one's diff shown below it.

    A table, not a tree: a tree lays out every row when its files change (30,000 files: ~45 ms on the GUI
    thread), a table only the rows on screen. The narrow columns are sized from their widest rows
    (``ChangedFilesModel.widest_rows``), not by Qt's fit to contents, which read up to 1,000 rows of each
    column on the GUI thread (~300 ms for a turn of a few thousand files) and never the rows after them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("changesFileList")
        self.file_model = ChangedFilesModel(self)
        self.setModel(self.file_model)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setTabKeyNavigation(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        rows = self.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setMinimumSectionSize(1)
        header = self.horizontalHeader()
        header.setStretchLastSection(False)
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for column in ChangedFilesModel.NARROW_COLUMNS:
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self._fit_columns()

    def show_files(self, files: Sequence[FileChange] | FileListing) -> None:
        self.file_model.set_files(files)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Each narrow column as wide as its title or its widest text, and the rows as tall as one line of
        text: what Qt's fit to contents gives, from a few rows."""
        header = self.horizontalHeader()
        for column in ChangedFilesModel.NARROW_COLUMNS:
            rows = self.file_model.widest_rows(column)
            hints = [self.sizeHintForIndex(self.file_model.index(row, column)) for row in rows]
            header.resizeSection(column, max([header.sectionSizeHint(column), *(hint.width() for hint in hints)]))
        height = self.sizeHintForRow(0) if self.file_model.rowCount() else -1
        if height > 0 and height != self.verticalHeader().defaultSectionSize():
            self.verticalHeader().setDefaultSectionSize(height)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_columns()  # the same texts, other widths


# -- the restore question ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RestoreChoice:
    fork: bool
    force: bool = False
    """Restore over changes made since the last checkpoint (they are snapshotted first: undo brings them back)."""


RestoreAsker = Callable[[QWidget | None, int], RestoreChoice | None]


class RestoreDialog(QDialog):
    """ "Restore files to before this turn": says what happens, offers to fork the line there too."""

    def __init__(self, parent: QWidget | None, turn: int) -> None:
        super().__init__(parent)
        self.setObjectName("restoreTurnDialog")
        self.setWindowTitle(self.tr("Restore files to before turn {turn}").format(turn=turn))
        text = QLabel(
            self.tr(
                "The line's folder goes back to how it was before turn {turn}: every file that turn and later "
                "turns changed. Nothing in the conversation is deleted, and “Undo restore” brings the files back."
            ).format(turn=turn)
        )
        text.setWordWrap(True)
        self.fork_check = QCheckBox(
            self.tr("Also fork the line at this turn (the fork's model does not see later messages)")
        )
        self.fork_check.setObjectName("restoreForkCheck")
        self.force_check = QCheckBox(
            self.tr("Even over changes made since the last checkpoint (they are kept: “Undo restore” brings them back)")
        )
        self.force_check.setObjectName("restoreForceCheck")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText(self.tr("Restore files"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.fork_check)
        layout.addWidget(self.force_check)
        layout.addWidget(buttons)

    def choice(self) -> RestoreChoice:
        return RestoreChoice(fork=self.fork_check.isChecked(), force=self.force_check.isChecked())

    @classmethod
    def ask(cls, parent: QWidget | None, turn: int) -> RestoreChoice | None:
        dialog = cls(parent, turn)
        try:
            return dialog.choice() if dialog.exec() == QDialog.DialogCode.Accepted else None
        finally:
            dialog.deleteLater()


# -- the tab ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Loaded:
    turns: tuple[ChangedTurn, ...]
    changes: TurnChanges | None
    error: str
    undo_available: bool
    listing: FileListing


class ChangesView(QWidget):
    """The Changes tab (``changesView``): scope and turn pickers, the file list, the diff, revert and restore.

    Signals:
        chips_changed(str, object): the line's conversation chips, ``{message_id: (turn, text)}``.
        restored(object): a ``RestoreResult`` (the folder was restored; a fork's key when it forked).
    Replaceable hook: ``ask_restore`` (a ``RestoreDialog.ask``-shaped callable).
    """

    chips_changed = Signal(str, object)
    restored = Signal(object)

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("changesView")
        self._controller = controller
        self._key: str | None = None
        self._folder: str | None = None
        self._scope = ChangeScope.TURN
        self._turn: int | None = None  # None: the last turn that changed files
        self._loaded: _Loaded | None = None
        self._path: str | None = None
        self._stale = True
        self._generation = 0
        self._patch_generation = 0
        self._chips_generation = 0
        self._busy = False
        self.ask_restore: RestoreAsker = RestoreDialog.ask
        self._pending = 0

        self.scope_picker = QComboBox()
        self.scope_picker.setObjectName("changesScopePicker")
        self.scope_picker.setAccessibleName(self.tr("Changes of"))
        self.turn_picker = QComboBox()
        self.turn_picker.setObjectName("changesTurnPicker")
        self.turn_picker.setAccessibleName(self.tr("Turn"))
        self.summary_label = QLabel()
        self.summary_label.setObjectName("changesSummaryLabel")
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label = QLabel()
        self.status_label.setObjectName("changesStatusLabel")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_label.setVisible(False)

        self.file_list = ChangedFilesList(self)
        self.file_model = self.file_list.file_model
        self.diff_view = DiffView()

        self.revert_file_button = QPushButton(self.tr("Revert file"))
        self.revert_file_button.setObjectName("revertFileButton")
        self.revert_file_button.setToolTip(self.tr("Put this file back as it was before the turn"))
        self.revert_hunk_button = QPushButton(self.tr("Revert hunk"))
        self.revert_hunk_button.setObjectName("revertHunkButton")
        self.revert_hunk_button.setToolTip(self.tr("Take back the hunk under the cursor in the diff"))
        self.restore_button = QPushButton(self.tr("Restore files to before this turn"))
        self.restore_button.setObjectName("restoreTurnButton")
        self.restore_button.setToolTip(
            self.tr("Put the whole folder back as it was before this turn (it can be undone)")
        )
        self.undo_button = QPushButton(self.tr("Undo restore"))
        self.undo_button.setObjectName("undoRestoreButton")
        self.undo_button.setToolTip(self.tr("Bring the files back as they were before the last restore or revert"))
        self.undo_button.setVisible(False)
        # They may shrink with the pane (their tooltips say it all): the tab must not widen the narrowest window.
        for button in (self.revert_file_button, self.revert_hunk_button, self.restore_button, self.undo_button):
            button.setMinimumWidth(MIN_BUTTON_WIDTH)
        for picker in (self.scope_picker, self.turn_picker):
            picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            picker.setMinimumContentsLength(4)
            picker.setMinimumWidth(MIN_BUTTON_WIDTH)
        for view in (self.file_list, self.diff_view):
            view.setMinimumHeight(MIN_LIST_HEIGHT)

        pickers = QHBoxLayout()
        pickers.addWidget(self.scope_picker)
        pickers.addWidget(self.turn_picker, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("changesSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.file_list)
        self.splitter.addWidget(self.diff_view)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        reverts = QHBoxLayout()
        reverts.addWidget(self.revert_file_button)
        reverts.addWidget(self.revert_hunk_button)
        reverts.addStretch(1)
        restores = QHBoxLayout()
        restores.addWidget(self.restore_button)
        restores.addWidget(self.undo_button)
        restores.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(pickers)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.status_label)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(reverts)
        layout.addLayout(restores)

        self.scope_picker.currentIndexChanged.connect(self.on_scope_picked)
        self.turn_picker.currentIndexChanged.connect(self.on_turn_picked)
        self.file_list.selectionModel().currentRowChanged.connect(self.on_file_selected)
        self.diff_view.cursorPositionChanged.connect(self._show_buttons)
        self.revert_file_button.clicked.connect(self.on_revert_file_requested)
        self.revert_hunk_button.clicked.connect(self.on_revert_hunk_requested)
        self.restore_button.clicked.connect(self.on_restore_requested)
        self.undo_button.clicked.connect(self.on_undo_requested)
        self._fill_scopes()
        self._show_buttons()

    # -- reading ------------------------------------------------------------------------------

    @property
    def key(self) -> str | None:
        return self._key

    @property
    def scope(self) -> ChangeScope:
        return self._scope

    @property
    def changes(self) -> TurnChanges | None:
        return self._loaded.changes if self._loaded is not None else None

    @property
    def shown_turn(self) -> int | None:
        """The turn the TURN scope shows (the picked one, else the last that changed files)."""
        changes = self.changes
        return changes.turn if changes is not None and changes.scope is ChangeScope.TURN else None

    @property
    def busy(self) -> bool:
        """Whether an answer from the controller is still to come."""
        return self._pending > 0

    # -- the window tells it what to show -----------------------------------------------------------

    def show_line(self, key: str, folder: str | None) -> None:
        """The shown line (ISO-5): a new key starts from its last turn; its chips load at once."""
        if key != self._key:
            self._key = key
            self._scope = ChangeScope.TURN
            self._turn = None
            self._path = None
            self._loaded = None
            self.file_list.show_files(())
            self.diff_view.set_patch("")
            self.show_status("")
        self._folder = folder
        self._fill_scopes()
        self.load_chips()
        self.refresh()

    def open_turn(self, turn: int) -> None:
        """A chip in the conversation was clicked: that turn's changes."""
        self._scope = ChangeScope.TURN
        self._turn = turn
        self._path = None
        self._fill_scopes()
        self.refresh(force=True)

    def on_changes_recorded(self, key: str) -> None:
        """``ChangesRecorded``: a turn's changes were stored or a revert changed the folder."""
        if key == self._key:
            self.load_chips()
            self.refresh()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    # -- loading ------------------------------------------------------------------------------------

    def refresh(self, *, force: bool = False) -> None:
        """Read the scope's changes again off the GUI thread (only when the tab shows, unless ``force``)."""
        if self._key is None:
            return
        if not (force or self.isVisible()):
            self._stale = True
            return
        self._stale = False
        self._generation += 1
        generation, key, scope, turn = self._generation, self._key, self._scope, self._turn
        checkpoints = self._controller.checkpoints

        def load() -> _Loaded:
            turns = tuple(checkpoints.changed_turns(key))
            error = ""
            changes: TurnChanges | None = None
            try:
                if scope is ChangeScope.TURN:
                    wanted = turn if turn is not None else (turns[-1].turn if turns else None)
                    changes = checkpoints.changes(key, scope, wanted) if wanted is not None else None
                else:
                    changes = checkpoints.changes(key, scope)
            except ValueError as exc:  # CheckpointError: one line
                error = str(exc)
            try:
                undo = checkpoints.undo_available(key)
            except ValueError:
                undo = False
            return _Loaded(turns, changes, error, undo, FileListing.of(changes.files if changes is not None else ()))

        self._start(load, lambda loaded: self._apply(generation, loaded))

    def load_chips(self) -> None:
        if self._key is None:
            return
        self._chips_generation += 1
        generation, key = self._chips_generation, self._key
        checkpoints = self._controller.checkpoints

        def apply(turns: list[ChangedTurn]) -> None:
            if generation == self._chips_generation:
                self.chips_changed.emit(key, turn_chips(turns))

        self._start(lambda: checkpoints.changed_turns(key), apply)

    def _apply(self, generation: int, loaded: _Loaded) -> None:
        if generation != self._generation:
            return  # a newer request is on its way
        self._loaded = loaded
        self._fill_turns(loaded.turns, loaded.changes)
        self.summary_label.setText(self._summary(loaded))
        if loaded.error:
            self.show_status(plain_words(loaded.error))
        files = loaded.listing.files
        self.file_list.show_files(loaded.listing)
        self.undo_button.setVisible(loaded.undo_available)
        row = self.file_model.row_of(self._path) if self._path is not None else None
        if row is None and files:
            row = 0
        if row is not None:
            self.file_list.setCurrentIndex(self.file_model.index(row, 1))
        else:
            self._path = None
            self.diff_view.set_patch("", placeholder=self.tr("No file to show."))
        self._show_buttons()

    def _summary(self, loaded: _Loaded) -> str:
        changes = loaded.changes
        if changes is None:
            if self._scope is ChangeScope.TURN and not loaded.turns:
                return self.tr("No turn on this line has changed files yet.")
            return ""
        files, added, removed = loaded.listing.files, loaded.listing.additions, loaded.listing.deletions
        count = english_plural(
            self.tr("%n file(s) (+{added} −{removed})", "", len(files)).format(added=added, removed=removed), len(files)
        )
        if changes.scope is ChangeScope.TURN:
            return (
                self.tr("Turn {turn} changed {files}.").format(turn=changes.turn, files=count)
                if files
                else self.tr("Turn {turn} changed no files.").format(turn=changes.turn)
            )
        if changes.scope is ChangeScope.LINE:
            return (
                self.tr("This line's turns changed {files} in all.").format(files=count)
                if files
                else self.tr("This line's turns changed no files.")
            )
        return (
            self.tr("Uncommitted in this repository: {files}.").format(files=count)
            if files
            else self.tr("Nothing uncommitted in this repository.")
        )

    def _load_patch(self, path: str) -> None:
        if self._key is None or self._loaded is None or self._loaded.changes is None:
            return
        self._patch_generation += 1
        generation, key, changes = self._patch_generation, self._key, self._loaded.changes
        turn = changes.turn if changes.scope is ChangeScope.TURN else None
        checkpoints = self._controller.checkpoints
        change = self.file_model.change(path)  # the model holds the files of `changes`

        def apply(patch: str) -> None:
            if generation != self._patch_generation:
                return
            note = ""
            if not patch and change is not None:
                note = (
                    self.tr("{path} is over the size cap: it was listed, not stored.").format(path=path)
                    if change.too_large
                    else self.tr("{path} is binary: there is no text diff.").format(path=path)
                    if change.binary
                    else self.tr("{path}: no text changes (only its mode changed).").format(path=path)
                )
            self.diff_view.set_patch(patch, placeholder=note)
            self._show_buttons()

        self._start(lambda: checkpoints.file_patch(key, path, changes.scope, turn), apply)

    def _start(
        self,
        work: Callable[[], T],
        on_result: Callable[[T], None],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        """Run ``work`` off the GUI thread; its answer (or its one-line failure) is applied on the GUI thread."""
        self._pending += 1

        def done(result: T) -> None:
            self._pending -= 1
            on_result(result)

        def failed(exc: BaseException) -> None:
            self._pending -= 1
            if not isinstance(exc, (ValueError, LookupError, OSError)):
                log.error("changes view", exc_info=exc)
            self.show_status(plain_words(str(exc).splitlines()[0]) if str(exc) else type(exc).__name__)
            if on_error is not None:
                on_error(exc)
            self._show_buttons()

        run_off_thread(work, done, failed, parent=self)

    # -- pickers -----------------------------------------------------------------------------------

    def _fill_scopes(self) -> None:
        scopes = [ChangeScope.TURN, ChangeScope.LINE]
        if is_git_folder(self._folder):
            scopes.append(ChangeScope.UNCOMMITTED)
        if self._scope not in scopes:
            self._scope = ChangeScope.TURN
        blocked = self.scope_picker.blockSignals(True)
        self.scope_picker.clear()
        for scope in scopes:
            self.scope_picker.addItem(QCoreApplication.translate("ChangesView", SCOPE_LABELS[scope]), scope.value)
        self.scope_picker.setCurrentIndex(scopes.index(self._scope))
        self.scope_picker.blockSignals(blocked)
        self.turn_picker.setEnabled(self._scope is ChangeScope.TURN)

    def _fill_turns(self, turns: Sequence[ChangedTurn], shown: TurnChanges | None) -> None:
        blocked = self.turn_picker.blockSignals(True)
        self.turn_picker.clear()
        for number, item in enumerate(turns):
            label = (
                self.tr("Turn {turn} (last) · {files}")
                if number == len(turns) - 1
                else self.tr("Turn {turn} · {files}")
            )
            self.turn_picker.addItem(label.format(turn=item.turn, files=chip_text(item.files)), item.turn)
        if shown is not None and shown.scope is ChangeScope.TURN:
            index = self.turn_picker.findData(shown.turn)
            if index < 0:  # a turn that changed nothing, opened by number
                self.turn_picker.addItem(self.tr("Turn {turn} · no files changed").format(turn=shown.turn), shown.turn)
                index = self.turn_picker.count() - 1
            self.turn_picker.setCurrentIndex(index)
        self.turn_picker.setEnabled(self._scope is ChangeScope.TURN and self.turn_picker.count() > 0)
        self.turn_picker.blockSignals(blocked)

    def on_scope_picked(self, index: int) -> None:
        if index < 0:
            return
        self._scope = ChangeScope(self.scope_picker.itemData(index))
        self.turn_picker.setEnabled(self._scope is ChangeScope.TURN)
        self.show_status("")
        self.refresh(force=True)

    def on_turn_picked(self, index: int) -> None:
        if index < 0:
            return
        self._turn = int(self.turn_picker.itemData(index))
        self.show_status("")
        self.refresh(force=True)

    def on_file_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        path = current.data(ChangedFilesModel.PATH_ROLE) if current.isValid() else None
        self._path = str(path) if path else None
        if self._path is None:
            self.diff_view.set_patch("")
        else:
            self._load_patch(self._path)
        self._show_buttons()

    # -- what the buttons may do -----------------------------------------------------------------------

    def _revertable(self) -> FileChange | None:
        """The selected file, when the shown scope is one turn and the file has a stored copy."""
        changes = self.changes
        if self._busy or changes is None or changes.scope is not ChangeScope.TURN or self._path is None:
            return None
        change = self.file_model.change(self._path)  # the model holds the files of `changes`
        return change if change is not None and not change.too_large and not change.reverted else None

    def _show_buttons(self) -> None:
        change = self._revertable()
        self.revert_file_button.setEnabled(change is not None)
        hunk = self.diff_view.current_hunk() if change is not None else None
        self.revert_hunk_button.setEnabled(hunk is not None)
        self.revert_hunk_button.setText(
            self.tr("Revert hunk {number}").format(number=hunk + 1) if hunk is not None else self.tr("Revert hunk")
        )
        changes = self.changes
        turn_scope = changes is not None and changes.scope is ChangeScope.TURN
        self.restore_button.setEnabled(not self._busy and turn_scope and changes is not None and changes.restorable)
        self.restore_button.setToolTip(
            self.tr("Put the whole folder back as it was before turn {turn} (it can be undone)").format(
                turn=changes.turn
            )
            if turn_scope and changes is not None
            else self.tr("Pick “Turn”: a restore goes back to before one turn")
        )
        self.undo_button.setEnabled(not self._busy)
        tip = self.tr("Revert works on one turn's changes: pick “Turn”") if not turn_scope else ""
        for button in (self.revert_file_button, self.revert_hunk_button):
            button.setStatusTip(tip)

    def show_status(self, text: str) -> None:
        self.status_label.setText(text)
        self.status_label.setVisible(bool(text))

    # -- changing the folder --------------------------------------------------------------------------

    def _mutate(self, work: Callable[[], T], done: Callable[[T], None]) -> None:
        """Run a revert, restore or undo off the GUI thread; one at a time; read the changes again after."""
        self._busy = True
        self._show_buttons()

        def finished(result: T) -> None:
            self._busy = False
            done(result)
            self.load_chips()
            self.refresh(force=True)

        def failed(_exc: BaseException) -> None:
            self._busy = False
            self.refresh(force=True)

        self._start(work, finished, failed)

    def on_revert_file_requested(self) -> None:
        change, turn, key = self._revertable(), self.shown_turn, self._key
        if change is None or turn is None or key is None:
            return
        path = change.path
        checkpoints = self._controller.checkpoints
        self._mutate(
            lambda: checkpoints.revert_file(key, path, turn),
            lambda _none: self.show_status(
                self.tr("{path} is back as it was before turn {turn}.").format(path=path, turn=turn)
            ),
        )

    def on_revert_hunk_requested(self) -> None:
        change, turn, key, hunk = self._revertable(), self.shown_turn, self._key, self.diff_view.current_hunk()
        if change is None or turn is None or key is None or hunk is None:
            return
        path = change.path
        checkpoints = self._controller.checkpoints
        self._mutate(
            lambda: checkpoints.revert_hunk(key, path, turn, hunk),
            lambda _none: self.show_status(
                self.tr("Hunk {number} of {path} from turn {turn} was taken back.").format(
                    number=hunk + 1, path=path, turn=turn
                )
            ),
        )

    def on_restore_requested(self) -> None:
        turn, key = self.shown_turn, self._key
        if turn is None or key is None:
            return
        choice = self.ask_restore(self, turn)
        if choice is None:
            return
        checkpoints = self._controller.checkpoints

        def done(result: RestoreResult) -> None:
            text = (
                self.tr(
                    "The files are back as they were before turn {turn}. The line was forked there as {key}."
                ).format(turn=result.turn, key=result.fork_key)
                if result.fork_key
                else self.tr("The files are back as they were before turn {turn}.").format(turn=result.turn)
            )
            if not result.before_exact:  # issue 34: a first snapshot taken beside the turn
                text += " " + self.tr(
                    "Files changed after that turn began, while the folder's first checkpoint was being taken:"
                    " some of the turn's own first changes may still be there."
                )
            self.show_status(text)
            self.restored.emit(result)

        self._mutate(lambda: checkpoints.restore(key, turn, fork=choice.fork, force=choice.force), done)

    def on_undo_requested(self) -> None:
        key = self._key
        if key is None:
            return
        checkpoints = self._controller.checkpoints
        self._mutate(
            lambda: checkpoints.undo_restore(key),
            lambda _none: self.show_status(
                self.tr("The restore was undone: the files are back as they were before it.")
            ),
        )
