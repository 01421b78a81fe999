"""MCP servers handed to an ACP agent on session/new, load and resume (issue 15, item 3; SEC-1).

``session_mcp_servers`` turns the line's configured servers into the ACP
parameters the agent's ``mcpCapabilities`` allow: stdio always, http and sse
only when advertised (issue 32, item 6). Environment and header references
(``NAME=env:VAR``) are resolved here, at spawn time, from our environment; the
values go only into the request to the agent, are redacted from every derived
text, and are never stored or logged. A server that cannot be started (its
program is not on PATH, a reference is unset, its transport not supported) is
left out with one line saying why, and the turn goes on without it.

A server the agent got but could not start is reported by the agent, if at all, in its own way
(issue 32 item 5); ``mcp_failures_said`` reads the reports XWorkmate knows:

* Qwen Code (0.24.4) writes one line on its stderr once the session's MCP servers settled:
  ``Warning: MCP server(s) failed to start: a, b. Continuing with built-in tools and any servers
  that did connect.``
* OpenCode (1.18.33) says nothing: it adds each server with ``mcp.add`` and ignores the failure.
* codex-acp (0.16.0) drops codex's ``McpStartupUpdate``/``McpStartupComplete`` events ("Received event
  for unknown submission ID", a WARN its default log level does not print); nothing reaches the client.

No ACP message carries it (the v1 schema has no MCP status update).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio, SseMcpServer

from xworkmate.domain.mcp import McpServerRecord
from xworkmate.domain.secrets import register_secret

__all__ = ["McpServerFailed", "McpServerSkipped", "mcp_failure_event", "mcp_failures_said", "session_mcp_servers"]


@dataclass(frozen=True)
class McpServerSkipped:
    """Emitted for a server the agent did not get; ``message`` is one line."""

    name: str
    message: str


@dataclass(frozen=True)
class McpServerFailed:
    """The agent reported that MCP servers it was given failed to start inside it; ``message`` is one line."""

    names: tuple[str, ...]
    message: str


# Qwen Code's report (packages/cli acpAgent surfaceMcpFailuresWhenReady), on its stderr.
_QWEN_FAILED = re.compile(r"MCP server\(s\) failed to start: (?P<names>.+?)\. Continuing with built-in tools")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def mcp_failures_said(line: str) -> tuple[str, ...]:
    """The MCP servers a line of the agent's stderr says failed to start (none when it says nothing of it)."""
    found = _QWEN_FAILED.search(_ANSI.sub("", line))
    if found is None:
        return ()
    return tuple(dict.fromkeys(n.strip() for n in found.group("names").split(",") if n.strip()))


def mcp_failure_event(names: tuple[str, ...], agent: str | None) -> McpServerFailed:
    """ERR-1: one line naming the servers, who said so, and that the turn goes on."""
    listed = ", ".join(repr(n) for n in names)
    noun = "MCP server" if len(names) == 1 else "MCP servers"
    who = agent or "the agent"
    return McpServerFailed(
        names, f"{noun} {listed} failed to start inside {who} (the agent says so); the turn went on without it."
    )


def session_mcp_servers(
    servers: Sequence[McpServerRecord],
    capabilities: Any,
    *,
    environ: Mapping[str, str] | None = None,
) -> tuple[list[McpServerStdio | HttpMcpServer | SseMcpServer], list[McpServerSkipped]]:
    source = os.environ if environ is None else environ
    mcp = getattr(capabilities, "mcp_capabilities", None) if capabilities is not None else None
    offered = {"http": bool(mcp and mcp.http), "sse": bool(mcp and mcp.sse)}
    given: list[McpServerStdio | HttpMcpServer | SseMcpServer] = []
    skipped: list[McpServerSkipped] = []

    def skip(server: McpServerRecord, why: str) -> None:
        skipped.append(McpServerSkipped(server.name, f"MCP server {server.name!r} was not started: {why}."))

    for server in servers:
        values: list[tuple[str, str]] = []
        missing = None
        for name, ref in (*server.env_refs, *server.header_refs):
            var = ref.partition(":")[2]
            value = source.get(var)
            if not value:
                missing = f"{name} comes from ${var}, which is not set"
                break
            register_secret(value)  # SEC-1: a token in a header or the environment is redacted everywhere
            values.append((name, value))
        if missing:
            skip(server, missing)
            continue
        if server.transport in ("http", "sse"):
            if not offered[server.transport]:
                why = f"its mcpCapabilities do not list {server.transport}"
                skip(server, f"the agent does not take {server.transport} MCP servers ({why})")
                continue
            headers = [HttpHeader(name=n, value=v) for n, v in values]
            url = server.url or ""
            if server.transport == "sse":
                given.append(SseMcpServer(type="sse", name=server.name, url=url, headers=headers))
            else:
                given.append(HttpMcpServer(type="http", name=server.name, url=url, headers=headers))
            continue
        env = [EnvVariable(name=n, value=v) for n, v in values]
        if not server.command:
            skip(server, "it has no command")
            continue
        program = shutil.which(server.command[0], path=source.get("PATH", os.defpath))
        if program is None:
            skip(server, f"no executable {server.command[0]!r} on PATH")
            continue
        given.append(McpServerStdio(name=server.name, command=program, args=list(server.command[1:]), env=env))
    return given, skipped
