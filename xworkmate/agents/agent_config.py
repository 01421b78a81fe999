"""What a known agent CLI keeps under the home, and which of it that CLI runs: kept read-only, watched (SBX-3).

An ACP agent may write its own state folders (``AGENT_STATE_DIRS``: ``~/.qwen``, ``~/.config/opencode``…),
and they are the person's real ones. Some of what they hold is code the CLI runs as the person, outside
any sandbox, the next time the person starts that CLI by hand: MCP server commands, hooks, plugins,
custom tools, extensions, an ``.env`` its commands inherit. As ``repo_guard`` does for a repository's
``.git/hooks`` and ``.git/config``:

* ``AGENT_CONFIG`` names those paths for each known agent (from each CLI's documentation; for
  OpenCode 1.18 and Qwen Code 0.24 also from what a real session writes, ``tests/acp``);
* ``config_paths`` picks the table's paths inside the folders an agent may write: every agent's
  entries, so a folder the person listed (``--acp-state-dir``, Settings) is protected whichever agent
  it is given to;
* ``prepare_config_paths`` makes a missing plugin, tool or extensions folder, so it can be mounted
  read-only instead of being a gap the agent could fill (as ``prepare_control_paths`` makes
  ``.git/hooks``);
* ``read_only_paths``: the existing ones, which the sandbox keeps read-only (``SandboxPolicy.read_only``),
  but for what the CLI itself writes in a normal session (``written``: Qwen's and Gemini's
  ``settings.json``, ``~/.claude.json``, OpenCode's ``package.json`` and downloaded ``bin``), which is
  only watched;
* ``config_fingerprint`` before the agent's process starts and after it ends, and
  ``describe_config_changes``, so the line says what changed there anyway.

A missing config *file* cannot be mounted, and it is not refused with a placeholder: an empty
``settings.json`` or ``opencode.json`` is invalid JSON the CLI refuses to start with, and even ``{}``
would be a file the person never made (OpenCode merges ``opencode.json`` with ``opencode.jsonc``). Its
creation is found by the fingerprint instead, as is anything written where no sandbox ran. A JSON file
is judged by what in it can run (``counted``, or all but ``ignored``): Qwen recording its sign-in
method, or Claude Code its start-up count, is not reported.

Everything read here may have been written by an adversary: no link is followed, reads are bounded.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xworkmate.agents.repo_guard import fingerprint_paths, listed_changes

__all__ = [
    "AGENT_CONFIG",
    "AGENT_NAMES",
    "AGENT_STATE_DIRS",
    "AgentConfig",
    "ConfigPath",
    "config_fingerprint",
    "config_paths",
    "describe_config_changes",
    "prepare_config_paths",
    "read_only_paths",
]

# SBX-1: the folders a known agent CLI keeps its own state in, relative to the home folder.
# Writable in its sandbox unless the person edits the list (Settings → Providers, `--acp-state-dir`).
AGENT_STATE_DIRS: dict[str, tuple[str, ...]] = {
    "qwen": ("~/.qwen",),
    "gemini": ("~/.gemini",),
    "codex-acp": ("~/.codex",),
    "claude-code-acp": ("~/.claude", "~/.claude.json"),
    "opencode": ("~/.config/opencode", "~/.local/share/opencode", "~/.local/state/opencode", "~/.cache/opencode"),
    "goose": ("~/.config/goose", "~/.local/share/goose", "~/.local/state/goose"),
}

AGENT_NAMES: dict[str, str] = {
    "qwen": "Qwen Code",
    "gemini": "Gemini CLI",
    "codex-acp": "Codex",
    "claude-code-acp": "Claude Code",
    "opencode": "OpenCode",
    "goose": "goose",
}


@dataclass(frozen=True)
class AgentConfig:
    """One path (under ``~/``) whose content its CLI runs outside the sandbox, and what it runs from it."""

    path: str
    runs: str
    folder: bool = False
    make: bool = True  # a missing folder is made, so that it can be mounted read-only
    written: bool = False  # the CLI writes it in a normal session: watched, never mounted read-only
    counted: tuple[tuple[str, ...], ...] = ()  # JSON: only these keys count ("*": any key)
    ignored: tuple[tuple[str, ...], ...] = ()  # JSON: all but these keys (the CLI's own records) count


# Qwen Code and Gemini CLI (one code base) record these in their settings themselves.
_GEMINI_OWN = (("$version",), ("security", "auth", "selectedType"), ("model", "name"), ("ide", "hasSeenNudge"))


def _gemini_family(home: str) -> tuple[AgentConfig, ...]:
    """Qwen Code and Gemini CLI: ``settings.json`` (``mcpServers``, ``hooks``, ``tools.discoveryCommand``),
    ``.env`` (loaded into the CLI's environment, which its commands inherit) and ``extensions/`` (each
    extension brings MCP servers and hooks)."""
    return (
        # Written at sign-in, through a rename to ``settings.json.orig`` that a mount would refuse (EBUSY):
        # read-only, Qwen Code 0.24 cannot sign in at all. Watched, then.
        AgentConfig(f"{home}/settings.json", "MCP server commands and hooks", written=True, ignored=_GEMINI_OWN),
        AgentConfig(f"{home}/.env", "environment (its commands inherit it)"),
        AgentConfig(f"{home}/extensions", "extensions", folder=True),
    )


# SBX-3: per known agent (by executable name, as AGENT_STATE_DIRS), the paths its CLI runs code from.
AGENT_CONFIG: dict[str, tuple[AgentConfig, ...]] = {
    "qwen": _gemini_family("~/.qwen"),
    "gemini": _gemini_family("~/.gemini"),
    "codex-acp": (
        AgentConfig("~/.codex/config.toml", "MCP server commands and notify program"),
        AgentConfig("~/.codex/.env", "environment (its commands inherit it)"),
    ),
    "claude-code-acp": (
        AgentConfig("~/.claude/settings.json", "hooks, status line and apiKeyHelper commands"),
        AgentConfig(
            "~/.claude.json",
            "MCP server commands",
            written=True,  # its start-up counts, tips and per-project state
            counted=(
                ("mcpServers",),
                ("projects", "*", "mcpServers"),
                ("projects", "*", "enabledMcpjsonServers"),
                ("projects", "*", "enableAllProjectMcpServers"),
            ),
        ),
        AgentConfig("~/.claude/plugins", "plugins", folder=True),
        AgentConfig("~/.claude/local", "own program (a local install)", folder=True, make=False),
    ),
    "opencode": (
        AgentConfig("~/.config/opencode/opencode.json", "MCP server commands and plugins"),
        AgentConfig("~/.config/opencode/opencode.jsonc", "MCP server commands and plugins"),
        AgentConfig("~/.config/opencode/config.json", "MCP server commands and plugins"),
        AgentConfig(
            "~/.config/opencode/package.json",
            "install scripts",
            written=True,  # it adds its plugin library there
            ignored=(("dependencies", "@opencode-ai/plugin"),),
        ),
        AgentConfig("~/.config/opencode/plugin", "plugins", folder=True),
        AgentConfig("~/.config/opencode/plugins", "plugins", folder=True),
        AgentConfig("~/.config/opencode/tool", "custom tools", folder=True),
        AgentConfig("~/.config/opencode/tools", "custom tools", folder=True),
        # Made first (OpenCode makes it at start): then only a program put there is reported.
        AgentConfig("~/.cache/opencode/bin", "downloaded programs", folder=True, written=True),
    ),
    "goose": (AgentConfig("~/.config/goose/config.yaml", "extensions' commands"),),
}

_MAX_JSON_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ConfigPath:
    """A table entry at its place under one home: ``path`` (not resolved), ``shown`` as ``~/…``."""

    path: Path
    shown: str
    agent: str
    entry: AgentConfig


def config_paths(folders: Iterable[str | os.PathLike[str]], home: str | os.PathLike[str]) -> tuple[ConfigPath, ...]:
    """SBX-3: the table's paths (every agent's) that lie in one of ``folders`` (the agent's writable
    folders, or the home itself when no sandbox runs), links resolved for the comparison only."""
    roots = [os.path.realpath(f) for f in folders]
    found: dict[Path, ConfigPath] = {}
    for name, entries in AGENT_CONFIG.items():
        for entry in entries:
            path = Path(home, entry.path.removeprefix("~/"))
            real = os.path.realpath(path)
            if path not in found and any(
                real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots
            ):
                found[path] = ConfigPath(path, entry.path, AGENT_NAMES[name], entry)
    return tuple(found.values())


def prepare_config_paths(found: Iterable[ConfigPath]) -> None:
    """Make a missing plugin, tool or extensions folder, so that it can be mounted read-only."""
    for config in found:
        if config.entry.folder and config.entry.make and not os.path.lexists(config.path):
            with contextlib.suppress(OSError):  # a parent that is no folder: the fingerprint reports what is there
                config.path.mkdir(mode=0o755, parents=True)


def read_only_paths(found: Iterable[ConfigPath]) -> tuple[Path, ...]:
    """The existing ones the sandbox keeps read-only (not those the CLI writes itself)."""
    return tuple(c.path for c in found if not c.entry.written and os.path.lexists(c.path))


def config_fingerprint(found: Iterable[ConfigPath]) -> dict[str, str]:
    """What those paths hold now (``~/…`` → kind, mode and digest; a JSON file: of what in it counts,
    left out when nothing does)."""
    # Files before folders: a large plugins folder must not use up the bounds before a settings file is read.
    chosen = sorted(found, key=lambda c: c.entry.folder)
    seen = fingerprint_paths((c.path, c.shown) for c in chosen)
    for config in chosen:
        entry = config.entry
        if (entry.counted or entry.ignored) and seen.get(config.shown, "").startswith("file "):
            counted = _counted_json(config.path, entry)
            if counted == "":
                del seen[config.shown]
            elif counted is not None:
                seen[config.shown] = f"json {hashlib.sha256(counted.encode()).hexdigest()}"
    return seen


def describe_config_changes(before: dict[str, str], after: dict[str, str], found: Iterable[ConfigPath]) -> str | None:
    """One notice for the line when the agent changed what its CLI runs, else None."""
    shown = listed_changes(before, after)
    if shown is None:
        return None
    changed = [p for p in {*before, *after} if before.get(p) != after.get(p)]
    runs: dict[str, list[str]] = {}
    for config in found:
        if any(p == config.shown or p.startswith(config.shown + "/") for p in changed):
            what = runs.setdefault(config.agent, [])
            if config.entry.runs not in what:
                what.append(config.entry.runs)
    said = "; ".join(f"{agent} runs its {', '.join(what)} from there" for agent, what in runs.items())
    return (
        f"During this turn {shown}. {said or 'Its CLI runs what these hold'} as you, outside the sandbox,"
        " when you start it yourself: check them before you do."
    )


def _counted_json(path: Path, entry: AgentConfig) -> str | None:
    """What in a JSON file counts, as canonical text ("" when nothing does), or None when it cannot be read
    as JSON (then the whole file's digest stands)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        raw = handle.read(_MAX_JSON_BYTES + 1)
    if len(raw) > _MAX_JSON_BYTES:
        return None
    try:
        doc = json.loads(raw)
        if entry.counted:
            picked = [found for keys in entry.counted for found in _values_at(doc, keys, ())]
            return json.dumps(picked, sort_keys=True) if picked else ""
        for keys in entry.ignored:
            _drop(doc, keys)
        return "" if doc in ({}, None) else json.dumps(doc, sort_keys=True)
    except (ValueError, RecursionError, TypeError):
        return None


def _values_at(doc: Any, keys: tuple[str, ...], at: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    if not keys:
        return [(at, doc)]
    if not isinstance(doc, dict):
        return []
    head, rest = keys[0], keys[1:]
    names = sorted(doc) if head == "*" else [head] if head in doc else []
    return [found for name in names for found in _values_at(doc[name], rest, (*at, name))]


def _drop(doc: Any, keys: tuple[str, ...]) -> None:
    """Remove ``keys`` from ``doc``, and the objects that held nothing else."""
    if not isinstance(doc, dict) or keys[0] not in doc:
        return
    if len(keys) > 1:
        _drop(doc[keys[0]], keys[1:])
        if doc[keys[0]] != {}:
            return
    del doc[keys[0]]
