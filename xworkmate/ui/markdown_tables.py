"""A streaming Markdown table in parts that show as one table (issue 34 item 1; ``rendering.StreamingBody``).

Qt lays a ``QTextTable`` out whole at each change of it: a table an agent streams was rendered again whole at
each flush (1,500 rows: ~0.6 s a flush at its end, the window frozen meanwhile; 150 rows: 64 ms), and adding a
row to a laid out table costs as much. So a streaming table settles every ``rendering.TABLE_CHUNK_ROWS`` rows,
each part a document of its own, laid out once. A part that goes on with a table is rendered with the table's
header rows (Markdown has no table without them) and that header row taken out again; every part of one table
gets the whole width, shared between the columns as its first part shares it (``TableWidths``), so the columns
line up; and a part is drawn where its table's top border lies on the previous part's bottom border
(``join_gap``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from PySide6.QtGui import QTextDocument, QTextLength, QTextTable


@dataclass(frozen=True)
class TableWidths:
    """A table's width and its columns', each a percentage (of the text width; of the table's)."""

    table: float
    columns: tuple[float, ...]


def _tables(document: QTextDocument) -> list[QTextTable]:
    return [frame for frame in document.rootFrame().childFrames() if isinstance(frame, QTextTable)]


def drop_header(document: QTextDocument) -> None:
    """Take out the first table's first row: the header rows a part going on with a table was rendered with."""
    tables = _tables(document)
    if tables and tables[0].rows() > 1:
        tables[0].removeRows(0, 1)


def widths_of_last_table(document: QTextDocument) -> TableWidths | None:
    """The last table's widths as laid out now (``None``: no table)."""
    tables = _tables(document)
    if not tables:
        return None
    table, layout = tables[-1], document.documentLayout()
    frame = layout.frameBoundingRect(table)
    lefts = [
        layout.blockBoundingRect(table.cellAt(0, c).firstCursorPosition().block()).left()
        for c in range(table.columns())
    ]
    edges = [*lefts, frame.right()]
    spans = [max(right - left, 1.0) for left, right in itertools.pairwise(edges)]
    total = sum(spans)
    # The whole width: the rows still to come are longer as often as not (a first part's widths alone wrapped
    # "src/module_111/file_111.py" where "src/module_9/file_9.py" had fitted), shared as the first part shares it.
    return TableWidths(table=100.0, columns=tuple(100.0 * span / total for span in spans))


def fix_widths(document: QTextDocument, widths: TableWidths, *, first: bool, last: bool) -> None:
    """Give the first and/or last table of ``document`` these widths (a part of a table whose first part had them)."""
    tables = _tables(document)
    chosen = {id(t): t for t in ([tables[0]] if first and tables else []) + ([tables[-1]] if last and tables else [])}
    for table in chosen.values():
        if table.columns() != len(widths.columns):
            continue  # not the same table (a row of another shape): left as Qt lays it out
        fmt = table.format()
        fmt.setWidth(QTextLength(QTextLength.Type.PercentageLength, widths.table))
        fmt.setColumnWidthConstraints(
            [QTextLength(QTextLength.Type.PercentageLength, column) for column in widths.columns]
        )
        table.setFormat(fmt)


def join_gap(above: QTextDocument, below: QTextDocument) -> float:
    """How far below ``above``'s end ``below`` starts so that its first table's top border line is drawn where
    ``above``'s last table's bottom border line is (negative: the two overlap)."""
    above_tables, below_tables = _tables(above), _tables(below)
    if not above_tables or not below_tables:
        return 0.0
    last, first = above_tables[-1], below_tables[0]
    above_layout, below_layout = above.documentLayout(), below.documentLayout()
    row = last.rows() - 1
    bottoms = [
        above_layout.blockBoundingRect(last.cellAt(row, c).lastCursorPosition().block()).bottom()
        for c in range(last.columns())
    ]
    edge = last.format().cellPadding() + last.format().border()
    bottom_line = max(bottoms) + last.format().cellPadding()
    top_line = below_layout.blockBoundingRect(first.cellAt(0, 0).firstCursorPosition().block()).top() - edge
    return bottom_line - above.size().height() - top_line
