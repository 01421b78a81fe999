"""The window notices what the CLI wrote to the same database (issue 18, item 6; issue 19, item 6).

A timer on the GUI thread asks ``SessionController.external_changes()`` every
``INTERVAL_S`` seconds, and at once when the window is activated
(``check_now``); the question itself runs off the GUI thread
(``background.run_off_thread``) and its answer comes back on the GUI thread,
with no Qt signal sent from another thread (the pattern that crashed full UI
runs). That call is one ``PRAGMA data_version`` on SQLite when nothing changed,
so idling costs nothing measurable; on PostgreSQL it is two small reads. What
changed arrives as ``changed(change)``: the window then re-reads the providers
and the line list.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QTimer, Signal

from xworkmate.controllers import SessionController
from xworkmate.ui.background import run_off_thread

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
        self._timer = QTimer(self)
        self._timer.setInterval(int(interval_s * 1000))
        self._timer.timeout.connect(self.check_now)
        self._asking = False
        self._stopped = False

    def start(self) -> None:
        self._stopped = False
        self._timer.start()

    def check_now(self) -> None:
        """Look now (the window came to the front: the person may have used the CLI meanwhile)."""
        if self._asking or self._stopped:
            return  # one question at a time; the next tick asks again
        self._asking = True
        run_off_thread(self._controller.external_changes, self._answered, self._failed, parent=self)

    def stop(self) -> None:
        self._stopped = True
        self._timer.stop()

    def _answered(self, change: object) -> None:
        self._asking = False
        if not self._stopped and getattr(change, "any", False):
            self.changed.emit(change)

    def _failed(self, error: BaseException) -> None:
        self._asking = False  # the database went away for a moment: try again on the next tick
        log.warning("could not check the database for outside changes: %s", error)
