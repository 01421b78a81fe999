"""Work off the GUI thread, its answer back on it (SPEC LOOP-4, STYLE: no database call on the GUI thread).

``BackgroundCalls`` runs a controller call on one worker thread and delivers the answer with
one queued Qt signal, on the thread the object lives on. Calls are numbered: a caller that
only wants the newest answer compares the number (the search palette does).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)


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
