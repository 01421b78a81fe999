"""The window shows what other processes wrote to the same database (issue 18, item 6; issue 19, item 6).

``start`` asks the controller's watcher to listen on a thread of its own
(``store.external_changes``: ``LISTEN`` on PostgreSQL, a slow ``PRAGMA
data_version`` on SQLite; ``check_now`` — the window was activated — makes
SQLite look at once). That thread never touches a Qt object: it hands each
change to the qasync loop with ``loop.call_soon_threadsafe``, and ``_arrived``
runs on the GUI thread (no Qt signal crosses threads: the pattern that crashed
full UI runs, see ``ui/background.py``). There the controller turns it into its
usual change records (``ExternalLines.apply``: new or changed lines, new
messages, run statuses), which the window applies as its own through the
bridge; ``changed(change)`` says the rest (providers, read everything again).

Without a qasync loop (a window driven bare in a test) there is no loop to post
to: a GUI timer asks every ``INTERVAL_S`` instead, through ``run_off_thread``.
"""

from __future__ import annotations

import asyncio
import logging

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal

from xworkmate.controllers import SessionController
from xworkmate.ui.background import qasync_loop, run_off_thread

log = logging.getLogger(__name__)

INTERVAL_S = 1.5
"""The bare window's timer (no qasync loop); a running app listens instead."""


class ExternalWatch(QObject):
    """Signals: ``changed(object)`` with an ``ExternalChange`` (``.providers``, ``.everything``…),
    after its records were reported."""

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
        self._loop: asyncio.AbstractEventLoop | None = None
        self._asking = False
        self._stopped = True

    @property
    def listening(self) -> bool:
        """The listener thread is ready (PostgreSQL: its ``LISTEN`` was taken)."""
        return self._loop is not None and self._controller.external.listening

    def start(self) -> None:
        self._stopped = False
        self._loop = qasync_loop()
        if self._loop is None:
            self._timer.start()
            return
        loop, external = self._loop, self._controller.external

        def arrived(change: object) -> None:  # on the watcher's thread
            loop.call_soon_threadsafe(self._arrived, change)

        def listen() -> None:  # on a worker: the watcher's first reads are not the GUI thread's to wait for
            if not self._stopped:  # closed before the worker got here: nothing to listen for
                external.watcher.listen(arrived)

        run_off_thread(listen, lambda _: None, self._failed, parent=self)

    def check_now(self) -> None:
        """Look now (the window came to the front: the person may have used the CLI meanwhile)."""
        if self._stopped:
            return
        if self._loop is not None:
            self._controller.external.wake()
            return
        if self._asking:
            return  # one question at a time; the next tick asks again
        self._asking = True
        run_off_thread(self._controller.external.poll, self._answered, self._failed, parent=self)

    def stop(self) -> None:
        self._stopped = True
        self._timer.stop()
        if self._loop is not None:
            self._controller.external.close()  # the listener thread ends; nothing more is posted

    def _arrived(self, change: object) -> None:
        """On the GUI thread (posted by the listener thread through the loop)."""
        if self._stopped or not shiboken6.isValid(self):
            return
        if getattr(change, "any", False):
            self._controller.external.apply(change)  # type: ignore[arg-type]
            self.changed.emit(change)

    def _answered(self, change: object) -> None:
        self._asking = False
        self._arrived(change)

    def _failed(self, error: BaseException) -> None:
        self._asking = False  # the database went away for a moment: try again on the next tick
        log.warning("could not check the database for outside changes: %s", error)
