"""Python's cycle collector runs on the GUI thread only (issue 19 item 5: the cross-thread timer crash).

The automatic collector runs in whichever thread happens to allocate when its
thresholds are crossed: a worker running git, a search or a sandboxed command.
If a cycle it frees holds a Qt object (a closed window, a card, anything with a
running ``QTimer``), that object is destroyed on the worker thread. Qt cannot
stop its timers there ("QObject::~QObject: Timers cannot be stopped from
another thread") and the GUI thread later fires a timer of a freed object: a
segmentation fault in ``QTimerInfoList::activateTimers``, seen in full UI test
runs and, under load, in the app.

``GuiThreadCollector`` turns the automatic collector off and does its work from
a timer on the GUI thread instead, generation by generation with the same
thresholds, so what it frees is freed where Qt expects it.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """While it runs, ``gc`` collects only here, on the thread this object lives on (the GUI thread)."""

    def __init__(self, parent: QObject | None = None, *, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self.setObjectName("guiThreadCollector")
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect_due)

    def start(self) -> None:
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Back to the automatic collector, after one full collection here."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()

    def collect_due(self) -> int:
        """Collect the generations whose thresholds were crossed, as the automatic collector would."""
        young, middle, old = gc.get_count()
        first, second, third = self._thresholds
        if young <= first:
            return 0
        freed = gc.collect(0)
        if middle > second:
            freed += gc.collect(1)
            if old > third:
                freed += gc.collect(2)
        return freed
