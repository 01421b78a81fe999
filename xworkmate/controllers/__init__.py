"""Controllers: intent → calls. No Qt widgets here (SPEC §1)."""

from xworkmate.controllers.changes import (
    ApprovalRequested,
    ApprovalSettled,
    Change,
    ChangesRecorded,
    CurrentLineChanged,
    LineCreated,
    LineUpdated,
    MessagesAppended,
    MessagesChanged,
    RunDelta,
    RunFinished,
    RunStarted,
    SignInMethod,
    SignInRequested,
    SignInSettled,
    ToolRunning,
)
from xworkmate.controllers.session import (
    LineView,
    SendOutcome,
    SessionController,
    UnknownSessionKeyError,
    WorkspaceBindingError,
)
from xworkmate.controllers.worktrees import WorktreeDirtyError, WorktreeError

__all__ = [
    "ApprovalRequested",
    "ApprovalSettled",
    "Change",
    "ChangesRecorded",
    "CurrentLineChanged",
    "LineCreated",
    "LineUpdated",
    "LineView",
    "MessagesAppended",
    "MessagesChanged",
    "RunDelta",
    "RunFinished",
    "RunStarted",
    "SendOutcome",
    "SessionController",
    "SignInMethod",
    "SignInRequested",
    "SignInSettled",
    "ToolRunning",
    "UnknownSessionKeyError",
    "WorkspaceBindingError",
    "WorktreeDirtyError",
    "WorktreeError",
]
