"""Controllers: intent → calls. No Qt widgets here (SPEC §1)."""

from xworkmate.controllers.session import (
    Change,
    CurrentLineChanged,
    LineCreated,
    LineUpdated,
    LineView,
    MessagesAppended,
    SendOutcome,
    SessionController,
    UnknownSessionKeyError,
    WorkspaceBindingError,
)

__all__ = [
    "Change",
    "CurrentLineChanged",
    "LineCreated",
    "LineUpdated",
    "LineView",
    "MessagesAppended",
    "SendOutcome",
    "SessionController",
    "UnknownSessionKeyError",
    "WorkspaceBindingError",
]
