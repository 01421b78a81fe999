"""CLI of issue 15: MCP servers (``xworkmate mcp add|list|remove``), a line's MCP servers and its
ACP agent's mode, model and config options (``thread set KEY --mcp … --acp-mode …``), and the
``usage`` / ``agent_session`` parts of ``thread show --json``.

Every refusal (an unknown mode id, a server that does not exist, ``--env`` that is not a
reference) is a ``ValueError`` or ``LookupError``: the CLI's error boundary prints one line.
"""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING, Any

from xworkmate.cli.common import add_command
from xworkmate.domain.mcp import McpServerError, McpServerRecord, parse_env_ref, parse_header_ref
from xworkmate.terminal_text import escape_for_terminal, json_text

if TYPE_CHECKING:
    from xworkmate.controllers import SessionController
    from xworkmate.domain.threads import TaskThread

__all__ = [
    "add_mcp_parser",
    "add_thread_commands",
    "add_thread_set_arguments",
    "apply_thread_set",
    "thread_extras_json",
]


def mcp_json(record: McpServerRecord) -> dict[str, Any]:
    return {
        "name": record.name,
        "transport": record.transport,
        "command": list(record.command) or None,
        "url": record.url,
        "env": [f"{name}={ref}" for name, ref in record.env_refs],  # references only, never values (SEC-1)
        "headers": [f"{name}={ref}" for name, ref in record.header_refs],
        "tags": list(record.tags),
    }


def cmd_mcp_add(args: argparse.Namespace, controller: SessionController) -> int:
    if bool(args.command) == bool(args.url):
        raise McpServerError('give --command "PROGRAM ARGS..." (stdio) or --url URL (http or sse), one of them')
    command = tuple(shlex.split(args.command)) if args.command else ()
    if args.command and not command:
        raise McpServerError("--command is empty")
    transport = args.transport or ("http" if args.url else "stdio")
    if (transport == "stdio") != bool(args.command):
        raise McpServerError(f"--transport {transport} needs {'--command' if transport == 'stdio' else '--url'}")
    if args.header and transport == "stdio":
        raise McpServerError("--header is for http and sse servers; a stdio server takes --env")
    if args.env and transport != "stdio":
        raise McpServerError(f"--env is for stdio servers; an {transport} server takes --header NAME=env:VAR")
    record = McpServerRecord(
        name=args.name,
        transport=transport,
        command=command,
        url=args.url,
        env_refs=tuple(parse_env_ref(item) for item in args.env or []),
        header_refs=tuple(parse_header_ref(item) for item in args.header or []),
        tags=tuple(args.tag or ()),
    )
    stored = controller.agents.add_mcp_server(record, replace=args.replace)
    if args.json:
        print(json_text(mcp_json(stored)))
    else:
        print(escape_for_terminal(f"added MCP server {stored.describe()}"))
    return 0


def cmd_mcp_list(args: argparse.Namespace, controller: SessionController) -> int:
    servers = controller.agents.mcp_servers()
    if args.json:
        print(json_text([mcp_json(s) for s in servers]))
        return 0
    if not servers:
        print('no MCP servers; add one with: xworkmate mcp add NAME --command "PROGRAM ARGS..."')
    for server in servers:
        print(escape_for_terminal(server.describe()))
    return 0


def cmd_mcp_remove(args: argparse.Namespace, controller: SessionController) -> int:
    controller.agents.remove_mcp_server(args.name)
    print(
        json_text({"removed": args.name}, indent=None)
        if args.json
        else escape_for_terminal(f"removed MCP server {args.name}")
    )
    return 0


def add_mcp_parser(sub: Any) -> None:
    mcp = sub.add_parser("mcp", help="MCP servers given to ACP agents")
    msub = mcp.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)
    add = add_command(msub, "add", cmd_mcp_add, "configure an MCP server once (stdio --command, http/sse --url)")
    add.add_argument("name")
    add.add_argument("--command", metavar='"PROGRAM ARGS..."', help="a stdio MCP server")
    add.add_argument("--url", metavar="URL", help="an http or sse MCP server (only for agents that take it)")
    add.add_argument("--transport", choices=("stdio", "http", "sse"), help="with --url: http (the default) or sse")
    add.add_argument(
        "--header",
        action="append",
        metavar="NAME=env:VAR",
        help="an http/sse header, its value read from $VAR when the agent starts (never stored)",
    )
    add.add_argument(
        "--env",
        action="append",
        metavar="NAME=env:VAR",
        help="environment for the server, read from $VAR when the agent starts (never stored)",
    )
    add.add_argument("--tag", action="append", metavar="CATEGORY", help="a content category it is cleared for")
    add.add_argument("--replace", action="store_true", help="replace a server of the same name")
    add_command(msub, "list", cmd_mcp_list, "list MCP servers")
    rm = add_command(msub, "remove", cmd_mcp_remove, "remove an MCP server (and from every line)")
    rm.add_argument("name")


def add_thread_set_arguments(tset: argparse.ArgumentParser) -> None:
    tset.add_argument(
        "--mcp",
        action="append",
        metavar="NAME[,NAME]",
        help="the MCP servers this line's ACP agent gets (replaces the list; `--mcp ''` gives none)",
    )
    tset.add_argument(
        "--acp-session",
        metavar="ID",
        help="bind the line to one of its ACP agent's existing sessions (see `thread sessions KEY`)",
    )
    tset.add_argument("--acp-mode", metavar="ID", help="the ACP agent's mode for the next turn (one it offered)")
    tset.add_argument("--acp-model", metavar="ID", help="the ACP agent's model for the next turn (one it offered)")
    tset.add_argument(
        "--acp-config",
        action="append",
        metavar="ID=VALUE",
        help="one of the ACP agent's config options for the next turn (on/off for a boolean)",
    )


def apply_thread_set(args: argparse.Namespace, controller: SessionController, thread: TaskThread) -> None:
    key = thread.thread_id
    if args.acp_session is not None:
        import asyncio

        asyncio.run(controller.agents.bind_agent_session(key, args.acp_session))
    if args.mcp is not None:
        controller.agents.set_line_mcp_servers(key, [n for item in args.mcp for n in item.split(",")])
    if args.acp_mode is not None:
        controller.agents.choose_agent_mode(key, args.acp_mode)
    if args.acp_model is not None:
        controller.agents.choose_agent_model(key, args.acp_model)
    for item in args.acp_config or []:
        config_id, sep, value = item.partition("=")
        if not sep or not config_id:
            raise ValueError(f"--acp-config {item!r} must look like ID=VALUE")
        controller.agents.choose_agent_config(key, config_id, value)


def cmd_thread_sessions(args: argparse.Namespace, controller: SessionController) -> int:
    """The line's ACP agent's existing sessions for the line's folder (session/list), to bind one."""
    import asyncio

    found = asyncio.run(controller.agents.agent_sessions(args.key, delete=args.delete))
    rows = [
        {"session_id": s.session_id, "title": s.title, "updated_at": s.updated_at, "cwd": s.cwd} for s in found.sessions
    ]
    if args.json:
        print(json_text({"supported": found.supported, "sessions": rows}))
        return 0
    if not found.supported:
        print("the agent does not list its sessions (it does not advertise session/list)")
        return 0
    if not rows:
        print("the agent has no sessions for this line's folder")
    for row in rows:
        title = f"  {row['title']}" if row["title"] else ""
        print(escape_for_terminal(f"{row['session_id']}{title}  {row['updated_at'] or ''}".rstrip()))
    return 0


def add_thread_commands(add: Any) -> None:
    sessions = add("sessions", cmd_thread_sessions, "the line's ACP agent's existing sessions (session/list)")
    sessions.add_argument(
        "--delete", metavar="SESSION_ID", help="delete one of them first (session/delete, where the agent offers it)"
    )
    sessions.add_argument("key")


def thread_extras_json(controller: SessionController, key: str) -> dict[str, Any]:
    """``usage`` (issue 15, item 6), the agent's offers and picks, and the line's MCP servers."""
    usage = controller.agents.line_usage(key)
    state = controller.agents.agent_session(key)
    return {
        "usage": usage.model_dump(),
        "agent_session": {
            "modes": [m.id for m in state.modes],
            "mode": state.shown_mode,
            "models": [m.id for m in state.models],
            "model": state.shown_model,
            "config_options": {o.id: state.shown_config(o) for o in state.config_options},
            "commands": [c.name for c in state.commands],
            "pending": bool(state.wanted_mode or state.wanted_model or state.wanted_config),
            # Issue 32 item 6: the line's agent session's title, as the agent said (session_info_update).
            "title": state.title_of(controller.get_thread(key).execution_binding.acp_session_id),
        },
        "mcp_servers": [s.name for s in controller.agents.line_mcp_servers(key)],
    }
