"""The window notices what the CLI wrote to the same database (issue 18, item 6).

A daemon thread asks ``SessionController.external_changes()`` every
``INTERVAL_S`` seconds, and at once when the window is activated
(``check_now``). That call is one ``PRAGMA data_version`` on SQLite when
nothing changed, so idling costs nothing measurable; on PostgreSQL it is two
small reads, off the GUI thread. What changed arrives on the GUI thread as
``changed(change)`` (a queued signal): the window then re-reads the providers
and the line list.
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, Signal

from xworkmate.controllers import SessionController

log = logging.getLogger(__name__)

INTERVAL_S = 1.5


class ExternalWatch(QObject):
    """Signals: ``changed(object)`` with an ``ExternalChange`` (``.providers``, ``.threads``)."""

    changed = Signal(object)

    def __init__(
        self, controller: SessionController, parent: QObject | None = None, interval_s: float = INTERVAL_S
    ) -> None:
        super().__init__(parent)
        self.setObjectName("externalWatch")
        self._controller = controller
        self._interval = interval_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="xworkmate-external-changes", daemon=True)
            self._thread.start()

    def check_now(self) -> None:
        """Look now (the window came to the front: the person may have used the CLI meanwhile)."""
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._interval)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                change = self._controller.external_changes()
            except Exception:  # the database went away for a moment: try again on the next tick
                log.warning("could not check the database for outside changes", exc_info=True)
                continue
            if change.any:
                self.changed.emit(change)
