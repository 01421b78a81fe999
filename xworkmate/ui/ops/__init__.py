"""Named operations: every store or keyring call the window's settings make (issue 33 item 2; SPEC LOOP-4).

As Anki's ``CollectionOp``: a factory here names what the person asked (``save_provider``,
``set_ui_state``…) and returns a ``StoreOp``; ``StoreOp.run(operations, done=…, failed=…)`` runs its
work on the window's one store worker (``ui/operations.StoreOperations``; no second worker), then calls
``done(result)`` on the GUI thread. A failure reaches ``failed(line)`` as one plain line naming the
operation, and nothing the person typed is lost: the widget keeps its fields until ``done`` says so.

``operations_of(widget)`` finds the window's ``StoreOperations`` from any widget inside it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from PySide6.QtCore import QCoreApplication, QObject

from xworkmate.presentation.wording import plain_words
from xworkmate.ui.operations import StoreOperations

__all__ = ["StoreOp", "error_line_of", "failure_line", "operations_of"]

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class StoreOp(Generic[T]):
    """One named operation: ``what`` says it in the error line ("save the provider local")."""

    what: str
    work: Callable[[], T]

    def run(
        self,
        operations: StoreOperations,
        *,
        done: Callable[[T], None] | None = None,
        failed: Callable[[str], None],
        expected: tuple[type[BaseException], ...] = (),
    ) -> None:
        """``expected`` errors (a refused form) are said in their own words; any other names the operation."""

        def on_error(error: BaseException) -> None:
            if isinstance(error, expected):
                failed(plain_words(str(error)))
                return
            log.warning("%s failed", self.what, exc_info=error)
            failed(failure_line(error, self.what))

        operations.run(self.work, done=done, failed=on_error)


def failure_line(error: BaseException, what: str) -> str:
    """An unexpected failure of the operation ``what`` as one plain line (ERR-1)."""
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return QCoreApplication.translate("StoreOp", "Could not {what} — {error}").format(
        what=what, error=plain_words(first)
    )


def error_line_of(widget: QObject) -> Callable[[str], None]:
    """Where a widget's failed operation is said: the window's status line (``show_error``) up its parents."""
    node: QObject | None = widget
    while node is not None:
        show_error = getattr(node, "show_error", None)
        if callable(show_error):
            return cast(Callable[[str], None], show_error)
        node = node.parent()
    return lambda line: log.warning("%s", line)


def operations_of(widget: QObject) -> StoreOperations:
    """The window's store operations, found up ``widget``'s parents (a dialog, a menu's owner)."""
    node: QObject | None = widget
    while node is not None:
        operations = getattr(node, "operations", None)
        if isinstance(operations, StoreOperations):
            return operations
        node = node.parent()
    raise LookupError(f"{widget.objectName() or type(widget).__name__} is not inside a window with store operations")
