"""The centre pane: one line's conversation and the composer (SPEC §6, ISO-4, ISO-5).

``MessageListModel`` holds only the message ids of the current line, newest
page first; rows are read from the controller the first time something asks
for them, a block at a time, and older history is paged in with
``fetchMore`` when the reader scrolls to the top (STYLE lesson 3). Below the
stored rows sit at most two transient rows of a running turn (the text
streaming in, the tool being run), replaced by the stored messages as the
controller stores them.

``MessageDelegate`` paints each row from a body laid out at the viewport
width — Markdown for the agent's answers (``rawToggle`` shows the source),
compact cards for tool calls, a bare text layout for plain text — cached per
row and width.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractListModel,
    QByteArray,
    QCoreApplication,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QRect,
    QRectF,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
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
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import ApprovalRequested, LineView, SessionController
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.stored_text import NUL_REPLACED_NOTE, nul_replaced
from xworkmate.domain.threads import NetworkAccess, PermissionLevel, ThreadStatus
from xworkmate.ui import markdown_style, theme
from xworkmate.ui.agent_session import AgentSessionBar, SlashCompleter, UsageMeter
from xworkmate.ui.approvals import ApprovalArea
from xworkmate.ui.execution import ModePicker
from xworkmate.ui.first_run import EmptyConversation, status_without_provider
from xworkmate.ui.live_runs import LiveRow
from xworkmate.ui.message_text import MessageTextView, text_document
from xworkmate.ui.painting import draw_text_line
from xworkmate.ui.rendering import (
    Body,
    BodyFormat,
    CodeHighlighter,
    DocumentBody,
    StreamingBody,
    ToolCard,
    build_body,
    plan_text,
    running_card,
    thought_summary,
    tool_calls_line,
    tool_card,
)
from xworkmate.ui.wording import line_title, plain_words

ModelIndex = QModelIndex | QPersistentModelIndex

MESSAGE_ID_ROLE = int(Qt.ItemDataRole.UserRole) + 1
HEADER_ROLE = MESSAGE_ID_ROLE + 1
STATE_ROLE = MESSAGE_ID_ROLE + 2
ROLE_ROLE = MESSAGE_ID_ROLE + 3
SOURCE_ROLE = MESSAGE_ID_ROLE + 4
CONTENT_ROLE = MESSAGE_ID_ROLE + 5
LIVE_ROLE = MESSAGE_ID_ROLE + 6
"""``"stream"`` or ``"tool"`` for a running turn's transient rows, ``None`` for stored messages."""
FORMAT_ROLE = MESSAGE_ID_ROLE + 7
"""How the body renders: ``"markdown"``, ``"plain"``, ``"tool"``, ``"thought"`` (folded, dimmed) or ``"plan"``."""
CARD_ROLE = MESSAGE_ID_ROLE + 8
"""The ``ToolCard`` of a tool row."""
EXPANDED_ROLE = MESSAGE_ID_ROLE + 9
CACHE_KEY_ROLE = MESSAGE_ID_ROLE + 10
"""A hashable key that changes whenever the row's rendering does."""
ROW_ROLE = MESSAGE_ID_ROLE + 11
"""Everything the delegate paints, as one ``RowView`` (one call into the model per row, not ten)."""
HIDDEN_ROLE = MESSAGE_ID_ROLE + 12
"""``True`` for a stored message hidden from the model (Q-1): the model sees only its placeholder."""

CHIP_ROLE = MESSAGE_ID_ROLE + 13
"""Issue 16: the "n files changed" chip on the message a turn ended on (``set_chips``), or ``None``."""

HIDDEN_FROM_MODEL = QT_TRANSLATE_NOOP("MessageListModel", "hidden from the model")

PAGE_SIZE = 200
# Opening a line reads only enough of its newest messages for the first screen; every row of
# that page is measured (rendered) before the first paint, so this decides switching time
# (issue 7: p95 38 ms a switch with 200 rows, 18 ms with 16). The window asks for as many as
# fill its view (``MessageListView.rows_to_fill``, never fewer than MIN_FIRST_PAGE);
# FIRST_PAGE_SIZE is the model's default. Older pages are PAGE_SIZE.
FIRST_PAGE_SIZE = 16
MIN_FIRST_PAGE = 8
# How many rows around a missing one are read together when a row is first painted.
_FETCH_BEHIND = 16
_FETCH_AHEAD = 48
# Longer messages are cut in the list (the full text stays available via CONTENT_ROLE).
DISPLAY_LIMIT = 20_000

# The texts below are English; the window shows them through QCoreApplication.translate(context, text).
MISSING_MESSAGE_TEXT = QT_TRANSLATE_NOOP("MessageListModel", "(this message is no longer available)")
EMPTY_CONVERSATION_TEXT = QT_TRANSLATE_NOOP("MessagePane", "No messages yet. Type a request below and press Enter.")
COMPOSER_PLACEHOLDER = QT_TRANSLATE_NOOP(
    "MessagePane", "Type a request for this task line… (Enter sends, Shift+Enter adds a line)"
)
NO_PROVIDER_BANNER = QT_TRANSLATE_NOOP(
    "MessagePane",
    'No agent provider is configured, so nothing will run. <a href="settings:providers">Set up a provider…</a>',
)
DEFAULT_PROVIDER_LABEL = QT_TRANSLATE_NOOP("MessagePane", "Default provider")
PERMISSION_CHOICES: tuple[tuple[PermissionLevel, str, str], ...] = (
    (
        PermissionLevel.ASK,
        QT_TRANSLATE_NOOP("MessagePane", "Ask before edits"),
        QT_TRANSLATE_NOOP("MessagePane", "Ask before every edit and every command"),
    ),
    (
        PermissionLevel.AUTO_EDIT,
        QT_TRANSLATE_NOOP("MessagePane", "Auto-edit"),
        QT_TRANSLATE_NOOP("MessagePane", "Edits inside the folder run at once; commands still ask"),
    ),
    (
        PermissionLevel.FULL,
        QT_TRANSLATE_NOOP("MessagePane", "Full access"),
        QT_TRANSLATE_NOOP("MessagePane", "Edits and commands run without asking"),
    ),
)

PICKER_MIN_WIDTH = 50
HEADER_LABEL_MIN_WIDTH = 40

_CARD_RADIUS = 6


_ROLE_LABELS: dict[MessageRole, str] = {
    MessageRole.USER: QT_TRANSLATE_NOOP("MessageListModel", "You"),
    MessageRole.ASSISTANT: QT_TRANSLATE_NOOP("MessageListModel", "Agent"),
    MessageRole.TOOL: QT_TRANSLATE_NOOP("MessageListModel", "Tool"),
    MessageRole.SYSTEM: QT_TRANSLATE_NOOP("MessageListModel", "Notice"),
}


_NATURAL_SOURCE: dict[MessageRole, MessageSource] = {
    MessageRole.USER: MessageSource.HUMAN,
    MessageRole.ASSISTANT: MessageSource.AGENT,
    MessageRole.TOOL: MessageSource.TOOL,
    MessageRole.SYSTEM: MessageSource.FRAMEWORK_EVENT,
}

# Who wrote a message whose source is not the usual one for its role, in plain words (issue 18).
_SOURCE_WORDS: dict[MessageSource, str] = {
    MessageSource.HUMAN: QT_TRANSLATE_NOOP("MessageListModel", "from you"),
    MessageSource.AGENT: QT_TRANSLATE_NOOP("MessageListModel", "from the agent"),
    MessageSource.TOOL: QT_TRANSLATE_NOOP("MessageListModel", "from a tool"),
    MessageSource.FRAMEWORK_EVENT: QT_TRANSLATE_NOOP("MessageListModel", "from XWorkmate"),
    MessageSource.COMPONENT_INPUT: QT_TRANSLATE_NOOP("MessageListModel", "from the dispatching agent"),
    MessageSource.QUARANTINE: QT_TRANSLATE_NOOP("MessageListModel", "held back"),
}


def message_header(message: Message) -> str:
    """``You · 14:02``, ``Agent · gpt-4o · 14:03``; ``role=user`` alone is not shown as "You" (PROV-3)."""
    label = QCoreApplication.translate("MessageListModel", _ROLE_LABELS[message.role])
    if message.role is MessageRole.USER and message.source is not MessageSource.HUMAN:
        label = QCoreApplication.translate("MessageListModel", "Request")  # an agent's words, never the person's
    elif is_thought(message):
        label = QCoreApplication.translate("MessageListModel", "Agent (thinking)")  # kept apart from its answer
    elif is_plan(message):
        label = QCoreApplication.translate("MessageListModel", "Agent's plan")
    parts = [label]
    if _NATURAL_SOURCE.get(message.role) is not message.source:
        words = _SOURCE_WORDS.get(message.source)
        parts.append(
            QCoreApplication.translate("MessageListModel", words) if words else message.source.value.replace("_", " ")
        )
    model = (message.payload or {}).get("model") if message.role is MessageRole.ASSISTANT else None
    if isinstance(model, str) and model:
        parts.append(model)
    parts.append(message.created_at.astimezone().strftime("%H:%M"))
    if message.state is MessageState.ERROR:
        parts[0] = f"⚠ {parts[0]}"
    elif message.state is MessageState.INTERRUPTED:
        parts.append(QCoreApplication.translate("MessageListModel", "interrupted"))
    if message.quarantined:  # the person sees it; the model sees a placeholder
        parts.append(QCoreApplication.translate("MessageListModel", HIDDEN_FROM_MODEL))
    return " · ".join(parts)


def display_text(content: str) -> str:
    if len(content) <= DISPLAY_LIMIT:
        return content
    hidden = len(content) - DISPLAY_LIMIT
    more = MessageListModel.tr("… (%n more character(s) not shown in the list)", "", hidden)
    return f"{content[:DISPLAY_LIMIT]}\n{more}"


def is_thought(message: Message) -> bool:
    return message.role is MessageRole.ASSISTANT and bool(message.payload and message.payload.get("thought"))


def is_plan(message: Message) -> bool:
    return message.role is MessageRole.ASSISTANT and bool(message.payload and "plan" in message.payload)


def is_answer(message: Message) -> bool:
    """An assistant message that is the agent's answer (not its reasoning, not its plan)."""
    return message.role is MessageRole.ASSISTANT and not is_thought(message) and not is_plan(message)


def _body_format(message: Message) -> BodyFormat:
    if message.role is MessageRole.TOOL:
        return "tool"
    if is_thought(message):
        return "thought"
    if is_plan(message):
        return "plan"
    if message.role is MessageRole.ASSISTANT:
        return "markdown"
    return "plain"


@dataclass(frozen=True, slots=True)
class RowView:
    """What a row paints: the delegate reads it with one ``data(ROW_ROLE)`` call.

    Stored rows are built once per message and kept until the row's rendering
    changes (folded or unfolded, another line shown); live rows are built on
    every call, they change with each flush.
    """

    cache_key: Hashable
    text: str
    body_format: BodyFormat
    header: str
    state: str
    role: str
    live: str | None = None
    card: ToolCard | None = None
    expanded: bool = False


class MessageListModel(QAbstractListModel):
    """The current line's messages: ids in memory, rows on demand, older pages on request.

    Signals: only the standard model signals. ``set_key`` resets the model
    (a different conversation); new messages are appended and older pages
    prepended with ``beginInsertRows``; the running turn's transient rows
    (``set_live``) follow the stored ones and change with ``dataChanged``.

    Item flags are ``QAbstractListModel``'s own (enabled, selectable, no
    children): a Python ``flags()`` would be called for every row painted.
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
        self._cards: dict[int, ToolCard] = {}
        self._views: dict[int, RowView] = {}
        self._missing: set[int] = set()
        self._expanded: set[int] = set()
        self._live: list[LiveRow] = []
        self._has_older = False
        self._fetch_gate: Callable[[], bool] = lambda: True
        self._chips: dict[int, str] = {}
        self._chips_key: str | None = None

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

    @property
    def stored_count(self) -> int:
        """Rows that are stored messages (the live rows come after them)."""
        return len(self._ids)

    @property
    def live_rows(self) -> list[LiveRow]:
        return list(self._live)

    def set_chips(self, key: str, chips: dict[int, str]) -> None:
        """Issue 16: the line's "n files changed" chips by message id; painted on the rows that are loaded."""
        if key != self._key and self._chips_key != key:
            return
        changed = set(self._chips) ^ set(chips) | {i for i in chips if self._chips.get(i) != chips[i]}
        self._chips, self._chips_key = dict(chips), key
        for row, message_id in enumerate(self._ids):
            if message_id in changed:
                index = self.index(row, 0)
                self.dataChanged.emit(index, index, [CHIP_ROLE])

    def set_fetch_gate(self, gate: Callable[[], bool]) -> None:
        """Qt asks ``canFetchMore`` when the *last* row shows; our history grows at the top,
        so the view tells the model when the reader is actually at the oldest message."""
        self._fetch_gate = gate

    def set_key(
        self, key: str | None, *, first_page: int = FIRST_PAGE_SIZE, newest: list[Message] | None = None
    ) -> None:
        """Show another line's conversation: its newest ``first_page`` messages, read in one query.

        The view asks for as many as can fill its height (``MessageListView.rows_to_fill``);
        older ones are paged in by id when the reader scrolls to the top.
        """
        first = max(1, min(first_page, self._page_size))
        if newest is None:  # else read for it off the GUI thread (issue 19, ``controllers/views``)
            newest = self._controller.newest_messages(key, limit=first) if key is not None else []
        self.beginResetModel()
        self._key = key
        self._ids = [message.id for message in newest]
        self._cache.clear()
        self._cache.update((message.id, message) for message in newest)
        self._cards.clear()
        self._views.clear()
        self._missing.clear()
        self._expanded.clear()
        self._live = []
        self._has_older = len(newest) >= first
        self.endResetModel()

    def remember(self, messages: Iterable[Message]) -> None:
        """Messages read off the GUI thread (issue 19): their rows paint without a read."""
        self._cache.update((message.id, message) for message in messages if message.thread_id == self._key)

    def append_ids(self, ids: Iterable[int]) -> None:
        """New messages on this line (``MessagesAppended``): add them after the stored rows."""
        last = self._ids[-1] if self._ids else 0
        fresh = sorted({i for i in ids if i > last})
        if not fresh:
            return
        first = len(self._ids)
        self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
        self._ids.extend(fresh)
        self.endInsertRows()

    def set_live(self, rows: Sequence[LiveRow]) -> None:
        """Show a running turn's transient rows (streamed text, the tool running) at the bottom."""
        new = list(rows)
        old = self._live
        base = len(self._ids)
        if [r.kind for r in old] == [r.kind for r in new]:
            self._live = new
            for offset, (before, after) in enumerate(zip(old, new, strict=True)):
                if before != after:
                    index = self.index(base + offset, 0)
                    self.dataChanged.emit(index, index)
            return
        if old:
            self.beginRemoveRows(QModelIndex(), base, base + len(old) - 1)
            self._live = []
            self.endRemoveRows()
        if new:
            self.beginInsertRows(QModelIndex(), base, base + len(new) - 1)
            self._live = new
            self.endInsertRows()

    def refresh_messages(self, ids: Iterable[int]) -> None:
        """Stored messages changed (``MessagesChanged``: hidden from the model or shown again): re-read them."""
        rows = {message_id: row for row, message_id in enumerate(self._ids)}
        changed = [i for i in ids if i in rows]
        if not changed:
            return
        for message_id in changed:
            self._cache.pop(message_id, None)
            self._views.pop(message_id, None)
            self._cards.pop(message_id, None)
            self._missing.discard(message_id)
        found = self._controller.messages_by_id(changed)
        self._cache.update(found)
        self._missing.update(i for i in changed if i not in found)
        for message_id in changed:
            index = self.index(rows[message_id], 0)
            self.dataChanged.emit(index, index)

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
        if row >= len(self._ids):
            return None
        message_id = self._ids[row]
        message = self._cache.get(message_id)
        if message is None and message_id not in self._missing:
            self._load_around(row)
            message = self._cache.get(message_id)
        return message

    def card_at(self, row: int) -> ToolCard | None:
        if row >= len(self._ids):
            live = self._live_at(row)
            return running_card(live.text) if live is not None and live.kind == "tool" else None
        message = self.message_at(row)
        if message is None or message.role is not MessageRole.TOOL:
            return None
        card = self._cards.get(message.id)
        if card is None:
            card = tool_card(message.payload, message.content, failed=message.state is MessageState.ERROR)
            self._cards[message.id] = card
        return card

    def is_expanded(self, row: int) -> bool:
        return row < len(self._ids) and self._ids[row] in self._expanded

    def is_foldable(self, row: int) -> bool:
        """A tool card with more to show, or an agent's thought (folded until asked)."""
        if row >= len(self._ids):
            return False
        card = self.card_at(row)
        if card is not None:
            return card.expandable
        message = self.message_at(row)
        return message is not None and is_thought(message)

    def toggle_expanded(self, row: int) -> bool:
        """Fold or unfold a tool card's output or diff, or a thought; returns whether anything changed."""
        if not self.is_foldable(row):
            return False
        self._expanded ^= {self._ids[row]}
        self._views.pop(self._ids[row], None)
        index = self.index(row, 0)
        self.dataChanged.emit(index, index)
        return True

    def _live_at(self, row: int) -> LiveRow | None:
        offset = row - len(self._ids)
        return self._live[offset] if 0 <= offset < len(self._live) else None

    def _load_around(self, row: int) -> None:
        window = self._ids[max(0, row - _FETCH_BEHIND) : row + _FETCH_AHEAD]
        wanted = [i for i in window if i not in self._cache and i not in self._missing]
        found = self._controller.messages_by_id(wanted)
        self._cache.update(found)
        self._missing.update(i for i in wanted if i not in found)

    # -- Qt model API -----------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._ids) + len(self._live)

    def canFetchMore(self, parent: ModelIndex) -> bool:
        return not parent.isValid() and self._key is not None and self._has_older and self._fetch_gate()

    def fetchMore(self, parent: ModelIndex) -> None:
        if not parent.isValid():
            self.fetch_older()

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.column() != 0 or not 0 <= index.row() < self.rowCount():
            return None
        row = index.row()
        if role == ROW_ROLE:
            return self.row_view(row)
        if row >= len(self._ids):
            return self._live_data(row, role)
        if role == MESSAGE_ID_ROLE:
            return self._ids[row]
        if role == CHIP_ROLE:
            return self._chips.get(self._ids[row]) if self._chips_key == self._key else None
        if role == LIVE_ROLE:
            return None
        if role == EXPANDED_ROLE:
            return self.is_expanded(row)
        if role == CACHE_KEY_ROLE:
            return (self._ids[row], self.is_expanded(row))
        message = self.message_at(row)
        if message is None:
            if role == Qt.ItemDataRole.DisplayRole:
                return QCoreApplication.translate("MessageListModel", MISSING_MESSAGE_TEXT)
            if role == FORMAT_ROLE:
                return "plain"
            return None
        view = self._stored_view(row)  # the rendering the delegate paints, built once per message
        if role == Qt.ItemDataRole.DisplayRole:
            return view.text
        if role == FORMAT_ROLE:
            return view.body_format
        if role == CARD_ROLE:
            return view.card
        if role == CONTENT_ROLE:
            return message.content
        if role == HEADER_ROLE:
            return view.header
        if role == STATE_ROLE:
            return view.state
        if role == ROLE_ROLE:
            return view.role
        if role == SOURCE_ROLE:
            return message.source.value
        if role == HIDDEN_ROLE:
            return message.quarantined
        if role == Qt.ItemDataRole.ToolTipRole:
            stamp = message.created_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
            tips = [message_header(message).split(" · ")[0], self.tr("message {id}").format(id=message.id), stamp]
            if message.quarantined:
                tips.append(self.tr("hidden from the model: it sees only a placeholder naming this message"))
            card = self.card_at(row)
            if card is not None and card.expandable:
                tips.append(self.tr("click to fold or unfold"))
            elif is_thought(message):
                tips.append(self.tr("the agent's reasoning; click to show or hide it"))
            return " · ".join(tips)
        if role == Qt.ItemDataRole.BackgroundRole and message.state is MessageState.ERROR:
            return QColor(theme.current().color("card-error"))
        return None

    def _body_text(self, row: int, message: Message) -> str:
        if message.role is MessageRole.TOOL:
            card = self.card_at(row)
            return card.plain_text(self.is_expanded(row)) if card is not None else ""
        if is_thought(message):
            return display_text(message.content) if self.is_expanded(row) else thought_summary(message.content)
        if is_plan(message):
            return plan_text((message.payload or {}).get("plan"))
        if message.role is MessageRole.ASSISTANT and not message.content and message.payload:
            return tool_calls_line(message.payload.get("tool_calls"))
        text = display_text(message.content)
        if message.role is MessageRole.SYSTEM:
            text = plain_words(text)  # the window's own notices quote refusals that cite spec ids
        # ERR-3: the message says when its stored text had NUL bytes replaced (a tool card says it itself).
        return f"{text}\n\n({plain_words(NUL_REPLACED_NOTE)})" if nul_replaced(message.payload) else text

    def row_view(self, row: int) -> RowView | None:
        """The row as the delegate paints it (``ROW_ROLE``); ``None`` past the last row."""
        if row >= len(self._ids):
            live = self._live_at(row)
            if live is None:
                return None
            card = running_card(live.text) if live.kind == "tool" else None
            tool = card is not None
            header = (
                self.tr("Tool · running")
                if tool
                else (self.tr("Agent · streaming…") if live.text else self.tr("Agent · working…"))
            )
            return RowView(
                cache_key=("live", live.kind, live.revision),
                text=card.plain_text() if card is not None else (live.text or "…"),
                body_format="tool" if tool else "markdown",
                header=header,
                state=MessageState.COMPLETE.value,
                role=MessageRole.TOOL.value if tool else MessageRole.ASSISTANT.value,
                live=live.kind,
                card=card,
            )
        return self._stored_view(row)

    def _stored_view(self, row: int) -> RowView:
        message_id = self._ids[row]
        view = self._views.get(message_id)
        if view is not None:
            return view
        message = self.message_at(row)
        expanded = message_id in self._expanded
        if message is None:
            view = RowView(
                cache_key=(message_id, expanded),
                text=QCoreApplication.translate("MessageListModel", MISSING_MESSAGE_TEXT),
                body_format="plain",
                header="",
                state="",
                role="",
            )
        else:
            view = RowView(
                cache_key=(message_id, expanded),
                text=self._body_text(row, message),
                body_format=_body_format(message),
                header=message_header(message),
                state=message.state.value,
                role=message.role.value,
                card=self.card_at(row),
                expanded=expanded,
            )
        self._views[message_id] = view
        return view

    def _live_data(self, row: int, role: int) -> Any:
        live = self._live_at(row)
        view = self.row_view(row)
        if live is None or view is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return view.text
        if role == CONTENT_ROLE:
            return live.text
        if role == LIVE_ROLE:
            return live.kind
        if role == MESSAGE_ID_ROLE:
            return None
        if role == CACHE_KEY_ROLE:
            return view.cache_key
        if role == FORMAT_ROLE:
            return view.body_format
        if role == CARD_ROLE:
            return view.card
        if role == HEADER_ROLE:
            return view.header
        if role == ROLE_ROLE:
            return view.role
        if role == SOURCE_ROLE:
            return MessageSource.TOOL.value if live.kind == "tool" else MessageSource.AGENT.value
        if role == STATE_ROLE:
            return view.state
        if role == EXPANDED_ROLE:
            return False
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tr("Not stored yet: the turn is still running")
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
                LIVE_ROLE: QByteArray(b"live"),
                FORMAT_ROLE: QByteArray(b"format"),
                CARD_ROLE: QByteArray(b"card"),
                EXPANDED_ROLE: QByteArray(b"expanded"),
                HIDDEN_ROLE: QByteArray(b"hiddenFromModel"),
                CACHE_KEY_ROLE: QByteArray(b"cacheKey"),
            }
        )
        return names


_HeightKey = tuple[Any, int, bool]
"""(row cache key, width, raw)."""
_BodyKey = tuple[Any, bool]
"""(row cache key, raw): a body follows width changes by re-layout, not by rebuilding."""


class MessageDelegate(QStyledItemDelegate):
    """Paints a message as a card: header (who, source, time) over its rendered body.

    The body (``rendering.build_body``) is laid out at the viewport's width:
    Markdown with highlighted code for the agent's answers (plain source when
    ``raw``), plain text for people, notices and answers without Markdown, a
    compact card for tool calls. Heights are cached per row, width and mode;
    bodies in a bounded LRU (re-laid out, not rebuilt, when the width changes),
    so a long history costs memory only for what was recently painted. Error-state
    messages get an amber card so they cannot be mistaken for an answer;
    clicking an expandable tool card folds or unfolds it.
    """

    MARGIN = 6
    PADDING = 8
    GAP = 3
    BODY_CACHE = 256

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self._view = view
        self._raw = False
        self._heights: dict[_HeightKey, int] = {}
        self._bodies: OrderedDict[_BodyKey, Body] = OrderedDict()
        self._live_bodies: dict[str, tuple[_BodyKey, Body]] = {}
        self._streaming: dict[str, StreamingBody] = {}
        self._header_base: QFont | None = None
        self._header_font: tuple[QFont, QFontMetrics] | None = None
        self._card_colour_cache: dict[tuple[theme.Scheme, str, bool], tuple[QColor, QColor]] = {}
        self._editing: QPersistentModelIndex | None = None
        self.live_render_ms = 0.0
        """How long the last transient row took to render and lay out (the window paces flushes by it)."""

    @property
    def raw(self) -> bool:
        return self._raw

    def set_raw(self, raw: bool) -> None:
        if raw != self._raw:
            self._raw = raw
            self.forget_sizes()
            self._bodies.clear()
            self._live_bodies.clear()
            self._streaming.clear()

    def text_width(self) -> int:
        return max(self._view.viewport().width() - 2 * (self.MARGIN + self.PADDING), 80)

    def forget_rendering(self) -> None:
        """The theme changed: every body is rendered again with its colours (issue 18)."""
        self.forget_sizes()
        self._bodies.clear()
        self._live_bodies.clear()
        self._streaming.clear()
        self._card_colour_cache.clear()

    def forget_sizes(self) -> None:
        """The width changed (or the mode): heights are measured again; documents are kept."""
        self._heights.clear()

    def _header(self, font: QFont) -> tuple[QFont, QFontMetrics]:
        """The header font and its metrics, built once per base font (every row needs them)."""
        if self._header_font is None or font != self._header_base:
            header = QFont(font)
            header.setBold(True)
            header.setPointSizeF(max(font.pointSizeF() * 0.85, 6.0))
            self._header_base = QFont(font)
            self._header_font = (header, QFontMetrics(header))
        return self._header_font

    def _card_colours(self, palette: QPalette, view: RowView, selected: bool) -> tuple[QColor, QColor]:
        """The card's fill and border, made opaque over the list's background (opaque fills are faster)."""
        if view.state == MessageState.ERROR.value and view.role != MessageRole.TOOL.value:
            kind = "error"
        elif view.role == MessageRole.USER.value:
            kind = "user"
        else:
            kind = "other"
        colours = theme.current()
        key = (colours.scheme, kind, selected)
        cached = self._card_colour_cache.get(key)
        if cached is None:
            fill = colours.color(f"card-{kind}")
            border = colours.color("accent" if selected else f"card-{kind}-border")
            cached = (fill, border)
            if len(self._card_colour_cache) > 64:  # palettes change rarely; never let this grow
                self._card_colour_cache.clear()
            self._card_colour_cache[key] = cached
        return cached

    def shortest_row_height(self, font: QFont) -> int:
        """A row with a one-line body: no row is shorter."""
        header_height = self._header(font)[1].height()
        return 2 * (self.MARGIN + self.PADDING) + header_height + self.GAP + QFontMetrics(font).lineSpacing() + 1

    @staticmethod
    def _row(index: ModelIndex) -> RowView:
        view = index.data(ROW_ROLE)
        if isinstance(view, RowView):
            return view
        text = str(index.data() or "")  # not our model: its display text, cached by that text
        return RowView(cache_key=("text", text), text=text, body_format="plain", header="", state="", role="")

    def body_for(self, index: ModelIndex, font: QFont | None = None) -> Body | StreamingBody:
        """The rendered body of a row at the current width (cached)."""
        return self._body(self._row(index), font if font is not None else self._view.font())

    def _body(self, view: RowView, font: QFont) -> Body | StreamingBody:
        width = self.text_width()
        if view.live is not None and view.body_format == "markdown":
            return self._streaming_body(view.live, view.text, font, width)
        key: _BodyKey = (view.cache_key, self._raw)
        cached: Body | None = None
        if view.live is not None:
            slot = self._live_bodies.get(view.live)
            if slot is not None and slot[0] == key:
                cached = slot[1]
        else:
            cached = self._bodies.get(key)
            if cached is not None:
                self._bodies.move_to_end(key)
        if cached is not None:
            cached.set_width(width)
            return cached
        body = build_body(
            view.text, view.body_format, font, width, raw=self._raw, card=view.card, expanded=view.expanded
        )
        if view.live is not None:
            self._live_bodies[view.live] = (key, body)
        else:
            self._bodies[key] = body
            while len(self._bodies) > self.BODY_CACHE:
                self._bodies.popitem(last=False)
        return body

    def _streaming_body(self, live: str, text: str, font: QFont, width: int) -> StreamingBody:
        """The streaming answer's body: kept across flushes, so only its unsettled tail is rendered again."""
        body = self._streaming.get(live)
        if body is None or not body.matches(font, self._raw):
            body = StreamingBody(font, width, raw=self._raw)
            self._streaming[live] = body
        body.set_width(width)
        body.update(text)
        return body

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:
        width = self.text_width()
        view = self._row(index)
        key: _HeightKey = (view.cache_key, width, self._raw)
        live = view.live is not None
        height = None if live else self._heights.get(key)
        if height is None:
            started = time.perf_counter()
            header_height = self._header(option.font)[1].height()
            body_height = self._body(view, option.font).height()
            height = int(2 * (self.MARGIN + self.PADDING) + header_height + self.GAP + body_height) + 1
            if live:
                self.live_render_ms = (time.perf_counter() - started) * 1000
            else:
                self._heights[key] = height
        return QSize(width + 2 * (self.MARGIN + self.PADDING), height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        view = self._row(index)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        card = QRectF(option.rect).adjusted(self.MARGIN, self.MARGIN / 2, -self.MARGIN, -self.MARGIN / 2)
        palette = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        fill, border = self._card_colours(palette, view, selected)
        if view.live is not None or view.state == MessageState.INTERRUPTED.value:
            painter.setPen(QPen(border, 1.0, Qt.PenStyle.DashLine))
            painter.setBrush(fill)
            painter.drawRoundedRect(card, _CARD_RADIUS, _CARD_RADIUS)
        else:
            # Two opaque path fills draw the same card as a stroked, translucent drawRoundedRect
            # at a fifth of the cost (issue 7: it was a third of every row's paint).
            outer = QPainterPath()
            outer.addRoundedRect(card, _CARD_RADIUS, _CARD_RADIUS)
            painter.fillPath(outer, border)
            inner = QPainterPath()
            inner.addRoundedRect(card.adjusted(1, 1, -1, -1), _CARD_RADIUS - 1, _CARD_RADIUS - 1)
            painter.fillPath(inner, fill)
        if view.card is not None and view.live is None:
            accent = QRectF(card.left(), card.top() + 4, 3, card.height() - 8)
            painter.fillRect(accent, theme.current().color("tool-ok-accent" if view.card.ok else "tool-error-accent"))

        text_colour = palette.color(QPalette.ColorRole.Text)
        body_palette = palette
        if view.body_format == "thought":
            text_colour = theme.current().color("muted-text")  # reasoning is dimmed: the answer is what counts
            body_palette = QPalette(palette)
            body_palette.setColor(QPalette.ColorRole.Text, text_colour)
        header_font, header_metrics = self._header(option.font)
        header_height = header_metrics.height()
        left = card.left() + self.PADDING
        top = card.top() + self.PADDING
        width = self.text_width()
        painter.setFont(header_font)
        painter.setPen(text_colour)
        draw_text_line(painter, header_metrics, view.header, left, top, width, header_height)
        chip = index.data(CHIP_ROLE) if view.live is None else None
        if chip:
            chip_box = self.chip_rect(option.rect, str(chip), option.font)
            self._paint_chip(painter, chip_box, str(chip), palette, header_metrics)
        if self._editing is not None and self._editing.row() == index.row() and self._editing.isValid():
            painter.restore()  # the selectable text view over this row paints the body
            return
        body = self._body(view, option.font)
        body_top = top + header_height + self.GAP
        # A long answer is taller than the view: draw only the part of the body that shows.
        shown = QRectF(option.rect).intersected(QRectF(self._view.viewport().rect()))
        clip = QRectF(left, body_top, width, card.bottom() - body_top).intersected(shown)
        clip.translate(-left, -body_top)
        painter.translate(QPointF(left, body_top))
        painter.setClipRect(clip)
        body.draw(painter, clip, body_palette)
        painter.restore()

    def chip_rect(self, rect: QRect, text: str, font: QFont) -> QRectF:
        """Where a row's "n files changed" chip is: at the right end of its header line (issue 16)."""
        metrics = self._header(font)[1]
        card = QRectF(rect).adjusted(self.MARGIN, self.MARGIN / 2, -self.MARGIN, -self.MARGIN / 2)
        width = metrics.horizontalAdvance(text) + 14
        top = card.top() + self.PADDING - 2
        return QRectF(card.right() - self.PADDING - width, top, width, metrics.height() + 4)

    @staticmethod
    def _paint_chip(painter: QPainter, chip: QRectF, text: str, palette: QPalette, metrics: QFontMetrics) -> None:
        """The chip in the header's font (the painter's font here)."""
        colour = palette.color(QPalette.ColorRole.Link)
        fill = QColor(colour)
        fill.setAlpha(36)
        painter.setPen(QPen(colour, 1.0))
        painter.setBrush(fill)
        painter.drawRoundedRect(chip, chip.height() / 2, chip.height() / 2)
        painter.setPen(colour)
        draw_text_line(painter, metrics, text, chip.left() + 7, chip.top() + 2, chip.width() - 14, metrics.height())

    # -- selectable text (issue 18): a MessageTextView over the row under the mouse -------------

    def selectable(self, index: ModelIndex) -> bool:
        """Whether the row's body opens as selectable text (messages, answers, plans; not cards or live rows)."""
        view = self._row(index)
        return view.live is None and view.card is None and view.body_format in ("markdown", "plain", "plan")

    def body_rect(self, rect: QRect, font: QFont) -> QRectF:
        """Where a row's body is painted inside the row's ``rect``."""
        card = QRectF(rect).adjusted(self.MARGIN, self.MARGIN / 2, -self.MARGIN, -self.MARGIN / 2)
        top = card.top() + self.PADDING + self._header(font)[1].height() + self.GAP
        return QRectF(card.left() + self.PADDING, top, self.text_width(), max(card.bottom() - top, 1.0))

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: ModelIndex) -> QWidget:
        view = self._row(index)
        body = self._body(view, option.font)
        if isinstance(body, DocumentBody):
            document = body.document.clone()
            document.setProperty(markdown_style.DECORATED, body.document.property(markdown_style.DECORATED))
            if view.body_format == "markdown" and not self._raw:
                CodeHighlighter(document).rehighlight()  # highlighting lives in the layout, not the content
        else:
            document = text_document(body.plain_text(), option.font)
        editor = MessageTextView(document, str(index.data(CONTENT_ROLE) or view.text), parent)
        editor.setFont(option.font)
        self._editing = QPersistentModelIndex(index)
        return editor

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        rect = self.body_rect(option.rect, option.font)
        editor.setGeometry(rect.toAlignedRect())
        if isinstance(editor, MessageTextView):
            editor.document().setTextWidth(rect.width())

    def destroyEditor(self, editor: QWidget, index: ModelIndex) -> None:
        if self._editing is not None and (not self._editing.isValid() or self._editing == index):
            self._editing = None
        super().destroyEditor(editor, index)

    def setEditorData(self, editor: QWidget, index: ModelIndex) -> None:
        """Read-only: the editor shows the document it was made with."""

    def setModelData(self, editor: QWidget, model: Any, index: ModelIndex) -> None:
        """Read-only: nothing goes back to the model."""

    def editorEvent(self, event: QEvent, model: Any, option: QStyleOptionViewItem, index: ModelIndex) -> bool:
        chip = index.data(CHIP_ROLE) if index.isValid() else None
        if (
            chip
            and event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and self.chip_rect(option.rect, str(chip), option.font).contains(event.position())
            and isinstance(self._view, MessageListView)
        ):
            self._view.changes_chip_clicked.emit(int(index.data(MESSAGE_ID_ROLE)))
            return True
        if event.type() == QEvent.Type.MouseButtonRelease and isinstance(event, QMouseEvent) and index.isValid():
            body = self._body(self._row(index), option.font)
            if isinstance(body, DocumentBody) and body.document.property(markdown_style.DECORATED):
                origin = self.body_rect(option.rect, option.font).topLeft()
                hit = markdown_style.decoration_at(body.decorations(), event.position() - origin)
                if hit is not None:  # a code block's "Copy" chip
                    QApplication.clipboard().setText(hit.code)
                    return True
        if (
            event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(model, MessageListModel)
            and index.isValid()
            and index.data(LIVE_ROLE) is None
        ):
            model.toggle_expanded(index.row())
        return super().editorEvent(event, model, option, index)


class MessageListView(QListView):
    """The conversation list. It follows the newest message unless the reader scrolled up.

    Signals: QListView's own, and ``changes_chip_clicked(int)``: the message id whose "n files
    changed" chip was clicked (issue 16). ``is_reading_oldest`` is the model's fetch
    gate: older history is paged in only when the reader is at the top.
    """

    changes_chip_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._follow_newest = True  # first: Qt calls updateGeometries from the setters below
        self.setObjectName("messageList")
        self.message_delegate = MessageDelegate(self)
        self.setItemDelegate(self.message_delegate)
        self.setWordWrap(True)
        self.setUniformItemSizes(False)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # Issue 18: the text row under the mouse opens as selectable text (MessageTextView).
        self.setMouseTracking(True)
        self._text_row: QPersistentModelIndex | None = None
        # "Hide from the model" and its undo; the window builds the menu.
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
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

    def rows_to_fill(self) -> int:
        """How many of the newest messages fill the view's height, were each as short as a row can be.

        Opening a line reads and measures only these (issue 7: each measured row costs
        switching time); a taller window later pages in more, as scrolling up does.
        """
        shortest = self.message_delegate.shortest_row_height(self.font())
        return max(MIN_FIRST_PAGE, min(PAGE_SIZE, -(-self.viewport().height() // shortest) + 1))

    def set_raw(self, raw: bool) -> None:
        """Markdown or the plain source for the agent's answers; re-measures every row."""
        self.message_delegate.set_raw(raw)
        self.scheduleDelayedItemsLayout()
        self.viewport().update()

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

    def dataChanged(self, top_left: ModelIndex, bottom_right: ModelIndex, roles: Sequence[int] = ()) -> None:
        super().dataChanged(top_left, bottom_right, roles)
        # A streamed row grew or a card was unfolded: its height changed.
        self.scheduleDelayedItemsLayout()

    def updateGeometries(self) -> None:
        super().updateGeometries()
        if self._follow_newest:
            bar = self.verticalScrollBar()
            bar.setValue(bar.maximum())

    def resizeEvent(self, event: Any) -> None:
        self.message_delegate.forget_sizes()
        super().resizeEvent(event)

    def text_view(self) -> MessageTextView | None:
        """The selectable text view open over a row, if any."""
        if self._text_row is None or not self._text_row.isValid():
            return None
        editor = self.indexWidget(QModelIndex(self._text_row))
        return editor if isinstance(editor, MessageTextView) else None

    def open_text_view(self, index: ModelIndex) -> MessageTextView | None:
        """Open the row's body as selectable text (closing the one open elsewhere); None for a card row."""
        if self._text_row is not None and self._text_row.isValid() and self._text_row == index:
            return self.text_view()
        self.close_text_view()
        if not index.isValid() or not self.message_delegate.selectable(index):
            return None
        self._text_row = QPersistentModelIndex(index)
        self.openPersistentEditor(QModelIndex(self._text_row))
        return self.text_view()

    def close_text_view(self) -> None:
        row, self._text_row = self._text_row, None
        if row is not None and row.isValid():
            self.closePersistentEditor(QModelIndex(row))
            self.viewport().update()

    def mouseMoveEvent(self, event: Any) -> None:
        focused = self.window().focusWidget()
        if event.buttons() == Qt.MouseButton.NoButton:
            self.open_text_view(self.indexAt(event.position().toPoint()))
        super().mouseMoveEvent(event)
        editor = self.text_view()
        if editor is not None and focused is not editor and self.window().focusWidget() is editor:
            # Hovering never takes the focus (the composer keeps it); a click in the text does.
            if focused is not None:
                focused.setFocus(Qt.FocusReason.OtherFocusReason)
            else:
                editor.clearFocus()

    def reset(self) -> None:
        self._text_row = None  # Qt drops every editor on reset
        super().reset()

    def keyPressEvent(self, event: Any) -> None:
        current = self.currentIndex()
        if event.key() == Qt.Key.Key_F2 and current.isValid():
            editor = self.open_text_view(current)  # select inside the message with the keyboard
            if editor is not None:
                editor.setFocus(Qt.FocusReason.ShortcutFocusReason)
                event.accept()
                return
        if event.matches(QKeySequence.StandardKey.Copy) and current.isValid():
            QApplication.clipboard().setText(str(current.data(CONTENT_ROLE) or ""))
            event.accept()
            return
        model = self.model()
        if (
            event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
            and current.isValid()
            and isinstance(model, MessageListModel)
            and model.toggle_expanded(current.row())
        ):
            event.accept()
            return
        super().keyPressEvent(event)


def line_status_text(view: LineView) -> tuple[str, str]:
    """What ``lineStatusLabel`` says about a line, and how loudly (ISO-4)."""
    explanation = plain_words(view.explanation)
    if view.needs_sign_in:  # issue 15: waiting for the person, not running
        return QCoreApplication.translate("MessagePane", "Waiting for you — {explanation}.").format(
            explanation=explanation
        ), "error"
    if view.status is ThreadStatus.RUNNABLE:
        return QCoreApplication.translate("MessagePane", "Runnable — ready."), "ok"
    if view.status is ThreadStatus.RUNNING:
        text = QCoreApplication.translate("MessagePane", "Running — {explanation}. Stop (Esc) interrupts it.")
        return text.format(explanation=explanation), "busy"
    return QCoreApplication.translate("MessagePane", "Not runnable — {explanation}").format(
        explanation=explanation
    ), "blocked"


class MessagePane(QWidget):
    """Centre pane: header with the raw toggle; the conversation; approvals; composer, pickers, Stop and Send.

    A view only: the window connects to its child widgets.

    Signals:
        provider_settings_requested(): the person followed the "set up a provider" link.
    """

    provider_settings_requested = Signal()

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
        self.session_key_label.setToolTip(self.tr("This line's session key"))
        # An explicit minimum keeps the window's minimum size the same whatever the line's title or
        # key: otherwise each switch changes it, and the whole window is laid out and painted again.
        self.title_label.setMinimumWidth(HEADER_LABEL_MIN_WIDTH)
        self.session_key_label.setMinimumWidth(HEADER_LABEL_MIN_WIDTH)
        # Issue 16: a worktree line's branch, beside its title.
        self.branch_label = QLabel()
        self.branch_label.setObjectName("lineBranchLabel")
        self.branch_label.setTextFormat(Qt.TextFormat.PlainText)
        self.branch_label.setVisible(False)
        self.raw_toggle = QToolButton()
        self.raw_toggle.setObjectName("rawToggle")
        self.raw_toggle.setText(self.tr("Raw"))
        self.raw_toggle.setCheckable(True)
        self.raw_toggle.setToolTip(self.tr("Show the agent's answers as plain Markdown source instead of rendered"))
        self.status_label = QLabel()
        self.status_label.setObjectName("lineStatusLabel")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.message_list = MessageListView()
        self.message_list.setModel(model)
        self.empty_label = QLabel(QCoreApplication.translate("MessagePane", EMPTY_CONVERSATION_TEXT))
        self.empty_label.setObjectName("messageEmptyLabel")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.setObjectName("messageStack")
        self.stack.addWidget(self.message_list)
        self.empty_state = EmptyConversation(self.empty_label)  # issue 18: first-run buttons under the text
        self.stack.addWidget(self.empty_state)
        self._provider_missing = False
        self._shown_view: LineView | None = None

        self.provider_banner = QLabel(QCoreApplication.translate("MessagePane", NO_PROVIDER_BANNER))
        self.provider_banner.setObjectName("noProviderBanner")
        self.provider_banner.setTextFormat(Qt.TextFormat.RichText)
        self.provider_banner.setWordWrap(True)
        self.provider_banner.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.provider_banner.linkActivated.connect(self._on_banner_link)
        self.provider_banner.hide()

        self.approval_area = ApprovalArea()

        self.composer = QPlainTextEdit()
        self.composer.setObjectName("composer")
        self.composer.setPlaceholderText(QCoreApplication.translate("MessagePane", COMPOSER_PLACEHOLDER))
        self.composer.setTabChangesFocus(True)
        self.composer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.composer.setFixedHeight(QFontMetrics(self.composer.font()).lineSpacing() * 5 + 12)

        self.mode_picker = ModePicker()
        self.permission_picker = QComboBox()
        self.permission_picker.setObjectName("permissionPicker")
        for level, label, tip in PERMISSION_CHOICES:
            self.permission_picker.addItem(QCoreApplication.translate("MessagePane", label), level.value)
            self.permission_picker.setItemData(
                self.permission_picker.count() - 1,
                QCoreApplication.translate("MessagePane", tip),
                Qt.ItemDataRole.ToolTipRole,
            )
        self.permission_picker.setToolTip(self.tr("What the agent may do on this line without asking"))
        # SBX-1: beside the permission level, whether the line's sandboxed commands reach the network.
        self.network_toggle = QToolButton()
        self.network_toggle.setObjectName("networkToggle")
        self.network_toggle.setCheckable(True)
        self.show_network(NetworkAccess.OFF)
        self.provider_picker = QComboBox()
        self.provider_picker.setObjectName("providerPicker")
        self.provider_picker.setToolTip(self.tr("The provider for the next turn; Default uses the default provider"))
        self.set_providers([])

        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setToolTip(self.tr("Stop this line's running turn (Esc); what streamed so far is kept"))
        self.stop_button.setEnabled(False)
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setObjectName("sendButton")
        self.send_button.setToolTip(self.tr("Send to this task line (Enter, or Ctrl+Enter)"))
        self.send_button.setEnabled(False)

        for picker in (self.mode_picker, self.permission_picker, self.provider_picker):
            # They may shrink with the pane: the full text is in the popup and the tooltip.
            picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            picker.setMinimumContentsLength(4)
            picker.setMinimumWidth(PICKER_MIN_WIDTH)  # three pickers must not widen the narrowest window

        # Issue 15: the ACP agent's modes, models, config options and slash commands; the usage meter.
        self.usage_meter = UsageMeter()
        self.agent_bar = AgentSessionBar()
        self.slash_completer = SlashCompleter(self.composer)
        header_row = QHBoxLayout()
        header_row.addWidget(self.title_label, 1)
        header_row.addWidget(self.branch_label)
        header_row.addWidget(self.usage_meter)  # issue 15, item 6
        header_row.addWidget(self.raw_toggle)
        header_row.addWidget(self.session_key_label)
        button_column = QVBoxLayout()
        button_column.addStretch(1)
        button_column.addWidget(self.stop_button)
        button_column.addWidget(self.send_button)
        composer_row = QHBoxLayout()
        composer_row.addWidget(self.composer, 1)
        composer_row.addLayout(button_column)
        picker_row = QHBoxLayout()
        for name, picker in (
            (self.tr("Execution mode"), self.mode_picker),
            (self.tr("Permission"), self.permission_picker),
            (self.tr("Provider"), self.provider_picker),
        ):
            picker.setAccessibleName(name)  # no label beside them: the items say what they are
            picker_row.addWidget(picker, 1)
            if picker is self.permission_picker:
                picker_row.addWidget(self.network_toggle)
        picker_row.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(header_row)
        layout.addWidget(self.status_label)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.provider_banner)
        layout.addWidget(self.approval_area)
        layout.addLayout(composer_row)
        layout.addLayout(picker_row)
        layout.addWidget(self.agent_bar)

        self.raw_toggle.toggled.connect(self.message_list.set_raw)

    # -- showing ------------------------------------------------------------

    def show_line(self, view: LineView) -> None:
        self._shown_view = view
        self.title_label.setText(line_title(view.thread.thread_id, view.thread.title))
        self.session_key_label.setText(view.key)
        binding = view.thread.workspace_binding
        self.branch_label.setVisible(binding.branch is not None)
        self.branch_label.setText(f"⎇ {binding.branch}" if binding.branch else "")
        self.branch_label.setToolTip(
            self.tr("git worktree of {repo}, on branch {branch}").format(repo=binding.repo, branch=binding.branch)
            if binding.branch
            else ""
        )
        text, severity = status_without_provider(*line_status_text(view), self._provider_missing)
        self.show_status(text, severity)
        self.show_permission(view.thread.context_state.permission_level)
        self.show_network(view.thread.context_state.network)
        self.mode_picker.show_line(view)
        self.mode_picker.setEnabled(view.status is not ThreadStatus.RUNNING)  # one way of running per turn
        self.stop_button.setEnabled(view.status is ThreadStatus.RUNNING)

    def show_status(self, text: str, severity: str) -> None:
        self.status_label.setText(plain_words(text))
        if self.status_label.property("severity") != severity:
            self.status_label.setProperty("severity", severity)
            # A dynamic property only restyles after a re-polish.
            self.status_label.style().unpolish(self.status_label)
            self.status_label.style().polish(self.status_label)

    def show_empty_state(self, rows: int) -> None:
        self.stack.setCurrentWidget(self.message_list if rows else self.empty_state)

    def show_provider_banner(self, missing: bool) -> None:
        self.provider_banner.setVisible(missing)
        self.empty_state.show_provider_missing(missing)
        if missing != self._provider_missing:
            self._provider_missing = missing
            if self._shown_view is not None:  # the status agrees with the banner (issue 18)
                self.show_status(*status_without_provider(*line_status_text(self._shown_view), missing))

    def show_sign_in(self, card: QWidget) -> None:
        """Put a sign-in card above the approvals (issue 15); the window removes it when settled."""
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(self.approval_area), card)

    def show_approvals(self, approvals: Sequence[ApprovalRequested]) -> None:
        self.approval_area.show_approvals(approvals)

    # -- pickers --------------------------------------------------------------

    def show_permission(self, level: PermissionLevel) -> None:
        index = self.permission_picker.findData(level.value)
        if index >= 0 and index != self.permission_picker.currentIndex():
            blocked = self.permission_picker.blockSignals(True)
            self.permission_picker.setCurrentIndex(index)
            self.permission_picker.blockSignals(blocked)

    def show_network(self, network: NetworkAccess) -> None:
        on = network is NetworkAccess.ON
        blocked = self.network_toggle.blockSignals(True)
        self.network_toggle.setChecked(on)
        self.network_toggle.blockSignals(blocked)
        self.network_toggle.setText(self.tr("Network on") if on else self.tr("Network off"))
        self.network_toggle.setAccessibleName(self.tr("Network for commands"))
        self.network_toggle.setToolTip(
            self.tr("Commands on this line can reach the network (click to turn it off)")
            if on
            else self.tr("Commands on this line run without network, in their sandbox (click to allow it)")
        )

    def chosen_permission(self) -> PermissionLevel:
        return PermissionLevel(self.permission_picker.currentData())

    def set_providers(self, providers: Sequence[ProviderRecord], default_label: str = DEFAULT_PROVIDER_LABEL) -> None:
        """Fill the provider picker: "Default" and every OpenAI-compatible provider, keeping the choice."""
        chosen = self.chosen_provider()
        blocked = self.provider_picker.blockSignals(True)
        self.provider_picker.clear()
        self.provider_picker.addItem(QCoreApplication.translate("MessagePane", default_label), None)
        for record in providers:
            if record.kind is not ProviderKind.OPENAI:
                continue
            label = f"{record.name} · {record.model}" if record.model else record.name
            self.provider_picker.addItem(label, record.name)
            tags = self.tr("tags: {tags}").format(tags=", ".join(record.tags)) if record.tags else ""
            tip = " · ".join(part for part in (record.base_url or "", tags) if part)
            self.provider_picker.setItemData(self.provider_picker.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.provider_picker.blockSignals(blocked)
        self.choose_provider(chosen)

    def chosen_provider(self) -> str | None:
        data = self.provider_picker.currentData()
        return str(data) if data else None

    def choose_provider(self, name: str | None) -> None:
        index = self.provider_picker.findData(name) if name else 0
        blocked = self.provider_picker.blockSignals(True)
        self.provider_picker.setCurrentIndex(max(index, 0))
        self.provider_picker.blockSignals(blocked)

    def provider_names(self) -> list[str]:
        return [str(self.provider_picker.itemData(i)) for i in range(1, self.provider_picker.count())]

    def _on_banner_link(self, _link: str) -> None:
        self.provider_settings_requested.emit()
