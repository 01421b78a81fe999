"""The window's asyncio loop: qasync's, with streams read in batches (issue 34 item 1; LOOP-1).

Twenty lines streaming at once wake the loop thousands of times a second. A profile of the GUI thread with
``qasync.QEventLoop`` showed its own book-keeping beside the work, each paid once per network read:

- **A new ``QSocketNotifier`` per read.** ``add_reader`` made one and connected its signal (about 0.15 ms),
  ``remove_reader`` dropped it, and the HTTP client (anyio's stream) removes its reader after every receive and
  adds it again before the next. Here each descriptor keeps its notifier, connected once; adding and removing
  a reader only sets its callback and turns the notifier on and off.
- **A Qt timer per ready callback** (``startTimer(0)``, a ``timerEvent``, ``killTimer``). Here the callbacks made
  ready go into one queue that a single zero-interval timer drains, as ``asyncio``'s own loop runs its ready
  queue: what is ready when a drain starts runs in it; what those callbacks make ready runs in the next one,
  after Qt has had its turn (input, paints).
- **Reads as small as the loop is quick.** A loop that reads as soon as a chunk lands reads each chunk alone,
  and every read pays the whole way up (the HTTP client's layers, the stream parser, the agent's event). So a
  descriptor that was read less than ``READ_REST_S`` ago is watched again only once that time has passed:
  what arrived meanwhile is read at once, in one go (at most one read per descriptor per 8 ms, half a frame).
  A descriptor idle for longer is read as soon as it is ready. With eight local streams of 4,000 chunks, the
  GUI thread's CPU per streamed chunk fell from 74-79 us to 20-22 us. A bulk transfer is capped by it at one
  transport buffer (256 KiB) per rest, about 32 MB/s a connection.

Writers are never rested. Callbacks this loop runs itself find it as the running loop even when Qt runs them
outside ``run_*`` (a test's ``qtbot`` processing events between two ``run_until_complete``; the app's loop
always runs).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import sys
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import qasync  # imported after PySide6 (the window's modules), so it binds to it
from PySide6.QtCore import QSocketNotifier, QTimer

log = logging.getLogger(__name__)

GUI_SWITCH_INTERVAL_S = 0.0005
"""Issue 34 item 1: how long another thread running Python keeps the interpreter lock once the GUI thread wants it
back (``sys.setswitchinterval``; Python's default is 5 ms). PySide6 lets go of the lock around the Qt calls it
makes, so each call of the GUI thread while the turns' store thread runs Python could wait up to that long; a
switch makes hundreds of them. With twenty lines streaming, 5 ms against 0.5 ms alternated in one run, six pairs
over two sittings (load 2.3-5.8): ticks over 16 ms late 28/31/50/19/42/24 against 14/40/25/12/15/12, lag p99
about even (22-38 against 17-32 ms), switch p95 better in four pairs of six; what the switch leaves for after its
paint ends later (its reads on the store worker now share the lock more evenly with it)."""
READ_REST_S = 0.008
_READ = QSocketNotifier.Type.Read
_WRITE = QSocketNotifier.Type.Write


def _fileno(fd: Any) -> int:
    if isinstance(fd, int):
        return fd
    try:
        return int(fd.fileno())
    except (AttributeError, TypeError, ValueError):
        raise ValueError(f"Invalid file object: {fd!r}") from None


class _Watch:
    """One descriptor's notifier of one kind, kept for the loop's life, and the callback it runs now."""

    __slots__ = ("handle", "kind", "last_run", "notifier", "token")

    def __init__(self, notifier: QSocketNotifier, kind: QSocketNotifier.Type) -> None:
        self.notifier = notifier
        self.kind = kind
        self.handle: asyncio.Handle | None = None
        self.token = 0  # changes whenever the callback is set or removed
        self.last_run = float("-inf")  # when its callback last ran (loop time)


class AppEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    """``qasync.QEventLoop`` with one drained queue of ready callbacks, one lasting notifier per descriptor,
    and reads rested for ``READ_REST_S`` after each."""

    def __init__(self, app: Any = None, *args: Any, **kwargs: Any) -> None:
        # Set before qasync's __init__: asyncio's adds the loop's self-pipe reader from there.
        self._soon: deque[asyncio.Handle] = deque()
        self._watches: dict[tuple[int, QSocketNotifier.Type], _Watch] = {}
        self._resting: list[tuple[_Watch, int]] = []
        self._drain = QTimer()
        self._drain.setSingleShot(True)
        self._drain.setInterval(0)
        self._drain.timeout.connect(self._run_soon)
        self._rest = QTimer()
        self._rest.setSingleShot(True)
        self._rest.timeout.connect(self._wake_resting)
        if sys.getswitchinterval() > GUI_SWITCH_INTERVAL_S:
            sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)  # the process's GUI loop: its thread gets the lock soon
        super().__init__(app, *args, **kwargs)

    def run_forever(self) -> Any:
        """As asyncio's own loops run: the async generators first iterated meanwhile are the loop's, so that
        ``shutdown_asyncgens`` closes on it those a cancelled task left open (a turn's HTTP stream, when the window
        closed on it: ``ui/start.end_tasks``), rather than the collector later, with no loop to close them on."""
        hooks = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook)
        try:
            return super().run_forever()
        finally:
            sys.set_asyncgen_hooks(*hooks)

    # -- callbacks made ready -------------------------------------------------------------------

    def call_soon(
        self, callback: Callable[..., object], *args: Any, context: contextvars.Context | None = None
    ) -> asyncio.Handle:
        if self._debug:
            self._check_callback(callback, "call_soon")
        handle = asyncio.Handle(callback, args, self, context=context)
        if self.is_closed():
            return handle  # as qasync's stopped timers: a late call on a closed loop never runs
        self._soon.append(handle)
        if not self._drain.isActive():
            self._drain.start()
        return handle

    def _run_soon(self) -> None:
        """Run what was ready when this drain started; what they make ready waits for the next one."""
        count = len(self._soon)
        with _Running(self):
            while count > 0 and self._soon:  # a nested event loop in a callback may drain the queue itself
                count -= 1
                handle = self._soon.popleft()
                if handle._cancelled:
                    continue
                if not self._debug:
                    handle._run()
                    continue
                started = time.monotonic()
                handle._run()
                if (took := time.monotonic() - started) >= self.slow_callback_duration:
                    log.warning("Executing %s took %.3f seconds", handle, took)
        if self._soon and not self.is_closed() and not self._drain.isActive():
            self._drain.start()

    # -- descriptors ------------------------------------------------------------------------------

    def _add_reader(self, fd: Any, callback: Callable[..., object], *args: Any) -> None:
        self._watch(_fileno(fd), _READ, callback, args)

    def _remove_reader(self, fd: Any) -> bool:
        return self._unwatch(fd, _READ)

    def _add_writer(self, fd: Any, callback: Callable[..., object], *args: Any) -> None:
        self._watch(_fileno(fd), _WRITE, callback, args)

    def _remove_writer(self, fd: Any) -> bool:
        return self._unwatch(fd, _WRITE)

    def _watch(
        self, fd: int, kind: QSocketNotifier.Type, callback: Callable[..., object], args: tuple[Any, ...]
    ) -> None:
        self._check_closed()
        watch = self._watches.get((fd, kind))
        if watch is None:
            watch = _Watch(QSocketNotifier(fd, kind), kind)
            watch.notifier.setEnabled(False)
            watch.notifier.activated.connect(lambda *_signal: self._fd_ready(watch))
            self._watches[(fd, kind)] = watch
        watch.handle = asyncio.Handle(callback, args, self, None)
        watch.token += 1
        self._turn_on(watch)

    def _unwatch(self, fd: Any, kind: QSocketNotifier.Type) -> bool:
        if self.is_closed():
            return False
        try:
            watch = self._watches.get((_fileno(fd), kind))
        except ValueError:
            return False
        if watch is None or watch.handle is None:
            return False
        watch.handle = None
        watch.token += 1
        watch.notifier.setEnabled(False)
        return True

    def _turn_on(self, watch: _Watch) -> None:
        """Watch ``watch`` again: at once, or, for a reader read less than ``READ_REST_S`` ago, once that has passed."""
        if watch.kind == _READ and (wait := watch.last_run + READ_REST_S - time.monotonic()) > 0:
            self._resting.append((watch, watch.token))
            if not self._rest.isActive():
                self._rest.start(max(1, round(wait * 1000)))
            return
        watch.notifier.setEnabled(True)

    def _wake_resting(self) -> None:
        resting, self._resting = self._resting, []
        now, later = time.monotonic(), float("inf")
        for watch, token in resting:
            if watch.token != token or watch.handle is None or self.is_closed():
                continue  # removed or replaced since: its new callback turned it on itself
            if (due := watch.last_run + READ_REST_S) > now + 0.0005:
                self._resting.append((watch, token))  # rested later than the first of them
                later = min(later, due)
                continue
            watch.notifier.setEnabled(True)
        if self._resting and not self._rest.isActive():
            self._rest.start(max(1, round((later - now) * 1000)))

    def _fd_ready(self, watch: _Watch) -> None:
        """The descriptor is ready: its callback joins the ready queue (as qasync's, and as ``asyncio``'s own
        loop does), with its notifier off until it has run (level-triggered: it would fire again)."""
        watch.notifier.setEnabled(False)
        if watch.handle is not None:
            self.call_soon(self._run_watch, watch, watch.handle, watch.token)

    def _run_watch(self, watch: _Watch, handle: asyncio.Handle, token: int) -> None:
        if watch.token != token or handle._cancelled:
            return  # removed or replaced since it became ready: the new callback waits for its own event
        watch.last_run = time.monotonic()
        try:
            handle._run()
        finally:
            if watch.token == token and not self.is_closed():
                self._turn_on(watch)

    # -- the end ----------------------------------------------------------------------------------

    def close(self) -> None:
        if self.is_running() or self.is_closed():
            super().close()  # raises for a running loop; nothing to do for a closed one
            return
        self._drain.stop()
        self._rest.stop()
        self._soon.clear()
        self._resting.clear()
        for watch in self._watches.values():
            watch.handle = None
            watch.notifier.setEnabled(False)
        super().close()
        self._watches.clear()


class _Running:
    """Makes ``loop`` the running loop while Qt runs one of its callbacks outside ``run_*`` (a test's qtbot)."""

    __slots__ = ("_loop", "_set")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._set = False

    def __enter__(self) -> None:
        if asyncio._get_running_loop() is None:
            asyncio._set_running_loop(self._loop)
            self._set = True

    def __exit__(self, *_exc: object) -> None:
        if self._set:
            asyncio._set_running_loop(None)
