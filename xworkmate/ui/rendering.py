"""What a conversation row looks like: Markdown documents, code highlighting and tool cards (SPEC §6).

Nothing here is a widget. ``ToolCard`` is plain data built from a tool
message's payload; ``build_body`` turns a row into the body the message
delegate paints (and measures) at a given width: a ``QTextLayout`` for plain
text, a ``QTextDocument`` (``build_document``) for everything else.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import QObject, QPointF, QRectF, QRegularExpression
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QFont,
    QPainter,
    QPalette,
    QSyntaxHighlighter,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextLayout,
    QTextOption,
)

from xworkmate.presentation.cards import (  # Qt-free since issue 19; the names stay importable here
    COLLAPSED_LINES,
    EXPANDED_LINES,
    PLAN_MARKS,
    RenderingText,
    ToolCard,
    plan_text,
    running_card,
    thought_summary,
    tool_calls_line,
    tool_card,
)
from xworkmate.ui import markdown_style, theme

if TYPE_CHECKING:
    from xworkmate.ui import markdown_tables

__all__ = [
    "COLLAPSED_LINES",
    "EXPANDED_LINES",
    "PLAN_MARKS",
    "Body",
    "BodyFormat",
    "CodeHighlighter",
    "DocumentBody",
    "PlainBody",
    "RenderingText",
    "StreamingBody",
    "ToolCard",
    "build_body",
    "build_document",
    "card_html",
    "is_code_block",
    "is_plain_body",
    "is_plain_prose",
    "plan_html",
    "plan_text",
    "running_card",
    "thought_summary",
    "tool_calls_line",
    "tool_card",
]

BodyFormat = Literal["markdown", "plain", "tool", "thought", "plan"]


def card_html(card: ToolCard, expanded: bool) -> str:
    """Rich text for a card: a bold title with a coloured status, then monospace body lines."""
    colours = theme.current()
    colour = colours.hex("ok-text" if card.ok else "danger-text")
    mark = "✓" if card.ok else "✗"
    if card.tool == "running":
        mark, colour = "⏳", colours.hex("info-text")
    status = f' <span style="color:{colour}">{html.escape(card.status)}</span>' if card.status else ""
    title = f'<span style="color:{colour}">{mark}</span> <b>{html.escape(card.title_line)}</b>{status}'
    parts = [f'<p style="margin:0">{title}</p>']
    if card.remark:
        parts.append(f'<p style="margin:2px 0 0 0"><i>{html.escape(card.remark)}</i></p>')
    for connection in card.connections:  # SBX-4: a refused host plainly, a reached one quietly
        shade = colours.hex("muted-text" if connection.allowed else "danger-text")
        text = html.escape(connection.text)
        parts.append(
            f'<p style="margin:2px 0 0 0; color:{shade}">{text if connection.allowed else f"<b>{text}</b>"}</p>'
        )
    lines, note = card.shown_lines(expanded)
    if lines:
        rendered = [_diff_line(line) if card.body_kind == "diff" else html.escape(line) for line in lines]
        parts.append(
            '<pre style="margin-top:3px; margin-bottom:0; white-space:pre-wrap">' + "\n".join(rendered) + "</pre>"
        )
    if note:
        parts.append(f'<p style="margin:2px 0 0 0"><i>{html.escape(note)}</i></p>')
    return "".join(parts)


def _diff_line(line: str) -> str:
    escaped = html.escape(line)
    colours = theme.current()
    if line.startswith("@@"):
        return f'<span style="color:{colours.hex("diff-hunk-text")}">{escaped}</span>'
    if line.startswith("+") and not line.startswith("+++"):
        return f'<span style="color:{colours.hex("diff-added-text")}">{escaped}</span>'
    if line.startswith("-") and not line.startswith("---"):
        return f'<span style="color:{colours.hex("diff-removed-text")}">{escaped}</span>'
    return escaped


# -- an ACP agent's thoughts and plans ------------------------------------------------

_PLAN_COLOURS = {"☑": "ok-text", "◐": "info-text", "☐": "muted-text"}


def plan_html(text: str) -> str:
    """The checklist as rich text: done steps struck through, the current one in bold."""
    rows: list[str] = []
    colours = theme.current()
    for line in text.splitlines():
        mark, _, rest = line.partition(" ")
        token = _PLAN_COLOURS.get(mark)
        if token is None:
            rows.append(html.escape(line))
            continue
        colour = colours.hex(token)
        body = html.escape(rest)
        if mark == "☑":
            body = f'<span style="color:{colours.hex("muted-text")}; text-decoration:line-through">{body}</span>'
        elif mark == "◐":
            body = f"<b>{body}</b>"
        rows.append(f'<span style="color:{colour}">{mark}</span>&nbsp;{body}')
    return '<p style="margin:0">' + "<br>".join(rows) + "</p>"


# -- code highlighting ---------------------------------------------------------------

_KEYWORDS = frozenset(
    {
        *("and", "as", "assert", "async", "await", "break", "case", "catch", "class", "const", "continue"),
        *("def", "default", "del", "do", "elif", "else", "enum", "except", "export", "extends", "false"),
        *("False", "final", "finally", "fn", "for", "from", "func", "function", "go", "if", "impl", "import"),
        *("in", "interface", "is", "lambda", "let", "match", "mod", "mut", "new", "nil", "None", "not", "null"),
        *("or", "package", "pass", "pub", "raise", "return", "self", "static", "struct", "super", "switch"),
        *("this", "throw", "true", "True", "try", "type", "use", "var", "void", "while", "with", "yield"),
        *("echo", "then", "fi", "esac", "done", "local"),
    }
)
_HASH_COMMENT_LANGUAGES = frozenset(
    {"python", "py", "sh", "bash", "shell", "zsh", "console", "yaml", "yml", "toml", "ruby", "rb", "r", "perl", ""}
)
_SLASH_COMMENT_LANGUAGES = frozenset(
    {"c", "cpp", "c++", "java", "js", "javascript", "ts", "typescript", "go", "rust", "rs", "kotlin", "swift", "cs", ""}
)


def _char_format(token: str, *, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(theme.current().color(token))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


def is_code_block(fmt: QTextBlockFormat) -> bool:
    return fmt.hasProperty(QTextFormat.Property.BlockCodeLanguage) or fmt.hasProperty(
        QTextFormat.Property.BlockCodeFence
    )


class CodeHighlighter(QSyntaxHighlighter):
    """Simple highlighting for fenced code in a Markdown document: keywords, strings, numbers, comments.

    Only blocks that Markdown marked as code are touched; the language after
    the fence picks the comment style (``#`` or ``//``; both when unknown).
    """

    _keyword = QRegularExpression(r"\b(" + "|".join(sorted(map(re.escape, _KEYWORDS))) + r")\b")
    _number = QRegularExpression(r"\b(0x[0-9A-Fa-f]+|\d+(\.\d+)?)\b")
    _string = QRegularExpression(r"(\"([^\"\\]|\\.)*\"|'([^'\\]|\\.)*'|`[^`]*`)")
    _hash_comment = QRegularExpression(r"(^|\s)#.*$")
    _slash_comment = QRegularExpression(r"//.*$")

    def __init__(self, document: QTextDocument | QObject) -> None:
        super().__init__(document)
        self._formats = {
            "keyword": _char_format("code-keyword-text", bold=True),
            "number": _char_format("code-number-text"),
            "string": _char_format("code-string-text"),
            "comment": _char_format("code-comment-text", italic=True),
        }

    def highlightBlock(self, text: str) -> None:
        fmt = self.currentBlock().blockFormat()
        if not is_code_block(fmt):
            return
        language = str(fmt.property(QTextFormat.Property.BlockCodeLanguage) or "").strip().lower()
        self._apply(self._keyword, text, "keyword")
        self._apply(self._number, text, "number")
        self._apply(self._string, text, "string")
        if language in _HASH_COMMENT_LANGUAGES:
            self._apply(self._hash_comment, text, "comment")
        if language in _SLASH_COMMENT_LANGUAGES:
            self._apply(self._slash_comment, text, "comment")

    def _apply(self, pattern: QRegularExpression, text: str, kind: str) -> None:
        matches = pattern.globalMatch(text)
        while matches.hasNext():
            match = matches.next()
            self.setFormat(match.capturedStart(), match.capturedLength(), self._formats[kind])


def _style_code_blocks(document: QTextDocument) -> None:
    """Code blocks wrap inside the card instead of overflowing it, inset from the tinted box that
    ``markdown_style.paint_underlay`` paints under them (issue 30: code is padded, not flush to its block)."""
    cursor = QTextCursor(document)
    block = document.begin()
    pad = float(theme.METRICS["space-3"])
    while block.isValid():
        fmt = block.blockFormat()
        if is_code_block(fmt):
            code = QTextBlockFormat()
            code.setLeftMargin(pad)
            code.setRightMargin(pad)
            code.setNonBreakableLines(False)
            cursor.setPosition(block.position())
            cursor.mergeBlockFormat(code)
        block = block.next()


# -- documents -------------------------------------------------------------------------

# Characters and openings that can make Markdown differ from its plain text (emphasis, code,
# links, autolinks, HTML, entities, tables, strikethrough, escapes, breaks; lists, quotes and
# headings at the start). An answer with none of them renders the same as plain text.
_MARKDOWN_CHARACTERS = frozenset("\\`*_[]<>#|~&@\n\r\t")
_MARKDOWN_OPENING = re.compile(r"[-+*>#=\s]|\d+[.)]")
_PLAIN_PROSE_LIMIT = 4_000


def is_plain_prose(text: str) -> bool:
    """Whether Markdown would render ``text`` exactly as plain text (one short paragraph, no syntax).

    Such answers are the common case and skip the Markdown parser and the code highlighter.
    """
    return (
        0 < len(text) <= _PLAIN_PROSE_LIMIT
        and not _MARKDOWN_CHARACTERS.intersection(text)
        and _MARKDOWN_OPENING.match(text) is None
        and not text[-1].isspace()
        and "  " not in text
        and "://" not in text
        and "www." not in text.lower()
    )


def _wrapping() -> QTextOption:
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    return option


def _italic(font: QFont) -> QFont:
    italic = QFont(font)
    italic.setItalic(True)
    return italic


def build_document(
    text: str,
    body_format: BodyFormat,
    font: QFont,
    width: float,
    *,
    raw: bool = False,
    card: ToolCard | None = None,
    expanded: bool = False,
) -> QTextDocument:
    """The document a row paints: Markdown (unless ``raw``), plain text, or a tool card."""
    document = QTextDocument()
    document.setDocumentMargin(0)
    document.setDefaultFont(font)
    document.setDefaultTextOption(_wrapping())
    if body_format == "tool" and card is not None:
        document.setHtml(card_html(card, expanded))
    elif body_format == "plan":
        document.setHtml(plan_html(text))
    elif body_format == "thought":
        document.setDefaultFont(_italic(font))
        document.setPlainText(text)
    elif body_format == "markdown" and not raw:  # plain prose never gets here: build_body lays it out
        # Attached to the empty document, so no deferred re-highlight is left pending on the event
        # loop; run once the code blocks carry their language. The document owns it (Qt parent),
        # and it must live as long as the document: its destructor clears the formats.
        highlighter = CodeHighlighter(document)
        document.setMarkdown(text)
        _style_code_blocks(document)
        markdown_style.polish(document)  # issue 18: spacing, quotes, inline code, code headers
        highlighter.rehighlight()
    else:
        document.setPlainText(text)
    document.setTextWidth(max(width, 10.0))
    return document


_PLAIN_LAYOUT_LIMIT = 20_000
"""Longer plain texts go to a ``QTextDocument``, which lays out and paints paragraph by paragraph."""


class PlainBody:
    """Plain text laid out by one ``QTextLayout``: what ``QTextDocument.setPlainText`` shows, at a
    fifth of the cost to build and half to paint (issue 7: most rows are plain — the person's own
    words, notices, answers without Markdown — and every switch builds the rows it shows).
    """

    continues_table = False  # never a part of a table (``DocumentBody``)

    def __init__(self, text: str, font: QFont, width: float) -> None:
        self._text = text
        # A line separator breaks the line inside the one paragraph, as a new block would.
        self._layout = QTextLayout(text.replace("\r\n", "\n").replace("\n", "\u2028"), font)
        self._layout.setTextOption(_wrapping())
        self._layout.setCacheEnabled(True)
        self._width = -1.0
        self._height = 0.0
        self.set_width(width)

    def set_width(self, width: float) -> None:
        width = max(width, 10.0)
        if width == self._width:
            return
        self._width = width
        layout = self._layout
        layout.beginLayout()
        top = 0.0
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            line.setPosition(QPointF(0.0, top))
            top += line.height()
        layout.endLayout()
        self._height = top

    def height(self) -> float:
        return self._height

    def natural_width(self) -> float:
        """The widest laid-out line's width (at most the width it is laid out at): what the text needs."""
        layout = self._layout
        return max((layout.lineAt(i).naturalTextWidth() for i in range(layout.lineCount())), default=0.0)

    def plain_text(self) -> str:
        return self._text

    def code_at(self, point: QPointF) -> str | None:
        """Plain text has no code blocks (and no "Copy" chips)."""
        return None

    def draw(self, painter: QPainter, clip: QRectF, palette: QPalette, marks: Sequence[tuple[int, int]] = ()) -> None:
        """``marks``: ``[start, end)`` ranges of the text painted as selected (a search's matches)."""
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        selections = []
        for start, end in marks:
            selection = QTextLayout.FormatRange()
            selection.start, selection.length, selection.format = start, end - start, _mark_format(palette)
            selections.append(selection)
        self._layout.draw(painter, QPointF(0.0, 0.0), selections, clip)


def _mark_format(palette: QPalette) -> QTextCharFormat:
    """How a search's matched words look in a message body: the palette's selection colours."""
    mark = QTextCharFormat()
    mark.setBackground(palette.color(QPalette.ColorRole.Highlight))
    mark.setForeground(palette.color(QPalette.ColorRole.HighlightedText))
    return mark


class DocumentBody:
    """A rendered ``QTextDocument`` body: Markdown, tool cards, plans, long plain texts."""

    def __init__(self, document: QTextDocument) -> None:
        self.document = document
        self._decorations: tuple[float, markdown_style.Decorations] | None = None
        self.continues_table = False  # a streaming table's part after its first: drawn joined to the part above

    def set_width(self, width: float) -> None:
        width = max(width, 10.0)
        if self.document.textWidth() != width:
            self.document.setTextWidth(width)

    def decorations(self) -> markdown_style.Decorations:
        """Code block headers and quote bars at the current width (issue 18)."""
        width = self.document.textWidth()
        if self._decorations is None or self._decorations[0] != width:
            self._decorations = (width, markdown_style.decorations(self.document))
        return self._decorations[1]

    def height(self) -> float:
        return self.document.size().height()  # size() lays it out

    def append_code(self, more: str) -> bool:
        """Add ``more`` (code, with its line breaks) at the end of the document's last block, which must be a code
        block: what a streaming answer adds inside an open fence, laid out and highlighted for those lines only
        (``StreamingBody``). The new lines take the code's format, the last one the block's closing margin.
        False, and nothing changed, when the document does not end in a code block."""
        document = self.document
        last = document.lastBlock()
        if not last.isValid() or not is_code_block(last.blockFormat()):
            return False
        closing = last.blockFormat().bottomMargin()
        line = QTextBlockFormat(last.blockFormat())
        line.setTopMargin(0.0)
        line.setBottomMargin(0.0)
        cursor = QTextCursor(document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.beginEditBlock()
        if "\n" in more:
            first_new = last.blockNumber() + 1
            ending = QTextBlockFormat(last.blockFormat())
            ending.setBottomMargin(0.0)
            cursor.setBlockFormat(ending)  # no longer the block's last line
            cursor.insertText(more)
            block = document.findBlockByNumber(first_new)
            while block.isValid():  # the new lines: neither the header's room nor the closing margin
                cursor.setPosition(block.position())
                cursor.setBlockFormat(line)
                block = block.next()
            closed = QTextBlockFormat(line)
            closed.setBottomMargin(closing)
            cursor.setBlockFormat(closed)
        else:
            cursor.insertText(more)
        cursor.endEditBlock()
        if self._decorations is not None and self._decorations[0] == document.textWidth():
            self._decorations = (self._decorations[0], markdown_style.code_grown(self._decorations[1], document, more))
        return True

    def code_at(self, point: QPointF) -> str | None:
        """The code of the block whose "Copy" chip is at ``point`` (in the body's coordinates), if one is."""
        if not self.document.property(markdown_style.DECORATED):
            return None
        hit = markdown_style.decoration_at(self.decorations(), point)
        return hit.code if hit is not None else None

    def natural_width(self) -> float:
        """What the text needs at most: its widest line at the width it is laid out at."""
        return min(self.document.idealWidth(), self.document.textWidth())

    def plain_text(self) -> str:
        return self.document.toPlainText()

    def draw(self, painter: QPainter, clip: QRectF, palette: QPalette, marks: Sequence[tuple[int, int]] = ()) -> None:
        """``marks``: ``[start, end)`` ranges of ``plain_text()`` painted as selected (a search's matches)."""
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = palette
        context.clip = clip
        if marks:
            selections = []
            for start, end in marks:
                selection = QAbstractTextDocumentLayout.Selection()
                cursor = QTextCursor(self.document)
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                selection.cursor, selection.format = cursor, _mark_format(palette)
                selections.append(selection)
            context.selections = selections
        if self.document.property(markdown_style.DECORATED):
            markdown_style.paint_underlay(painter, self.decorations())
        self.document.documentLayout().draw(painter, context)
        if self.document.property(markdown_style.DECORATED):
            markdown_style.paint_decorations(painter, self.document, self.decorations())


Body = PlainBody | DocumentBody


def is_plain_body(text: str, body_format: BodyFormat, *, raw: bool = False) -> bool:
    """Whether a row's body is plain text (laid out without a ``QTextDocument``)."""
    if len(text) > _PLAIN_LAYOUT_LIMIT:
        return False
    if body_format in ("plain", "thought"):
        return True
    return body_format == "markdown" and (raw or is_plain_prose(text))


def build_body(
    text: str,
    body_format: BodyFormat,
    font: QFont,
    width: float,
    *,
    raw: bool = False,
    card: ToolCard | None = None,
    expanded: bool = False,
) -> Body:
    """The body a row paints: a plain layout when it is plain text, else ``build_document``'s document."""
    if is_plain_body(text, body_format, raw=raw):
        # An agent's reasoning reads as an aside: italic (and dimmed by the delegate).
        return PlainBody(text, _italic(font) if body_format == "thought" else font, width)
    return DocumentBody(build_document(text, body_format, font, width, raw=raw, card=card, expanded=expanded))


# A fence line opens or closes a code block; a blank line outside one ends every block.
_FENCE_LINE = re.compile(r" {0,3}(```|~~~)")
_ITEM_LINE = re.compile(r"([-+*]|\d{1,9}[.)])[ \t]+\S")  # a top-level list item's first line
LONG_LIST_TAIL_CHARS = 1_000
"""A streaming tail this long settles where its last top-level list item starts (``StreamingBody``)."""
TABLE_CHUNK_ROWS = 10
"""A streaming table settles every this many rows (a part of this many rows lays out in a few milliseconds; how
its parts show as one table: ``markdown_tables``, loaded when a table first settles)."""

TABLE_ROW = re.compile(r" {0,3}\|")
"""A line of a table as agents write them: it starts with ``|``."""

_DELIMITER = re.compile(r" {0,3}\|[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\n?$")
"""The line below a table's header: ``|---|:--:|``."""


def is_delimiter(line: str) -> bool:
    return _DELIMITER.match(line) is not None


_CHUNK_GAP = 6.0
"""The space between two settled parts of a streaming answer: a Markdown paragraph's margin."""
GROWN_TAIL_CHARS = 4_000
"""A streaming tail at least this long that ends inside an open code fence grows in place, not rendered again
at each flush (issue 34 item 1: a model writing a 93 KB file in one fence took 131 ms a flush at its end,
14 s of the GUI thread over the stream, as nothing inside a fence settles)."""


def _open_fence_with_code(text: str) -> bool:
    """Whether ``text`` ends inside a code fence, past at least one line of its code."""
    in_fence, lines_in = False, 0
    for line in text.split("\n"):
        if _FENCE_LINE.match(line):
            in_fence, lines_in = not in_fence, 0
        elif in_fence:
            lines_in += 1
    return in_fence and lines_in > 0


@dataclass(frozen=True)
class _Scan:
    """How far ``StreamingBody._last_boundary`` read a tail that starts at ``start``: to ``position`` (the end of a
    finished line), the state there, and the boundaries found before it (``start`` when none). ``table``: the
    header rows of the table the last line read is a row of ("" when none); ``rows``: its rows read since the
    start or the last row boundary; ``last_row``: the latest row boundary (every ``TABLE_CHUNK_ROWS`` rows) and
    ``row_table`` the table going on there."""

    start: int
    position: int
    in_fence: bool
    listed: bool
    prose: bool
    blank: int
    last_item: int
    previous: str = ""
    table: str = ""
    rows: int = 0
    last_row: int = 0
    row_table: str = ""

    @classmethod
    def at(cls, start: int, table: str = "") -> _Scan:
        """Nothing read yet of a tail starting at ``start`` (outside any fence and list; in ``table``'s rows when
        it is a part going on with a table)."""
        return cls(start, start, False, False, bool(table), start, start, "", table, 0, start, "")


class StreamingBody:
    """The body of an answer that is still streaming in, rendered in settled parts.

    Re-rendering the whole answer on every flush costs time in proportion to its
    length (about 0.5 ms per 1,000 characters of Markdown here), so a long answer
    stalled the window more with each flush. Text up to the last blank line
    outside a code fence is settled: it is rendered once, as one more part, and
    only the unsettled tail is rendered again. When the turn stores the answer, its
    row takes this body over (``MessageDelegate._streamed``): a long answer is not
    rendered a second time as one document at its end (issue 34 item 1).
    """

    def __init__(self, font: QFont, width: float, *, raw: bool = False) -> None:
        self._font = QFont(font)
        self._width = width
        self._raw = raw
        self._text = ""
        self._settled = 0
        self._parts: list[Body] = []
        self._tail: Body | None = None
        self._heights: list[float] = []  # the settled parts' heights at ``_width``, as far as measured
        self._gaps: list[float] = []  # the space above each of them (none above the first)
        self._tail_joined: tuple[Body, float] | None = None  # the tail and the space above it, at ``_width``
        self._settled_height = 0.0  # their sum, with the gaps between them
        self.rendered_chars = 0
        """Characters rendered so far, settled parts and tails alike (tests check it grows linearly)."""
        self.parts_measured = 0
        """How many times a part's height was asked of its layout: once per settled part and width, and the
        tail's per flush, not every part's per flush and paint (issue 34 item 1; the tests count it)."""
        self._grown: str | None = None
        """The tail's text as its document shows it, when that document may grow in place: it ends inside an
        open code fence (``GROWN_TAIL_CHARS``)."""
        self._scan: _Scan | None = None
        self._text_scanned = ""
        self._table = ""  # the header rows of the table the text at ``_settled`` is inside ("" when none)
        self._table_widths: markdown_tables.TableWidths | None = None  # that table's, from its first part

    def matches(self, font: QFont, raw: bool) -> bool:
        return raw == self._raw and font == self._font

    @property
    def text(self) -> str:
        """The answer's text as shown (every character given to ``update`` so far)."""
        return self._text

    @property
    def table_widths(self) -> markdown_tables.TableWidths | None:
        """The widths every part of the streaming table gets: its first part's (``None`` before one settled)."""
        return self._table_widths

    @property
    def settled(self) -> int:
        """How many characters of ``text`` are settled (rendered in parts that are never rendered again)."""
        return self._settled

    def update(self, text: str) -> None:
        """Show ``text``: what is new past the settled parts is rendered, the rest is kept."""
        if text == self._text:
            return
        if not text.startswith(self._text[: self._settled]):  # another answer: start over
            self._settled = 0
            self._parts = []
            self._forget_heights()
            self._grown = None
            self._table, self._table_widths = "", None
        self._text = text
        boundary, table = self._last_boundary(text)
        if boundary > self._settled:
            settling = text[self._settled : boundary]
            if self._closes_grown(settling):  # all that came is the fence's closing line: the tail is the part
                assert self._tail is not None
                self._parts.append(self._tail)
            else:
                self._parts.append(self._render(settling, self._table, ends_in=table))
            self._settled = boundary
            self._table = table
            self._grown = None
        tail = text[self._settled :]
        if not tail.strip():
            self._tail, self._grown = None, None
        elif not self._grow(tail.strip("\n")):
            self._tail = self._render(tail, self._table)
            shown = tail.strip("\n")
            grows = len(shown) >= GROWN_TAIL_CHARS and not self._raw and isinstance(self._tail, DocumentBody)
            self._grown = shown if grows and _open_fence_with_code(shown) else None

    def _grow(self, shown: str) -> bool:
        """Add to the tail's document what ``shown`` has past what it shows, when all of that is code inside the
        same open fence (no line of it closes the fence); whether it did."""
        grown, tail = self._grown, self._tail
        if grown is None or not isinstance(tail, DocumentBody) or not shown.startswith(grown):
            return False
        more = shown[len(grown) :]
        if not more:
            return True
        from_line = grown.rfind("\n") + 1  # the last line shown may be finished by what came
        if any(_FENCE_LINE.match(line) for line in shown[from_line:].split("\n")):
            return False
        if not tail.append_code(more):
            return False
        self.rendered_chars += len(more)
        self._grown = shown
        return True

    def _closes_grown(self, settling: str) -> bool:
        """Whether ``settling`` is the grown tail's text and then only the line closing its fence."""
        if self._grown is None:
            return False
        text = settling.strip("\n")
        if not text.startswith(self._grown + "\n"):
            return False
        rest = text[len(self._grown) + 1 :]
        return "\n" not in rest and _FENCE_LINE.match(rest) is not None and not rest.strip().strip("`~")

    def _last_boundary(self, text: str) -> tuple[int, str]:
        """Where the last blank line outside a code fence ends (past ``_settled``), or ``_settled``; in a tail of
        ``LONG_LIST_TAIL_CHARS`` or more, where the last top-level list item outside a fence starts, if later (a
        list of a thousand findings has no blank line: it was rendered again whole at each flush, 84 ms at its
        end; a list split there renders as one, the numbers of an ordered one going on); where a table's row
        starts every ``TABLE_CHUNK_ROWS`` rows, if later (``markdown_tables``). With it, the header rows of the
        table that goes on there ("" when none).

        The scan goes on from the last line it had finished (``_Scan``) while the text only grows: a tail that
        does not settle (a long fence) is not read again from its start at each flush."""
        scan = self._scan
        if scan is None or scan.start != self._settled or not text.startswith(self._text_scanned[: scan.position]):
            scan = _Scan.at(self._settled, "" if self._raw else self._table)
        in_fence, listed, prose = scan.in_fence, scan.listed, scan.prose
        blank, last_item = scan.blank, scan.last_item
        previous, table, rows, last_row, row_table = scan.previous, scan.table, scan.rows, scan.last_row, scan.row_table
        position = scan.position
        for line in text[position:].splitlines(keepends=True):
            marker = None if in_fence else _ITEM_LINE.match(line)
            # Inside a paragraph only a bullet or a "1." starts a list: "2024. was…" goes on with the paragraph.
            item = marker is not None and (not prose or marker[1] in ("-", "+", "*", "1.", "1)"))
            if item and listed:
                last_item = position
            if in_fence or self._raw:
                table = ""
            elif table and TABLE_ROW.match(line) and line.strip():
                if rows >= TABLE_CHUNK_ROWS:  # a part of the table ends before this row
                    last_row, row_table, rows = position, table, 0
                rows += 1
            elif TABLE_ROW.match(previous) and is_delimiter(line) and not table:
                table, rows = previous + line.rstrip("\n"), 0
            else:
                table = ""
            position += len(line)
            if _FENCE_LINE.match(line):
                in_fence, listed, prose = not in_fence, False, False
            elif not in_fence and not line.strip():
                listed = prose = False
                if line.endswith("\n") and position < len(text):
                    blank = position
            elif not in_fence:
                listed = item or (listed and line[:1].isspace())
                prose = not listed
            previous = line if line.endswith("\n") else ""
            if line.endswith("\n") and position < len(text):  # a finished line, more after it: kept
                scan = _Scan(
                    scan.start, position, in_fence, listed, prose, blank, last_item,
                    previous, table, rows, last_row, row_table,
                )  # fmt: skip
        self._scan, self._text_scanned = scan, text
        long_tail = len(text) - self._settled >= LONG_LIST_TAIL_CHARS
        boundary = max(blank, last_item if long_tail else self._settled, last_row)
        return boundary, (row_table if boundary == last_row > self._settled else "")

    def _render(self, text: str, table: str = "", ends_in: str = "") -> Body:
        """``text`` rendered; ``table``: the header rows of the table it starts inside (a part going on with it);
        ``ends_in``: those of the table it ends inside (the table goes on in the next part)."""
        self.rendered_chars += len(text)
        shown = text.strip("\n")
        if self._raw or not (table or ends_in):
            return build_body(shown, "markdown", self._font, self._width, raw=self._raw)
        body = build_body(f"{table}\n{shown}" if table else shown, "markdown", self._font, self._width)
        from xworkmate.ui import markdown_tables

        if isinstance(body, DocumentBody):
            document = body.document
            if table:  # the header rows out again; the widths of the table's first part
                markdown_tables.drop_header(document)
                body.continues_table = True
                if self._table_widths is not None:
                    markdown_tables.fix_widths(document, self._table_widths, first=True, last=False)
            if ends_in and ends_in != table:  # the first part of the table that goes on: its widths, as laid out
                document.size()
                self._table_widths = markdown_tables.widths_of_last_table(document)
            if ends_in and self._table_widths is not None:
                markdown_tables.fix_widths(document, self._table_widths, first=False, last=True)
        return body

    def _shown(self) -> list[Body]:
        return [*self._parts, self._tail] if self._tail is not None else self._parts

    @property
    def parts(self) -> tuple[Body, ...]:
        """What is shown, in order: the settled parts, then the tail (if it has any text)."""
        return tuple(self._shown())

    def set_width(self, width: float) -> None:
        if width == self._width:
            return
        self._width = width
        self._forget_heights()
        for part in self._shown():
            part.set_width(width)

    def _forget_heights(self) -> None:
        self._heights = []
        self._gaps = []
        self._tail_joined = None
        self._settled_height = 0.0

    def _gap(self, above: Body, below: Body) -> float:
        """The space between two parts: a paragraph's margin, or none where a table goes on (its borders meet)."""
        if below.continues_table and isinstance(above, DocumentBody) and isinstance(below, DocumentBody):
            from xworkmate.ui import markdown_tables

            return markdown_tables.join_gap(above.document, below.document)
        return _CHUNK_GAP

    def _part_heights(self) -> list[float]:
        """The settled parts' heights, each measured once at this width (they never change), and the gaps above them."""
        for part in self._parts[len(self._heights) :]:
            height = part.height()
            self.parts_measured += 1
            gap = self._gap(self._parts[len(self._heights) - 1], part) if self._heights else 0.0
            self._heights.append(height)
            self._gaps.append(gap)
            self._settled_height += gap + height
        return self._heights

    def _tail_gap(self) -> float:
        """The gap above the tail, worked out once per tail (a flush asks for it to measure and again to paint)."""
        if not self._parts or self._tail is None:
            return 0.0
        if self._tail_joined is None or self._tail_joined[0] is not self._tail:
            self._tail_joined = (self._tail, self._gap(self._parts[-1], self._tail))
        return self._tail_joined[1]

    def _tail_height(self) -> float:
        if self._tail is None:
            return 0.0
        self.parts_measured += 1
        return self._tail.height()

    def height(self) -> float:
        self._part_heights()
        if self._tail is not None:
            return self._settled_height + self._tail_gap() + self._tail_height()
        return self._settled_height

    def natural_width(self) -> float:
        return max((part.natural_width() for part in self._shown()), default=0.0)

    def plain_text(self) -> str:
        return "\n\n".join(part.plain_text() for part in self._shown())

    def _placed(self, bottom: float = math.inf) -> Iterator[tuple[Body, float, float]]:
        """Each part shown with its top and height, down to ``bottom``: a part that starts below it is not
        reached (the tail, then, is not measured)."""
        top = 0.0
        for part, height, gap in zip(self._parts, self._part_heights(), self._gaps, strict=True):
            top += gap
            if top > bottom:
                return
            yield part, top, height
            top += height
        if self._tail is not None:
            top += self._tail_gap()
            if top <= bottom:
                yield self._tail, top, self._tail_height()

    def code_at(self, point: QPointF) -> str | None:
        """The code of the block whose "Copy" chip is at ``point`` (in the body's coordinates), in whichever part."""
        for part, top, height in self._placed(point.y()):
            if top <= point.y() < top + height:
                return part.code_at(point - QPointF(0.0, top))
        return None

    def draw(self, painter: QPainter, clip: QRectF, palette: QPalette, marks: Sequence[tuple[int, int]] = ()) -> None:
        """``marks``: ``[start, end)`` ranges of ``plain_text()`` painted as selected (a search's matches)."""
        start = 0
        for part, top, height in self._placed(clip.bottom()):  # parts below what shows are not reached
            length = len(part.plain_text()) if marks else 0
            if top + height >= clip.top():  # parts out of sight are skipped
                painter.save()
                painter.translate(0.0, top)
                inside = [
                    (max(a, start) - start, min(b, start + length) - start)
                    for a, b in marks
                    if a < start + length and b > start
                ]
                part.draw(painter, clip.translated(0.0, -top), palette, inside)
                painter.restore()
            start += length + 2  # ``plain_text`` joins the parts with a blank line
