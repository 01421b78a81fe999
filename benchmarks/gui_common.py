"""Window helpers for the GUI benchmarks (offscreen)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QMessageLogContext, QObject, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QLabel

from xworkmate.controllers import SessionController
from xworkmate.ui.app import apply_resources, build_main_window
from xworkmate.ui.resources import load_resources
from xworkmate.ui.window.main_window import MainWindow


def _quiet_offscreen(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    # The offscreen platform warns on every top-level resize; nothing to do with us.
    if "propagateSizeHints" not in message:
        print(message, file=sys.stderr)


qInstallMessageHandler(_quiet_offscreen)


def application() -> QApplication:
    """The application, styled as ``run_gui`` styles it (the stylesheet changes what painting costs)."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    app = QApplication([])
    apply_resources(app, load_resources())
    return app


def app_loop() -> asyncio.AbstractEventLoop:
    """The window's loop, as ``run_gui`` has it, set as current: the work the window hands off (``run_off_thread``:
    the store worker's reads, the loop's executor) runs off the GUI thread, as in the app. Without one, a window
    runs that work at once on the GUI thread (as a widget test drives it), which the app never does."""
    os.environ.setdefault("QT_API", "pyside6")
    from xworkmate.ui.event_loop import AppEventLoop  # the app's loop (ui/start.py), after PySide6

    loop: asyncio.AbstractEventLoop = AppEventLoop(application())
    asyncio.set_event_loop(loop)
    return loop


def shown_window(controller: SessionController) -> MainWindow:
    window = build_main_window(controller)
    window.resize(1280, 800)
    window.show()
    settle()
    return window


def settle(rounds: int = 3) -> None:
    app = application()
    for _ in range(rounds):
        app.processEvents()


def switch_and_settle(window: MainWindow, key: str) -> float:
    """Select ``key`` in the list as a click would, process events until all panes show it and are painted."""
    label = window.findChild(QLabel, "sessionKeyLabel")
    assert label is not None
    start = time.perf_counter()
    index = window.task_list.proxy_index_of(key)
    window.task_pane.list_view.setCurrentIndex(index)
    app = application()
    app.processEvents()
    while key not in label.text():  # the line's read comes from the store worker: wait for it as the loop does
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    # The panes' paint requests are posted events: one more round paints them (the offscreen
    # platform really rasterises). Forcing repaint() here would paint everything twice.
    app.processEvents()
    return time.perf_counter() - start


def find(window: MainWindow, name: str) -> QObject:
    found = window.findChild(QObject, name)
    assert found is not None, name
    return found


def timed(func: Callable[[], object]) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start
