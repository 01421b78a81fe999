"""The one place where controller change records enter Qt (STYLE lesson 4)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from xworkmate.controllers import RunDelta, SessionController
from xworkmate.ui.operations import collecting


class ControllerBridge(QObject):
    """Re-emits every ``SessionController`` change record as one Qt signal.

    Signals:
        changed(object): a change record (``LineCreated``, ``LineUpdated``,
            ``CurrentLineChanged``, ``MessagesAppended``, and any run records the
            controller adds), in the order the controller reported them.
            A record reported from another thread is delivered on the bridge's
            thread (queued), so widgets only ever update on the GUI thread.

    Streamed text is the exception (see ``route_deltas``): a ``RunDelta`` reported on the
    bridge's own thread goes to the deltas sink by a plain call.
    """

    changed = Signal(object)

    def __init__(self, controller: SessionController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = threading.get_ident()  # the thread the bridge lives on (built on the GUI thread)
        self._deltas: Callable[[str, str], None] | None = None
        self._unsubscribe: Callable[[], None] | None = controller.subscribe(self._on_change)

    def route_deltas(self, sink: Callable[[str, str], None]) -> None:
        """Hand streamed text (``RunDelta``) reported on the bridge's thread to ``sink(key, text)`` directly.

        Issue 34 item 1: twenty lines at 2,000 tokens/s each report thousands of deltas a second, and a
        Qt signal emission costs 25 us on average there, with stalls over 5 ms when another thread held the
        interpreter lock as PySide handed it over. A plain call is two orders of magnitude cheaper. The
        sink only buffers the text (``LiveRuns.add_delta``); repainting stays coalesced per frame.
        A delta from another thread still goes through the (queued) signal.
        """
        self._deltas = sink

    def _on_change(self, change: object) -> None:
        if (sink := collecting()) is not None:  # an operation's record: applied when it is done (ui/operations)
            sink.append(change)
            return
        if self._deltas is not None and isinstance(change, RunDelta) and threading.get_ident() == self._thread:
            self._deltas(change.key, change.text)
            return
        self.changed.emit(change)

    def detach(self) -> None:
        """Stop listening; safe to call more than once (the window calls it when it closes)."""
        if self._unsubscribe is not None:
            unsubscribe, self._unsubscribe = self._unsubscribe, None
            unsubscribe()
