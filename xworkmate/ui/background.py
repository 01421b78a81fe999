"""Work the GUI thread must not wait for (git over a big tree), on worker threads (BRIEF, STYLE 4).

``run_off_thread(work, on_result, on_error)`` runs ``work()`` on a small pool of Python threads;
its answer comes back through one relay object that lives on the GUI thread (a queued signal), so
``on_result`` / ``on_error`` run on the GUI thread, from the event loop (Qt's or qasync's), never
nested in a coroutine. It needs no asyncio loop. No Qt object is made or deleted per job (no
``QRunnable`` either): the pool's threads only emit the relay's signal with the job's number.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Signal, Slot

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BackgroundJob(Generic[T]):
    """One piece of work's number and where its answer goes."""

    number: int
    on_result: Callable[[T], None]
    on_error: Callable[[BaseException], None]
    owner: QObject | None


class _Relay(QObject):
    """Made once, on the GUI thread, never deleted. Signals: ``answered(int, object, object)``."""

    answered = Signal(int, object, object)

    def __init__(self) -> None:
        super().__init__()
        self.waiting: dict[int, BackgroundJob[Any]] = {}
        self.answered.connect(self._deliver)  # the receiver lives on the GUI thread: queued from the pool

    @Slot(int, object, object)
    def _deliver(self, number: int, result: Any, error: Any) -> None:
        job = self.waiting.pop(number, None)
        if job is None or (job.owner is not None and not shiboken6.isValid(job.owner)):
            return  # the widget that asked was closed meanwhile: nobody waits for the answer
        if isinstance(error, BaseException):
            job.on_error(error)
        else:
            job.on_result(result)


_relay: _Relay | None = None
_numbers = itertools.count(1)


_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="xworkmate-ui-work")


def _run(work: Callable[[], Any], number: int, relay: _Relay) -> None:
    try:
        result: Any = work()
        error: BaseException | None = None
    except BaseException as exc:  # handed to the GUI thread, which decides what to say
        result, error = None, exc
    relay.answered.emit(number, result, error)


def run_off_thread(
    work: Callable[[], T],
    on_result: Callable[[T], None],
    on_error: Callable[[BaseException], None],
    *,
    parent: QObject | None = None,
) -> BackgroundJob[T]:
    """Call from the GUI thread. ``parent``: the object the answer is for; if it is deleted first, it is dropped."""
    global _relay
    if _relay is None:
        _relay = _Relay()
    job: BackgroundJob[T] = BackgroundJob(next(_numbers), on_result, on_error, parent)
    _relay.waiting[job.number] = job
    _pool.submit(_run, work, job.number, _relay)
    return job


def jobs_waiting() -> int:
    """How many answers are still to come (tests may wait for 0)."""
    return len(_relay.waiting) if _relay is not None else 0
