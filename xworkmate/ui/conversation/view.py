"""The conversation list's view and its delegate (SPEC §6).

``MessageDelegate`` paints each row from a body laid out at the viewport
width — Markdown for the agent's answers (``rawToggle`` shows the source),
compact cards for tool calls, a bare text layout for plain text — cached per
row and width.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeySequence, QMouseEvent, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QListView,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from xworkmate.domain.messages import MessageRole, MessageState
from xworkmate.domain.search import match_spans, parse_query
from xworkmate.ui import markdown_style, theme
from xworkmate.ui.conversation.model import MIN_FIRST_PAGE, PAGE_SIZE, MessageListModel
from xworkmate.ui.conversation.network_bar import CardNetworkActions
from xworkmate.ui.conversation.rows import (
    CHIP_ROLE,
    CONTENT_ROLE,
    LIVE_ROLE,
    MESSAGE_ID_ROLE,
    ROW_ROLE,
    SEARCH_HIT_ROLE,
    ModelIndex,
    RowView,
)
from xworkmate.ui.message_text import MessageTextView, text_document
from xworkmate.ui.painting import draw_text_line
from xworkmate.ui.rendering import Body, CodeHighlighter, DocumentBody, StreamingBody, build_body

_CARD_RADIUS = theme.METRICS["radius-medium"]
_BUBBLE_RADIUS = theme.METRICS["radius-large"]
BUBBLE_SHARE = 0.75
"""Issue 30 item 1: the person's message is a bubble at the right, at most this share of the row's width,
sized to its text; the agent's answers are flat and take the whole width."""

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
    STREAMING_KEPT = 8
    PREPARE_CHARS = 1_000  # a long answer rendered ahead of a click: this much of it a call (``prepare``)

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self._view = view
        self._raw = False
        self._heights: dict[_HeightKey, int] = {}
        self._bodies: OrderedDict[_BodyKey, Body | StreamingBody] = OrderedDict()  # a stored answer: what streamed
        self._whole: set[_BodyKey] = set()  # the kept bodies that show an answer the list cuts whole (``_streamed``)
        self._live_bodies: dict[str, tuple[_BodyKey, Body]] = {}
        # Issue 34 item 1: each line's streaming answer keeps its rendered parts (the last STREAMING_KEPT
        # lines'), so a switch back to a line that streams renders only what came since, not its whole answer.
        self._streaming: OrderedDict[tuple[str | None, str], StreamingBody] = OrderedDict()
        self._preparing: dict[_BodyKey, StreamingBody] = {}  # long answers being rendered ahead (``prepare``)
        self._header_base: QFont | None = None
        self._header_font: tuple[QFont, QFontMetrics] | None = None
        self._card_colour_cache: dict[tuple[theme.Scheme, str, bool], tuple[QColor, QColor]] = {}
        self._editing: QPersistentModelIndex | None = None
        self._actions_height: tuple[QFont, int] | None = None
        self._shortest: tuple[QFont, int] | None = None
        self.bodies_built = 0
        self.rows_measured = 0
        """How many stored rows' heights were measured: kept per width, so only a width change measures them
        again (issue 34 item 1; counted for the tests)."""
        """How many stored rows' bodies were rendered (Markdown, cards, text): a row painted before is not
        rendered again while its body is in the cache (issue 34 item 1; counted for the tests)."""
        self.live_render_ms = 0.0
        self.streamed_chars_rendered = 0
        """Characters of streaming answers rendered (settled parts and tails; counted for the tests)."""
        self.chars_rendered_ahead = 0
        """Characters of streaming answers rendered while their lines were not shown (``render_ahead``)."""
        self.rows_prepared = 0  # stored rows rendered and measured ahead of a click (``prepare``)
        """How long the last transient row took to render and lay out (the window paces flushes by it)."""

    @property
    def raw(self) -> bool:
        return self._raw

    def set_raw(self, raw: bool) -> None:
        if raw != self._raw:
            self._raw = raw
            self.forget_sizes()
            self._bodies.clear()
            self._whole.clear()
            self._live_bodies.clear()
            self._streaming.clear()
            self._preparing.clear()

    def text_width(self) -> int:
        """The width a row's body is laid out at (a person's bubble: ``bubble_text_width``)."""
        return max(self._view.viewport().width() - 2 * (self.MARGIN + self.PADDING), 80)

    def bubble_text_width(self) -> int:
        """The widest a person's message is laid out: ``BUBBLE_SHARE`` of the row, less the bubble's padding."""
        card_width = self._view.viewport().width() - 2 * self.MARGIN
        return max(int(card_width * BUBBLE_SHARE) - 2 * self.PADDING, 80)

    def _width_for(self, view: RowView) -> int:
        return self.bubble_text_width() if self._kind(view) == "user" else self.text_width()

    def card_rect(self, rect: QRect, index: ModelIndex, font: QFont) -> QRectF:
        """The row's card inside its ``rect``: the whole width, or a person's bubble at the right, as wide
        as its text (or its header, and the header's chip) needs, at most ``BUBBLE_SHARE`` of it."""
        card = QRectF(rect).adjusted(self.MARGIN, self.MARGIN / 2, -self.MARGIN, -self.MARGIN / 2)
        view = self._row(index)
        if self._kind(view) != "user":
            return card
        metrics = self._header(font)[1]
        needed = max(self._body(view, font).natural_width(), float(metrics.horizontalAdvance(view.header)))
        chip = index.data(CHIP_ROLE) if view.live is None else None
        if chip:
            needed = max(
                needed, metrics.horizontalAdvance(view.header) + 2 * self.PADDING + self._chip_width(str(chip), font)
            )
        width = math.ceil(min(needed, self.bubble_text_width())) + 1 + 2 * self.PADDING
        card.setLeft(max(card.right() - width, card.left()))
        return card

    def forget_rendering(self) -> None:
        """The theme changed: every body is rendered again with its colours (issue 18)."""
        self.forget_sizes()
        self._bodies.clear()
        self._whole.clear()
        self._live_bodies.clear()
        self._streaming.clear()
        self._preparing.clear()
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
        kind = self._kind(view)
        colours = theme.current()
        key = (colours.scheme, kind, selected)
        cached = self._card_colour_cache.get(key)
        if cached is None:
            if kind == "agent":  # issue 30: the agent's answer is flat, on the list's own background
                fill = colours.color("surface")
                border = colours.color("accent" if selected else "surface")
            elif kind == "user":  # the person's message: a soft bubble, no outline
                fill = colours.color("card-user")
                border = colours.color("accent" if selected else "card-user")
            else:
                fill = colours.color(f"card-{kind}")
                border = colours.color("accent" if selected else f"card-{kind}-border")
            cached = (fill, border)
            if len(self._card_colour_cache) > 64:  # palettes change rarely; never let this grow
                self._card_colour_cache.clear()
            self._card_colour_cache[key] = cached
        return cached

    @staticmethod
    def _kind(view: RowView) -> str:
        """How a row is drawn: ``error`` (amber card), ``user`` (bubble), ``agent`` (flat), ``other`` (card)."""
        if view.state == MessageState.ERROR.value and view.role != MessageRole.TOOL.value:
            return "error"
        if view.role == MessageRole.USER.value:
            return "user"
        if view.role == MessageRole.ASSISTANT.value and view.card is None:
            return "agent"
        return "other"

    @staticmethod
    def has_actions(view: RowView) -> bool:
        """SBX-4: a stored tool card with a refused connection has a row of buttons under its body."""
        return view.card is not None and view.live is None and bool(view.card.refused)

    def actions_height(self, font: QFont) -> int:
        """The height of a card's button row (a push button's, in the list's font)."""
        if self._actions_height is None or self._actions_height[0] != font:
            probe = QPushButton("Ag")
            probe.setFont(font)
            self._actions_height = (QFont(font), probe.sizeHint().height())
            probe.deleteLater()
        return self._actions_height[1]

    def actions_rect(self, rect: QRect, font: QFont) -> QRectF:
        """Where a card's button row is: at the bottom of the card, under its body."""
        card = QRectF(rect).adjusted(self.MARGIN, self.MARGIN / 2, -self.MARGIN, -self.MARGIN / 2)
        height = self.actions_height(font)
        return QRectF(card.left() + self.PADDING, card.bottom() - self.PADDING - height, self.text_width(), height)

    def shortest_row_height(self, font: QFont) -> int:
        """A row with a one-line body: no row is shorter (measured once per font: every operation the window
        starts asks ``rows_to_fill``, a switch several times)."""
        if self._shortest is None or self._shortest[0] != font:
            header_height = self._header(font)[1].height()
            line = QFontMetrics(font).lineSpacing()
            self._shortest = (QFont(font), 2 * (self.MARGIN + self.PADDING) + header_height + self.GAP + line + 1)
        return self._shortest[1]

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
        width = self._width_for(view)
        if view.live is not None and view.body_format == "markdown":
            return self._streaming_body((view.line, view.live), view.text, font, width)
        key: _BodyKey = (view.cache_key, self._raw)
        cached: Body | StreamingBody | None = None
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
        if view.live is None and (streamed := self._streamed(view, font, width)) is not None:
            self._keep_body(key, streamed)
            return streamed
        body = build_body(
            view.text, view.body_format, font, width, raw=self._raw, card=view.card, expanded=view.expanded
        )
        if view.live is not None:
            self._live_bodies[view.live] = (key, body)
        else:
            self.bodies_built += 1
            self._keep_body(key, body)
        return body

    def _keep_body(self, key: _BodyKey, body: Body | StreamingBody) -> None:
        """Kept for the row, the last ``BODY_CACHE``; a row whose body showed its whole streamed answer is
        measured again if built anew (then it is the cut text, of another height)."""
        self._bodies[key] = body
        while len(self._bodies) > self.BODY_CACHE:
            gone, _body = self._bodies.popitem(last=False)
            if gone in self._whole:
                self._whole.discard(gone)
                self._forget_heights(gone)

    def _streamed(self, view: RowView, font: QFont, width: int) -> StreamingBody | None:
        """Issue 34 item 1: a stored answer whose line streamed it here takes the streaming body, its settled parts
        already rendered, instead of a document of its own: the end of a long answer's turn (or the first switch
        back after it) renders only what streamed since it was last shown. Only for the very text streamed (the
        stored one may start with it); the body then belongs to the row, the line's next answer streams anew. A body
        with nothing settled yet is left alone: an older answer of the line may well start as a new one does
        ("Sure"), and rendering that little again costs nothing."""
        if view.body_format != "markdown" or view.line is None:
            return None
        slot = (view.line, "stream")
        body = self._streaming.get(slot)
        text = view.whole or view.text  # an answer the list cuts shows whole where it streamed whole
        if body is None or not body.settled or not body.matches(font, self._raw) or not text.startswith(body.text):
            return None
        del self._streaming[slot]
        body.set_width(width)
        self._update_streamed(body, text)
        if view.whole is not None:  # its height is the whole answer's, not a cut one's measured before
            self._whole.add((view.cache_key, self._raw))
            self._forget_heights((view.cache_key, self._raw))
        return body

    def _forget_heights(self, key: _BodyKey) -> None:
        """The heights measured for a row's body ``key`` at every width."""
        for height_key in [k for k in self._heights if (k[0], k[2]) == key]:
            del self._heights[height_key]

    def _streaming_body(self, live: tuple[str | None, str], text: str, font: QFont, width: int) -> StreamingBody:
        """The streaming answer's body of a line: kept across flushes and switches, so only its unsettled tail
        and what streamed since are rendered again."""
        body = self._streaming.get(live)
        if body is None or not body.matches(font, self._raw):
            body = StreamingBody(font, width, raw=self._raw)
            self._streaming[live] = body
            while len(self._streaming) > self.STREAMING_KEPT:
                self._streaming.popitem(last=False)
        else:
            self._streaming.move_to_end(live)
        body.set_width(width)
        self._update_streamed(body, text)
        return body

    def lines_streamed_lately(self) -> list[str]:
        """The lines whose streaming answers' bodies are kept, the one painted last first."""
        return [line for line, _kind in reversed(self._streaming) if line is not None]

    def streaming_text(self, line: str) -> str | None:
        """The text ``line``'s kept streaming body shows (rendered), or ``None`` when none is kept."""
        body = self._streaming.get((line, "stream"))
        return body.text if body is not None else None

    def render_ahead(self, line: str, text: str) -> bool:
        """Issue 34 item 1: ``line``'s kept streaming body (the line shown lately, not now) shows ``text``, rendered
        and measured now, so a switch back to it renders only what streams after this. Only while ``text`` goes on
        with the answer the body shows: a new answer is left to the switch, as the stored row of the one before may
        take the body over (``_streamed``). Whether it rendered."""
        body = self._streaming.get((line, "stream"))
        if body is None or not body.matches(self._view.font(), self._raw) or text == body.text:
            return False
        if not text.startswith(body.text[: body.settled]):
            return False
        rendered = body.rendered_chars
        body.update(text)
        body.height()  # laid out now, not at the switch
        self.chars_rendered_ahead += body.rendered_chars - rendered
        return True

    def _update_streamed(self, body: StreamingBody, text: str) -> None:
        """``body`` shows ``text``; what that rendered is counted (``streamed_chars_rendered``)."""
        rendered = body.rendered_chars
        body.update(text)
        self.streamed_chars_rendered += body.rendered_chars - rendered

    def _height(self, view: RowView, font: QFont) -> int:
        """The row's height at its width: its body rendered (or taken from the cache) and laid out."""
        header_height = self._header(font)[1].height()
        body_height = self._body(view, font).height()
        height = int(2 * (self.MARGIN + self.PADDING) + header_height + self.GAP + body_height) + 1
        if self.has_actions(view):
            height += self.GAP + self.actions_height(font)
        return height

    def prepare(self, view: RowView) -> bool:
        """A stored row built ahead of a click (``MessageListModel.build_ahead``): its body rendered and its height
        measured at the list's width now, so the switch that shows it finds both (issue 34 item 1). A long answer
        is rendered ``PREPARE_CHARS`` at a time, in settled parts as a streaming answer is: one call never holds the
        GUI thread for a whole 20,000-character answer (10-25 ms while twenty lines stream). Whether the row is
        ready; if not, call again."""
        width = self._width_for(view)
        key: _HeightKey = (view.cache_key, width, self._raw)
        if view.live is not None or key in self._heights:
            return True
        font = self._view.font()
        body_key: _BodyKey = (view.cache_key, self._raw)
        long_answer = view.body_format == "markdown" and not self._raw and len(view.text) > self.PREPARE_CHARS
        if long_answer and body_key not in self._bodies:
            body = self._preparing.get(body_key)
            if body is None or not body.matches(font, self._raw):
                body = self._preparing[body_key] = StreamingBody(font, width)
            body.update(view.text[: len(body.text) + self.PREPARE_CHARS])
            if len(body.text) < len(view.text):
                body.height()  # what settled laid out now too, not all at the end
                return False
            del self._preparing[body_key]
            self.bodies_built += 1
            self._keep_body(body_key, body)
        self._heights[key] = self._height(view, font)
        self.rows_prepared += 1
        return True

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:
        view = self._row(index)
        key: _HeightKey = (view.cache_key, self._width_for(view), self._raw)
        live = view.live is not None
        height = None if live else self._heights.get(key)
        if height is None:
            started = time.perf_counter()
            height = self._height(view, option.font)
            if live:
                self.live_render_ms = (time.perf_counter() - started) * 1000
            else:
                self.rows_measured += 1
                self._heights[key] = height
        return QSize(self.text_width() + 2 * (self.MARGIN + self.PADDING), height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        view = self._row(index)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        card = self.card_rect(option.rect, index, option.font)
        palette = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        fill, border = self._card_colours(palette, view, selected)
        kind = self._kind(view)
        radius = _BUBBLE_RADIUS if kind == "user" else _CARD_RADIUS
        interrupted = view.state == MessageState.INTERRUPTED.value
        if kind == "agent" and not selected and not interrupted:
            pass  # flat: nothing under the answer but the list itself (a streaming one too)
        elif view.live is not None or interrupted:
            outline = theme.current().color("card-other-border") if kind == "agent" and not selected else border
            painter.setPen(QPen(outline, 1.0, Qt.PenStyle.DashLine))
            painter.setBrush(fill)
            painter.drawRoundedRect(card, radius, radius)
        else:
            # Two opaque path fills draw the same card as a stroked, translucent drawRoundedRect
            # at a fifth of the cost (issue 7: it was a third of every row's paint).
            outer = QPainterPath()
            outer.addRoundedRect(card, radius, radius)
            painter.fillPath(outer, border)
            inner = QPainterPath()
            inner.addRoundedRect(card.adjusted(1, 1, -1, -1), radius - 1, radius - 1)
            painter.fillPath(inner, fill)
        searched = index.data(SEARCH_HIT_ROLE) if view.live is None else None
        if searched is not None:  # issue 30 item 5: the message a search hit opened, for a moment
            mark = QColor(palette.color(QPalette.ColorRole.Highlight))
            painter.setPen(QPen(mark, 2.0))
            mark.setAlpha(40)
            painter.setBrush(mark)
            painter.drawRoundedRect(card.adjusted(1, 1, -1, -1), _CARD_RADIUS, _CARD_RADIUS)
        if self.has_actions(view) and isinstance(self._view, MessageListView):
            self._view.want_card_actions(index)  # its buttons: real widgets over the card, made once shown
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
        width = self._width_for(view)
        painter.setFont(header_font)
        painter.setPen(text_colour)
        draw_text_line(painter, header_metrics, view.header, left, top, card.width() - 2 * self.PADDING, header_height)
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
        if searched:
            body.draw(painter, clip, body_palette, match_spans(body.plain_text(), parse_query(searched)) or ())
        else:
            body.draw(painter, clip, body_palette)
        painter.restore()

    def chip_rect(self, rect: QRect, text: str, font: QFont) -> QRectF:
        """Where a row's "n files changed" chip is: at the right end of its header line (issue 16)."""
        metrics = self._header(font)[1]
        card = QRectF(rect).adjusted(self.MARGIN, self.MARGIN / 2, -self.MARGIN, -self.MARGIN / 2)
        width = self._chip_width(text, font)
        top = card.top() + self.PADDING - 2
        return QRectF(card.right() - self.PADDING - width, top, width, metrics.height() + 4)

    def _chip_width(self, text: str, font: QFont) -> int:
        return self._header(font)[1].horizontalAdvance(text) + 14

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

    def body_rect(self, rect: QRect, font: QFont, index: ModelIndex | None = None) -> QRectF:
        """Where a row's body is painted inside the row's ``rect`` (``index``: the row, for a person's
        bubble; without it, a whole-width card's)."""
        if index is not None:
            card = self.card_rect(rect, index, font)
            width = float(self._width_for(self._row(index)))
        else:
            card = QRectF(rect).adjusted(self.MARGIN, self.MARGIN / 2, -self.MARGIN, -self.MARGIN / 2)
            width = float(self.text_width())
        top = card.top() + self.PADDING + self._header(font)[1].height() + self.GAP
        return QRectF(card.left() + self.PADDING, top, width, max(card.bottom() - top, 1.0))

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
        if isinstance(editor, CardNetworkActions):
            editor.setGeometry(self.actions_rect(option.rect, option.font).toAlignedRect())
            return
        rect = self.body_rect(option.rect, option.font, index)
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
        if event.type() == QEvent.Type.MouseButtonRelease and isinstance(event, QMouseEvent) and index.isValid():
            body = self._body(self._row(index), option.font)
            origin = self.body_rect(option.rect, option.font, index).topLeft()
            code = body.code_at(event.position() - origin)
            if code is not None:  # a code block's "Copy" chip (of a streaming answer's part too)
                QApplication.clipboard().setText(code)
                return True
        if (
            event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(model, MessageListModel)
            and index.isValid()
            and index.data(LIVE_ROLE) is None
        ):
            model.toggle_expanded(index.row())
        return super().editorEvent(event, model, option, index)


def _plain(index: QModelIndex | QPersistentModelIndex) -> QModelIndex:
    """The model index a persistent one points at now (Qt's calls that take a row want a ``QModelIndex``)."""
    if isinstance(index, QModelIndex):
        return index
    model = index.model()
    if model is None or not index.isValid():
        return QModelIndex()
    return model.index(index.row(), index.column(), index.parent())


class MessageListView(QListView):
    """The conversation list. It follows the newest message unless the reader scrolled up.

    Signals: QListView's own, and ``changes_chip_clicked(int)``: the message id whose "n files
    changed" chip was clicked (issue 16). ``is_reading_oldest`` is the model's fetch
    gate: older history is paged in only when the reader is at the top.
    """

    changes_chip_clicked = Signal(int)
    allow_host_requested = Signal(str)
    """SBX-4: a tool card's "Allow this host for this line" was pressed (``host:port``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._follow_newest = True  # first: Qt calls updateGeometries from the setters below
        self._text_row: QPersistentModelIndex | None = None
        self._wanted_actions: list[QPersistentModelIndex] = []
        self._allowed_hosts: frozenset[str] = frozenset()
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
        self._place_text_view()

    def resizeEvent(self, event: Any) -> None:
        if event.size().width() != event.oldSize().width():
            # Heights are kept per width: one only taller or shorter (a bar above the composer shown or hidden
            # on a switch, issue 34 item 1) measures no row again.
            self.message_delegate.forget_sizes()
            # Issue 30: the rows wrap again; a text view laid out at the old width would stand where its
            # row no longer is, over the next row's header and its chip. The next hover opens it again.
            self.close_text_view()
        super().resizeEvent(event)

    def _place_text_view(self) -> None:
        """The open text view where its row's body is now (rows above it grew, or were laid out again)."""
        editor = self.text_view()
        index = self.text_view_index()
        if editor is not None and index.isValid():
            option = QStyleOptionViewItem()
            self.initViewItemOption(option)
            option.rect = self.visualRect(index)
            self.message_delegate.updateEditorGeometry(editor, option, index)

    def text_view(self) -> MessageTextView | None:
        """The selectable text view open over a row, if any."""
        if self._text_row is None or not self._text_row.isValid():
            return None
        editor = self.indexWidget(_plain(self._text_row))
        return editor if isinstance(editor, MessageTextView) else None

    def text_view_index(self) -> QModelIndex:
        """The row the selectable text view is open over (invalid when none is)."""
        row, model = self._text_row, self.model()
        if row is None or not row.isValid() or model is None:
            return QModelIndex()
        return model.index(row.row(), row.column())

    def open_text_view(self, index: ModelIndex) -> MessageTextView | None:
        """Open the row's body as selectable text (closing the one open elsewhere); None for a card row."""
        if self._text_row is not None and self._text_row.isValid() and self._text_row == index:
            return self.text_view()
        self.close_text_view()
        if not index.isValid() or not self.message_delegate.selectable(index):
            return None
        self._text_row = QPersistentModelIndex(index)
        self.openPersistentEditor(_plain(self._text_row))
        return self.text_view()

    def close_text_view(self) -> None:
        row, self._text_row = self._text_row, None
        if row is not None and row.isValid():
            self.closePersistentEditor(_plain(row))
            self.viewport().update()

    def chip_at(self, point: QPoint) -> int | None:
        """The message id whose "n files changed" chip is at ``point`` (viewport coordinates), if any."""
        self.executeDelayedItemsLayout()
        index = self.indexAt(point)
        chip = index.data(CHIP_ROLE) if index.isValid() else None
        if not chip or not self.message_delegate.chip_rect(self.visualRect(index), str(chip), self.font()).contains(
            QPointF(point)
        ):
            return None
        return int(index.data(MESSAGE_ID_ROLE))

    def mousePressEvent(self, event: Any) -> None:
        # Issue 30: the chip is decided here, before the view hands the click to the row's selectable text
        # (open since the mouse came over the row), which took it as a click in the text: a caret, no tab.
        if event.button() == Qt.MouseButton.LeftButton and self.chip_at(event.position().toPoint()) is not None:
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: Any) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            message_id = self.chip_at(event.position().toPoint())
            if message_id is not None:
                event.accept()
                self.changes_chip_clicked.emit(message_id)
                return
        super().mouseReleaseEvent(event)

    def mouseMoveEvent(self, event: Any) -> None:
        on_chip = self.chip_at(event.position().toPoint()) is not None
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if on_chip else Qt.CursorShape.ArrowCursor)
        focused = self.window().focusWidget()
        if event.buttons() == Qt.MouseButton.NoButton:
            self.executeDelayedItemsLayout()  # the rows where they are painted now, not before a re-wrap
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
        self._wanted_actions.clear()
        super().reset()

    # -- SBX-4: the buttons of a card's refused connections --------------------------------------

    def want_card_actions(self, index: ModelIndex) -> None:
        """A painted card has refused connections: its buttons are made after this paint (once per row)."""
        if self.indexWidget(_plain(index)) is not None or any(w == index for w in self._wanted_actions):
            return
        self._wanted_actions.append(QPersistentModelIndex(index))
        if len(self._wanted_actions) == 1:
            QTimer.singleShot(0, self._make_card_actions)

    def _make_card_actions(self) -> None:
        wanted, self._wanted_actions = self._wanted_actions, []
        for persistent in wanted:
            index = _plain(persistent)
            view = index.data(ROW_ROLE) if persistent.isValid() else None
            if not isinstance(view, RowView) or view.card is None or self.indexWidget(index) is not None:
                continue
            actions = CardNetworkActions(view.card.refused)
            actions.set_allowed(self._allowed_hosts)
            actions.allow_requested.connect(self.allow_host_requested)
            self.setIndexWidget(index, actions)

    def card_actions(self) -> list[CardNetworkActions]:
        """The button rows made so far (for the rows shown)."""
        return self.viewport().findChildren(CardNetworkActions)

    def set_allowed_hosts(self, hosts: Sequence[str]) -> None:
        """The shown line's allow-list: a refused host now on it has its card's button disabled."""
        self._allowed_hosts = frozenset(hosts)
        for actions in self.card_actions():
            actions.set_allowed(self._allowed_hosts)

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
