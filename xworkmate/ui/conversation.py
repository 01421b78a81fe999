"""The centre pane: one line's conversation and the composer (SPEC §6, ISO-4, ISO-5).

``MessageListModel`` holds only the message ids of the current line, newest
page first; rows are read from the controller the first time something asks
for them, a block at a time, and older history is paged in with
``fetchMore`` when the reader scrolls to the top (STYLE lesson 3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QByteArray,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeySequence, QPainter, QPalette, QTextLayout, QTextOption
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QLabel,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import LineView, SessionController
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.threads import ThreadStatus

ModelIndex = QModelIndex | QPersistentModelIndex

MESSAGE_ID_ROLE = int(Qt.ItemDataRole.UserRole) + 1
HEADER_ROLE = MESSAGE_ID_ROLE + 1
STATE_ROLE = MESSAGE_ID_ROLE + 2
ROLE_ROLE = MESSAGE_ID_ROLE + 3
SOURCE_ROLE = MESSAGE_ID_ROLE + 4
CONTENT_ROLE = MESSAGE_ID_ROLE + 5

PAGE_SIZE = 200
# How many rows around a missing one are read together when a row is first painted.
_FETCH_BEHIND = 16
_FETCH_AHEAD = 48
# Longer messages are cut in the list (the full text stays available via CONTENT_ROLE).
DISPLAY_LIMIT = 20_000

EMPTY_CONVERSATION_TEXT = "No messages yet. Type a request below and press Ctrl+Enter."
COMPOSER_PLACEHOLDER = "Type a request for this task line… (Ctrl+Enter sends)"

_ERROR_COLOUR = QColor(242, 178, 51)

_ROLE_LABELS: dict[MessageRole, str] = {
    MessageRole.USER: "You",
    MessageRole.ASSISTANT: "Agent",
    MessageRole.TOOL: "Tool",
    MessageRole.SYSTEM: "Notice",
}


def message_header(message: Message) -> str:
    """``You · human · 14:02``; ``role=user`` alone is not shown as "You" (PROV-3)."""
    label = _ROLE_LABELS[message.role]
    if message.role is MessageRole.USER and message.source is not MessageSource.HUMAN:
        label = "Input"
    parts = [label, message.source.value.replace("_", " "), message.created_at.astimezone().strftime("%H:%M")]
    if message.state is MessageState.ERROR:
        parts[0] = f"⚠ {parts[0]}"
    elif message.state is MessageState.INTERRUPTED:
        parts.append("interrupted")
    return " · ".join(parts)


def display_text(content: str) -> str:
    if len(content) <= DISPLAY_LIMIT:
        return content
    hidden = len(content) - DISPLAY_LIMIT
    return f"{content[:DISPLAY_LIMIT]}\n… ({hidden:,} more characters not shown in the list)"


class MessageListModel(QAbstractListModel):
    """The current line's messages: ids in memory, rows on demand, older pages on request.

    Signals: only the standard model signals. ``set_key`` resets the model
    (a different conversation); new messages are appended and older pages
    prepended with ``beginInsertRows``.
    """

    def __init__(
        self, controller: SessionController, parent: QObject | None = None, *, page_size: int = PAGE_SIZE
    ) -> None:
        super().__init__(parent)
        self._controller = controller
        self._page_size = page_size
        self._key: str | None = None
        self._ids: list[int] = []
        self._cache: dict[int, Message] = {}
        self._missing: set[int] = set()
        self._has_older = False
        self._fetch_gate: Callable[[], bool] = lambda: True

    # -- our API ------------------------------------------------------------

    @property
    def key(self) -> str | None:
        return self._key

    @property
    def has_older(self) -> bool:
        return self._has_older

    @property
    def loaded_ids(self) -> list[int]:
        return list(self._ids)

    @property
    def cached_count(self) -> int:
        return len(self._cache)

    def set_fetch_gate(self, gate: Callable[[], bool]) -> None:
        """Qt asks ``canFetchMore`` when the *last* row shows; our history grows at the top,
        so the view tells the model when the reader is actually at the oldest message."""
        self._fetch_gate = gate

    def set_key(self, key: str | None) -> None:
        """Show another line's conversation: its newest page of ids, nothing else read yet."""
        ids = self._controller.message_ids(key, limit=self._page_size) if key is not None else []
        self.beginResetModel()
        self._key = key
        self._ids = ids
        self._cache.clear()
        self._missing.clear()
        self._has_older = len(ids) >= self._page_size
        self.endResetModel()

    def append_ids(self, ids: Iterable[int]) -> None:
        """New messages on this line (``MessagesAppended``): add them at the bottom."""
        last = self._ids[-1] if self._ids else 0
        fresh = sorted({i for i in ids if i > last})
        if not fresh:
            return
        first = len(self._ids)
        self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
        self._ids.extend(fresh)
        self.endInsertRows()

    def fetch_older(self) -> int:
        """Prepend the next older page; returns how many rows were added."""
        if self._key is None or not self._has_older:
            return 0
        before = self._ids[0] if self._ids else None
        older = self._controller.message_ids(self._key, before_id=before, limit=self._page_size)
        self._has_older = len(older) >= self._page_size
        if not older:
            return 0
        self.beginInsertRows(QModelIndex(), 0, len(older) - 1)
        self._ids[:0] = older
        self.endInsertRows()
        return len(older)

    def message_at(self, row: int) -> Message | None:
        message_id = self._ids[row]
        message = self._cache.get(message_id)
        if message is None and message_id not in self._missing:
            self._load_around(row)
            message = self._cache.get(message_id)
        return message

    def _load_around(self, row: int) -> None:
        window = self._ids[max(0, row - _FETCH_BEHIND) : row + _FETCH_AHEAD]
        wanted = [i for i in window if i not in self._cache and i not in self._missing]
        found = self._controller.messages_by_id(wanted)
        self._cache.update(found)
        self._missing.update(i for i in wanted if i not in found)

    # -- Qt model API -----------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._ids)

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def canFetchMore(self, parent: ModelIndex) -> bool:
        return not parent.isValid() and self._key is not None and self._has_older and self._fetch_gate()

    def fetchMore(self, parent: ModelIndex) -> None:
        if not parent.isValid():
            self.fetch_older()

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._ids) or index.column() != 0:
            return None
        if role == MESSAGE_ID_ROLE:
            return self._ids[index.row()]
        message = self.message_at(index.row())
        if message is None:
            if role == Qt.ItemDataRole.DisplayRole:
                return "(this message is no longer available)"
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return display_text(message.content)
        if role == CONTENT_ROLE:
            return message.content
        if role == HEADER_ROLE:
            return message_header(message)
        if role == STATE_ROLE:
            return message.state.value
        if role == ROLE_ROLE:
            return message.role.value
        if role == SOURCE_ROLE:
            return message.source.value
        if role == Qt.ItemDataRole.ToolTipRole:
            stamp = message.created_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
            return f"message #{message.id} · {message.role.value} / {message.source.value} · {stamp}"
        if role == Qt.ItemDataRole.BackgroundRole and message.state is MessageState.ERROR:
            colour = QColor(_ERROR_COLOUR)
            colour.setAlpha(70)
            return colour
        return None

    def roleNames(self) -> dict[int, QByteArray]:
        names = dict(super().roleNames())
        names.update(
            {
                MESSAGE_ID_ROLE: QByteArray(b"messageId"),
                HEADER_ROLE: QByteArray(b"header"),
                STATE_ROLE: QByteArray(b"state"),
                ROLE_ROLE: QByteArray(b"role"),
                SOURCE_ROLE: QByteArray(b"source"),
                CONTENT_ROLE: QByteArray(b"content"),
            }
        )
        return names


def _wrapped_layout(text: str, font: QFont, width: float) -> tuple[QTextLayout, float]:
    # QTextLayout breaks on U+2028, not on "\n"; long unbroken tokens (paths, URLs) still wrap.
    layout = QTextLayout(text.replace("\r\n", "\n").replace("\n", "\u2028"), font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    height = 0.0
    layout.beginLayout()
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        line.setPosition(QPointF(0.0, height))
        height += line.height()
    layout.endLayout()
    return layout, height


class MessageDelegate(QStyledItemDelegate):
    """Paints a message as a card: header (who, source, time) over word-wrapped text.

    Error-state messages (notices such as "no agent provider is configured")
    get an amber card so they cannot be mistaken for an agent's answer.
    """

    MARGIN = 6
    PADDING = 8
    GAP = 3

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self._view = view
        self._heights: dict[tuple[int, int], int] = {}

    def text_width(self) -> int:
        return max(self._view.viewport().width() - 2 * (self.MARGIN + self.PADDING), 80)

    def forget_sizes(self) -> None:
        self._heights.clear()

    @staticmethod
    def _header_font(font: QFont) -> QFont:
        header = QFont(font)
        header.setBold(True)
        header.setPointSizeF(max(font.pointSizeF() * 0.85, 6.0))
        return header

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:
        width = self.text_width()
        message_id = index.data(MESSAGE_ID_ROLE)
        cache_key = (int(message_id or 0), width)
        height = self._heights.get(cache_key)
        if height is None:
            header_height = QFontMetrics(self._header_font(option.font)).height()
            _, body_height = _wrapped_layout(str(index.data() or ""), option.font, width)
            height = int(2 * (self.MARGIN + self.PADDING) + header_height + self.GAP + body_height) + 1
            self._heights[cache_key] = height
        return QSize(width + 2 * (self.MARGIN + self.PADDING), height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        card = QRectF(option.rect).adjusted(self.MARGIN, self.MARGIN / 2, -self.MARGIN, -self.MARGIN / 2)
        palette = option.palette
        is_error = index.data(STATE_ROLE) == MessageState.ERROR.value
        is_user = index.data(ROLE_ROLE) == MessageRole.USER.value
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if is_error:
            fill = QColor(_ERROR_COLOUR)
            fill.setAlpha(70)
            border = QColor(_ERROR_COLOUR).darker(120)
        elif is_user:
            fill = QColor(palette.color(QPalette.ColorRole.Highlight))
            fill.setAlpha(28)
            border = QColor(fill)
            border.setAlpha(70)
        else:
            fill = QColor(palette.color(QPalette.ColorRole.AlternateBase))
            border = QColor(palette.color(QPalette.ColorRole.Mid))
            border.setAlpha(90)
        if selected:
            border = palette.color(QPalette.ColorRole.Highlight)
        painter.setPen(border)
        painter.setBrush(fill)
        painter.drawRoundedRect(card, 6, 6)

        text_colour = palette.color(QPalette.ColorRole.Text)
        header_font = self._header_font(option.font)
        header_height = QFontMetrics(header_font).height()
        left = card.left() + self.PADDING
        top = card.top() + self.PADDING
        width = self.text_width()
        painter.setFont(header_font)
        painter.setPen(text_colour)
        header = QFontMetrics(header_font).elidedText(
            str(index.data(HEADER_ROLE) or ""), Qt.TextElideMode.ElideRight, width
        )
        painter.drawText(
            QRectF(left, top, width, header_height),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            header,
        )
        layout, _ = _wrapped_layout(str(index.data() or ""), option.font, width)
        painter.setFont(option.font)
        layout.draw(painter, QPointF(left, top + header_height + self.GAP))
        painter.restore()


class MessageListView(QListView):
    """The conversation list. It follows the newest message unless the reader scrolled up.

    Signals: only QListView's own. ``is_reading_oldest`` is the model's fetch
    gate: older history is paged in only when the reader is at the top.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._follow_newest = True  # first: Qt calls updateGeometries from the setters below
        self.setObjectName("messageList")
        self.setItemDelegate(MessageDelegate(self))
        self.setWordWrap(True)
        self.setUniformItemSizes(False)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # Internal bookkeeping of the view's own scroll bar, like QListView's own wiring.
        self.verticalScrollBar().valueChanged.connect(self._note_scroll)

    @property
    def follows_newest(self) -> bool:
        return self._follow_newest

    def follow_newest(self) -> None:
        """Stick to the bottom (a new line was opened, or the person sent a message)."""
        self._follow_newest = True
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def is_reading_oldest(self) -> bool:
        bar = self.verticalScrollBar()
        if bar.maximum() <= bar.minimum():
            return True  # everything fits: load older history to fill the view
        return bar.value() <= bar.minimum() and not self._follow_newest

    def keep_row_at_top(self, row: int) -> None:
        """After older rows were prepended, keep the message the reader was looking at in place."""
        model = self.model()
        if model is not None and 0 <= row < model.rowCount():
            self.scrollTo(model.index(row, 0), QAbstractItemView.ScrollHint.PositionAtTop)

    def _note_scroll(self, value: int) -> None:
        self._follow_newest = value >= self.verticalScrollBar().maximum()

    def updateGeometries(self) -> None:
        super().updateGeometries()
        if self._follow_newest:
            bar = self.verticalScrollBar()
            bar.setValue(bar.maximum())

    def resizeEvent(self, event: Any) -> None:
        delegate = self.itemDelegate()
        if isinstance(delegate, MessageDelegate):
            delegate.forget_sizes()
        super().resizeEvent(event)

    def keyPressEvent(self, event: Any) -> None:
        if event.matches(QKeySequence.StandardKey.Copy) and self.currentIndex().isValid():
            QApplication.clipboard().setText(str(self.currentIndex().data(CONTENT_ROLE) or ""))
            event.accept()
            return
        super().keyPressEvent(event)


def line_status_text(view: LineView) -> tuple[str, str]:
    """What ``lineStatusLabel`` says about a line, and how loudly (ISO-4)."""
    if view.status is ThreadStatus.RUNNABLE:
        return "Runnable — ready. Ctrl+Enter sends.", "ok"
    if view.status is ThreadStatus.RUNNING:
        return f"Running — {view.explanation}.", "busy"
    return f"Not runnable — {view.explanation}", "blocked"


class MessagePane(QWidget):
    """Centre pane: key, title and status header; the conversation; composer and Send (view only).

    Signals: none of its own; the window connects to its child widgets.
    """

    def __init__(self, model: MessageListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messagePane")

        self.title_label = QLabel()
        self.title_label.setObjectName("lineTitleLabel")
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)
        self.session_key_label = QLabel()
        self.session_key_label.setObjectName("sessionKeyLabel")
        self.session_key_label.setTextFormat(Qt.TextFormat.PlainText)
        self.session_key_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.session_key_label.setToolTip("This line's session key")
        self.status_label = QLabel()
        self.status_label.setObjectName("lineStatusLabel")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.message_list = MessageListView()
        self.message_list.setModel(model)
        self.empty_label = QLabel(EMPTY_CONVERSATION_TEXT)
        self.empty_label.setObjectName("messageEmptyLabel")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.setObjectName("messageStack")
        self.stack.addWidget(self.message_list)
        self.stack.addWidget(self.empty_label)

        self.composer = QPlainTextEdit()
        self.composer.setObjectName("composer")
        self.composer.setPlaceholderText(COMPOSER_PLACEHOLDER)
        self.composer.setTabChangesFocus(True)
        self.composer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.composer.setFixedHeight(QFontMetrics(self.composer.font()).lineSpacing() * 5 + 12)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("sendButton")
        self.send_button.setToolTip("Send to this task line (Ctrl+Enter)")
        self.send_button.setEnabled(False)

        header_row = QHBoxLayout()
        header_row.addWidget(self.title_label, 1)
        header_row.addWidget(self.session_key_label)
        composer_row = QHBoxLayout()
        composer_row.addWidget(self.composer, 1)
        composer_row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(header_row)
        layout.addWidget(self.status_label)
        layout.addWidget(self.stack, 1)
        layout.addLayout(composer_row)

    def show_line(self, view: LineView) -> None:
        self.title_label.setText(view.thread.title)
        self.session_key_label.setText(view.key)
        text, severity = line_status_text(view)
        self.show_status(text, severity)

    def show_status(self, text: str, severity: str) -> None:
        self.status_label.setText(text)
        if self.status_label.property("severity") != severity:
            self.status_label.setProperty("severity", severity)
            # A dynamic property only restyles after a re-polish.
            self.status_label.style().unpolish(self.status_label)
            self.status_label.style().polish(self.status_label)

    def show_empty_state(self, rows: int) -> None:
        self.stack.setCurrentWidget(self.message_list if rows else self.empty_label)
