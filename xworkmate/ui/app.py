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
import sys
import threading
from collections.abc import Callable
from types import TracebackType

import shiboken6
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from xworkmate.controllers import SessionController
from xworkmate.controllers.app import describe_database_url
from xworkmate.controllers.first_list import first_opening
from xworkmate.controllers.views import FirstRead, read_first
from xworkmate.ui.background import qasync_loop
from xworkmate.ui.collector import GuiThreadCollector
from xworkmate.ui.opening import Opening, first_page_for
from xworkmate.ui.shell import FirstPaint, WindowShell
from xworkmate.ui.start import (
    APP_DISPLAY_NAME,
    OffscreenNoteFilter,
    apply_resources,
    prepared_application,
    run_event_loop,
    run_shell_first,
    window_usable,
)
from xworkmate.ui.window.main_window import MainWindow

log = logging.getLogger(__name__)

__all__ = [
    "APP_DISPLAY_NAME",
    "REQUIRED_WIDGETS",
    "ShownWindow",
    "StoreOpening",
    "apply_resources",
    "build_main_window",
    "install_error_boundary",
    "missing_widgets",
    "run_gui",
    "start_warm_up",
]

SMOKE_TEST_EVENT_ROUNDS = 5
WARM_UP_THREAD = "xworkmate-warm-up"
OPENING_THREAD = "xworkmate-store-opening"
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
    "networkPicker",
    "providerPicker",
    "approvalArea",
    "followUpQueue",
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
    home = controller.home if isinstance(controller, Opening) else controller.settings.home
    app = prepared_application(home, smoke_test=smoke_test)
    if app is None:
        return 1
    if isinstance(controller, Opening):
        opening = controller

        def shown(app: QApplication, shell: WindowShell, done: asyncio.Future[int], smoke_test: bool) -> ShownWindow:
            return ShownWindow(app, shell, opening, done, smoke_test=smoke_test)

        return run_shell_first(
            app, shown, smoke_test=smoke_test, first_opening=lambda: first_opening(opening.home, opening.database_url)
        )
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
        warm_ups: list[threading.Thread] = []
        window.when_usable(lambda: warm_ups.append(start_warm_up(controller)))  # issue 34 item 4
        collector = GuiThreadCollector(app)  # Qt objects in garbage are freed on the GUI thread only
        collector.start()
        try:
            return run_event_loop(app)
        finally:
            collector.stop()
            for warm_up in warm_ups:
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
        self._first_paint: FirstPaint | None = None
        window.installEventFilter(self)  # its Close abandons the open

    @property
    def painted(self) -> bool:
        """The window was painted before the store was asked to open (tests read it)."""
        return self._first_paint is not None and self._first_paint.painted

    def start_after_first_paint(self) -> None:
        page = self._window.opening_page
        if page is None:
            raise RuntimeError("the window has its controller already")
        self._first_paint = FirstPaint(page.notice, self._start)

    def start(self) -> None:
        """Open it now: the window was painted already (``ui/start`` loaded this code after its first paint)."""
        self._start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close and watched is self._window:
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


class ShownWindow:
    """The shown ``WindowShell`` once the window's code has loaded (``ui/start.run_shell_first``, after the
    shell's first paint): it becomes the ``MainWindow``, its store opens on a worker at once, and ``finish``,
    after the loop, says how the run ended (0, or the exit code of the failure to open) and cleans up."""

    def __init__(
        self,
        app: QApplication,
        shell: WindowShell,
        opening: Opening,
        done: asyncio.Future[int],
        *,
        smoke_test: bool,
    ) -> None:
        self._app = app
        self._smoke_test = smoke_test
        self._done = done
        self.window = MainWindow.take_over(shell)
        self._restore_excepthook = install_error_boundary(self.window, opening.database_url)
        self._opened: list[SessionController] = []
        self._failures: list[int] = []
        self._warm_ups: list[threading.Thread] = []
        self._collector = GuiThreadCollector(app)  # Qt objects in garbage are freed on the GUI thread only
        if not smoke_test:
            self._collector.start()
        self._opening = StoreOpening(self.window, opening, attached=self._attached, failed=self._failed)
        self._opening.start()

    def _attached(self, controller: SessionController) -> None:
        self._opened.append(controller)
        gc.freeze()  # as run_gui does once the window is built: what lives as long as it, out of reach
        self.window.when_usable(window_usable)  # PySide6's import hook back (issue 34 item 4)
        if self._smoke_test:  # checked once it can be used, as a person first gets it (issue 34 item 4)
            self.window.when_usable(self._smoke_checkable)
        else:  # issue 34 item 4: the turn code loads once the window can be used, not while it is painted
            self.window.when_usable(lambda: self._warm_ups.append(start_warm_up(controller)))

    def _smoke_checkable(self) -> None:
        if not self._done.done():
            self._done.set_result(0)

    def _failed(self, code: int) -> None:
        self._failures.append(code)
        if self._smoke_test and not self._done.done():
            self._done.set_result(code)

    def finish(self, code: int) -> int:
        """``code``: how the loop ended (0, or 128 + the signal that closed the window, ``CloseOnSignals``)."""
        self._opening.abandon()  # an open still on its way is not waited for (a server that never answers)
        try:
            if self._smoke_test:
                if self._failures:
                    self.window.close()
                    self._app.processEvents()
                    return self._failures[0]
                return _smoke_test(self._app, self.window)
            return code or (self._failures[0] if self._failures else 0)
        finally:
            if not self._smoke_test:
                self._collector.stop()
            for warm_up in self._warm_ups:
                warm_up.join(timeout=10)  # never leave an import running into the interpreter's shutdown
            for controller in self._opened:
                controller.close()
            self._restore_excepthook()
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
    quiet = OffscreenNoteFilter(app)
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


def controller_key(window: MainWindow) -> str:
    return window.controller.lines.current_key
