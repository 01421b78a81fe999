"""When a start-up script's window was first painted, and when its task list was (issue 19, item 7).

``install(app)`` puts an application-wide event filter on ``app`` that notes the wall-clock time of the
first paint of any widget (``first_paint``), of the first paint of a task list with the person's lines
(``filled``: the app's first list, ``firstTaskLineList``, painted from its first read before the stack
loads, or else its window's own ``taskLineList``, which it paints only once it is filled), of the opening
page's composer (``input_ready``: ``firstComposer``, which takes keys while the window's code loads), and of the
window's own list (``ready``: painted over the open store; the window is usable once the work its start left
for right after that paint is done too, which ``startup_phases`` notes: ``bench_startup``), then removes
itself. The times are written
as JSON to the file ``XWORKMATE_BENCH_MARKS`` names; ``bench_startup`` compares them with the time it
started the process. The same filter runs in the app and in the bare references, so both pay for it.

``note(name)`` and ``add_duration(name, seconds)`` add the phases a script or ``startup_phases`` notes on
the way (issue 34, item 4: python started, the stack imported, the store opened, the panes built…); they are
written with the marks, under ``"phases"`` (wall-clock times) and ``"durations"`` (summed seconds), at the
list's paint and again when the process ends (what was noted after the paint is in the second).

Importing this module loads nothing of Qt: ``app_startup.py`` imports it before the app, which loads PySide6
itself, after its own first modules, as the command does (``xworkmate.lazy.BUILTIN_IMPORT``).
"""

from __future__ import annotations

import atexit
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

MARKS_ENV = "XWORKMATE_BENCH_MARKS"
LIST_NAME = "taskLineList"
FIRST_LIST_NAME = "firstTaskLineList"  # xworkmate.ui.lines.first_list: the lines painted while the rest loads
FIRST_COMPOSER_NAME = "firstComposer"  # xworkmate.ui.shell.OpeningPage: typed into while the rest loads

PROBE_MS = 4
"""How often the lag probe asks between the first list's paint and the window's own (``_LagProbe``)."""

PHASES: dict[str, float] = {}
DURATIONS: dict[str, float] = {}


def note(name: str, at: float | None = None) -> None:
    """The wall-clock time a phase was first reached (now, or ``at``); any thread may note."""
    PHASES.setdefault(name, time.time() if at is None else at)


def add_duration(name: str, seconds: float) -> None:
    DURATIONS[name] = DURATIONS.get(name, 0.0) + seconds


def _marks(app: QApplication, path: Path) -> Any:
    """The event filter that notes the marks (its class is made here: PySide6 loads with the application)."""
    from PySide6.QtCore import QElapsedTimer, QEvent, QObject, Qt, QTimer

    class _LagProbe(QObject):
        """From the first list's paint to the window's own list's: how late a timer asking every ``PROBE_MS``
        comes on the GUI thread (a key pressed meanwhile waits as long; issue 34 item 4)."""

        def __init__(self, parent: QObject) -> None:
            super().__init__(parent)
            self.lags: list[tuple[float, float]] = []  # (when, how late)
            self._clock = QElapsedTimer()
            self._clock.start()
            self._timer = QTimer(self)
            self._timer.setTimerType(Qt.TimerType.PreciseTimer)
            self._timer.setInterval(PROBE_MS)
            self._timer.timeout.connect(self._tick)
            self._timer.start()

        def _tick(self) -> None:
            self.lags.append((time.time(), max(0.0, self._clock.restart() - PROBE_MS) / 1000))

        def stop(self) -> None:
            self._timer.stop()
            self._tick()  # the stretch up to the window's own paint counts too

    class _Marks(QObject):
        def __init__(self, app: QApplication, path: Path) -> None:
            super().__init__(app)
            self._app = app
            self._path = path
            self.marks: dict[str, float] = {}
            self._probe: _LagProbe | None = None
            atexit.register(self._write_final)

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                now = time.time()
                self.marks.setdefault("first_paint", now)
                parent = watched.parent()
                names = {watched.objectName(), parent.objectName() if parent is not None else ""}
                if FIRST_LIST_NAME in names and "filled" not in self.marks:
                    self._probe = _LagProbe(self)
                if FIRST_LIST_NAME in names or LIST_NAME in names:
                    self.marks.setdefault("filled", now)
                if FIRST_COMPOSER_NAME in names and "input_ready" not in self.marks:
                    self.marks["input_ready"] = now
                    self.marks["cpu_input_ready"] = time.process_time()
                if LIST_NAME in names:
                    if self._probe is not None:
                        self._probe.stop()
                        self._note_lags(self._probe.lags)
                        self._probe = None
                    self.marks["ready"] = now
                    self.marks["cpu_ready"] = time.process_time()  # every thread's CPU time: steadier on a busy machine
                    self._write()
                    self._app.removeEventFilter(self)
            return False

        def _note_lags(self, lags: list[tuple[float, float]]) -> None:
            """The probe's worst lag while the window's code loaded (up to ``code_loaded``, when it loads on a
            worker), and over the whole stretch to the window's own paint (its panes are built in it)."""
            loaded = PHASES.get("code_loaded", float("inf"))
            during = [lag for when, lag in lags if when <= loaded]
            self.marks["lag_max_loading"] = max(during, default=0.0)
            self.marks["lag_max_to_window"] = max((lag for _, lag in lags), default=0.0)
            self.marks["lag_ticks_loading"] = float(len(during))

        def _write(self) -> None:
            self._path.write_text(
                json.dumps({**self.marks, "phases": PHASES, "durations": DURATIONS}), encoding="utf-8"
            )

        def _write_final(self) -> None:
            """Again at the process's end: the phases noted after the usable paint (the work it left) are in too."""
            if "ready" in self.marks:
                self._write()

    return _Marks(app, path)


def install(app: QApplication) -> None:
    """Note the marks for this process if ``XWORKMATE_BENCH_MARKS`` names a file; else do nothing."""
    path = os.environ.get(MARKS_ENV)
    if path:
        app.installEventFilter(_marks(app, Path(path)))
