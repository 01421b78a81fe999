"""``xworkmate gui`` up to its first painted window, with nothing loaded but PySide6 (issue 19, item 7).

The window a person first sees is the ``WindowShell`` (``ui/shell``), painted before the stack
(SQLAlchemy, pydantic), the controllers and the rest of the window load: importing them costs several
times what PySide6 and the shell do. Right after that first paint (the first list's and the opening page's
composer's), ``run_shell_first`` has the caller load them on a worker thread (``cli/window``'s ``load``; issue
34 item 4), the GUI thread free meanwhile: a line can be selected and a request typed and sent on the opening
page (``OpeningPage.show_input``), which the window carries over once built. Then, on the GUI thread, the shell
becomes the ``MainWindow`` and the store opens on a worker (``ui/app.ShownWindow``, ``StoreOpening``). The GUI
thread never waits on the database, nor on the window's imports.

Nothing here may import the stack, the controllers or the window's other modules at import time.
"""

from __future__ import annotations

import builtins
import gc
import importlib
import logging
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QEventLoop, QMessageLogContext, QObject, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

import xworkmate
from xworkmate import code_cache
from xworkmate.domain.ui_state import ENTER_SENDS
from xworkmate.lazy import BUILTIN_IMPORT
from xworkmate.preferences import load_preferences
from xworkmate.ui.i18n import install_chosen_translations
from xworkmate.ui.resources import AppResources, ResourceMissingError, load_resources
from xworkmate.ui.shell import FirstListRead, FirstPaint, OffThreadAnswer, WindowShell
from xworkmate.ui.theme import THEME_STATE, parse_mode, theme_manager

if TYPE_CHECKING:
    import asyncio  # loaded after the first paint, with qasync (``run_event_loop``)

    from xworkmate.controllers.first_list import FirstOpening

log = logging.getLogger(__name__)

APP_DISPLAY_NAME = "XWorkmate"


class ShownRun(Protocol):
    """What the window's code, once loaded, does until the loop ends (``ui/app.ShownWindow``)."""

    def finish(self, code: int) -> int:
        """The run's exit code, given the loop's (0, or 128 + the signal that closed the window)."""
        ...


ShownWindowFactory = Callable[[QApplication, WindowShell, "asyncio.Future[int]", bool], ShownRun]
WindowCodeLoader = Callable[[], object]
"""Imports the window's code (what ``ShownWindowFactory`` needs), off the GUI thread (``WINDOW_CODE_THREAD``)."""
WINDOW_CODE_THREAD = "xworkmate-window-code"
WINDOW_CODE_JOIN_S = 10.0
"""How long a run that ends while the window's code is still loading waits for that import at its end: never
an import left running into the interpreter's shutdown."""
FirstOpeningReader = Callable[[], "FirstOpening | None"]

FIRST_SIZE_WAIT_MS = 30
"""Before the first show, how long the window waits for the first read (its event loop running, never
blocked), so that it shows at the size the person left it rather than jump to it a moment later. The
read takes a few milliseconds; one that is not back by then still fills the list, and the window takes
its saved size when its own panes arrive."""

FIRST_LIST_WAIT_MS = 150
"""After the first paint, how long the window waits for its first list (painting, never blocked) before it
loads the rest, which holds the GUI thread for most of a second. A list read later shows once that is
done, unless the store's own list is there by then."""


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


def prepared_application(home: Path, *, smoke_test: bool) -> QApplication | None:
    """The application, named, speaking the person's language (issue 20: before the first widget) and with
    its icon and stylesheet; ``None`` when the smoke test finds a resource missing (said in one line)."""
    code_cache.install(home)  # issue 34 item 4: what dataclasses and typing compile, kept between starts
    app = _application()
    app.setApplicationName(APP_DISPLAY_NAME)
    app.setApplicationDisplayName(APP_DISPLAY_NAME)
    app.setApplicationVersion(xworkmate.__version__)
    app.setDesktopFileName("xworkmate")
    install_chosen_translations(app, home)
    theme_manager().set_mode(parse_mode(load_preferences(home).theme))  # issue 30: the first paint in it
    try:
        apply_resources(app, load_resources())
    except ResourceMissingError as exc:
        if smoke_test:
            print(f"smoke test failed: {exc}", file=sys.stderr)
            return None
        log.warning("starting without icon and stylesheet: %s", exc)
    return app


def run_shell_first(
    app: QApplication,
    shown: ShownWindowFactory,
    *,
    smoke_test: bool,
    first_opening: FirstOpeningReader | None = None,
    load: WindowCodeLoader | None = None,
) -> int:
    """Show the shell, and right after its first paint call ``shown(app, shell, done, smoke_test)``, which
    loads the window's code, makes the shell the ``MainWindow`` and opens the store on a worker
    (``ui/app.ShownWindow``). With ``load``, the window's code is imported by ``load()`` on a worker thread
    first, the GUI thread free meanwhile (issue 34 item 4: the shell goes on answering, painting and taking
    keys on the opening page: ``OpeningPage.show_input``), and ``shown`` is called once it is done, on the GUI
    thread, its imports then already made. Returns when the window closes (or, for the smoke test, once it is
    checked): 0, or the exit code of a failure to open. A failure to load the code itself is raised once the window
    is closed: it is a broken installation, which the command reports (ERR-1).

    ``first_opening`` (``controllers.first_list.first_opening`` for the settings' database) is read on a
    worker while the shell is built and painted: the shell shows at its saved size (``_show_painted``) and
    the lines are painted on the opening page (``FirstScreen``) before the rest loads."""
    START_IMPORTS.set_aside()  # until the window is usable (``window_usable``) or the run ends
    try:
        return _run_shell_first(app, shown, smoke_test=smoke_test, first_opening=first_opening, load=load)
    finally:
        START_IMPORTS.put_back()


def _run_shell_first(
    app: QApplication,
    shown: ShownWindowFactory,
    *,
    smoke_test: bool,
    first_opening: FirstOpeningReader | None,
    load: WindowCodeLoader | None,
) -> int:
    first = FirstListRead(first_opening) if first_opening is not None else None  # first: it reads meanwhile
    shell = WindowShell()
    if first is not None:
        first.setParent(shell)
    runs: list[ShownRun] = []
    broken: list[BaseException] = []
    loads: list[OffThreadAnswer] = []

    def start(done: asyncio.Future[int]) -> None:
        def loaded() -> None:
            try:
                with _plain_imports():
                    runs.append(shown(app, shell, done, smoke_test))
            except BaseException as exc:
                broken.append(exc)
                shell.close()
                if not done.done():
                    done.set_result(1)

        if load is None:
            QTimer.singleShot(0, shell, loaded)  # the first thing the shared loop runs
            return
        # A failed import is not said here: ``shown`` imports the same again, on the GUI thread, and raises.
        loads.append(OffThreadAnswer(lambda: _loaded_plainly(load), WINDOW_CODE_THREAD, shell))
        loads[0].arrived.connect(lambda _answer: loaded())

    quiet = OffscreenNoteFilter(app) if smoke_test else None  # before the shell shows: the output is "ok"
    try:
        _show_painted(shell, first)
        if not shell.isVisible():  # closed while it was being painted: the application has quit already
            return 0
        code = run_event_loop(app, start=start)
        if broken:
            raise broken[0]
        return runs[0].finish(code) if runs else code
    finally:
        for loading in loads:
            loading.join(WINDOW_CODE_JOIN_S)
        if quiet is not None:
            quiet.remove()


def _loaded_plainly(load: WindowCodeLoader) -> object:
    with _plain_imports():
        return load()


def _show_painted(shell: WindowShell, first: FirstListRead | None = None) -> None:
    """Show the shell and return once its first screen has reached the screen (``FirstScreen``): a Qt event
    loop of its own, before the shared one exists, so the paint does not wait for asyncio and qasync to
    load (~40 ms of a start). No coroutine runs yet, so none is nested.

    Before it shows, it gives ``first`` up to ``FIRST_SIZE_WAIT_MS`` to come, and takes the window's saved
    size and the list's width from it (``WindowShell.restore_saved``)."""
    if first is not None:
        _wait_for(first, FIRST_SIZE_WAIT_MS)
        if first.opening is not None:
            shell.restore_saved(first.opening.ui_states)
            saved_theme = first.opening.ui_states.get(THEME_STATE)
            if saved_theme is not None:  # a choice made before the preferences kept it (issue 30 item 1)
                theme_manager().set_mode(parse_mode(saved_theme))
    waiting = QEventLoop()
    FirstScreen(shell, first, waiting.quit)
    shell.show()
    waiting.exec()


def _wait_for(first: FirstListRead, timeout_ms: int) -> None:
    """Run Qt's events until ``first`` has settled, or ``timeout_ms``: the read's answer is a queued event."""
    if first.settled:
        return
    waiting = QEventLoop()
    first.arrived.connect(waiting.quit)
    QTimer.singleShot(timeout_ms, waiting, waiting.quit)
    waiting.exec()
    first.arrived.disconnect(waiting.quit)


class FirstScreen(QObject):
    """Calls ``then()`` once the shell's first paint has reached the screen and, when ``first`` reads the
    lines by then or within ``FIRST_LIST_WAIT_MS`` of it, once they are painted too (``OpeningPage.show_lines``,
    only after that first paint: the list's code loads for it). Lines read later are still shown, while the
    window has no list of its own; ``None`` (nothing to read so) shows nothing. Then the opening page's composer
    shows (``OpeningPage.show_input``) and ``then()`` is called once it is painted too (issue 34 item 4: the
    page can be used while the rest loads). ``shown`` says whether the lines were shown before ``then()``."""

    def __init__(self, shell: WindowShell, first: FirstListRead | None, then: Callable[[], None]) -> None:
        super().__init__(shell)
        self._shell = shell
        self._first = first
        self._then: Callable[[], None] | None = then
        self._painted = False
        self.shown = False
        page = shell.opening_page
        FirstPaint(page.notice if page is not None else shell, self._on_painted)  # what the person sees first
        if first is not None:
            first.arrived.connect(self._on_arrived)

    def _on_painted(self) -> None:
        self._painted = True
        if self._first is None:
            self._end()
        elif self._first.settled:
            self._show(self._first.opening)
        else:
            QTimer.singleShot(FIRST_LIST_WAIT_MS, self, self._end)

    def _on_arrived(self, opening: FirstOpening | None) -> None:
        if self._painted:  # before the first paint, ``_on_painted`` shows them
            self._show(opening)

    def _show(self, opening: FirstOpening | None) -> None:
        page = self._shell.opening_page
        if opening is None or page is None or self._shell.attached:
            self._end()
            return
        page.show_lines(opening.lines, opening.current_key)
        if page.first_list is None or self._then is None:
            self._end()
            return
        self.shown = True
        FirstPaint(page.first_list, self._end)

    def _end(self) -> None:
        then, self._then = self._then, None
        if then is None:
            return
        page = self._shell.opening_page
        if page is None or self._shell.attached or page.composer is not None:
            then()
            return
        # Issue 34 item 4: typed and sent while the rest loads, which starts once the composer is painted (its
        # first paint then waits on no import). The person's choice of key when it was read; else Enter adds a
        # line (Ctrl+Enter sends): nothing goes out on a key they did not choose.
        opening = self._first.opening if self._first is not None else None
        page.show_input(ENTER_SENDS.decode(opening.ui_states.get(ENTER_SENDS.name)) if opening else False)
        if page.composer is None:  # the page said a failure meanwhile
            then()
            return
        FirstPaint(page.composer.viewport(), then)


@contextmanager
def _plain_imports() -> Iterator[None]:
    """While the window's code loads: the cyclic collector off (as ``xworkmate.entry`` does for the command's
    own imports): loading SQLAlchemy, pydantic and the window makes a few hundred thousand objects that live
    as long as the process, which it would walk again and again as they pile up; so it is off while they
    load, and what they made is then frozen out of its reach (``ShownWindow.finish`` unfreezes, for callers
    that go on). PySide6's import hook is aside meanwhile (``START_IMPORTS``)."""
    collecting = gc.isenabled()
    gc.disable()
    START_IMPORTS.set_aside()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


class _StartImports:
    """PySide6's ``__feature__`` import hook (and the collector) set aside while the window starts, and put back
    once it is usable.

    PySide6 replaces ``builtins.__import__`` with a hook that, for every import statement run after it, calls
    back into Python, and for every module that imports, reads the module's source (``inspect.getsource``) to
    see whether it mentions PySide6. XWorkmate never selects a ``__feature__`` (``snake_case``,
    ``true_property``), and a module the hook has not seen keeps the default (none); so from the shell's start
    (``run_shell_first``) to the usable window (``window_usable``) the import is the interpreter's own
    (``plain_import``): the first list's code, asyncio and qasync, the stack and the window's code, and what
    the store's opening and the panes load on the way (issue 34, item 4: ~25 ms of CPU a start). The hook is
    put back then, or when the run ends, for whatever imports later; a hook set meanwhile by someone else is
    left alone. The cyclic collector is off meanwhile too, as for the command's own imports
    (``xworkmate.entry``): what the start makes lives as long as the window (``gc.freeze`` once it is built),
    and the collector would walk it again and again as it piles up."""

    def __init__(self) -> None:
        self._hooked: Callable[..., Any] | None = None
        self._plain: Callable[..., Any] | None = None
        self._collecting = False

    def set_aside(self) -> None:
        if self._plain is None:
            self._hooked, self._plain = builtins.__import__, plain_import()
            builtins.__import__ = self._plain
            self._collecting = gc.isenabled()
            gc.disable()

    def put_back(self) -> None:
        plain, hooked = self._plain, self._hooked
        self._plain = self._hooked = None
        if plain is not None and hooked is not None and builtins.__import__ is plain:
            builtins.__import__ = hooked
        if plain is not None and self._collecting:
            gc.enable()


START_IMPORTS = _StartImports()


def window_usable() -> None:
    """The shown window can be used (``MainWindow.when_usable``): PySide6's import hook is back (``START_IMPORTS``)."""
    START_IMPORTS.put_back()


def plain_import() -> Callable[..., Any]:
    """Python's ``__import__`` without PySide6's ``__feature__`` hook: the interpreter's own, as it was before
    PySide6 loaded (``xworkmate.lazy.BUILTIN_IMPORT``, kept on the window's path), which for every import of a
    module already loaded returns at once, in C; else (PySide6 loaded first: a test, a bundle's own hook)
    importlib's implementation of it, which runs in Python for every import statement (issue 34, item 4:
    ~20 ms of loading the stack)."""
    kept = BUILTIN_IMPORT
    return kept if kept.__name__ == "__import__" else importlib.__import__


def run_event_loop(app: QApplication, *, start: Callable[[asyncio.Future[int]], None] | None = None) -> int:
    """Run Qt and asyncio as one loop (qasync) until the application quits. ``start(done)`` is called
    once the loop is current, before it runs; it may end the run early by completing ``done``.
    Returns what ``done`` was completed with, or ``128 + signal`` when a signal closed the window
    (``CloseOnSignals``)."""
    import asyncio

    os.environ.setdefault("QT_API", "pyside6")
    from xworkmate.ui.event_loop import AppEventLoop  # qasync's, imported after PySide6 so that it binds to it

    loop = AppEventLoop(app)
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
                end_tasks(loop)
            finally:
                signals.remove()  # while the loop is open: its self-pipe stops being the wake-up fd
        return signals.exit_code if signals.exit_code is not None else code
    finally:
        signals.remove()
        app.aboutToQuit.disconnect(on_about_to_quit)
        asyncio.set_event_loop(None)


END_TASKS_S = 5.0
"""How long the tasks still running when the window closed get to end (``end_tasks``)."""


def end_tasks(loop: asyncio.AbstractEventLoop, timeout: float = END_TASKS_S) -> int:
    """As ``asyncio.run`` ends its loop: the tasks still running once the window closed are cancelled, with
    ``WINDOW_CLOSED`` as the reason, and the loop runs until they have ended (at most ``timeout``). A turn the
    person closed the window on stops as Stop stops it: what streamed is kept, its notice says the window closed,
    its checkpoint and its line's lease end as a turn's do. Before, the loop closed under it: the next start
    called it a crash and had lost what streamed since the last flush. Returns how many were cancelled."""
    import asyncio

    from xworkmate.domain.turn_endings import WINDOW_CLOSED

    tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
    if not tasks:
        return 0
    for task in tasks:
        task.cancel(WINDOW_CLOSED)
    loop.run_until_complete(asyncio.wait(tasks, timeout=timeout))
    for task in tasks:  # ended by the cancel (or still going past the timeout): nothing to report
        if task.done() and not task.cancelled():
            task.exception()
    loop.run_until_complete(loop.shutdown_asyncgens())  # the streams they left open, closed on the loop
    return len(tasks)


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


# The offscreen platform says this whenever a window with size constraints is
# shown; it is about the platform plugin, not about XWorkmate, so the smoke
# test's output stays exactly "ok". Every other Qt message goes through.
OFFSCREEN_NOTE = "This plugin does not support propagateSizeHints()"
_forward_to: list[Callable[[QtMsgType, QMessageLogContext, str], None] | None] = [None]


class OffscreenNoteFilter:
    """While it is installed, the offscreen platform's note is not printed (see ``OFFSCREEN_NOTE``)."""

    _depth = 0  # nested filters (the opening smoke test around ``_smoke_test``) install the handler once

    def __init__(self, app: QApplication) -> None:
        self._installed = app.platformName() == "offscreen"
        if self._installed:
            if OffscreenNoteFilter._depth == 0:
                _forward_to[:] = [qInstallMessageHandler(_without_offscreen_note)]
            OffscreenNoteFilter._depth += 1

    def remove(self) -> None:
        if self._installed:
            self._installed = False
            OffscreenNoteFilter._depth -= 1
            if OffscreenNoteFilter._depth == 0:
                qInstallMessageHandler(_forward_to[0])


def _without_offscreen_note(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    if message == OFFSCREEN_NOTE:
        return
    forward = _forward_to[0]
    if forward is not None:
        forward(mode, context, message)
    else:
        print(message, file=sys.stderr)
