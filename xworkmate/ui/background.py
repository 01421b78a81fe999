"""Work the GUI thread must not wait for (git over a big tree, a search, an export), off the GUI thread
(SPEC LOOP-4, STYLE 4). The one home of it in the window:

* ``run_off_thread(work, on_result, on_error)`` hands ``work()`` to the qasync loop's executor
  (``loop.run_in_executor``, as ``asyncio.to_thread`` does); its answer is applied by a callback the
  loop runs on the GUI thread, never nested in a coroutine. No Qt signal crosses threads here and no
  Qt object is made per job (two designs that did both crashed full UI runs in Qt's event loop).
  Where no qasync loop is set (a widget driven without one, in a test), the work runs at once on the
  calling thread, so the view still works.
* ``run_on_loop(coro, on_result, on_error)`` does the same for a controller's coroutine (its
  ``*_off_thread`` methods await a worker thread for their slow part, the store thread for the rest): a task
  on the qasync loop, its answer applied by the same callback. With no qasync loop it runs to its end at once.
  It returns a ``LoopJob``: ``cancel()``, or the ``cancel_on`` signal (a dialog's ``finished``), cancels the
  coroutine and drops its answer, even one already come — the one home of "a closed dialog's fetch is
  cancelled and its answer dropped".
* ``BackgroundCalls`` numbers a widget's calls on top of it and reports each answer with one signal,
  emitted on the GUI thread: a caller that only wants the newest answer compares the number.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor, Future
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance

from xworkmate.foreground import step_aside

log = logging.getLogger(__name__)

T = TypeVar("T")

_waiting: dict[asyncio.Future[Any], QObject | None] = {}  # each answer still to come, with the object it is for


def qasync_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop, else the loop set as current if it is a qasync one; never makes a loop."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        pass
    local = getattr(asyncio.get_event_loop_policy(), "_local", None)
    loop = getattr(local, "_loop", None)
    if loop is not None and not loop.is_closed() and _is_qasync(type(loop)):
        return loop  # type: ignore[no-any-return]
    return None


def _is_qasync(kind: type) -> bool:
    """A qasync loop, or one made from it (the tests' ``xworkmate.testing.qt_loop``); qasync is not imported."""
    return any(base.__module__.startswith("qasync") for base in kind.__mro__)


class LoopJob(Generic[T]):
    """A coroutine ``run_on_loop`` started. ``cancel()``: the coroutine sees ``CancelledError`` where it waits, and
    its answer is dropped, even one that has come but is not applied yet."""

    def __init__(self, task: asyncio.Task[T] | None = None) -> None:
        self._task = task
        self.dropped = False

    def cancel(self) -> None:
        self.dropped = True
        if self._task is not None:
            self._task.cancel()

    def done(self) -> bool:
        """Whether the coroutine has ended (its answer applied or dropped, or about to be)."""
        return self._task is None or self._task.done()


def _deliverer(
    on_result: Callable[[T], None],
    on_error: Callable[[BaseException], None],
    parent: QObject | None,
    job: LoopJob[T] | None = None,
) -> Callable[[asyncio.Future[T] | Future[T]], None]:
    def deliver(outcome: asyncio.Future[T] | Future[T]) -> None:
        if outcome.cancelled() or (job is not None and job.dropped):
            return  # cancelled: nobody waits for the answer
        if parent is not None and not shiboken6.isValid(parent):
            return  # the widget that asked was closed meanwhile: nobody waits for the answer
        error = outcome.exception()
        if error is not None:
            on_error(error)
        else:
            on_result(outcome.result())

    return deliver


def run_off_thread(
    work: Callable[[], T],
    on_result: Callable[[T], None],
    on_error: Callable[[BaseException], None],
    *,
    parent: QObject | None = None,
    executor: Executor | None = None,
) -> asyncio.Future[T] | None:
    """Call from the GUI thread. ``parent``: the object the answer is for; if it is deleted first, it is dropped.
    ``executor``: where ``work`` runs (the store operations' one worker, ``ui/operations``); else the loop's.
    Returns the answer's future (cancelling it cancels work not started yet), or None when it ran at once."""
    deliver = _deliverer(on_result, on_error, parent)
    loop = qasync_loop()
    if loop is None:
        done: Future[T] = Future()
        try:
            done.set_result(work())
        except Exception as exc:  # handed to on_error, as from a worker
            done.set_exception(exc)
        deliver(done)
        return None

    def stepping_aside() -> T:
        step_aside()  # a switch the person waits on first (``xworkmate.foreground``)
        return work()

    future = loop.run_in_executor(executor, stepping_aside)
    _waiting[future] = parent
    future.add_done_callback(_done_waiting)
    future.add_done_callback(deliver)
    return future


def run_on_loop(
    coro: Coroutine[Any, Any, T],
    on_result: Callable[[T], None],
    on_error: Callable[[BaseException], None],
    *,
    parent: QObject | None = None,
    cancel_on: SignalInstance | None = None,
) -> LoopJob[T]:
    """Call from the GUI thread: ``coro`` runs as a task on the qasync loop, its answer as ``run_off_thread``'s.
    It counts in ``jobs_waiting`` until its answer has been applied or dropped. ``cancel_on``: a signal that
    cancels the job when emitted (a dialog's ``finished``: closing the dialog cancels its fetches)."""
    loop = qasync_loop()
    if loop is None:
        deliver = _deliverer(on_result, on_error, parent)
        done: Future[T] = Future()
        try:
            done.set_result(asyncio.run(coro))
        except Exception as exc:  # handed to on_error, as from the loop
            done.set_exception(exc)
        deliver(done)
        return LoopJob()
    task = loop.create_task(coro)
    job = LoopJob(task)
    _waiting[task] = parent
    task.add_done_callback(_deliverer(on_result, on_error, parent, job))  # first: no job waits once applied
    task.add_done_callback(_done_waiting)
    if cancel_on is not None:
        connection = cancel_on.connect(job.cancel)
        task.add_done_callback(lambda _task: QObject.disconnect(connection))  # False if its sender is gone
    return job


def _done_waiting(future: asyncio.Future[Any]) -> None:
    _waiting.pop(future, None)


def jobs_waiting(parent: QObject | None = None) -> int:
    """How many answers are still to come (tests may wait for 0); with ``parent``, how many are for it.

    A job of a loop that is closed by now (a window closed with an answer on its way) never answers:
    it is forgotten, not counted."""
    for future in [f for f in _waiting if f.get_loop().is_closed()]:
        _waiting.pop(future, None)
    if parent is None:
        return len(_waiting)
    return sum(1 for owner in _waiting.values() if owner is parent)


class BackgroundCalls(QObject):
    """A widget's slow reads, numbered (the search palette, the export).

    Signals:
        finished(int, object, object): a call's number, its result (or None), its exception (or None);
            emitted on the GUI thread.
    """

    finished = Signal(int, object, object)

    def __init__(self, parent: QObject | None = None, *, name: str = "xworkmate-worker") -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self._last = 0

    @property
    def last(self) -> int:
        """The number of the newest call submitted."""
        return self._last

    def submit(self, call: Callable[[], Any]) -> int:
        self._last += 1
        number = self._last

        def answer(result: object, error: BaseException | None) -> None:
            # One loop turn later, with this object as the timer's context: the caller has the number by
            # then even when the call ran at once (no qasync loop), and a deleted owner gets nothing.
            QTimer.singleShot(0, self, lambda: self.finished.emit(number, result, error))

        def failed(error: BaseException) -> None:
            log.warning("background call failed", exc_info=error)  # said in one line by the caller (ERR-1)
            answer(None, error)

        run_off_thread(call, lambda result: answer(result, None), failed, parent=self)
        return number

    def shutdown(self) -> None:
        """Nothing to stop: answers for a deleted owner are dropped (``run_off_thread``'s ``parent``)."""
