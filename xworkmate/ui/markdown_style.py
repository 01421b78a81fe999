"""How rendered Markdown looks: spacing, quotes, inline code, code block headers (issue 18, item 4).

Qt's Markdown importer gives headings no margins, blockquotes only an
indent, inline code no background, and drops a heading's size on inline code
inside it. ``polish`` fixes those on a freshly imported document, with the
theme's tokens. Code blocks get a header strip (language label and a "Copy"
chip) and quotes a bar on the left: both are painted over the laid-out
document by ``paint_decorations`` (the message list and the selectable text
view share it), and ``decoration_at`` says whether a point hits a "Copy"
chip.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QFont,
    QFontMetricsF,
    QPainter,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFrameFormat,
    QTextTable,
)
from PySide6.QtGui import QTextFormat as Fmt

from xworkmate.ui import theme
from xworkmate.ui.marks import QT_TRANSLATE_NOOP

BLOCK_SPACING = 6.0
HEADING_SPACING = (10.0, 4.0)
QUOTE_INDENT = 14.0
QUOTE_BAR = 3.0
COPY_LABEL = QT_TRANSLATE_NOOP("MarkdownStyle", "Copy")
"""English; painted as ``QCoreApplication.translate("MarkdownStyle", COPY_LABEL)``."""
DECORATED = "xworkmateDecorated"
"""The document property saying ``polish`` left decorations to paint."""

_HEADING_SCALE = {1: theme.TYPE_SCALE["heading-1"], 2: theme.TYPE_SCALE["heading-2"]}
"""A heading's size over the body's (issue 30: at most ~1.3x, a message is not a poster); level 3 and
deeper are the body's size, bold."""
CODE_PADDING = float(theme.METRICS["space-3"])
"""How far a code block's text is inset from its tinted box (``rendering._style_code_blocks`` sets the
margins; the box is painted under them)."""


@dataclass(frozen=True)
class CodeHeader:
    """A code block's header strip, in document coordinates; ``box``: the whole block with its header, which
    ``paint_underlay`` tints under the text (the text is inset from it by ``CODE_PADDING``)."""

    rect: QRectF
    copy_rect: QRectF
    language: str
    code: str
    box: QRectF


@dataclass(frozen=True)
class Decorations:
    headers: tuple[CodeHeader, ...]
    quote_bars: tuple[QRectF, ...]


def _is_code(block: QTextBlock) -> bool:
    fmt = block.blockFormat()
    return fmt.hasProperty(Fmt.Property.BlockCodeLanguage) or fmt.hasProperty(Fmt.Property.BlockCodeFence)


def _room_around_code(document: QTextDocument) -> None:
    """Qt lays a document's first block out at its top, without its top margin, and leaves its last block's bottom
    margin out of its size; a code block's margins hold its header strip and the bottom of its tinted box. A
    document that starts or ends with one (a streaming answer's part often does) gets that room as its own frame's
    margins, so the strip does not cover what is drawn above the document, nor the box what is drawn below."""
    first, last = document.begin(), document.lastBlock()
    top = first.blockFormat().topMargin() if first.isValid() and _is_code(first) else 0.0
    bottom = last.blockFormat().bottomMargin() if last.isValid() and _is_code(last) else 0.0
    if top or bottom:
        root = document.rootFrame()
        fmt = root.frameFormat()
        fmt.setTopMargin(top)
        fmt.setBottomMargin(bottom)
        root.setFrameFormat(fmt)


def header_height(font: QFont) -> float:
    return QFontMetricsF(_small(font)).height() + 6.0


def _small(font: QFont) -> QFont:
    small = QFont(font)
    small.setPointSizeF(max(font.pointSizeF() * 0.85, 6.0))
    return small


def polish(document: QTextDocument) -> None:
    """Spacing, quote indents, inline-code backgrounds and heading sizes on an imported Markdown document."""
    colours = theme.current()
    cursor = QTextCursor(document)
    strip = header_height(document.defaultFont())
    decorated = False
    block = document.begin()
    previous_code = False
    while block.isValid():
        fmt = block.blockFormat()
        code = _is_code(block)
        changed = False
        if code:
            if not previous_code:  # the first line of a code block: room for its header strip
                fmt.setTopMargin(strip + BLOCK_SPACING)
                changed = decorated = True
            next_block = block.next()
            if not next_block.isValid() or not _is_code(next_block):
                fmt.setBottomMargin(CODE_PADDING + BLOCK_SPACING)
                changed = True
        elif fmt.headingLevel() > 0:
            fmt.setTopMargin(HEADING_SPACING[0] if block != document.begin() else 0.0)
            fmt.setBottomMargin(HEADING_SPACING[1])
            changed = True
            _heading_fragments(cursor, block, _heading_points(document, fmt.headingLevel()))
        else:
            level = fmt.property(Fmt.Property.BlockQuoteLevel)
            if isinstance(level, int) and level > 0:
                fmt.setLeftMargin(QUOTE_INDENT * level)
                changed = decorated = True
            _inline_code_background(cursor, block, colours.color("code-bg"))
        if changed:
            cursor.setPosition(block.position())
            cursor.setBlockFormat(fmt)
        previous_code = code
        block = block.next()
    _light_tables(document, colours)
    _room_around_code(document)
    document.setProperty(DECORATED, decorated)


def _light_tables(document: QTextDocument, colours: theme.Theme) -> None:
    """Tables with one solid hairline (Qt's Markdown tables are drawn outset, a doubled 3-D border), padded
    cells and a tinted header row (issue 30)."""
    for frame in document.rootFrame().childFrames():
        if not isinstance(frame, QTextTable):
            continue
        fmt = frame.format().toTableFormat()
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        fmt.setBorderBrush(colours.color("code-border"))
        fmt.setBorder(1.0)
        fmt.setBorderCollapse(True)
        fmt.setCellSpacing(0.0)
        fmt.setCellPadding(float(theme.METRICS["space-1"]))
        frame.setFormat(fmt)
        for column in range(frame.columns()):
            cell = frame.cellAt(0, column)
            header = cell.format()
            header.setBackground(colours.color("surface-alt"))
            cell.setFormat(header)


def _fragments(block: QTextBlock) -> list[tuple[int, int, QTextCharFormat]]:
    found: list[tuple[int, int, QTextCharFormat]] = []
    it = block.begin()
    while not it.atEnd():
        fragment = it.fragment()
        if fragment.isValid():
            found.append((fragment.position(), fragment.length(), fragment.charFormat()))
        it += 1
    return found


def _heading_points(document: QTextDocument, level: int) -> float | None:
    """A heading's point size from the type scale, or ``None`` for the body's (a pixel-sized font: none)."""
    body = document.defaultFont().pointSizeF()
    return body * _HEADING_SCALE.get(level, 1.0) if body > 0 else None


def _heading_fragments(cursor: QTextCursor, block: QTextBlock, points: float | None) -> None:
    """Every fragment of a heading at the heading's size and weight, inline code included."""
    for position, length, fmt in _fragments(block):
        fmt.clearProperty(Fmt.Property.FontPointSize)
        fmt.clearProperty(Fmt.Property.FontSizeAdjustment)
        if points is not None:
            fmt.setFontPointSize(points)
        fmt.setFontWeight(QFont.Weight.Bold)
        if fmt.fontFixedPitch():
            fmt.setBackground(theme.current().color("code-bg"))
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.setCharFormat(fmt)


def _inline_code_background(cursor: QTextCursor, block: QTextBlock, background: object) -> None:
    for position, length, fmt in _fragments(block):
        if fmt.fontFixedPitch():
            extra = QTextCharFormat()
            extra.setBackground(background)  # type: ignore[arg-type]
            cursor.setPosition(position)
            cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(extra)


def decorations(document: QTextDocument) -> Decorations:
    """Where the code headers and quote bars go in the laid-out ``document`` (lays it out if needed)."""
    if not document.property(DECORATED):
        return Decorations((), ())
    layout = document.documentLayout()
    font = _small(document.defaultFont())
    metrics = QFontMetricsF(font)
    strip = header_height(document.defaultFont())
    width = document.textWidth()
    headers: list[CodeHeader] = []
    bars: list[QRectF] = []
    block = document.begin()
    while block.isValid():
        if _is_code(block):
            first = block
            lines: list[str] = []
            while block.isValid() and _is_code(block):
                lines.append(block.text())
                block = block.next()
            top = layout.blockBoundingRect(first).top() - strip - 1.0  # the rect starts below the margin
            rect = QRectF(0.0, top, width, strip)
            chip_width = metrics.horizontalAdvance(QCoreApplication.translate("MarkdownStyle", COPY_LABEL)) + 12.0
            copy_rect = QRectF(width - chip_width - 4.0, top + 2.0, chip_width, strip - 4.0)
            language = str(first.blockFormat().property(Fmt.Property.BlockCodeLanguage) or "")
            last = layout.blockBoundingRect(block.previous() if block.isValid() else document.lastBlock())
            box = QRectF(0.0, top, width, last.bottom() + CODE_PADDING - top)
            headers.append(CodeHeader(rect, copy_rect, language.strip(), "\n".join(lines), box))
            continue
        level = block.blockFormat().property(Fmt.Property.BlockQuoteLevel)
        if isinstance(level, int) and level > 0:
            box = layout.blockBoundingRect(block)  # below its top margin, above its bottom one
            bars.append(QRectF((level - 1) * QUOTE_INDENT + 2.0, box.top(), QUOTE_BAR, box.height()))
        block = block.next()
    return Decorations(tuple(headers), tuple(bars))


def code_grown(found: Decorations, document: QTextDocument, more: str) -> Decorations:
    """``found`` once ``more`` was added at the end of ``document``'s last block, a code block's (a streaming
    fence: ``rendering.DocumentBody.append_code``): its last header's code and box, not every block again (a
    fence of 2,000 lines: ~10 ms at each flush's paint). Whatever else ``found`` holds is where it was."""
    if not found.headers:
        return decorations(document)
    last = found.headers[-1]
    layout = document.documentLayout()
    layout.documentSize()  # lays out what was added
    bottom = layout.blockBoundingRect(document.lastBlock()).bottom() + CODE_PADDING
    box = QRectF(last.box.left(), last.box.top(), last.box.width(), bottom - last.box.top())
    return Decorations((*found.headers[:-1], replace(last, code=last.code + more, box=box)), found.quote_bars)


def paint_underlay(painter: QPainter, found: Decorations) -> None:
    """The code blocks' tinted boxes, under the document's text (painted before it)."""
    if not found.headers:
        return
    colours = theme.current()
    radius = float(theme.METRICS["radius-small"])
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colours.color("code-bg"))
    for header in found.headers:
        painter.drawRoundedRect(header.box, radius, radius)
    painter.restore()


def paint_decorations(painter: QPainter, document: QTextDocument, found: Decorations) -> None:
    """The code headers (language, "Copy") and quote bars over ``document`` at the painter's origin."""
    if not found.headers and not found.quote_bars:
        return
    colours = theme.current()
    font = _small(document.defaultFont())
    metrics = QFontMetricsF(font)
    painter.save()
    for bar in found.quote_bars:
        painter.fillRect(bar, colours.color("quote-bar"))
    painter.setFont(font)
    for header in found.headers:
        painter.setPen(colours.color("code-border"))  # a hairline under the header row, inside the box
        painter.drawLine(header.rect.bottomLeft(), header.rect.bottomRight())
        painter.setPen(colours.color("muted-text"))
        baseline = header.rect.top() + (header.rect.height() - metrics.height()) / 2 + metrics.ascent()
        painter.drawText(QPointF(header.rect.left() + CODE_PADDING, baseline), header.language or "code")
        painter.setPen(colours.color("code-border"))
        painter.setBrush(colours.color("surface"))
        painter.drawRoundedRect(header.copy_rect, 3.0, 3.0)
        painter.setPen(colours.color("text"))
        painter.drawText(
            header.copy_rect,
            int(Qt.AlignmentFlag.AlignCenter),
            QCoreApplication.translate("MarkdownStyle", COPY_LABEL),
        )
    painter.restore()


def decoration_at(found: Decorations, point: QPointF) -> CodeHeader | None:
    """The code block whose "Copy" chip is under ``point`` (document coordinates), if any."""
    for header in found.headers:
        if header.copy_rect.contains(point):
            return header
    return None
