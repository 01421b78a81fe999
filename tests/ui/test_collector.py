"""Garbage holding Qt objects is freed on the GUI thread only (issue 19 item 5: the cross-thread timer crash)."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from xworkmate.ui.collector import GuiThreadCollector


class _Cycle:
    """A reference cycle that owns a running timer, as a closed window's wiring does."""

    def __init__(self) -> None:
        self.me = self
        self.timer = QTimer()
        self.timer.start(60_000)


def _allocate_in_a_worker() -> None:
    """Enough new containers that the automatic collector, if it were on, would run in this thread."""
    junk = [[] for _ in range(50_000)]
    del junk


def test_a_worker_allocating_never_frees_a_qt_timer_and_the_gui_thread_does(qapp: QApplication) -> None:
    freed_on: list[str] = []
    gc.enable()  # as in the app (the UI tests' own fixture keeps it off); the fixture restores it after
    enabled_before = gc.isenabled()
    collector = GuiThreadCollector()
    collector.start()
    try:
        cycle = _Cycle()
        # Where the cycle is freed is where its timer is destroyed (the wrapper owns the QTimer).
        watch = weakref.ref(cycle, lambda _ref: freed_on.append(threading.current_thread().name))
        del cycle
        worker = threading.Thread(target=_allocate_in_a_worker, name="worker")
        worker.start()
        worker.join()
        assert freed_on == []  # the worker crossed gc's thresholds, and nothing was collected there
        assert not gc.isenabled()
        kept = [[] for _ in range(5_000)]  # the young generation is over its threshold now
        assert collector.collect_due() > 0
        del kept
        assert freed_on == [threading.main_thread().name]
        assert watch() is None
    finally:
        collector.stop()
    assert gc.isenabled() == enabled_before  # stop() puts the automatic collector back as it was
