"""Controllers: intent → calls. No Qt widgets here (SPEC §1).

Importing the package is light: the names below load from their modules when first asked for, so the
window can read its first task list (``first_list``) before the stack loads (issue 19, item 7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xworkmate.lazy import lazy_attributes

if TYPE_CHECKING:
    from xworkmate.controllers.changes import (
        ApprovalRequested,
        ApprovalSettled,
        AttentionChanged,
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
        SignInTerminalOpened,
        SignInTerminalView,
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

_HOMES = {
    "ApprovalRequested": "changes",
    "ApprovalSettled": "changes",
    "AttentionChanged": "changes",
    "Change": "changes",
    "ChangesRecorded": "changes",
    "CurrentLineChanged": "changes",
    "LineCreated": "changes",
    "LineUpdated": "changes",
    "MessagesAppended": "changes",
    "MessagesChanged": "changes",
    "RunDelta": "changes",
    "RunFinished": "changes",
    "RunStarted": "changes",
    "SignInMethod": "changes",
    "SignInRequested": "changes",
    "SignInSettled": "changes",
    "SignInTerminalOpened": "changes",
    "SignInTerminalView": "changes",
    "ToolRunning": "changes",
    "LineView": "session",
    "SendOutcome": "session",
    "SessionController": "session",
    "UnknownSessionKeyError": "session",
    "WorkspaceBindingError": "session",
    "WorktreeDirtyError": "worktrees",
    "WorktreeError": "worktrees",
}

__all__ = [
    "ApprovalRequested",
    "ApprovalSettled",
    "AttentionChanged",
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
    "SignInTerminalOpened",
    "SignInTerminalView",
    "ToolRunning",
    "UnknownSessionKeyError",
    "WorkspaceBindingError",
    "WorktreeDirtyError",
    "WorktreeError",
]

__getattr__ = lazy_attributes(__name__, _HOMES)
