"""The search palette, Ctrl+K (SPEC LOOP-3, LOOP-4, CAT-4).

Typing waits ``DEBOUNCE_MS`` after the last key, then asks ``SessionController.search`` on a
worker thread (``BackgroundCalls``); only the newest query's answer is shown. Results are
grouped by line: a header row per line (its title, highlighted where it matched), then its
hits with highlighted snippets (Markdown read as plain words, "You"/"Agent" for who wrote it).
Enter or a click chooses a row; the window then switches to the line and scrolls the
conversation to the message (``reveal_message``), selecting it and marking it for a moment.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSize,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QKeyEvent, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QLabel,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import SessionController
from xworkmate.domain.search import HighlightedText, MessageHit, SearchResults, match_spans, parse_query, snippet
from xworkmate.presentation.cards import tool_card
from xworkmate.presentation.messages import role_label
from xworkmate.presentation.wording import english_plural, plain_words
from xworkmate.ui.background import BackgroundCalls
from xworkmate.ui.conversation import MessageListModel, MessageListView

DEBOUNCE_MS = 150
HIT_MARK_MS = 3000
"""How long the message a hit opened stays marked in the conversation (issue 30, item 5)."""
KEY_ROLE = Qt.ItemDataRole.UserRole + 1
MESSAGE_ID_ROLE = Qt.ItemDataRole.UserRole + 2
HTML_ROLE = Qt.ItemDataRole.UserRole + 3
HEADER_ROLE = Qt.ItemDataRole.UserRole + 4
ModelIndex = QModelIndex | QPersistentModelIndex


def highlighted_html(text: HighlightedText, palette: QPalette) -> str:
    """``text`` as HTML, its matched ranges in the palette's highlight colours (no colour of our own)."""
    back = palette.color(QPalette.ColorRole.Highlight).name()
    fore = palette.color(QPalette.ColorRole.HighlightedText).name()
    out, at = [], 0
    for start, end in text.ranges:
        out.append(html.escape(text.text[at:start]))
        style = f"background-color:{back}; color:{fore}; font-weight:bold"
        out.append(f'<span style="{style}">{html.escape(text.text[start:end])}</span>')
        at = end
    out.append(html.escape(text.text[at:]))
    return "".join(out)


def hit_text(hit: MessageHit, query: str) -> HighlightedText:
    """What a hit shows after who and when: its snippet; a tool message's worded as its card words it
    (issue 30, item 5: "写入 hello.txt — 新文件 · 7 字节", not the tool's English output line), with the
    output's snippet after the card's title where the output is what the tool gave (a file read, a
    command's output)."""
    if hit.tool is None or not hit.tool.payload:
        return hit.snippet
    card = tool_card(hit.tool.payload, hit.tool.first_line)
    parsed = parse_query(query)
    if card.ok and card.body_kind == "output":
        head = f"{card.title} — "
        ranges = tuple(match_spans(head, parsed) or ())
        ranges += tuple((start + len(head), end + len(head)) for start, end in hit.snippet.ranges)
        return HighlightedText(text=head + hit.snippet.text, ranges=ranges)
    return snippet(f"{card.title} — {card.status}" if card.status else card.title, parsed)


@dataclass(frozen=True)
class _Row:
    key: str
    message_id: int  # 0: the line's header row
    text: str
    html: str


class SearchResultsModel(QAbstractListModel):
    """The hits of one answer as flat rows: a header per line, then its hits. Holds the answer only."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[_Row] = []
        self._results: SearchResults | None = None

    @property
    def results(self) -> SearchResults | None:
        return self._results

    def set_results(self, results: SearchResults | None, palette: QPalette) -> None:
        rows: list[_Row] = []
        for line in results.lines if results is not None else ():
            marks = "".join(
                [
                    self.tr(" · category {category}").format(category=line.category) if line.category else "",
                    self.tr(" · archived") if line.archived else "",
                ]
            )
            title = f"<b>{highlighted_html(line.title, palette)}</b>{html.escape(marks)}"
            rows.append(_Row(line.line_key, 0, line.title.text + marks, title))
            for hit in line.hits:
                when = hit.created_at.strftime("%Y-%m-%d %H:%M")
                prefix = html.escape(f"{role_label(hit.role, hit.source)} · {when} — ")
                shown = hit_text(hit, results.query if results is not None else "")
                text = f"{role_label(hit.role, hit.source)} · {when} — {shown.text}"
                rows.append(_Row(line.line_key, hit.message_id, text, prefix + highlighted_html(shown, palette)))
        self.beginResetModel()
        self._rows = rows
        self._results = results
        self.endResetModel()

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.text
        if role == KEY_ROLE:
            return row.key
        if role == MESSAGE_ID_ROLE:
            return row.message_id
        if role == HTML_ROLE:
            return row.html
        if role == HEADER_ROLE:
            return row.message_id == 0
        return None


class _HtmlDelegate(QStyledItemDelegate):
    """Paints a row's HTML (the highlighted snippet) on one line; hits are indented under their line."""

    INDENT = 18

    def _document(self, index: ModelIndex, option: QStyleOptionViewItem) -> QTextDocument:
        document = QTextDocument()
        document.setDefaultFont(option.font)
        document.setDocumentMargin(3)
        document.setHtml(str(index.data(HTML_ROLE) or ""))
        return document

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        self.initStyleOption(option, index)
        style = option.widget.style() if option.widget is not None else None
        text_free = QStyleOptionViewItem(option)
        text_free.text = ""
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, text_free, painter, option.widget)
        document = self._document(index, option)
        indent = 0 if index.data(HEADER_ROLE) else self.INDENT
        rect = option.rect
        painter.save()
        painter.translate(rect.left() + indent, rect.top())
        painter.setClipRect(0, 0, rect.width() - indent, rect.height())
        document.drawContents(painter)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:
        metrics = option.fontMetrics
        return QSize(200, metrics.height() + 8)


class SearchPalette(QFrame):
    """Ctrl+K: search every line the person may see (CAT-4), off the GUI thread.

    Signals:
        chosen(str, int): a line key and a message id (0: the line itself), on Enter or a click.
        results_shown(str): the query whose answer the list now shows.
        failed(str): the search failed; one line for the person (ERR-1).
    """

    chosen = Signal(str, int)
    results_shown = Signal(str)
    failed = Signal(str)

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("searchPalette")
        # A panel over the window (not a window of its own): it takes focus at once on every platform.
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.hide()
        self._controller = controller
        self._queries: dict[int, str] = {}
        self._open_when_ready = False  # Enter was pressed before the answer came
        self.search_input = QLineEdit()
        self.search_input.setObjectName("searchInput")
        self.search_input.setPlaceholderText(
            self.tr("Search every line's messages, tool output, titles (conf* for prefixes)")
        )
        self.search_input.setClearButtonEnabled(True)
        self.model = SearchResultsModel(self)
        self.search_results = QListView()
        self.search_results.setObjectName("searchResults")
        self.search_results.setModel(self.model)
        self.search_results.setItemDelegate(_HtmlDelegate(self.search_results))
        self.search_results.setUniformItemSizes(True)
        self.search_results.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.search_results.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.status_label = QLabel(self.tr("Type to search. Enter opens the message; Esc closes."))
        self.status_label.setObjectName("searchStatus")
        layout = QVBoxLayout(self)
        layout.addWidget(self.search_input)
        layout.addWidget(self.search_results, 1)
        layout.addWidget(self.status_label)

        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(DEBOUNCE_MS)
        self.worker = BackgroundCalls(self, name="xworkmate-search")
        self._connect_signals()

    def _connect_signals(self) -> None:
        self.search_input.textChanged.connect(self.on_text_changed)
        self.search_input.installEventFilter(self)
        self.debounce.timeout.connect(self.on_debounced)
        self.worker.finished.connect(self.on_search_finished)
        self.search_results.activated.connect(self.on_row_activated)
        self.search_results.clicked.connect(self.on_row_activated)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self.on_focus_changed)

    # -- our API -----------------------------------------------------------

    def open_palette(self) -> None:
        """Show over the top of the window, with the last query selected so typing replaces it."""
        parent = self.parentWidget()
        if parent is not None:
            width = min(720, max(360, parent.width() - 80))
            height = min(460, max(240, parent.height() - 120))
            self.setGeometry((parent.width() - width) // 2, 48, width, height)
        self.show()
        self.raise_()
        self.search_input.setFocus()
        self.search_input.selectAll()

    def shown_query(self) -> str | None:
        results = self.model.results
        return results.query if results is not None else None

    def close_worker(self) -> None:
        self.worker.shutdown()

    # -- slots -------------------------------------------------------------

    @Slot(str)
    def on_text_changed(self, _text: str) -> None:
        self._open_when_ready = False
        self.debounce.start()  # restarts: the query runs DEBOUNCE_MS after the last key

    @Slot()
    def on_debounced(self) -> None:
        query = self.search_input.text().strip()
        if not query:
            self.worker.submit(lambda: None)  # an answer to nothing: any query still running loses
            self.model.set_results(None, self.palette())
            self.status_label.setText(self.tr("Type to search."))
            return
        number = self.worker.submit(lambda: self._controller.search(query))
        self._queries[number] = query
        self.status_label.setText(self.tr("Searching for {query}…").format(query=query))

    @Slot(int, object, object)
    def on_search_finished(self, number: int, results: object, error: object) -> None:
        query = self._queries.pop(number, None)
        if number != self.worker.last or query is None:
            return  # a newer query was asked for: its answer wins
        if error is not None:
            text = self.tr("Search failed — {error}").format(error=plain_words(str(error)))
            self.status_label.setText(text)
            self.failed.emit(text)
            return
        assert isinstance(results, SearchResults)
        self.model.set_results(results, self.palette())
        count = results.message_count
        if not results.lines:
            self.status_label.setText(self.tr("No matches for {query}.").format(query=query))
        else:
            found = {
                "messages": english_plural(self.tr("%n message(s)", "", count), count),
                "lines": english_plural(self.tr("%n line(s)", "", len(results.lines)), len(results.lines)),
            }
            self.status_label.setText(
                self.tr("{messages} in {lines} (more match: refine the query).").format(**found)
                if results.truncated
                else self.tr("{messages} in {lines}.").format(**found)
            )
            self.search_results.setCurrentIndex(self.model.index(self._first_hit_row(), 0))
        self.search_results.viewport().update()
        self.results_shown.emit(query)
        if self._open_when_ready:
            self._open_when_ready = False
            if results.lines:
                self.on_row_activated(self.search_results.currentIndex())

    @Slot(QWidget, QWidget)
    def on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        """Clicking or tabbing elsewhere in the window closes the palette, as Esc does."""
        if self.isVisible() and new is not None and new is not self and not self.isAncestorOf(new):
            self.hide()

    @Slot(QModelIndex)
    def on_row_activated(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        self.hide()
        self.chosen.emit(str(index.data(KEY_ROLE)), int(index.data(MESSAGE_ID_ROLE)))

    def _first_hit_row(self) -> int:
        for row in range(self.model.rowCount()):
            if not self.model.index(row, 0).data(HEADER_ROLE):
                return row
        return 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keys typed in the input move the list: Up/Down choose a row, Enter opens it, Esc closes."""
        if watched is self.search_input and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                rows = self.model.rowCount()
                if rows:
                    step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 8, Qt.Key.Key_PageUp: -8}[
                        Qt.Key(key)
                    ]
                    row = max(0, min(rows - 1, self.search_results.currentIndex().row() + step))
                    self.search_results.setCurrentIndex(self.model.index(row, 0))
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if self.debounce.isActive() or self._queries:  # Enter before the answer: open it when it comes
                    self._open_when_ready = True
                    if self.debounce.isActive():
                        self.debounce.stop()
                        self.on_debounced()
                    return True
                self.on_row_activated(self.search_results.currentIndex())
                return True
            if key == Qt.Key.Key_Escape:
                self.hide()
                return True
        return super().eventFilter(watched, event)


def reveal_message(
    view: MessageListView, model: MessageListModel, message_id: int, missing: Callable[[], None], query: str = ""
) -> None:
    """Scroll the shown conversation to ``message_id`` and select it, once the older history it needs is
    paged in (read on the store worker, issue 19: ``MessageListModel.load_until``); ``missing()`` when
    the line has no such message (the person may not see it, or it is gone). The message stays marked,
    ``query``'s matches in it painted selected, for ``HIT_MARK_MS`` (issue 30, item 5)."""

    def loaded(found: bool) -> None:
        if not found:
            missing()
            return
        index = model.index(model.loaded_ids.index(message_id), 0)
        view.setCurrentIndex(index)
        view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        view.setFocus()
        model.mark_search_hit(message_id, query)
        QTimer.singleShot(HIT_MARK_MS, model, lambda: model.clear_search_hit(message_id))

    model.load_until(message_id, loaded)
