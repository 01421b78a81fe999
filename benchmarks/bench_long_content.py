"""Issue 34 (LOOP-1, item 1): what an agent sends long, shown without a dropped frame.

Measured, each beside a reference of the same kind measured in the same run:

- a streaming answer that writes a file of 2,000 lines in one code fence: each flush near its end (the
  answer's text given to the row's ``StreamingBody``, its height asked and its newest screenful painted,
  as the conversation does) against a flush near the end of an answer of the same length in paragraphs
  (which settles as it goes). Nothing inside an open fence settles: before, the whole fence was rendered
  again at each flush (131 ms at its end); the same for a numbered list of 2,500 items (no blank line:
  before, 84 ms a flush at 1,000 items); the same for a Markdown table of 1,500 rows (no blank line, and
  laid out whole at each change), against a flush near the end of a table of 150 rows;
- a tool card whose output is one minified line of 64 KB (the native tool's cap) built and painted, against
  the same card of a line as long as a card shows (``LONG_LINE_CHARS``; before: 147 ms, 13,000 px tall);
- a diff of a minified file's line of 1 MB changed, set into ``diffView`` and painted, against the same diff
  of lines as long as a diff shows (before: ~0.5 s, and 0.13 s at each sideways scroll step).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable

from benchmarks.common import Figure, median, percentile
from benchmarks.gui_common import application, timed

FENCE_LINES = 2_000
TABLE_ROWS = 1_500
FLUSH_CHARS = 300
LAST_FLUSHES = 30
SAMPLES = 20


def _flushes(answer: str) -> list[float]:
    """Seconds of each of the last ``LAST_FLUSHES`` flushes of ``answer`` streamed ``FLUSH_CHARS`` at a time."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    from xworkmate.ui.rendering import StreamingBody

    app = application()
    body = StreamingBody(app.font(), 600)
    image = QImage(620, 700, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    times: list[float] = []
    ends = list(range(FLUSH_CHARS, len(answer) + FLUSH_CHARS, FLUSH_CHARS))
    for end in ends:
        start = time.perf_counter()
        body.update(answer[:end])
        height = body.height()
        body.draw(painter, QRectF(0, max(height - 700, 0), 620, 700), app.palette())
        times.append(time.perf_counter() - start)
    painter.end()
    return times[-LAST_FLUSHES:]


def _against(name: str, flushes: list[float], reference: list[float], label: str, **notes: float) -> Figure:
    """A flush near the end of a streaming answer (p95) against one near the end of ``reference``'s answer."""
    ratio = percentile(flushes, 95) / percentile(reference, 95)
    return Figure(
        name=f"streaming {name}: a flush near its end (p95) / {label}",
        value=ratio,
        unit="x",
        target="<= 2x",
        met=ratio <= 2.0,
        reference=percentile(reference, 95) * 1000,
        reference_label=f"ms p95, a flush near the end of {label.removeprefix('as long in ')}",
        notes={"p95_ms": percentile(flushes, 95) * 1000, "median_ms": median(flushes) * 1000, **notes},
    )


def _table(rows: int) -> str:
    row = "| src/module_{n}/file_{n}.py | {size} KB | `fn_{n}` changed, **tests** pass |\n"
    return "| file | size | notes |\n|---|---:|---|\n" + "".join(row.format(n=n, size=37 * n) for n in range(rows))


def streaming_fence() -> list[Figure]:
    code = "\n".join(f"    value_{n} = compute({n}, name='x')  # note {n}" for n in range(FENCE_LINES))
    fenced = f"Here is the file:\n\n```python\n{code}\n"
    prose = "\n\n".join(
        f"Paragraph {n}: the change keeps the old name working and adds a test for the new one." for n in range(2_000)
    )[: len(fenced)]
    listed = "Findings:\n\n" + "".join(f"{n + 1}. finding {n}: the old name still works\n" for n in range(2_500))
    paragraphs, label = _flushes(prose), "as long in paragraphs"
    # Issue 34 item 1: a table has no blank line either, and Qt lays a table out whole at each change of it. A table
    # paints more than prose does (its borders and cells): its reference is a short table, of 150 rows.
    long_table = _flushes(_table(TABLE_ROWS))
    return [
        _against(f"a {FENCE_LINES:,}-line code fence", _flushes(fenced), paragraphs, label, chars=len(fenced)),
        _against("a list of 2,500 items", _flushes(listed[: len(fenced)]), paragraphs, label),
        _against(
            f"a table of {TABLE_ROWS:,} rows",
            long_table,
            _flushes(_table(150)),
            "a table of 150 rows",
            paragraphs_p95_ms=percentile(paragraphs, 95) * 1000,
        ),
    ]


def _timed(make: Callable[[], object]) -> float:
    """Seconds p95 of ``SAMPLES`` calls of ``make``."""
    return percentile([timed(make) for _ in range(SAMPLES)], 95)


def long_lines() -> list[Figure]:
    from PySide6.QtGui import QImage, QPainter

    from xworkmate.presentation.cards import tool_card
    from xworkmate.presentation.files import LONG_LINE_CHARS
    from xworkmate.ui.changes.diff_view import DiffView
    from xworkmate.ui.rendering import build_document

    app = application()
    image = QImage(620, 800, QImage.Format.Format_ARGB32)

    def card(output: str) -> None:
        built = tool_card({"name": "run_command", "arguments": {"command": "cat dist/app.min.js"}, "ok": True}, output)
        document = build_document("", "tool", app.font(), 600, card=built)
        painter = QPainter(image)
        document.drawContents(painter)
        painter.end()

    minified = "var a=" + "x" * 65_530
    shown_whole = minified[:LONG_LINE_CHARS]
    card_big, card_shown = _timed(lambda: card(minified)), _timed(lambda: card(shown_whole))
    card_ratio = card_big / card_shown

    view = DiffView()
    view.resize(800, 600)
    view.show()

    def diff(patch: str) -> None:
        view.set_patch(patch)
        view.repaint()
        app.processEvents()

    head = "--- a/dist/app.min.js\n+++ b/dist/app.min.js\n@@ -1 +1 @@\n"
    megabyte = head + "-var a=" + "x" * 999_994 + "\n+var a=" + "y" * 1_000_000 + "\n"
    shown = head + "-var a=" + "x" * (LONG_LINE_CHARS - 7) + "\n+var a=" + "y" * (LONG_LINE_CHARS - 7) + "\n"
    diff_big, diff_shown = _timed(lambda: diff(megabyte)), _timed(lambda: diff(shown))
    diff_ratio = diff_big / diff_shown
    view.close()
    return [
        Figure(
            name="a tool card of one 64 KB output line, built and painted (p95) / of a line as long as it shows",
            value=card_ratio,
            unit="x",
            target="<= 2x",
            met=card_ratio <= 2.0,
            reference=card_shown * 1000,
            reference_label="ms p95, the card of a line as long as it shows",
            notes={"card_p95_ms": card_big * 1000},
        ),
        Figure(
            name="diffView: a minified line of 1 MB changed, set and painted (p95) / lines as long as it shows",
            value=diff_ratio,
            unit="x",
            target="<= 4x",  # what is left grows with the text: the patch is split into lines, cut, kept whole
            met=diff_ratio <= 4.0,
            reference=diff_shown * 1000,
            reference_label="ms p95, the diff of lines as long as it shows",
            notes={"diff_p95_ms": diff_big * 1000},
        ),
    ]


def run() -> list[Figure]:
    return [*streaming_fence(), *long_lines()]


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
