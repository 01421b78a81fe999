"""The one place where controller change records enter Qt (STYLE lesson 4)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from xworkmate.controllers import SessionController
from xworkmate.ui.operations import collecting


class ControllerBridge(QObject):
    """Re-emits every ``SessionController`` change record as one Qt signal.

    Signals:
        changed(object): a change record (``LineCreated``, ``LineUpdated``,
            ``CurrentLineChanged``, ``MessagesAppended``, and any run records the
            controller adds), in the order the controller reported them.
            A record reported from another thread is delivered on the bridge's
            thread (queued), so widgets only ever update on the GUI thread.
    """

    changed = Signal(object)

    def __init__(self, controller: SessionController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe: Callable[[], None] | None = controller.subscribe(self._on_change)

    def _on_change(self, change: object) -> None:
        if (sink := collecting()) is not None:  # an operation's record: applied when it is done (ui/operations)
            sink.append(change)
            return
        self.changed.emit(change)

    def detach(self) -> None:
        """Stop listening; safe to call more than once (the window calls it when it closes)."""
        if self._unsubscribe is not None:
            unsubscribe, self._unsubscribe = self._unsubscribe, None
            unsubscribe()
