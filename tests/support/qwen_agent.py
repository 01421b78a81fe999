"""Qwen Code (npm ``@qwen-code/qwen-code``) as a real ACP agent, driven by the scripted OpenAI server (issue 15).

``tests/support/install_agents.sh`` installs the pinned version into ``agents_dir()`` (the same
folder as OpenCode); ``qwen_executable()`` finds it. ``qwen --acp`` then runs headless and offline
in a fresh HOME against ``OpenAIServer`` with:

* the command ``qwen --acp --openai-base-url URL -m MODEL`` (``qwen_command``): no secret in it;
* the key in the agent's ``OPENAI_API_KEY``, given as the provider's environment reference
  ``OPENAI_API_KEY=env:QWEN_TEST_KEY`` (``QWEN_ENV_REFS``), so XWorkmate passes it through the
  sandbox's environment allow-list;
* ``~/.qwen/settings.json`` from ``prepare_qwen_home``, which names the model under
  ``modelProviders.openai`` with ``envKey: "OPENAI_API_KEY"`` and the same base URL. Without that
  entry Qwen 0.24.4 cannot sign in with a key from the environment: with no auth type stored yet it
  resolves its model config at start-up without reading any key variable, and ``authenticate``
  (method ``openai``) then fails with -32603 "Missing API key for openai auth" although
  ``OPENAI_API_KEY`` is set (only ``--openai-api-key`` on the command line, a secret in a process
  argument, would do). With the entry, ``authenticate`` resolves the model from the registry and
  reads the key from ``envKey``. (Storing ``security.auth.selectedType: "openai"`` up front would
  also work, but then Qwen never asks for sign-in at all.)
* the same settings file turns off what would reach the internet or make extra model requests.
  Found on 0.24.4 with ``strace -f -e trace=connect,sendmmsg``: without it Qwen resolves
  ``gb4w8c3ygj-default-sea.rum.aliyuncs.com`` (its usage statistics, ``privacy.usageStatisticsEnabled``)
  and, after each turn, sends chat requests of its own: the "managed memory extraction subagent"
  (``memory.enableManagedAutoMemory``) and a follow-up suggestion (``ui.enableFollowupSuggestions``).
  With it, the only ``connect`` other than to local sockets is to the loopback server, and a turn
  makes only its own chat requests. Update checks (``general.enableAutoUpdate``) and telemetry
  (``telemetry.enabled``) are off too, as are the other background memory/skill reviews.
* ``tools.approvalMode: "default"``: Qwen asks the client (``session/request_permission``) before
  it edits files or runs commands, rather than its "auto" mode's LLM classifier (another model
  request) deciding; XWorkmate answers from the line's permission level.

Sign-in: ``initialize`` lists one method, ``{"id": "openai", "_meta": {"type": "terminal",
"args": ["--auth-type=openai"]}}``; ``session/new`` answers -32000 "Authentication required" until
the client calls ``authenticate`` with ``methodId: "openai"``, after which Qwen records
``security.auth.selectedType: "openai"`` in ``~/.qwen/settings.json``.

Qwen writes only under ``~/.qwen`` (settings.json, installation_id, projects/, sessions/, tmp/,
usage/, memories/, skills/, extensions/, extension-store/, output-language.md, usage_record.jsonl) and
the line's folder. Its session tools seen by the model include ``write_file`` (``file_path``,
absolute; ``content``), ``read_file``, ``edit``, ``run_shell_command``, ``glob`` and ``grep_search``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.support.opencode_agent import agents_dir, install_status, session_requests, tool_names, tool_results
from xworkmate.testing.openai_server import ScriptedToolCall

__all__ = [
    "QWEN_ENV_REFS",
    "QWEN_KEY_VAR",
    "QWEN_STATE_DIRS",
    "QWEN_VERSION",
    "agents_dir",
    "install_status",
    "prepare_qwen_home",
    "qwen_command",
    "qwen_executable",
    "qwen_settings",
    "session_requests",
    "tool_names",
    "tool_results",
    "write_file",
]

QWEN_VERSION = "0.24.4"

# The one folder Qwen writes under HOME (XWorkmate's default for an executable named `qwen`).
QWEN_STATE_DIRS = ("~/.qwen",)

# The test process's variable holding the key, and the provider's reference to it.
QWEN_KEY_VAR = "QWEN_TEST_KEY"
QWEN_ENV_REFS = (("OPENAI_API_KEY", f"env:{QWEN_KEY_VAR}"),)


def qwen_executable(directory: Path | None = None) -> Path | None:
    """The installed ``qwen`` launcher when it is the pinned version and runs, else ``None``."""
    launcher = (directory or agents_dir()) / "node_modules" / ".bin" / "qwen"
    if not os.access(launcher, os.X_OK):
        return None
    try:
        done = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.strip().splitlines()
    return launcher if done.returncode == 0 and lines and lines[-1].strip() == QWEN_VERSION else None


def qwen_command(executable: Path, base_url: str, model: str = "test-model") -> tuple[str, ...]:
    """``qwen --acp`` pointed at ``base_url`` (the key comes from ``OPENAI_API_KEY``, see ``QWEN_ENV_REFS``)."""
    return (str(executable), "--acp", "--openai-base-url", base_url, "-m", model)


def qwen_settings(base_url: str, model: str = "test-model") -> dict[str, Any]:
    """User settings: ``model`` at ``base_url`` with its key in ``OPENAI_API_KEY``, Qwen offline (but for
    its model) and its model requests only the session's own."""
    return {
        "modelProviders": {
            "openai": [{"id": model, "name": model, "baseUrl": base_url, "envKey": QWEN_ENV_REFS[0][0]}],
        },
        "general": {"enableAutoUpdate": False},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "ui": {"enableFollowupSuggestions": False},
        "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False, "enableAutoSkill": False},
        "tools": {"approvalMode": "default"},
    }


def prepare_qwen_home(home: Path, base_url: str, model: str = "test-model") -> Path:
    """Write ``qwen_settings(base_url, model)`` to ``home/.qwen/settings.json``; returns that file."""
    folder = home / ".qwen"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "settings.json"
    path.write_text(json.dumps(qwen_settings(base_url, model), indent=2) + "\n", encoding="utf-8")
    return path


# -- scripted tool calls ---------------------------------------------------------------------


def write_file(call_id: str, path: str | os.PathLike[str], content: str) -> ScriptedToolCall:
    """Qwen's own ``write_file`` tool (its ``file_path`` must be absolute)."""
    return ScriptedToolCall(call_id, "write_file", json.dumps({"file_path": os.fspath(path), "content": content}))
