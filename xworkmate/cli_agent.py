"""The old home of ``xworkmate.cli.agent``, kept while imports move (issue 19)."""

from __future__ import annotations

from xworkmate.cli.agent import (
    add_mcp_parser,
    add_thread_commands,
    add_thread_set_arguments,
    apply_thread_set,
    cmd_mcp_add,
    cmd_mcp_list,
    cmd_mcp_remove,
    cmd_thread_sessions,
    mcp_json,
    thread_extras_json,
)

__all__ = [
    "add_mcp_parser",
    "add_thread_commands",
    "add_thread_set_arguments",
    "apply_thread_set",
    "cmd_mcp_add",
    "cmd_mcp_list",
    "cmd_mcp_remove",
    "cmd_thread_sessions",
    "mcp_json",
    "thread_extras_json",
]
