"""Work the GUI thread must not wait for, its answer back on the GUI thread (SPEC LOOP-4, STYLE 4).

Two shapes, one home:

* ``run_off_thread(work, on_result, on_error)`` runs ``work()`` on ``QThreadPool.globalInstance()``;
  its answer comes back as a queued signal, so ``on_result`` / ``on_error`` run on the GUI thread,
  from the event loop (Qt's or qasync's), never nested in a coroutine (the Changes tab's git work).
* ``BackgroundCalls`` runs a widget's calls one after another on its own worker thread and numbers
  them: a caller that only wants the newest answer compares the number (the search palette).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThreadPool, QTimer, Signal, Slot

log = logging.getLogger(__name__)

T = TypeVar("T")

_waiting: set[BackgroundJob[Any]] = set()


class BackgroundJob(QObject, Generic[T]):
    """One piece of work and where its answer goes; lives on the GUI thread until it answers.

    Signals: ``finished(object, object)``: (result, exception), emitted from the pool's thread.
    """

    finished = Signal(object, object)

    def __init__(
        self, on_result: Callable[[T], None], on_error: Callable[[BaseException], None], owner: QObject | None
    ) -> None:
        # No Qt parent: a job is never deleted while the pool may still emit on it (it is held in _waiting).
        super().__init__()
        self._owner = owner
        self._on_result = on_result
        self._on_error = on_error
        self.finished.connect(self._deliver)  # receiver on the GUI thread: queued from the pool

    @Slot(object, object)
    def _deliver(self, result: Any, error: Any) -> None:
        # Let go of the job only after Qt has finished delivering this call to it (deleting the receiver
        # of the event being handled is not safe); the timer's lambda holds it until then.
        QTimer.singleShot(0, lambda: _waiting.discard(self))
        if self._owner is not None and not shiboken6.isValid(self._owner):
            return  # the widget that asked was closed meanwhile: nobody waits for the answer
        if isinstance(error, BaseException):
            self._on_error(error)
        else:
            self._on_result(result)


class _Runnable(QRunnable):
    def __init__(self, work: Callable[[], Any], job: BackgroundJob[Any]) -> None:
        super().__init__()
        self._work = work
        self._job = job

    def run(self) -> None:
        try:
            result: Any = self._work()
            error: BaseException | None = None
        except BaseException as exc:  # handed to the GUI thread, which decides what to say
            result, error = None, exc
        self._job.finished.emit(result, error)


def run_off_thread(
    work: Callable[[], T],
    on_result: Callable[[T], None],
    on_error: Callable[[BaseException], None],
    *,
    parent: QObject | None = None,
) -> BackgroundJob[T]:
    """``parent``: the object the answer is for; if it is deleted first, the answer is dropped."""
    job: BackgroundJob[T] = BackgroundJob(on_result, on_error, parent)
    job.moveToThread(QCoreApplication.instance().thread())  # answers are delivered on the GUI thread
    _waiting.add(job)
    QThreadPool.globalInstance().start(_Runnable(work, job))
    return job


def jobs_waiting() -> int:
    """How many answers are still to come (tests wait for 0)."""
    return len(_waiting)


class BackgroundCalls(QObject):
    """One worker thread for a widget's slow reads.

    Signals:
        finished(int, object, object): a call's number, its result (or None), its exception (or None);
            emitted on this object's thread.
    """

    finished = Signal(int, object, object)

    def __init__(self, parent: QObject | None = None, *, name: str = "xworkmate-worker") -> None:
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._last = 0

    @property
    def last(self) -> int:
        """The number of the newest call submitted."""
        return self._last

    def submit(self, call: Callable[[], Any]) -> int:
        self._last += 1
        number = self._last
        self._pool.submit(self._run, number, call)
        return number

    def _run(self, number: int, call: Callable[[], Any]) -> None:
        try:
            result, error = call(), None
        except Exception as exc:  # delivered to the GUI thread, which says it in one line (ERR-1)
            log.warning("background call failed", exc_info=True)
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the widget was deleted while the call ran
            self.finished.emit(number, result, error)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
