"""The native agent's confined workspace tools and its write gate (SPEC §5, WR-1).

The agent loop uses ``tool_schemas()`` for the model request and
``dispatch_tool_call_async(name, arguments_json, ctx)`` for each tool call, with
a ``ToolContext`` built from the thread's working directory and its evidence.

The names below load on first use (PEP 562): the window imports
``agents.sandbox`` at start, and the tool code is the warm-up thread's to load
(issue 7), not the first paint's (issue 19, item 7).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_HOMES = {
    "InvalidPathError": "xworkmate.agents.confinement",
    "PathEscapeError": "xworkmate.agents.confinement",
    "ToolError": "xworkmate.agents.confinement",
    "WorkingDirectoryError": "xworkmate.agents.confinement",
    "resolve_inside": "xworkmate.agents.confinement",
    "TOOL_NAMES": "xworkmate.agents.tools",
    "CommandOutcome": "xworkmate.agents.tools",
    "ToolContext": "xworkmate.agents.tools",
    "ToolLimits": "xworkmate.agents.tools",
    "ToolResult": "xworkmate.agents.tools",
    "WriteOutcome": "xworkmate.agents.tools",
    "dispatch_tool_call": "xworkmate.agents.tools",
    "dispatch_tool_call_async": "xworkmate.agents.tools",
    "tool_schemas": "xworkmate.agents.tools",
    "EvidenceMessage": "xworkmate.agents.write_gate",
    "GateDecision": "xworkmate.agents.write_gate",
    "RefusalReason": "xworkmate.agents.write_gate",
    "WriteGate": "xworkmate.agents.write_gate",
    "WriteRefused": "xworkmate.agents.write_gate",
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
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
