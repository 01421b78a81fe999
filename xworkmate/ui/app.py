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
import signal
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, QMessageLogContext, QObject, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

import xworkmate
from xworkmate.controllers import SessionController
from xworkmate.controllers.app import describe_database_url
from xworkmate.controllers.views import FirstRead, read_first
from xworkmate.ui.background import qasync_loop
from xworkmate.ui.collector import GuiThreadCollector
from xworkmate.ui.i18n import install_chosen_translations
from xworkmate.ui.main_window import MainWindow
from xworkmate.ui.opening import Opening, first_page_for
from xworkmate.ui.resources import AppResources, ResourceMissingError, load_resources
from xworkmate.ui.theme import theme_manager

log = logging.getLogger(__name__)

APP_DISPLAY_NAME = "XWorkmate"
SMOKE_TEST_EVENT_ROUNDS = 5
WARM_UP_THREAD = "xworkmate-warm-up"
OPENING_THREAD = "xworkmate-store-opening"
UNPAINTED_START_MS = 250  # a window that is never painted (minimised, no screen) still opens its store
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


def run_gui(controller: SessionController | Opening, *, smoke_test: bool = False) -> int:
    """Open the window and run until it closes; with ``smoke_test``, build, check, close and return.

    Given an ``Opening`` (what ``xworkmate gui`` does), the window shows first and its store opens on a
    worker right after the first paint (issue 19, item 7); the smoke test then checks the window once
    its panes are built. Given an open controller, the window is built over it before it shows."""
    app = _application()
    app.setApplicationName(APP_DISPLAY_NAME)
    app.setApplicationDisplayName(APP_DISPLAY_NAME)
    app.setApplicationVersion(xworkmate.__version__)
    app.setDesktopFileName("xworkmate")
    home = controller.home if isinstance(controller, Opening) else controller.settings.home
    install_chosen_translations(app, home)  # issue 20: before the first widget
    try:
        apply_resources(app, load_resources())
    except ResourceMissingError as exc:
        if smoke_test:
            print(f"smoke test failed: {exc}", file=sys.stderr)
            return 1
        log.warning("starting without icon and stylesheet: %s", exc)
    if isinstance(controller, Opening):
        return _run_opening(app, controller, smoke_test=smoke_test)
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


class StoreOpening(QObject):
    """Opens the store for a window shown without a controller, right after its first paint.

    ``attached(controller)`` is called on the GUI thread once the window has its panes;
    ``failed(code)`` once the opening page says why the store did not open.

    The open runs on a daemon thread of its own (``worker``), not the loop's executor: closing the window
    abandons it (issue 19). Nothing then waits for it — not the close, not the loop's end, not the process's
    exit, which a server that never answers would hold for its whole connect timeout — and its answer is
    dropped when it comes, the store it opened closed (``_PendingOpen``).
    """

    def __init__(
        self,
        window: MainWindow,
        opening: Opening,
        *,
        attached: Callable[[SessionController], None],
        failed: Callable[[int], None],
    ) -> None:
        super().__init__(window)
        self.setObjectName("storeOpening")
        self._window = window
        self._opening = opening
        self._attached = attached
        self._failed = failed
        self._started = False
        self._pending = _PendingOpen()
        self.worker: threading.Thread | None = None  # the open's thread, once started (tests join it)
        self.painted = False  # the window was painted before the store was asked to open (tests read it)

    def start_after_first_paint(self) -> None:
        page = self._window.opening_page
        if page is None:
            raise RuntimeError("the window has its controller already")
        page.notice.installEventFilter(self)
        self._window.installEventFilter(self)  # its Close abandons the open
        QTimer.singleShot(UNPAINTED_START_MS, self, self._start)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self.painted and watched is not self._window:
            self.painted = True
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self, self._start)  # after this paint has reached the screen
        elif event.type() == QEvent.Type.Close and watched is self._window:
            self.abandon()
        return False

    def abandon(self) -> None:
        """The window closed: the open's answer, now or when it comes, is dropped and its store closed."""
        self._pending.abandon()

    def _start(self) -> None:
        if self._started or self._pending.abandoned:
            return
        self._started = True
        first_page = first_page_for(self._window)
        opening, pending = self._opening, self._pending

        def open_and_read() -> tuple[SessionController, FirstRead]:
            controller = opening.open()
            try:
                return controller, read_first(controller, first_page=first_page)
            except BaseException:
                controller.close()
                raise

        loop = qasync_loop()
        if loop is None:  # a window driven without a loop (a test): at once, as run_off_thread does
            try:
                self._on_opened(open_and_read())
            except Exception as exc:
                self._on_failed(exc)
            return

        def take() -> None:  # on the GUI thread
            outcome = pending.take()
            if outcome is None or not shiboken6.isValid(self):
                return  # abandoned meanwhile: closed there
            if isinstance(outcome, BaseException):
                self._on_failed(outcome)
            else:
                self._on_opened(outcome)

        def work() -> None:  # on the worker
            outcome: tuple[SessionController, FirstRead] | BaseException
            try:
                outcome = open_and_read()
            except Exception as exc:
                outcome = exc
            if pending.offer(outcome):
                if loop.is_closed():  # the run ended meanwhile: nobody will take it
                    pending.abandon()
                else:  # if the loop closes before it runs, the run's end abandons the open (_run_opening)
                    loop.call_soon_threadsafe(take)

        self.worker = threading.Thread(target=work, name=OPENING_THREAD, daemon=True)
        self.worker.start()

    def _on_opened(self, opened: tuple[SessionController, FirstRead]) -> None:
        self._window.removeEventFilter(self)  # the answer is here: nothing left to abandon
        controller, first = opened
        if not self._window.isVisible():  # closed while it opened: nobody will use it
            controller.close()
            return
        try:
            self._window.attach(controller, first)
        except Exception as exc:
            controller.close()
            self._on_failed(exc)
            return
        log.info("the window is ready over %s", describe_database_url(self._opening.database_url))
        self._attached(controller)

    def _on_failed(self, error: BaseException) -> None:
        self._window.removeEventFilter(self)
        line, code = self._opening.failed(error)
        page = self._window.opening_page
        if page is not None and shiboken6.isValid(page):
            page.show_failure(line, describe_database_url(self._opening.database_url))
        else:  # the panes were being built when it failed
            self._window.statusBar().showMessage(line)
        self._failed(code)


class _PendingOpen:
    """The answer of a store open between its worker and the GUI thread, which may have given up on it.

    ``offer`` (worker) hands over the answer, or closes its store if the open was abandoned; ``take`` (GUI)
    gets it once; ``abandon`` (GUI, or a worker whose loop has ended) closes a store offered and not taken,
    and every later one. A store opened is closed exactly once or attached: never leaked."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._outcome: tuple[SessionController, FirstRead] | BaseException | None = None
        self.abandoned = False

    def offer(self, outcome: tuple[SessionController, FirstRead] | BaseException) -> bool:
        with self._lock:
            if not self.abandoned:
                self._outcome = outcome
                return True
        _close_opened(outcome)
        return False

    def take(self) -> tuple[SessionController, FirstRead] | BaseException | None:
        with self._lock:
            outcome, self._outcome = self._outcome, None
            return outcome

    def abandon(self) -> None:
        with self._lock:
            self.abandoned = True
            outcome, self._outcome = self._outcome, None
        if outcome is not None:
            _close_opened(outcome)


def _close_opened(outcome: tuple[SessionController, FirstRead] | BaseException) -> None:
    if isinstance(outcome, BaseException):
        return  # nothing was opened; the window that would have said why is gone
    try:
        outcome[0].close()
    except Exception:
        log.warning("could not close a store opened for a window closed meanwhile", exc_info=True)


def _run_opening(app: QApplication, opening: Opening, *, smoke_test: bool) -> int:
    """Issue 19, item 7: the window first; the store opens and the first read happens on a worker right
    after its first paint (``ui/opening``). Returns when the window closes: 0, or the exit code of the
    failure to open (said in the window and on stderr)."""
    window = MainWindow()
    restore_excepthook = install_error_boundary(window, opening.database_url)
    opened: list[SessionController] = []
    failures: list[int] = []
    warm_ups: list[threading.Thread] = []
    openings: list[StoreOpening] = []
    collector = GuiThreadCollector(app)  # Qt objects in garbage are freed on the GUI thread only
    quiet = _OffscreenNoteFilter(app) if smoke_test else None

    def start(done: asyncio.Future[int]) -> None:
        def attached(controller: SessionController) -> None:
            opened.append(controller)
            gc.freeze()  # as run_gui does once the window is built: what lives as long as it, out of reach
            if smoke_test:
                done.set_result(0)
            else:
                warm_ups.append(start_warm_up(controller))

        def failed(code: int) -> None:
            failures.append(code)
            if smoke_test and not done.done():
                done.set_result(code)

        store_opening = StoreOpening(window, opening, attached=attached, failed=failed)
        openings.append(store_opening)
        store_opening.start_after_first_paint()
        window.show()

    try:
        if not smoke_test:
            collector.start()
        code = _run_event_loop(app, start=start)
        for store_opening in openings:
            store_opening.abandon()  # an open still on its way is not waited for (a server that never answers)
        if smoke_test:
            if failures:
                window.close()
                app.processEvents()
                return failures[0]
            return _smoke_test(app, window)
        return code or (failures[0] if failures else 0)
    finally:
        if quiet is not None:
            quiet.remove()
        if not smoke_test:
            collector.stop()
        for warm_up in warm_ups:
            warm_up.join(timeout=10)  # never leave an import running into the interpreter's shutdown
        for controller in opened:
            controller.close()
        restore_excepthook()
        gc.unfreeze()


def install_error_boundary(window: MainWindow, database_url: str | None = None) -> Callable[[], None]:
    """ERR-1 for window operations: a failure no slot expected (the database went read-only, the
    disk filled) becomes one line in the window's status, and its traceback goes to the log file.
    ``database_url``: the one named, for a window that may have no controller yet (issue 19, item 7).
    Returns the function that puts the previous hook back."""
    from xworkmate.ui.operations import failure_line

    previous = sys.excepthook

    def on_unhandled(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if not isinstance(error, Exception):  # KeyboardInterrupt, SystemExit: not ours to swallow
            previous(kind, error, trace)
            return
        log.error("window operation failed", exc_info=(kind, error, trace))
        url = database_url if database_url is not None else window.controller.settings.effective_database_url
        if window.attached:
            window.show_error(failure_line(error, url))
        else:
            window.statusBar().showMessage(failure_line(error, url))

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
    quiet = _OffscreenNoteFilter(app)
    try:
        window.show()
        for _ in range(SMOKE_TEST_EVENT_ROUNDS):
            app.processEvents()
    finally:
        quiet.remove()
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


class _OffscreenNoteFilter:
    """While it is installed, the offscreen platform's note is not printed (see ``OFFSCREEN_NOTE``)."""

    _depth = 0  # nested filters (the opening smoke test around ``_smoke_test``) install the handler once

    def __init__(self, app: QApplication) -> None:
        self._installed = app.platformName() == "offscreen"
        if self._installed:
            if _OffscreenNoteFilter._depth == 0:
                _forward_to[:] = [qInstallMessageHandler(_without_offscreen_note)]
            _OffscreenNoteFilter._depth += 1

    def remove(self) -> None:
        if self._installed:
            self._installed = False
            _OffscreenNoteFilter._depth -= 1
            if _OffscreenNoteFilter._depth == 0:
                qInstallMessageHandler(_forward_to[0])


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


def _run_event_loop(app: QApplication, *, start: Callable[[asyncio.Future[int]], None] | None = None) -> int:
    """Run Qt and asyncio as one loop (qasync) until the application quits. ``start(done)`` is called
    once the loop is current, before it runs; it may end the run early by completing ``done``.
    Returns what ``done`` was completed with, or ``128 + signal`` when a signal closed the window
    (``CloseOnSignals``)."""
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
    signals = CloseOnSignals(app, loop)
    try:
        if start is not None:
            start(quit_requested)
        with loop:
            try:
                code = int(loop.run_until_complete(quit_requested))
            finally:
                signals.remove()  # while the loop is open: its self-pipe stops being the wake-up fd
        return signals.exit_code if signals.exit_code is not None else code
    finally:
        signals.remove()
        app.aboutToQuit.disconnect(on_about_to_quit)
        asyncio.set_event_loop(None)


class CloseOnSignals:
    """While the window runs, SIGINT (Ctrl+C in its terminal) and SIGTERM close it as the person closing it
    does: every window closes (the layout is saved, drafts and operations settle), then the run ends with
    ``exit_code``, 128 + the signal's number (130, 143) as the command line's turns end, with no traceback.

    The handlers are the loop's (``add_signal_handler``): the signal wakes Qt's event loop through the loop's
    self-pipe, so it is handled at once, between two callbacks, never raised inside one (the default SIGINT
    handler raised ``KeyboardInterrupt`` in whichever Qt callback ran next, and the window went on).
    A second signal while closing is ignored: the close is short and writes must not be cut off.
    Where the loop has no signal handlers (Windows), or off the main thread, nothing is installed."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, app: QApplication, loop: asyncio.AbstractEventLoop) -> None:
        self._app = app
        self._loop = loop
        self._previous: dict[int, Any] = {}
        self.exit_code: int | None = None
        for signum in self.SIGNALS:
            previous = signal.getsignal(signum)
            try:
                loop.add_signal_handler(signum, self._on_signal, signum)
            except (NotImplementedError, RuntimeError, ValueError):  # Windows's loop; not the main thread
                continue
            self._previous[signum] = previous

    def _on_signal(self, signum: int) -> None:
        if self.exit_code is not None:
            return
        self.exit_code = 128 + signum
        log.info("closing the window on %s", signal.Signals(signum).name)
        self._app.closeAllWindows()
        self._app.quit()  # also when a window stays (one that is not ours)

    def remove(self) -> None:
        """Put back the handlers there were before (the loop's own removal would leave the defaults)."""
        for signum, previous in self._previous.items():
            if not self._loop.is_closed():
                self._loop.remove_signal_handler(signum)
            signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
        self._previous.clear()
