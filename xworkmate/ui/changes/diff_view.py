"""A read-only unified diff, coloured by line kind (``diffView``; issue 16, item 2; LOOP-1).

Shown in the Changes tab (``ui/changes/changes_view``) and on approval cards (``ui/agent/approvals``). A module of its
own so that an approval card loads it without the Changes tab, which loads once it is built (issue 34
item 4: after the window can be used).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontDatabase, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from xworkmate.domain.diffs import DiffLineKind, diff_line_kind, hunk_at, hunk_starts
from xworkmate.presentation.files import cut_line, cut_note
from xworkmate.ui import theme

# The diff's colours are the theme's tokens (issue 18: one table, both themes, contrast-checked).
ADDED_TEXT, REMOVED_TEXT, HUNK_TEXT, FILE_TEXT = "diff-added-text", "diff-removed-text", "diff-hunk-text", "muted-text"


def theme_colour(token: str) -> QColor:
    """The current theme's colour for ``token``."""
    return theme.current().color(token)


# -- the diff ----------------------------------------------------------------------------------


def _line_runs(lines: Sequence[str]) -> list[tuple[DiffLineKind, int, int]]:
    """The patch as stretches of same-kind lines: (kind, first line, end line)."""
    runs: list[tuple[DiffLineKind, int, int]] = []
    in_hunk = False
    kind_of_run: DiffLineKind | None = None
    start = 0
    for number, line in enumerate(lines):
        kind = diff_line_kind(line, in_hunk=in_hunk)
        in_hunk = kind is not DiffLineKind.FILE and (in_hunk or kind is DiffLineKind.HUNK)
        if kind is not kind_of_run:
            if kind_of_run is not None:
                runs.append((kind_of_run, start, number))
            kind_of_run, start = kind, number
    if kind_of_run is not None:
        runs.append((kind_of_run, start, len(lines)))
    return runs


def _formats() -> dict[DiffLineKind, tuple[QTextCharFormat, QTextBlockFormat]]:
    def pair(
        colour: QColor | None, background: str | None = None, bold: bool = False
    ) -> tuple[QTextCharFormat, QTextBlockFormat]:
        char = QTextCharFormat()
        block = QTextBlockFormat()
        if colour is not None:
            char.setForeground(colour)
        if background is not None:  # issue 30: an opaque token (a 10% tint of the text looked faint)
            block.setBackground(theme_colour(background))
        if bold:
            char.setFontWeight(QFont.Weight.Bold)
        return char, block

    return {
        DiffLineKind.FILE: pair(theme_colour(FILE_TEXT), bold=True),
        DiffLineKind.HUNK: pair(theme_colour(HUNK_TEXT), "diff-hunk-bg"),
        DiffLineKind.ADDED: pair(theme_colour(ADDED_TEXT), "diff-added-bg"),
        DiffLineKind.REMOVED: pair(theme_colour(REMOVED_TEXT), "diff-removed-bg"),
        DiffLineKind.CONTEXT: pair(None),
        DiffLineKind.NOTE: pair(theme_colour(FILE_TEXT)),
    }


class DiffView(QPlainTextEdit):
    """A read-only unified diff (``diffView``): added, removed, hunk-header and file-header lines coloured.

    The patch goes in as one run per stretch of same-kind lines, each with its colour and a full-width
    tint; nothing is highlighted line by line afterwards. A long patch shows its first screenfuls at
    once and the rest follows in chunks from the event loop (``loading`` until then), so opening a
    5,000-line diff paints in a few milliseconds and never blocks the window for the whole document.
    Signals: ``QPlainTextEdit``'s own (``cursorPositionChanged`` says the hunk under the cursor may differ).
    """

    FIRST_LINES = 400
    CHUNK_LINES = 1500
    CHUNK_CHARS = 300_000  # a chunk of long lines stops sooner (each at most LONG_LINE_CHARS shown)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("diffView")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self._formats = _formats()
        self._hunks: list[int] = []
        self._patch = ""
        self._lines: list[str] = []
        self._runs: list[tuple[DiffLineKind, int, int]] = []
        self._next_run = 0
        self._next_line = 0  # the first line of ``_next_run`` not yet added
        self._generation = 0

    @property
    def patch(self) -> str:
        return self._patch

    @property
    def hunk_count(self) -> int:
        return len(self._hunks)

    @property
    def loading(self) -> bool:
        """Whether later chunks of a long patch are still to be added."""
        return self._next_run < len(self._runs)

    def set_patch(self, patch: str, *, placeholder: str = "") -> None:
        self._generation += 1
        self._formats = _formats()  # the theme's colours now (the person may have switched it since)
        self._patch = patch
        self._lines = lines = patch.splitlines()
        self._hunks = hunk_starts(lines)
        self._runs = _line_runs(lines)
        self._next_run = self._next_line = 0
        self.setPlaceholderText(placeholder)
        self.document().clear()
        if lines:
            self._append(self.FIRST_LINES)
            self.moveCursor(QTextCursor.MoveOperation.Start)
            if self.loading:
                QTimer.singleShot(0, self, partial(self._append_later, self._generation))

    def _append_later(self, generation: int) -> None:
        if generation != self._generation:
            return  # another patch took its place
        self._append(self.CHUNK_LINES)
        if self.loading:
            QTimer.singleShot(0, self, partial(self._append_later, generation))

    def _append(self, budget: int) -> None:
        """Add lines at the end, a run of same-kind lines at a time, until about ``budget`` lines or
        ``CHUNK_CHARS`` characters went in; a line too long to lay out is cut, and says so
        (``presentation.files``; the patch itself stays whole: ``patch``, the hunks)."""
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.beginEditBlock()
        note = self._formats[DiffLineKind.NOTE][0]
        last = len(self._lines) - 1
        lines = chars = 0
        while self._next_run < len(self._runs) and lines < budget and chars < self.CHUNK_CHARS:
            kind, first, end = self._runs[self._next_run]
            char, block = self._formats[kind]
            cursor.setBlockFormat(block)
            number = max(first, self._next_line)
            pending: list[str] = []  # lines shown whole, each with its line break but the patch's last
            while number < end and lines < budget and chars < self.CHUNK_CHARS:
                text, hidden = cut_line(self._lines[number])
                pending.append(text if hidden else text if number == last else text + "\n")
                if hidden:
                    cursor.insertText("".join(pending), char)
                    cursor.insertText(cut_note(hidden), note)
                    pending = [] if number == last else ["\n"]
                lines, chars, number = lines + 1, chars + len(text), number + 1
            cursor.insertText("".join(pending), char)
            self._next_line = number
            if number == end:
                self._next_run += 1
        cursor.endEditBlock()

    def current_hunk(self) -> int | None:
        """The 0-based hunk the cursor is in (the numbering ``revert_hunk`` takes), or None above the first."""
        return hunk_at(self._hunks, self.textCursor().blockNumber())

    def go_to_hunk(self, hunk: int) -> None:
        if 0 <= hunk < len(self._hunks):
            block = self.document().findBlockByNumber(self._hunks[hunk])
            cursor = QTextCursor(block)
            self.setTextCursor(cursor)
            self.centerCursor()
