"""2. Switching with 5,000 lines and 500,000 messages; 3. opening a line with 100,000 messages; 6. idle memory.

Each runs in its own process (see ``benchmarks.__main__``) so memory figures
are not polluted by the others.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time

from PySide6.QtCore import QEventLoop

from benchmarks.common import Figure, median, open_controller, percentile, rss_mb, seed, temp_home
from benchmarks.gui_common import app_loop, application, settle, shown_window, switch_and_settle

LINES = 5_000
MESSAGES = 500_000
BIG_LINE = 100_000
SWITCHES = 300


def _reference_switch_ms(samples: int) -> list[float]:
    """A bare QListView over 5,000 strings whose selection updates a label: Qt's own floor."""
    from PySide6.QtCore import QStringListModel
    from PySide6.QtWidgets import QLabel, QListView, QSplitter

    app = application()
    model = QStringListModel([f"Line {n}" for n in range(LINES)])
    splitter = QSplitter()
    view = QListView()
    view.setModel(model)
    view.setUniformItemSizes(True)
    label = QLabel()
    splitter.addWidget(view)
    splitter.addWidget(label)
    view.selectionModel().currentChanged.connect(lambda cur, _prev: label.setText(str(cur.data())))
    splitter.resize(1280, 800)
    splitter.show()
    app.processEvents()
    times = []
    rng = random.Random(2)
    for _ in range(samples):
        row = rng.randrange(LINES)
        start = time.perf_counter()
        view.setCurrentIndex(model.index(row))
        app.processEvents()
        label.repaint()
        view.viewport().repaint()
        times.append((time.perf_counter() - start) * 1000)
    splitter.close()
    return times


def switching() -> list[Figure]:
    with temp_home() as settings:
        store, controller = open_controller(settings)
        t0 = time.perf_counter()
        keys, big_key = seed(
            store, settings, lines=LINES, messages_per_line=MESSAGES // LINES, big_line_messages=BIG_LINE
        )
        seed_s = time.perf_counter() - t0
        assert big_key is not None
        application()
        loop = app_loop()  # the window's reads on its store worker, as in the app (not at once on the GUI thread)
        rss_before_window = rss_mb()
        window = shown_window(controller)
        rss_idle = rss_mb()

        rng = random.Random(1)
        switch_and_settle(window, keys[0])  # warm caches once
        # ISO-5, ISO-9 at size (issue 33: moved from the unit suite): switching never resets the list.
        resets: list[str] = []
        window.task_model.modelReset.connect(lambda: resets.append("reset"))
        window.task_model.layoutChanged.connect(lambda: resets.append("layout"))
        times = []
        for _ in range(SWITCHES):
            times.append(switch_and_settle(window, rng.choice(keys)) * 1000)
            # A person's next click comes after this one's work is done (the switch stored, the reads after its
            # paint): not timed, as ``bench_slow_database``; clicks back to back would time the queue instead.
            while window.settling:
                application().processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
        list_resets = len(resets)
        reference = _reference_switch_ms(SWITCHES)

        # 3. opening the line with 100,000 messages: first painted screen and memory growth.
        small_open = [switch_and_settle(window, rng.choice(keys)) * 1000 for _ in range(5)]
        settle()
        rss_before_big = rss_mb()
        big_open_ms = switch_and_settle(window, big_key) * 1000
        rows_after_open = window.message_model.rowCount()
        rss_after_big = rss_mb()
        fetch_start = time.perf_counter()
        window.message_model.fetchMore(window.message_model.index(0, 0).parent())
        fetch_ms = (time.perf_counter() - fetch_start) * 1000
        rows_after_fetch = window.message_model.rowCount()
        window.close()
        settle()
        store.close()
        loop.close()
        asyncio.set_event_loop(None)

    p50, p95 = percentile(times, 50), percentile(times, 95)
    growth = rss_after_big - rss_before_big
    return [
        Figure(
            name="switching p95 (5k lines, 500k messages)",
            value=p95,
            unit="ms",
            target="<= 16 ms",
            met=p95 <= 16,
            reference=percentile(reference, 95),
            reference_label="ms bare QListView p95",
            notes={"p50_ms": p50, "p95_ms": p95, "max_ms": max(times), "samples": SWITCHES, "seed_s": seed_s},
        ),
        Figure(
            name="list resets while switching (5k lines)",
            value=list_resets,
            unit="resets",
            target="0 (ISO-5, ISO-9)",
            met=list_resets == 0,
            reference=SWITCHES,
            reference_label="switches made",
        ),
        Figure(
            name="open 100k-message line: first paint",
            value=big_open_ms,
            unit="ms",
            target="<= 50 ms",
            met=big_open_ms <= 50,
            reference=median(small_open),
            reference_label="ms opening a 100-message line",
            notes={
                "rows_loaded_first": rows_after_open,
                "rows_after_one_fetch_more": rows_after_fetch,
                "fetch_more_ms": fetch_ms,
            },
        ),
        Figure(
            name="open 100k-message line: memory growth",
            value=growth,
            unit="MB",
            target="<= 30 MB",
            met=growth <= 30,
            reference=rss_before_big,
            reference_label="MB RSS before",
        ),
        Figure(
            name="idle RSS with 5,000 lines listed",
            value=rss_idle,
            unit="MB",
            target="<= 200 MB",
            met=rss_idle <= 200,
            reference=rss_before_window,
            reference_label="MB before the window was built",
        ),
    ]


def run() -> list[Figure]:
    return switching()


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
