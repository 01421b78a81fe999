"""The confined workspace tools of the native agent loop (SPEC §5 native mode, WR-1).

Each tool is a plain function taking a ``ToolContext`` first; none needs an
event loop. ``dispatch_tool_call`` is what the agent loop calls with the tool
name and the JSON argument string the model produced; it always returns a
``ToolResult`` and never lets an exception escape (cancellation aside).

Errors: a ``ToolError`` (including ``PathEscapeError``, ``InvalidPathError`` and
``WriteRefused``) carries a message for the model, which sees it as the tool
result. Any other exception is internal: logged with its traceback, and the
model only learns that the tool failed.

Every path goes through ``confinement.resolve_inside``; every file read or
written also goes through SBX-2's hard-link rule (``resolve_file_inside``,
``open_confined_file``); every write goes through the thread's ``WriteGate``
before anything on disk changes.
``read_skill`` reads a selected skill, confined to its own folder (``agents.skills``, SKL-2).
``run_command`` runs in the context's sandbox (SBX-1, ``agents.sandbox``): the
folder is the only writable place and nothing it starts outlives it. Without a
sandbox it runs unconfined, which only the agent loop may allow, after the
person approved it (approval per permission level is the loop's job too).
"""

from __future__ import annotations

from xworkmate.agents.confinement import ToolError
from xworkmate.agents.tools.commands import run_command, run_command_async
from xworkmate.agents.tools.context import CommandOutcome, ToolContext, ToolLimits, ToolResult, WriteOutcome
from xworkmate.agents.tools.dispatch import (
    SKILL_TOOL,
    TOOL_NAMES,
    dispatch_tool_call,
    dispatch_tool_call_async,
    read_selected_skill,
    tool_schemas,
)
from xworkmate.agents.tools.processes import OutputSink, ProcessEnd, TailCapture, contained_argv, run_process
from xworkmate.agents.tools.reading import list_dir, read_file, search_files
from xworkmate.agents.tools.writing import edit_file, write_file

__all__ = [
    "SKILL_TOOL",
    "TOOL_NAMES",
    "CommandOutcome",
    "OutputSink",
    "ProcessEnd",
    "TailCapture",
    "ToolContext",
    "ToolError",
    "ToolLimits",
    "ToolResult",
    "WriteOutcome",
    "contained_argv",
    "dispatch_tool_call",
    "dispatch_tool_call_async",
    "edit_file",
    "list_dir",
    "read_file",
    "read_selected_skill",
    "run_command",
    "run_command_async",
    "run_process",
    "search_files",
    "tool_schemas",
    "write_file",
]
