"""Starting the window: ``build_main_window`` and ``run_gui`` (SPEC §1, §8).

The real run shares one asyncio loop with Qt through qasync. ``smoke_test``
builds the whole window (offscreen when the caller sets
``QT_QPA_PLATFORM=offscreen``), checks that the key widgets and resources are
there, prints ``ok`` and returns 0; anything missing prints one clear line and
returns 1.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
import threading
from collections.abc import Callable
from types import TracebackType

from PySide6.QtCore import QMessageLogContext, QObject, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

import xworkmate
from xworkmate.controllers import SessionController
from xworkmate.ui.collector import GuiThreadCollector
from xworkmate.ui.i18n import install_chosen_translations
from xworkmate.ui.main_window import MainWindow
from xworkmate.ui.resources import AppResources, ResourceMissingError, load_resources
from xworkmate.ui.theme import theme_manager

log = logging.getLogger(__name__)

APP_DISPLAY_NAME = "XWorkmate"
SMOKE_TEST_EVENT_ROUNDS = 5
WARM_UP_THREAD = "xworkmate-warm-up"
REQUIRED_WIDGETS = (
    "mainSplitter",
    "taskLineList",
    "taskLineFilter",
    "newTaskLineButton",
    "archiveTaskLineButton",
    "messagePane",
    "messageList",
    "sessionKeyLabel",
    "lineStatusLabel",
    "composer",
    "sendButton",
    "stopButton",
    "rawToggle",
    "modePicker",
    "permissionPicker",
    "networkToggle",
    "providerPicker",
    "approvalArea",
    "workspacePane",
    "workspacePathLabel",
    "changeFolderButton",
    "dispatchSourcesList",
    "recreateFolderButton",
    "workspaceTree",
    "filePreview",
)


def build_main_window(controller: SessionController) -> MainWindow:
    """The full three-pane window for this controller (not shown yet)."""
    return MainWindow(controller)


def _application() -> QApplication:
    existing = QApplication.instance()
    if existing is None:
        return QApplication(sys.argv[:1])
    if not isinstance(existing, QApplication):
        raise RuntimeError("a non-widget QCoreApplication already exists; the window needs a QApplication")
    return existing


def apply_resources(app: QApplication, resources: AppResources) -> None:
    """The window icon and the stylesheet (its colour tokens filled in for the theme), as the app runs with them."""
    app.setWindowIcon(resources.icon)
    theme_manager().set_template(resources.stylesheet)


def missing_widgets(window: MainWindow) -> list[str]:
    """Names from ``REQUIRED_WIDGETS`` (and the window's own) that the built window lacks."""
    missing = [] if window.objectName() == "mainWindow" else ["mainWindow"]
    missing.extend(name for name in REQUIRED_WIDGETS if window.findChild(QObject, name) is None)
    return missing


def run_gui(controller: SessionController, *, smoke_test: bool = False) -> int:
    """Open the window and run until it closes; with ``smoke_test``, build, check, close and return."""
    app = _application()
    app.setApplicationName(APP_DISPLAY_NAME)
    app.setApplicationDisplayName(APP_DISPLAY_NAME)
    app.setApplicationVersion(xworkmate.__version__)
    app.setDesktopFileName("xworkmate")
    install_chosen_translations(app, controller.settings.home)  # issue 20: before the first widget
    try:
        apply_resources(app, load_resources())
    except ResourceMissingError as exc:
        if smoke_test:
            print(f"smoke test failed: {exc}", file=sys.stderr)
            return 1
        log.warning("starting without icon and stylesheet: %s", exc)
    window = build_main_window(controller)
    restore_excepthook = install_error_boundary(window)
    # Everything built so far lives as long as the window; moving it out of the collector's reach keeps
    # full collections short, so they do not stall the window while lines stream (~60 ms → a few ms).
    # The smoke test starts exactly as a real run does.
    gc.freeze()
    try:
        if smoke_test:
            return _smoke_test(app, window)
        window.show()
        warm_up = start_warm_up(controller)
        collector = GuiThreadCollector(app)  # Qt objects in garbage are freed on the GUI thread only
        collector.start()
        try:
            return _run_event_loop(app)
        finally:
            collector.stop()
            warm_up.join(timeout=10)  # never leave an import running into the interpreter's shutdown
    finally:
        restore_excepthook()
        gc.unfreeze()  # for callers that go on (tests); the command's own exit is xworkmate.entry's


def install_error_boundary(window: MainWindow) -> Callable[[], None]:
    """ERR-1 for window operations: a failure no slot expected (the database went read-only, the
    disk filled) becomes one line in the window's status, and its traceback goes to the log file.
    Returns the function that puts the previous hook back."""
    from xworkmate.ui.operations import failure_line

    previous = sys.excepthook

    def on_unhandled(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if not isinstance(error, Exception):  # KeyboardInterrupt, SystemExit: not ours to swallow
            previous(kind, error, trace)
            return
        log.error("window operation failed", exc_info=(kind, error, trace))
        database_url = window.controller.settings.effective_database_url
        window.show_error(failure_line(error, database_url))

    sys.excepthook = on_unhandled

    def restore() -> None:
        if sys.excepthook is on_unhandled:
            sys.excepthook = previous

    return restore


def start_warm_up(controller: SessionController) -> threading.Thread:
    """Load the turn code on a worker thread while the person reads the window (issue 7).

    Importing it on the UI thread stalls the window once; on a worker the GIL
    is handed back every few milliseconds, so the window keeps painting.
    """

    def warm_up() -> None:
        try:
            controller.warm_up()
        except Exception:  # the first turn loads it again and reports what is wrong
            log.warning("could not load the turn code ahead of the first turn", exc_info=True)

    thread = threading.Thread(target=warm_up, name=WARM_UP_THREAD, daemon=True)
    thread.start()
    return thread


def _smoke_test(app: QApplication, window: MainWindow) -> int:
    window.persist_ui_state = False  # a check run must not move the person's saved layout
    previous_handler = None
    if app.platformName() == "offscreen":
        previous_handler = qInstallMessageHandler(_without_offscreen_note)
        _forward_to[:] = [previous_handler]
    try:
        window.show()
        for _ in range(SMOKE_TEST_EVENT_ROUNDS):
            app.processEvents()
    finally:
        if app.platformName() == "offscreen":
            qInstallMessageHandler(previous_handler)
    problems = [f"missing widget {name}" for name in missing_widgets(window)]
    if not window.isVisible():
        problems.append("the main window is not visible")
    if window.task_model.rowCount() < 1:
        problems.append("the task line list is empty (the main line should always exist)")
    if window.shown_key != controller_key(window):
        problems.append("the panes do not show the controller's current line")
    window.close()
    app.processEvents()
    window.deleteLater()
    if problems:
        print(f"smoke test failed: {'; '.join(problems)}", file=sys.stderr)
        return 1
    print("ok")
    return 0


# The offscreen platform says this whenever a window with size constraints is
# shown; it is about the platform plugin, not about XWorkmate, so the smoke
# test's output stays exactly "ok". Every other Qt message goes through.
OFFSCREEN_NOTE = "This plugin does not support propagateSizeHints()"
_forward_to: list[Callable[[QtMsgType, QMessageLogContext, str], None] | None] = [None]


def _without_offscreen_note(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    if message == OFFSCREEN_NOTE:
        return
    forward = _forward_to[0]
    if forward is not None:
        forward(mode, context, message)
    else:
        print(message, file=sys.stderr)


def controller_key(window: MainWindow) -> str:
    return window.controller.current_key


def _run_event_loop(app: QApplication) -> int:
    """Run Qt and asyncio as one loop (qasync) until the application quits."""
    os.environ.setdefault("QT_API", "pyside6")
    import qasync  # type: ignore[import-untyped]  # imported after PySide6, so qasync binds to it

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    # A plain future completed synchronously from aboutToQuit: it is done before
    # Qt's loop returns, so run_until_complete ends cleanly when the last window closes.
    quit_requested: asyncio.Future[int] = loop.create_future()

    def on_about_to_quit() -> None:
        if not quit_requested.done():
            quit_requested.set_result(0)

    app.aboutToQuit.connect(on_about_to_quit)
    try:
        with loop:
            return int(loop.run_until_complete(quit_requested))
    finally:
        app.aboutToQuit.disconnect(on_about_to_quit)
        asyncio.set_event_loop(None)
