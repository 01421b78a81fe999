"""Agent CLIs that speak ACP, as found on PATH (SPEC §5: offered when found, never hard-coded).

``discover_agents`` looks for the known binaries and asks each for its version
with a short timeout. Nothing is returned for an agent that is not installed:
there is no fallback list.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from xworkmate.agents.native import command_environment

__all__ = ["KNOWN_AGENTS", "DiscoveredAgent", "KnownAgent", "discover_agents", "parse_version", "probe_version"]


@dataclass(frozen=True)
class KnownAgent:
    name: str
    binary: str
    acp_args: tuple[str, ...]


KNOWN_AGENTS: tuple[KnownAgent, ...] = (
    KnownAgent("qwen", "qwen", ("--acp",)),
    KnownAgent("gemini", "gemini", ("--experimental-acp",)),
    KnownAgent("codex", "codex-acp", ()),
    KnownAgent("claude-code", "claude-code-acp", ()),
    KnownAgent("opencode", "opencode", ("acp",)),
    KnownAgent("goose", "goose", ("acp",)),
)


@dataclass(frozen=True)
class DiscoveredAgent:
    """An installed agent: ``command`` starts it in ACP mode (absolute path first)."""

    name: str
    command: tuple[str, ...]
    version: str | None


_VERSION = re.compile(r"\bv?(\d+\.\d+(?:\.\d+)?(?:[-+][0-9A-Za-z.\-]+)?)")
_OUTPUT_LIMIT = 4096


def discover_agents(
    path_env: str | None = None, *, timeout: float = 3.0, known: Sequence[KnownAgent] = KNOWN_AGENTS
) -> list[DiscoveredAgent]:
    """The known agents installed on ``path_env`` (default: our PATH), in the order of ``known``.

    Versions are probed in parallel, each bounded by ``timeout`` seconds.
    """
    search = os.environ.get("PATH", os.defpath) if path_env is None else path_env
    found = [(agent, path) for agent in known if (path := shutil.which(agent.binary, path=search))]
    if not found:
        return []
    with ThreadPoolExecutor(max_workers=len(found)) as pool:
        versions = list(pool.map(lambda item: probe_version(item[1], timeout=timeout, path_env=search), found))
    return [
        DiscoveredAgent(name=agent.name, command=(path, *agent.acp_args), version=version)
        for (agent, path), version in zip(found, versions, strict=True)
    ]


def probe_version(executable: str, *, timeout: float = 3.0, path_env: str | None = None) -> str | None:
    """``<executable> --version``, reduced to a version string; None when it fails or takes too long.

    Output goes to a temporary file rather than a pipe, so a background process the
    tool leaves behind cannot keep us waiting; the tool runs in its own process
    group, killed whole on timeout.
    """
    env = command_environment()
    if path_env is not None:
        # The agent's interpreter (``#!/usr/bin/env node``) usually sits beside it; ours comes after.
        ours = env.get("PATH", os.defpath)
        env["PATH"] = os.pathsep.join(
            dict.fromkeys(p for p in [*path_env.split(os.pathsep), *ours.split(os.pathsep)] if p)
        )
    with tempfile.TemporaryFile() as out:
        try:
            process = subprocess.Popen(
                [executable, "--version"],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=os.name == "posix",
            )
        except OSError:
            return None
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            process.wait()
            return None
        # Whatever it left running in its group goes too: asking for a version starts nothing.
        _kill_group(process)
        if returncode != 0:
            return None
        out.seek(0)
        text = out.read(_OUTPUT_LIMIT).decode("utf-8", "replace")
    return parse_version(text)


def parse_version(text: str) -> str | None:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    for line in lines:
        match = _VERSION.search(line)
        if match:
            return match.group(1)
    first = lines[0]
    return first if len(first) <= 80 else first[:77] + "..."


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
