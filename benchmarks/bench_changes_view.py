"""Issue 16: opening a 5,000-line diff in the Changes tab's ``diffView`` (target <= 50 ms); issue 34: listing
a turn of 30,000 changed files (an ``npm install``) in its ``changesFileList`` costs what 30 files do.

Measured: ``DiffView.set_patch`` of a 5,000-line unified diff (hunks of context, removed and added
lines, each kind coloured with a full-width tint) and the first paint of its viewport; then, beside
it, the time until every line is in the document (the first screenfuls go in at once, the rest in
chunks from the event loop). Reference, in the same run: the same text set into a bare
``QPlainTextEdit`` (``setPlainText``, no colours, all at once) and painted the same way.
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


def _time_open(
    make: Callable[[], object], put: Callable[[object, str], None], text: str
) -> tuple[list[float], list[float]]:
    """(time to the first painted screen, time until the whole text is in the document), in ms."""
    from PySide6.QtWidgets import QPlainTextEdit

    app = application()
    first: list[float] = []
    whole: list[float] = []
    for _ in range(SAMPLES):
        widget = make()
        assert isinstance(widget, QPlainTextEdit)
        widget.resize(640, 800)
        widget.show()
        app.processEvents()
        started = time.perf_counter()
        put(widget, text)
        widget.viewport().repaint()
        first.append((time.perf_counter() - started) * 1000)
        while getattr(widget, "loading", False) or widget.document().blockCount() < DIFF_LINES:
            app.processEvents()
        whole.append((time.perf_counter() - started) * 1000)
        widget.close()
        widget.deleteLater()
        app.processEvents()
    return first, whole


def changes_view() -> list[Figure]:
    from PySide6.QtWidgets import QPlainTextEdit

    from xworkmate.ui.changes.diff_view import DiffView

    text = five_thousand_line_diff()
    application()
    _time_open(DiffView, lambda w, t: w.set_patch(t), text)  # warm up: fonts, first layouts
    first, whole = _time_open(DiffView, lambda w, t: w.set_patch(t), text)
    bare_first, bare_whole = _time_open(QPlainTextEdit, lambda w, t: w.setPlainText(t), text)
    p95 = percentile(first, 95)
    return [
        Figure(
            name="open a 5,000-line diff in diffView: first paint (p95)",
            value=p95,
            unit="ms",
            target="<= 50 ms",
            met=p95 <= 50,
            reference=percentile(bare_first, 95),
            reference_label="ms p95, the same text set into a bare QPlainTextEdit and painted (no colours)",
            notes={"median_ms": median(first), "reference_median_ms": median(bare_first), "samples": SAMPLES},
        ),
        Figure(
            name="the same diff: all 5,000 lines in the document (p95)",
            value=percentile(whole, 95),
            unit="ms",
            target="(none: the rest follows from the event loop)",
            met=True,
            reference=percentile(bare_whole, 95),
            reference_label="ms p95, bare QPlainTextEdit (all at once)",
            notes={"median_ms": median(whole), "reference_median_ms": median(bare_whole)},
        ),
    ]


BIG_TURN_FILES = 30_000
SMALL_TURN_FILES = 30


def _time_list(count: int) -> tuple[list[float], float]:
    """ms the GUI thread takes to show a turn of ``count`` added files in ``changesFileList`` and paint it (model,
    columns, rows, the first row selected); the ``FileListing`` is made beforehand, as the tab's worker does (its
    ms, the second value: the worker's, beside the checkpoint's own read of the files)."""
    from xworkmate.domain.checkpoints import FileChange, FileChangeKind
    from xworkmate.ui.changes.changes_view import ChangedFilesList, FileListing

    app = application()
    files = [
        FileChange(
            path=f"node_modules/pkg-{n // 100}/lib/file-{n}.js",
            kind=FileChangeKind.ADDED,
            additions=n % 90 + 1,
            deletions=0,
        )
        for n in range(count)
    ]
    made = time.perf_counter()
    listing = FileListing.of(files)
    made_ms = (time.perf_counter() - made) * 1000
    times: list[float] = []
    for _ in range(SAMPLES):
        view = ChangedFilesList()
        view.resize(360, 300)
        view.show()
        app.processEvents()
        started = time.perf_counter()
        view.show_files(listing)
        view.setCurrentIndex(view.file_model.index(0, 1))
        view.viewport().repaint()
        times.append((time.perf_counter() - started) * 1000)
        view.close()
        view.deleteLater()
        app.processEvents()
    return times, made_ms


def changed_files_list() -> list[Figure]:
    _time_list(SMALL_TURN_FILES)  # warm up
    (big, made_ms), (small, _) = _time_list(BIG_TURN_FILES), _time_list(SMALL_TURN_FILES)
    ratio = percentile(big, 95) / percentile(small, 95)
    return [
        Figure(
            name=f"list a turn of {BIG_TURN_FILES:,} changed files in changesFileList (p95) / {SMALL_TURN_FILES} files",
            value=ratio,
            unit="x",
            target="<= 2x",
            met=ratio <= 2,
            reference=percentile(small, 95),
            reference_label=f"ms p95, a turn of {SMALL_TURN_FILES} files listed and painted the same way",
            notes={
                "big_p95_ms": percentile(big, 95),
                "big_median_ms": median(big),
                "small_median_ms": median(small),
                "big_listing_made_on_the_worker_ms": made_ms,
            },
        )
    ]


def run() -> list[Figure]:
    return [*changes_view(), *changed_files_list()]


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
