"""codex-acp (npm ``@zed-industries/codex-acp``) as a real ACP agent, driven by the scripted server (issue 32).

``tests/support/install_agents.sh`` installs the pinned version into ``agents_dir()`` (with OpenCode and
Qwen Code); it pulls ``@zed-industries/codex-acp-<platform>``, the native codex binary. The launcher
``node_modules/.bin/codex-acp`` has no ``--version``: ``codex_executable()`` reads the package's version
and checks that ``--help`` runs (so the native binary is there).

Codex speaks only the OpenAI Responses API (``POST {base_url}/responses``, streamed SSE events), which
``OpenAIServer`` serves from the same scripted replies as its chat path. It is configured the way a
person would, in its own ``~/.codex/config.toml`` (``codex_config``; XWorkmate's default state folder for
``codex-acp`` is ``~/.codex``):

* ``model_provider`` names a ``[model_providers.xwtest]`` entry with ``base_url`` (the test server,
  ``/v1`` included), ``wire_api = "responses"`` and ``env_key``: the variable codex reads the API key
  from. The provider's ``--acp-env XWTEST_API_KEY=env:CODEX_TEST_KEY`` (``CODEX_ENV_REFS``) passes it
  through the sandbox; nothing secret is in the command or the file. With its own provider and key
  codex-acp needs no sign-in: ``session/new`` works without ``authenticate`` (it lists ``chatgpt``,
  ``codex-api-key`` and ``openai-api-key`` methods, none of which is used).
* ``model`` is one codex knows (``gpt-5.4-mini``): with an unknown name codex 0.16.0 sends an
  ``agent_message_chunk`` "Model metadata for `…` not found" into every turn's reply. The server
  does not care which name it gets; codex offers the model as a config option (``category: "model"``)
  with ``gpt-5.5``, ``gpt-5.4``, ``gpt-5.4-mini``, ``gpt-5.3-codex`` and ``gpt-5.2``, and a
  ``reasoning_effort`` option (``category: "thought_level"``). It offers no modes.
* ``approval_policy = "untrusted"`` is what makes codex ask (``session/request_permission``, kind
  ``execute``, options ``approved``/``approved-execpolicy-amendment``/``abort``) before any command that
  is not on its list of known read-only ones, ``sandbox_mode = "danger-full-access"`` leaves the
  confinement to XWorkmate's sandbox (codex's own would nest a second sandbox in it).
* update checks, analytics, feedback and history are off; the only network requests of a turn are to
  the configured ``base_url`` (the provider adds it with ``--acp-allow-host`` as it is on loopback).

Codex writes only under ``~/.codex`` (``installation_id``, ``sessions/``, ``shell_snapshots/``,
``skills/.system/``, SQLite files ``state_5``, ``logs_2``, ``memories_1``, ``goals_1``) and the line's
folder.

Codex's tools seen by the model include ``exec_command`` (``cmd``; run through ``/bin/bash -lc``),
``write_stdin``, ``apply_patch`` (a freeform ``custom`` tool), ``update_plan`` and ``view_image``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.support.opencode_agent import agents_dir, install_status
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall

__all__ = [
    "CODEX_ACP_VERSION",
    "CODEX_ENV_REFS",
    "CODEX_KEY_VAR",
    "CODEX_MODEL",
    "CODEX_STATE_DIRS",
    "agents_dir",
    "codex_config",
    "codex_executable",
    "exec_command",
    "install_status",
    "prepare_codex_home",
    "session_requests",
    "tool_results",
]

CODEX_ACP_VERSION = "0.16.0"
CODEX_MODEL = "gpt-5.4-mini"
CODEX_STATE_DIRS = ("~/.codex",)  # XWorkmate's default for an executable named `codex-acp`

# The test process's variable holding the key, and the provider's reference to it under codex's env_key.
CODEX_KEY_VAR = "CODEX_TEST_KEY"
CODEX_ENV_REFS = (("XWTEST_API_KEY", f"env:{CODEX_KEY_VAR}"),)


def codex_executable(directory: Path | None = None) -> Path | None:
    """The installed ``codex-acp`` launcher when it is the pinned version and runs, else ``None``."""
    folder = directory or agents_dir()
    launcher = folder / "node_modules" / ".bin" / "codex-acp"
    package = folder / "node_modules" / "@zed-industries" / "codex-acp" / "package.json"
    if not os.access(launcher, os.X_OK):
        return None
    try:
        version = json.loads(package.read_text(encoding="utf-8")).get("version")
        done = subprocess.run([launcher, "--help"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    return launcher if done.returncode == 0 and version == CODEX_ACP_VERSION else None


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)  # a JSON string or number is a TOML basic string or number


def codex_config(base_url: str, model: str = CODEX_MODEL) -> str:
    """``config.toml``: ``model`` from a Responses-API provider at ``base_url``, asking before commands."""
    top = {
        "model": model,
        "model_provider": "xwtest",
        "approval_policy": "untrusted",
        "sandbox_mode": "danger-full-access",
        "check_for_update_on_startup": False,
    }
    provider = {
        "name": "XWorkmate test server",
        "base_url": base_url,
        "wire_api": "responses",
        "env_key": CODEX_ENV_REFS[0][0],
        "request_max_retries": 0,
        "stream_max_retries": 0,
    }
    lines = [f"{key} = {_toml(value)}" for key, value in top.items()]
    lines += ["", "[analytics]", "enabled = false", "", "[feedback]", "enabled = false"]
    lines += ["", "[history]", 'persistence = "none"', "", "[model_providers.xwtest]"]
    lines += [f"{key} = {_toml(value)}" for key, value in provider.items()]
    return "\n".join(lines) + "\n"


def prepare_codex_home(home: Path, base_url: str, model: str = CODEX_MODEL) -> Path:
    """Write ``codex_config(base_url, model)`` to ``home/.codex/config.toml``; returns that file."""
    folder = home / ".codex"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(codex_config(base_url, model), encoding="utf-8")
    return path


def session_requests(server: OpenAIServer) -> list[dict[str, Any]]:
    """The Responses-API request bodies, in order."""
    return [r.body for r in server.responses_requests if isinstance(r.body, dict)]


def tool_results(server: OpenAIServer) -> dict[str, str]:
    """Each function call's output as the model received it, by call id (the latest request wins)."""
    results: dict[str, str] = {}
    for body in session_requests(server):
        for item in body.get("input", []):
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                output = item.get("output")
                results[str(item.get("call_id"))] = output if isinstance(output, str) else json.dumps(output)
    return results


def exec_command(call_id: str, command: str) -> ScriptedToolCall:
    """Codex's own ``exec_command`` tool (``cmd`` runs through ``/bin/bash -lc`` in the session's folder)."""
    return ScriptedToolCall(call_id, "exec_command", json.dumps({"cmd": command}))
