"""Selectable message text: a read-only text view opened over the row under the mouse (issue 18, item 4).

The conversation is a painted ``QListView`` (fast to switch, issue 7), so a
row cannot be partly selected by itself. When the mouse rests on a text row
(a message, an answer, a plan; not a tool card or a live row) the list opens
a ``MessageTextView`` exactly over that row's body: the same document, laid
out at the same width, on a transparent background, so nothing moves. There
the person drags or uses the keyboard (Shift+arrows, Ctrl+A) to select, and
copies as plain text (Ctrl+C) or as Markdown (Ctrl+Shift+C, or the context
menu). A code block's "Copy" chip copies that block.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QFont,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QTextDocument,
    QTextDocumentFragment,
    QTextOption,
)
from PySide6.QtWidgets import QFrame, QMenu, QTextBrowser, QWidget

from xworkmate.presentation.shortcuts import shortcut_keys
from xworkmate.ui import markdown_style

COPY_MARKDOWN = QKeySequence(shortcut_keys("copyMarkdown")[0])  # issue 33: the shortcut registry


def text_document(text: str, font: QFont) -> QTextDocument:
    """A plain row's text as a document laid out like ``PlainBody`` (wrapping anywhere, no margin)."""
    document = QTextDocument()
    document.setDocumentMargin(0)
    document.setDefaultFont(font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    document.setDefaultTextOption(option)
    document.setPlainText(text)
    return document


class MessageTextView(QTextBrowser):
    """One row's body, selectable (objectName ``messageTextView``).

    Signals: ``copied(str)`` with what went to the clipboard (plain text, Markdown or a code block).
    """

    copied = Signal(str)

    def __init__(self, document: QTextDocument, source: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageTextView")
        self.setAccessibleName(self.tr("Message text"))
        self._source = source
        document.setParent(self)
        self.setDocument(document)
        self.setReadOnly(True)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setOpenExternalLinks(True)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setAutoFillBackground(False)
        self.viewport().setAutoFillBackground(False)  # the card painted under it shows through
        self.setViewportMargins(0, 0, 0, 0)
        self.setContentsMargins(0, 0, 0, 0)

    @property
    def stored_text(self) -> str:
        """The row's text as stored (Markdown for an answer); not ``QTextBrowser.source()``, its URL."""
        return self._source

    def selected_markdown(self) -> str:
        """The selection as Markdown; the whole message's source when nothing (or everything) is selected."""
        cursor = self.textCursor()
        if not cursor.hasSelection():
            return self._source
        everything = cursor.selectionStart() == 0 and cursor.selectionEnd() >= self.document().characterCount() - 1
        if everything:
            return self._source
        return QTextDocumentFragment(cursor).toMarkdown().strip("\n")

    def copy_markdown(self) -> None:
        text = self.selected_markdown()
        QGuiApplication.clipboard().setText(text)
        self.copied.emit(text)

    def copy_plain(self) -> None:
        cursor = self.textCursor()
        text = cursor.selection().toPlainText() if cursor.hasSelection() else self.document().toPlainText()
        QGuiApplication.clipboard().setText(text)
        self.copied.emit(text)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if QKeySequence(event.keyCombination()) == COPY_MARKDOWN:
            self.copy_markdown()
            event.accept()
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_plain()
            event.accept()
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = QMenu(self)
        menu.setObjectName("messageTextMenu")
        copy = menu.addAction(self.tr("Copy"))
        copy.setObjectName("copyTextAction")
        copy.triggered.connect(self.copy_plain)
        markdown = menu.addAction(self.tr("Copy as Markdown"))
        markdown.setObjectName("copyMarkdownAction")
        markdown.triggered.connect(self.copy_markdown)
        menu.addSeparator()
        select = menu.addAction(self.tr("Select all"))
        select.triggered.connect(self.selectAll)
        menu.exec(event.globalPos())

    def _decorations(self) -> markdown_style.Decorations:
        return markdown_style.decorations(self.document())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and not self.textCursor().hasSelection():
            hit = markdown_style.decoration_at(self._decorations(), QPointF(event.position()))
            if hit is not None:
                QGuiApplication.clipboard().setText(hit.code)
                self.copied.emit(hit.code)
                event.accept()
                return
        super().mouseReleaseEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.document().property(markdown_style.DECORATED):  # the code boxes go under the text
            under = QPainter(self.viewport())
            markdown_style.paint_underlay(under, self._decorations())
            under.end()
        super().paintEvent(event)
        if self.document().property(markdown_style.DECORATED):
            painter = QPainter(self.viewport())
            markdown_style.paint_decorations(painter, self.document(), self._decorations())
            painter.end()
