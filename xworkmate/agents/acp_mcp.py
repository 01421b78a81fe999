"""MCP servers handed to an ACP agent on session/new, load and resume (issue 15, item 3; SEC-1).

``session_mcp_servers`` turns the line's configured servers into the ACP
parameters the agent's ``mcpCapabilities`` allow: stdio always, http only when
advertised. Environment references (``NAME=env:VAR``) are resolved here, at
spawn time, from our environment; the values go only into the request to the
agent and are never stored or logged. A server that cannot be started (its
program is not on PATH, a reference is unset, http not supported) is left out
with one line saying why, and the turn goes on without it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from acp.schema import EnvVariable, HttpMcpServer, McpServerStdio

from xworkmate.domain.mcp import McpServerRecord

__all__ = ["McpServerSkipped", "session_mcp_servers"]


@dataclass(frozen=True)
class McpServerSkipped:
    """Emitted for a server the agent did not get; ``message`` is one line."""

    name: str
    message: str


def session_mcp_servers(
    servers: Sequence[McpServerRecord],
    capabilities: Any,
    *,
    environ: Mapping[str, str] | None = None,
) -> tuple[list[McpServerStdio | HttpMcpServer], list[McpServerSkipped]]:
    source = os.environ if environ is None else environ
    mcp = getattr(capabilities, "mcp_capabilities", None) if capabilities is not None else None
    http = bool(mcp and mcp.http)
    given: list[McpServerStdio | HttpMcpServer] = []
    skipped: list[McpServerSkipped] = []

    def skip(server: McpServerRecord, why: str) -> None:
        skipped.append(McpServerSkipped(server.name, f"MCP server {server.name!r} was not started: {why}."))

    for server in servers:
        env: list[EnvVariable] = []
        missing = None
        for name, ref in server.env_refs:
            var = ref.partition(":")[2]
            value = source.get(var)
            if not value:
                missing = f"{name} comes from ${var}, which is not set"
                break
            env.append(EnvVariable(name=name, value=value))
        if missing:
            skip(server, missing)
            continue
        if server.transport == "http":
            if not http:
                skip(server, "the agent does not take http MCP servers (its mcpCapabilities do not list http)")
                continue
            given.append(HttpMcpServer(type="http", name=server.name, url=server.url or "", headers=[]))
            continue
        if not server.command:
            skip(server, "it has no command")
            continue
        program = shutil.which(server.command[0], path=source.get("PATH", os.defpath))
        if program is None:
            skip(server, f"no executable {server.command[0]!r} on PATH")
            continue
        given.append(McpServerStdio(name=server.name, command=program, args=list(server.command[1:]), env=env))
    return given, skipped
