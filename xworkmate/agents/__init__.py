"""The native agent's confined workspace tools and its write gate (SPEC §5, WR-1).

The agent loop uses ``tool_schemas()`` for the model request and
``dispatch_tool_call_async(name, arguments_json, ctx)`` for each tool call, with
a ``ToolContext`` built from the thread's working directory and its evidence.
"""

from xworkmate.agents.confinement import (
    InvalidPathError,
    PathEscapeError,
    ToolError,
    WorkingDirectoryError,
    resolve_inside,
)
from xworkmate.agents.tools import (
    TOOL_NAMES,
    CommandOutcome,
    ToolContext,
    ToolLimits,
    ToolResult,
    WriteOutcome,
    dispatch_tool_call,
    dispatch_tool_call_async,
    tool_schemas,
)
from xworkmate.agents.write_gate import EvidenceMessage, GateDecision, RefusalReason, WriteGate, WriteRefused

__all__ = [
    "TOOL_NAMES",
    "CommandOutcome",
    "EvidenceMessage",
    "GateDecision",
    "InvalidPathError",
    "PathEscapeError",
    "RefusalReason",
    "ToolContext",
    "ToolError",
    "ToolLimits",
    "ToolResult",
    "WorkingDirectoryError",
    "WriteGate",
    "WriteOutcome",
    "WriteRefused",
    "dispatch_tool_call",
    "dispatch_tool_call_async",
    "resolve_inside",
    "tool_schemas",
]
