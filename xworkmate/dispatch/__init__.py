"""Task dispatch: start and follow-up, category choice, frozen provenance (SPEC §3, §4).

Imports domain, store, llm and agents; never controllers or Qt.
"""

from xworkmate.dispatch.service import (
    NOT_PASSED,
    DispatchError,
    DispatchService,
    FollowupSent,
    TaskStarted,
    UnknownThreadError,
    task_goal_text,
)
from xworkmate.dispatch.tools import (
    dispatch_tool_schemas,
    handle_dispatch_tool,
    handle_dispatch_tool_async,
)
from xworkmate.domain.permissions import DISPATCH_TOOL_NAMES, TASK_SEND, TASK_START

__all__ = [
    "DISPATCH_TOOL_NAMES",
    "NOT_PASSED",
    "TASK_SEND",
    "TASK_START",
    "DispatchError",
    "DispatchService",
    "FollowupSent",
    "TaskStarted",
    "UnknownThreadError",
    "dispatch_tool_schemas",
    "handle_dispatch_tool",
    "handle_dispatch_tool_async",
    "task_goal_text",
]
