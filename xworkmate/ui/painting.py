"""Painting helpers the item delegates share.

A list repaints every visible row when it scrolls, which it does on most line
switches, so a row's paint is on the switching path (issue 7, SPEC §7).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFontMetrics, QPainter


def draw_text_line(
    painter: QPainter, metrics: QFontMetrics, text: str, left: float, top: float, width: float, height: float
) -> None:
    """One line of ``text`` at ``left``, centred in ``height`` below ``top``, elided to ``width``.

    Drawn at its baseline: a third of the cost of ``drawText(rect, flags, text)``,
    which lays the text out again to align it; eliding only when it does not fit.
    ``painter`` must already have the font that ``metrics`` measures.
    """
    if metrics.horizontalAdvance(text) > width:
        text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(width))
    baseline = top + (height - metrics.height()) / 2 + metrics.ascent()
    painter.drawText(QPointF(left, baseline), text)
