"""The conversation list's model: one line's messages, read on demand (SPEC §6, ISO-4, ISO-5).

``MessageListModel`` holds only the message ids of the current line, newest
page first; rows are read from the controller the first time something asks
for them, a block at a time, and older history is paged in with
``fetchMore`` when the reader scrolls to the top (STYLE lesson 3). Below the
stored rows sit at most two transient rows of a running turn (the text
streaming in, the tool being run), replaced by the stored messages as the
controller stores them.

The model never reads the store on the GUI thread (LOOP-4, issue 33 item 2): what it has not been handed
(a first page with ``set_key``, messages with ``remember`` or ``refresh_messages``) is read by its
reader (``set_older_reader``: the window's store worker; else ``run_off_thread``), and a row whose
message is on its way paints as a placeholder until it comes.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QByteArray,
    QCoreApplication,
    QModelIndex,
    QObject,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.presentation.messages import is_plan, is_thought, message_header, message_text, whole_answer
from xworkmate.ui import theme
from xworkmate.ui.agent.live_runs import LiveRow
from xworkmate.ui.background import run_off_thread
from xworkmate.ui.conversation.rows import (
    CACHE_KEY_ROLE,
    CARD_ROLE,
    CHIP_ROLE,
    CONTENT_ROLE,
    EXPANDED_ROLE,
    FORMAT_ROLE,
    HEADER_ROLE,
    HIDDEN_ROLE,
    LIVE_ROLE,
    MESSAGE_ID_ROLE,
    ROLE_ROLE,
    ROW_ROLE,
    SEARCH_HIT_ROLE,
    SOURCE_ROLE,
    STATE_ROLE,
    ModelIndex,
    RowView,
)
from xworkmate.ui.marks import QT_TRANSLATE_NOOP
from xworkmate.ui.rendering import (
    BodyFormat,
    ToolCard,
    running_card,
    tool_card,
)

log = logging.getLogger(__name__)

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
# Issue 34 item 2: at most this many rows' messages stay read (a line of a gigabyte is scrolled through
# without holding it); the rows farthest from the one asked for are dropped and read again when painted.
CACHE_CAP = 1000
KEPT_LINES = 64
"""Issue 34 item 1: the lines whose newest rows, as built for painting, a switch back finds again (as the
window's ``ShownLine.seen`` keeps the last read of 64 lines); a row is reused only for the very message it was
built from."""
# The texts below are English; the window shows them through QCoreApplication.translate(context, text).
MISSING_MESSAGE_TEXT = QT_TRANSLATE_NOOP("MessageListModel", "(this message is no longer available)")
PENDING_MESSAGE_TEXT = "…"
"""What a row whose message is being read (on the store worker) paints until it comes (LOOP-4)."""


def _row_view(message: Message, card: ToolCard | None, line: str | None, *, expanded: bool) -> RowView:
    """A stored message's row as the delegate paints it (``card``: its tool card, if a tool's)."""
    text = message_text(message, card=card if message.role is MessageRole.TOOL else None, expanded=expanded)
    return RowView(
        cache_key=(message.id, expanded),
        text=text,
        body_format=_body_format(message),
        header=message_header(message),
        state=message.state.value,
        role=message.role.value,
        card=card,
        line=line,
        expanded=expanded,
        whole=whole_answer(message, text),
    )


def _card_of(message: Message) -> ToolCard | None:
    """A tool's message as its card; ``None`` for any other message."""
    if message.role is not MessageRole.TOOL:
        return None
    return tool_card(message.payload, message.content, failed=message.state is MessageState.ERROR)


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


@dataclass
class OlderPage:
    """Older history of a line: the ids before ``before`` (oldest first), and their messages when they were
    read with them; ``has_older``: whether older ids than these remain (the last page read was full)."""

    key: str
    before: int | None
    ids: list[int] = field(default_factory=list)
    messages: dict[int, Message] = field(default_factory=dict)
    has_older: bool = False


class _OlderRead:
    """The read of one older page, run wherever the model's reader runs it (a store worker); ``whole``:
    its messages too (the view lays every row out at once), else only the ids (rows read on demand).
    ``until``: page after page until that message's page is read (or the line has no such message)."""

    def __init__(
        self, controller: SessionController, page: OlderPage, limit: int, *, whole: bool, until: int | None = None
    ) -> None:
        self._controller = controller
        self.page = page
        self._limit = limit
        self._whole = whole
        self._until = until

    def __call__(self) -> OlderPage:
        page = self.page
        before = page.before
        while True:
            ids = self._controller.lines.message_ids(page.key, before_id=before, limit=self._limit)
            page.ids[:0] = ids
            if self._whole:
                page.messages.update(self._controller.lines.messages_by_id(ids))
            page.has_older = len(ids) >= self._limit
            # Ids grow with time: a page that starts below the message and lacks it means the line has none.
            if self._until is None or not page.has_older or ids[0] <= self._until:
                return page
            before = ids[0]


StoreReader = Callable[[Callable[[], Any], Callable[[Any], None]], None]
"""``reader(read, done)``: runs ``read()`` off the GUI thread (the window's store worker) and calls ``done`` with
its answer on the GUI thread, or with None when the read failed (the reader says why)."""
OlderReader = StoreReader


class MessageListModel(QAbstractListModel):
    """The current line's messages: ids in memory, rows on demand, older pages on request.

    Signals: the standard model signals, and ``olderPrepended(rows)`` after an
    older page went in at the top. ``set_key`` resets the model (a different
    conversation); new messages are appended and older pages prepended with
    ``beginInsertRows``; the running turn's transient rows (``set_live``)
    follow the stored ones and change with ``dataChanged``.

    Item flags are ``QAbstractListModel``'s own (enabled, selectable, no
    children): a Python ``flags()`` would be called for every row painted.
    """

    olderPrepended = Signal(int)

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
        self._search_hit: tuple[int, str] | None = None
        self._reader: StoreReader = self._read_off_thread
        self._older_pending: OlderPage | None = None
        self._rows_pending: set[int] = set()  # messages being read for rows asked for (``message_at``)
        self._shown_count = 0  # which line showing this is: an answer read for an earlier one is dropped
        self._kept: OrderedDict[str, dict[int, tuple[Message, RowView]]] = OrderedDict()
        self.rows_built = 0
        self.rows_built_ahead = 0  # rows built for a line not shown (``build_ahead``; the tests count them)
        """How many stored rows were built for painting (``RowView``): a switch back to a line whose newest
        messages did not change builds none again (issue 34 item 1; counted for the tests)."""

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
        """Show another line's conversation: its newest ``first_page`` messages, ``newest`` when read already
        (on the store worker with the switch, issue 19: ``controllers/views``), else read by the model's reader
        (off the GUI thread, LOOP-4) and shown when they come; the line is empty until then.

        The view asks for as many as can fill its height (``MessageListView.rows_to_fill``);
        older ones are paged in by id when the reader scrolls to the top.
        """
        first = max(1, min(first_page, self._page_size))
        self.beginResetModel()
        self._keep_rows()
        kept = self._kept.pop(key, {}) if key is not None else {}
        self._key = key
        self._shown_count += 1
        to_read = newest is None and key is not None
        newest = newest or []
        self._ids = [message.id for message in newest]
        self._cache.clear()
        self._cache.update((message.id, message) for message in newest)
        self._cards.clear()
        self._views.clear()
        self._reuse_rows(newest, kept)
        self._missing.clear()
        self._expanded.clear()
        self._live = []
        self._has_older = len(newest) >= first
        self._older_pending = None  # a page on its way for the line shown before is dropped
        self._rows_pending.clear()
        self.endResetModel()
        if to_read and key is not None:
            self._read_first(key, first, kept)

    def _reuse_rows(self, messages: Iterable[Message], kept: Mapping[int, tuple[Message, RowView]]) -> None:
        """Issue 34 item 1: a row built before for this very message is not built again."""
        for message in messages:
            if (row := kept.get(message.id)) is not None and row[0] == message:
                self._views[message.id] = row[1]

    def _read_first(self, key: str, first: int, kept: Mapping[int, tuple[Message, RowView]]) -> None:
        """The newest ``first`` messages of the line shown, read by the reader (LOOP-4): inserted when they come,
        unless another line is shown by then; messages appended meanwhile stay after them."""
        lines = self._controller.lines
        shown = self._shown_count

        def read() -> list[Message]:
            return lines.newest_messages(key, limit=first)

        def arrived(newest: list[Message] | None) -> None:
            if shown != self._shown_count:
                return  # another line was shown since: not this read's to show
            if newest is None:
                return
            top = self._ids[0] if self._ids else None
            page = [message for message in newest if top is None or message.id < top]
            self._has_older = len(newest) >= first
            if not page:
                return
            self.beginInsertRows(QModelIndex(), 0, len(page) - 1)
            self._ids[:0] = [message.id for message in page]
            self._cache.update((message.id, message) for message in page)
            self._reuse_rows(page, kept)
            self.endInsertRows()

        self._reader(read, arrived)

    def _keep_rows(self) -> None:
        """Before another line is shown: keep the shown line's newest built rows (folded ones, as a switch
        shows them) with the message each was built from, for ``KEPT_LINES`` lines."""
        if self._key is None:
            return
        newest = self._ids[-self._page_size :]
        rows: dict[int, tuple[Message, RowView]] = {}
        for i in newest:
            view, message = self._views.get(i), self._cache.get(i)
            if view is not None and message is not None and not view.expanded:
                rows[i] = (message, view)
        self._kept.pop(self._key, None)
        if rows:
            self._kept[self._key] = rows
            while len(self._kept) > KEPT_LINES:
                self._kept.popitem(last=False)

    def build_ahead(self, key: str, messages: Sequence[Message]) -> list[RowView]:
        """Issue 34 item 1: the rows of a line not shown, built from its newest ``messages`` (read ahead of a click)
        as a switch to it builds them, and kept as a line's shown before are: its first switch reuses them (each
        only for the very message it was built from). A row kept for the very message is not built again; the rows
        built are returned. Nothing for the shown line, nor for a new line when ``KEPT_LINES`` are kept (rows the
        person saw are never put out for these: a new one goes behind them all)."""
        kept = self._kept.get(key)
        if key == self._key or (kept is None and len(self._kept) >= KEPT_LINES):
            return []
        rows: dict[int, tuple[Message, RowView]] = dict(kept or {})
        built: list[RowView] = []
        for message in messages[-self._page_size :]:
            row = rows.get(message.id)
            if row is None or row[0] != message:
                row = (message, _row_view(message, _card_of(message), key, expanded=False))
                built.append(row[1])
            rows[message.id] = row
        if rows:
            newest = sorted(rows)[-self._page_size :]  # as ``_keep_rows`` keeps them: the newest page
            self._kept[key] = {i: rows[i] for i in newest}  # a line kept already keeps its place
            if kept is None:
                self._kept.move_to_end(key, last=False)  # the first to go: behind every line the person saw
        self.rows_built_ahead += len(built)
        return built

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

    def cached_message(self, message_id: int) -> Message | None:
        """A loaded message as last read (a row painted is in the cache), without reading."""
        return self._cache.get(message_id)

    def refresh_messages(self, ids: Iterable[int], found: Mapping[int, Message] | None = None) -> None:
        """Stored messages changed (``MessagesChanged``: hidden from the model or shown again): show them as
        ``found`` (read off the GUI thread with the operation that changed them); one not found there is read
        again by the reader when its row is painted (LOOP-4), and says it is gone if it is."""
        rows = {message_id: row for row, message_id in enumerate(self._ids)}
        changed = [i for i in ids if i in rows]
        if not changed:
            return
        found = found or {}
        for message_id in changed:
            self._cache.pop(message_id, None)
            self._views.pop(message_id, None)
            self._cards.pop(message_id, None)
            self._missing.discard(message_id)
        self._cache.update((i, found[i]) for i in changed if i in found)
        for message_id in changed:
            index = self.index(rows[message_id], 0)
            self.dataChanged.emit(index, index)

    def set_older_reader(self, reader: StoreReader | None) -> None:
        """Where the model reads what it was not handed — the first page (``set_key``), older pages (Qt's
        ``fetchMore``, ``request_older``, ``load_until``) and the messages of rows painted before they were read
        — as ``reader(read, done)``: runs ``read()`` off the GUI thread (the window's store worker, issue 19) and
        calls ``done(answer)``, or ``done(None)`` when the read failed. None: ``run_off_thread`` (the loop's
        worker; at once where no qasync loop is set). Never on the GUI thread (LOOP-4)."""
        self._reader = reader if reader is not None else self._read_off_thread

    def _read_off_thread(self, read: Callable[[], Any], done: Callable[[Any], None]) -> None:
        def failed(error: BaseException) -> None:
            log.warning("could not read the conversation's messages: %s", error)
            done(None)

        run_off_thread(read, done, failed, parent=self)

    def request_older(self) -> None:
        """Page the next older messages in; the rows added are announced by ``olderPrepended``."""
        if self._key is None or not self._has_older or self._older_pending:
            return
        read = self._older_read(whole=True)
        asked = self._older_pending = read.page

        def done(page: OlderPage | None) -> None:
            if self._older_pending is not asked:
                return  # another line or page was asked for since: this answer is not for it
            self._older_pending = None
            if page is not None:
                self._prepend(page)

        self._reader(read, done)

    def load_until(self, message_id: int, done: Callable[[bool], None]) -> None:
        """Page older history in until ``message_id`` is loaded — read where the older pages are read (the
        store worker), every page at once — then ``done(found)``. Not called when the read failed (the
        reader says why) or another line was shown meanwhile. A page asked for meanwhile is dropped: this
        read covers it."""
        if message_id in self._ids or self._key is None or not self._has_older:
            done(message_id in self._ids)
            return
        read = self._older_read(whole=True, until=message_id)
        asked = self._older_pending = read.page

        def arrived(page: OlderPage | None) -> None:
            if self._older_pending is not asked:
                return
            self._older_pending = None
            if page is not None:
                self._prepend(page)
                done(message_id in self._ids)

        self._reader(read, arrived)

    def _older_read(self, *, whole: bool, until: int | None = None) -> _OlderRead:
        before = self._ids[0] if self._ids else None
        page = OlderPage(self._key or "", before)
        return _OlderRead(self._controller, page, self._page_size, whole=whole, until=until)

    def _prepend(self, page: OlderPage) -> int:
        if page.key != self._key or page.before != (self._ids[0] if self._ids else None):
            return 0  # read for another line or page than is shown now
        self._has_older = page.has_older
        if not page.ids:
            return 0
        self._cache.update((i, m) for i, m in page.messages.items() if i not in self._cache)
        self.beginInsertRows(QModelIndex(), 0, len(page.ids) - 1)
        self._ids[:0] = page.ids
        self.endInsertRows()
        if len(self._cache) > CACHE_CAP:  # issue 34 item 2: the reader is at the top; the rows farthest below go
            self._forget_far_from(page.ids[-1])
        self.olderPrepended.emit(len(page.ids))
        return len(page.ids)

    def message_at(self, row: int) -> Message | None:
        if row >= len(self._ids):
            return None
        message_id = self._ids[row]
        message = self._cache.get(message_id)
        if message is None and message_id not in self._missing and message_id not in self._rows_pending:
            self._read_around(row)
            message = self._cache.get(message_id)  # come already where the read ran at once (no qasync loop)
        return message

    def is_pending(self, row: int) -> bool:
        """Whether the row's message is being read (its row paints a placeholder until it comes)."""
        return row < len(self._ids) and self._ids[row] in self._rows_pending

    def card_at(self, row: int) -> ToolCard | None:
        if row >= len(self._ids):
            live = self._live_at(row)
            return running_card(live.text) if live is not None and live.kind == "tool" else None
        message = self.message_at(row)
        if message is None:
            return None
        card = self._cards.get(message.id)
        if card is None and (card := _card_of(message)) is not None:
            self._cards[message.id] = card
        return card

    def is_expanded(self, row: int) -> bool:
        return row < len(self._ids) and self._ids[row] in self._expanded

    def mark_search_hit(self, message_id: int, query: str = "") -> None:
        """Mark the message a search hit opened (``SEARCH_HIT_ROLE``: the ``query``, whose matches the
        row paints selected), until ``clear_search_hit``; one message at a time (issue 30, item 5)."""
        previous = self._search_hit
        self._search_hit = (message_id, query)
        self._search_hit_changed({message_id} | ({previous[0]} if previous else set()))

    def clear_search_hit(self, message_id: int | None = None) -> None:
        """Unmark the search hit (only if it is still ``message_id``, when given)."""
        previous = self._search_hit
        if previous is None or (message_id is not None and previous[0] != message_id):
            return
        self._search_hit = None
        self._search_hit_changed({previous[0]})

    def _search_hit_changed(self, ids: set[int]) -> None:
        for row, message_id in enumerate(self._ids):
            if message_id in ids:
                index = self.index(row, 0)
                self.dataChanged.emit(index, index, [SEARCH_HIT_ROLE])

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

    def _read_around(self, row: int) -> None:
        """The messages of the rows around ``row`` not read yet, read by the reader (LOOP-4); their rows are
        repainted when they come (a row not found says so), unless another line is shown by then."""
        window = self._ids[max(0, row - _FETCH_BEHIND) : row + _FETCH_AHEAD]
        wanted = [i for i in window if i not in self._cache and i not in self._missing and i not in self._rows_pending]
        if not wanted:
            return
        self._rows_pending.update(wanted)
        lines = self._controller.lines
        shown = self._shown_count
        inline = [True]  # the reader answered before it returned (no qasync loop): the row asking gets it

        def read() -> dict[int, Message]:
            return lines.messages_by_id(wanted)

        def arrived(found: dict[int, Message] | None) -> None:
            if shown != self._shown_count:
                return  # read for a line no longer shown
            self._rows_pending.difference_update(wanted)
            fresh = {i: m for i, m in (found or {}).items() if i not in self._cache}
            self._cache.update(fresh)
            if found is not None:
                self._missing.update(i for i in wanted if i not in found)
            else:
                self._missing.update(i for i in wanted if i not in self._cache)  # the reader said why
            if not inline[0]:
                self._rows_arrived(wanted)
            if len(self._cache) > CACHE_CAP:
                anchor = self._ids[row] if row < len(self._ids) else (self._ids[-1] if self._ids else 0)
                self._forget_far_from(anchor)

        self._reader(read, arrived)
        inline[0] = False

    def _rows_arrived(self, ids: Sequence[int]) -> None:
        """The rows of ``ids`` (read since they were painted as placeholders) paint their messages now."""
        wanted = set(ids)
        rows = [row for row, message_id in enumerate(self._ids) if message_id in wanted]
        for message_id in wanted:
            self._views.pop(message_id, None)
            self._cards.pop(message_id, None)
        if rows:
            self.dataChanged.emit(self.index(rows[0], 0), self.index(rows[-1], 0))

    def _forget_far_from(self, message_id: int) -> None:
        """Keep the ``CACHE_CAP`` cached messages nearest ``message_id`` (ids grow with rows) and their views."""
        far = sorted(self._cache, key=lambda i: abs(i - message_id))[CACHE_CAP:]
        for i in far:
            self._cache.pop(i, None)
            self._views.pop(i, None)
            self._cards.pop(i, None)

    # -- Qt model API -----------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._ids) + len(self._live)

    def canFetchMore(self, parent: ModelIndex) -> bool:
        return not parent.isValid() and self._key is not None and self._has_older and self._fetch_gate()

    def fetchMore(self, parent: ModelIndex) -> None:
        if not parent.isValid():
            self.request_older()

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
        if role == SEARCH_HIT_ROLE:
            hit = self._search_hit
            return hit[1] if hit is not None and hit[0] == self._ids[row] else None
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
                return self._stored_view(row).text
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
                cache_key=("live", self._key, live.kind, live.revision),
                text=card.plain_text() if card is not None else (live.text or "…"),
                body_format="tool" if tool else "markdown",
                header=header,
                state=MessageState.COMPLETE.value,
                role=MessageRole.TOOL.value if tool else MessageRole.ASSISTANT.value,
                live=live.kind,
                card=card,
                line=self._key,
            )
        return self._stored_view(row)

    def _stored_view(self, row: int) -> RowView:
        message_id = self._ids[row]
        view = self._views.get(message_id)
        if view is not None:
            return view
        message = self.message_at(row)
        expanded = message_id in self._expanded
        if message is None and message_id in self._rows_pending:
            # On its way from the store worker: a placeholder, not kept, measured apart from the row it becomes.
            return RowView(
                cache_key=("pending", message_id),
                text=PENDING_MESSAGE_TEXT,
                body_format="plain",
                header="",
                state="",
                role="",
            )
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
            card = self.card_at(row)
            view = _row_view(message, card, self._key, expanded=expanded)
            self.rows_built += 1
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
