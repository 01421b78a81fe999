"""Issue 16: opening a 5,000-line diff in the Changes tab's ``diffView`` (target <= 50 ms).

Measured: ``DiffView.set_patch`` of a 5,000-line unified diff (hunks of context, removed and added
lines, each kind coloured with a full-width tint), then the events it posts and the first paint of
its viewport. Reference, in the same run: the same text set into a bare ``QPlainTextEdit``
(``setPlainText``, no colours) and painted the same way.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable

from benchmarks.common import Figure, median, percentile
from benchmarks.gui_common import application

DIFF_LINES = 5_000
SAMPLES = 30


def five_thousand_line_diff() -> str:
    lines = ["diff --git a/src/big_module.py b/src/big_module.py", "index 3f2a1b0..9c8d7e6 100644"]
    lines += ["--- a/src/big_module.py", "+++ b/src/big_module.py"]
    start = 1
    while len(lines) < DIFF_LINES:
        lines.append(f"@@ -{start},10 +{start},11 @@ def function_{start}(argument, other_argument):")
        lines += [f"     context_{start}_{i} = compute(argument, {i})  # unchanged" for i in range(3)]
        lines += [f"-    old_value_{start}_{i} = legacy_call(argument, other_argument, {i})" for i in range(3)]
        lines += [f"+    new_value_{start}_{i} = modern_call(argument, other, {i}, flag=True)" for i in range(4)]
        lines += [f"     trailing_{start}_{i} = finish(argument)" for i in range(4)]
        start += 12
    return "\n".join(lines[:DIFF_LINES]) + "\n"


def _time_open(make: Callable[[], object], put: Callable[[object, str], None], text: str) -> list[float]:
    from PySide6.QtWidgets import QPlainTextEdit

    app = application()
    times: list[float] = []
    for _ in range(SAMPLES):
        widget = make()
        assert isinstance(widget, QPlainTextEdit)
        widget.resize(640, 800)
        widget.show()
        app.processEvents()
        started = time.perf_counter()
        put(widget, text)
        app.processEvents()
        widget.viewport().repaint()
        times.append((time.perf_counter() - started) * 1000)
        assert widget.document().blockCount() >= DIFF_LINES
        widget.close()
        widget.deleteLater()
        app.processEvents()
    return times


def changes_view() -> list[Figure]:
    from PySide6.QtWidgets import QPlainTextEdit

    from xworkmate.ui.changes_view import DiffView

    text = five_thousand_line_diff()
    application()
    _time_open(DiffView, lambda w, t: w.set_patch(t), text)  # warm up: fonts, first layouts
    ours = _time_open(DiffView, lambda w, t: w.set_patch(t), text)
    bare = _time_open(QPlainTextEdit, lambda w, t: w.setPlainText(t), text)
    p95 = percentile(ours, 95)
    return [
        Figure(
            name="open a 5,000-line diff in diffView (p95)",
            value=p95,
            unit="ms",
            target="<= 50 ms",
            met=p95 <= 50,
            reference=percentile(bare, 95),
            reference_label="ms p95, the same text in a bare QPlainTextEdit (no colours)",
            notes={"median_ms": median(ours), "reference_median_ms": median(bare), "samples": SAMPLES},
        )
    ]


def run() -> list[Figure]:
    return changes_view()


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
