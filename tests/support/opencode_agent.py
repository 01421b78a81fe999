"""OpenCode (npm ``opencode-ai``) as a real ACP agent, driven by the scripted OpenAI server (issue 12).

``tests/support/install_agents.sh`` installs the pinned version into ``agents_dir()``;
``opencode_executable()`` finds it here. ``opencode_env`` is what makes ``opencode acp``
run headless and offline in a fresh HOME against ``OpenAIServer``:

* the provider comes from ``OPENCODE_CONFIG_CONTENT`` (no config file needed):
  ``npm: "@ai-sdk/openai-compatible"`` is bundled in the binary, nothing is downloaded;
* ``OPENCODE_DISABLE_MODELS_FETCH`` stops the models.dev fetch (the bundled snapshot is used),
  ``OPENCODE_DISABLE_AUTOUPDATE`` the update check; share, LSP downloads and external
  plugins/skills are off too;
* the title agent is disabled, so the only model requests are the session's own, in order,
  and a queue of scripted replies drives it step by step.

OpenCode's own tools seen by the model are ``bash`` (``command``, ``description``), ``write``
(``filePath``, ``content``), ``read`` (``filePath``), ``edit``, ``glob``, ``grep``, ``webfetch``,
``task``, ``todowrite`` and ``skill``. ``bash``/``write``/``read`` build their calls.

One more network fetch happens at start: OpenCode installs ``@opencode-ai/plugin`` with its
embedded npm into each config folder (``~/.config/opencode``) unless that folder has a
``node_modules`` folder and a ``package-lock.json`` that lists the package.
``prepare_opencode_home`` writes exactly that, so no registry is contacted at test time (no
plugin is configured, so the package is never loaded).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall

OPENCODE_VERSION = "1.18.33"
PROVIDER_ID = "xwtest"
INSTALL_SCRIPT = Path(__file__).resolve().parent / "install_agents.sh"

# Folders OpenCode writes during an ``opencode acp`` session, relative to HOME (found with strace on
# 1.18.33; with XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME or XDG_CACHE_HOME set, their ``opencode``
# sub-folders instead). Besides these it writes only native libraries it extracts into /tmp
# (``/tmp/.<hash>.so``, ``/tmp/.<hash>.node``), and ~/.npm/_cacache when it installs
# @opencode-ai/plugin (see prepare_opencode_home). It also listens on 127.0.0.1:4096 (another
# port when that one is taken) for its own internal server.
OPENCODE_STATE_DIRS = (
    "~/.config/opencode",  # .gitignore; package.json, package-lock.json, node_modules/ of the plugin install
    "~/.local/share/opencode",  # opencode.db (sessions), log/, repos/; auth.json is read
    "~/.local/state/opencode",  # locks/
    "~/.cache/opencode",  # bin/ (tools it downloads, e.g. ripgrep); models.json is read
)

# Environment for ``opencode acp``: passed as the provider's ``acp_env_refs`` (``env:NAME``).
_QUIET_FLAGS = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    "OPENCODE_PURE": "1",
}


def agents_dir() -> Path:
    """Where ``install_agents.sh`` installs (the same rule as the script)."""
    configured = os.environ.get("XWORKMATE_TEST_AGENTS_DIR")
    if configured:
        return Path(configured)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "xworkmate-tests" / "npm"


def opencode_executable(directory: Path | None = None) -> Path | None:
    """The installed ``opencode`` launcher when it is the pinned version and runs, else ``None``."""
    launcher = (directory or agents_dir()) / "node_modules" / ".bin" / "opencode"
    if not os.access(launcher, os.X_OK):
        return None
    try:
        done = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.strip().splitlines()
    return launcher if done.returncode == 0 and lines and lines[-1].strip() == OPENCODE_VERSION else None


def install_status(directory: Path | None = None) -> str | None:
    """What the install script recorded: ``installed: …`` or ``unreachable: <reason>``."""
    path = (directory or agents_dir()) / "install-status"
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def opencode_config(base_url: str, model: str = "test-model", *, allow_everything: bool = True) -> dict[str, Any]:
    """An OpenCode config with one OpenAI-compatible provider at ``base_url``.

    ``allow_everything`` sets OpenCode's own permission rules to ``allow``, so its tools never ask
    (not even for paths outside the project): the agent then relies on nothing but the sandbox.
    """
    config: dict[str, Any] = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "provider": {
            PROVIDER_ID: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "XWorkmate test server",
                "options": {"baseURL": base_url, "apiKey": "not-a-secret"},
                "models": {model: {"name": model, "tool_call": True}},
            }
        },
        "model": f"{PROVIDER_ID}/{model}",
        # No concurrent title request: the session's requests come one by one, in script order.
        "agent": {"title": {"disable": True}},
    }
    if allow_everything:
        config["permission"] = {"*": "allow", "external_directory": "allow"}
    return config


def opencode_env(config: Mapping[str, Any]) -> dict[str, str]:
    """The environment variables ``opencode acp`` needs here, names to values."""
    return {"OPENCODE_CONFIG_CONTENT": json.dumps(config), **_QUIET_FLAGS}


def prepare_opencode_home(home: Path) -> None:
    """Mark ``@opencode-ai/plugin`` as installed in ``home``'s OpenCode config folder (no npm fetch)."""
    folder = home / ".config" / "opencode"
    (folder / "node_modules").mkdir(parents=True, exist_ok=True)
    dependencies = {"@opencode-ai/plugin": OPENCODE_VERSION}
    (folder / "package.json").write_text(json.dumps({"dependencies": dependencies}, indent=2) + "\n")
    lock = {"lockfileVersion": 3, "requires": True, "packages": {"": {"dependencies": dependencies}}}
    (folder / "package-lock.json").write_text(json.dumps(lock, indent=2) + "\n")


# -- scripted tool calls ---------------------------------------------------------------------


def bash(call_id: str, command: str, description: str = "run a command") -> ScriptedToolCall:
    return ScriptedToolCall(call_id, "bash", json.dumps({"command": command, "description": description}))


def write(call_id: str, path: str | os.PathLike[str], content: str) -> ScriptedToolCall:
    return ScriptedToolCall(call_id, "write", json.dumps({"filePath": os.fspath(path), "content": content}))


def read(call_id: str, path: str | os.PathLike[str]) -> ScriptedToolCall:
    return ScriptedToolCall(call_id, "read", json.dumps({"filePath": os.fspath(path)}))


# -- what OpenCode sent ----------------------------------------------------------------------


def session_requests(server: OpenAIServer) -> list[dict[str, Any]]:
    """The chat request bodies of the agent's session (those offering tools), in order."""
    return [r.body for r in server.chat_requests if isinstance(r.body, dict) and r.body.get("tools")]


def tool_names(server: OpenAIServer) -> set[str]:
    names: set[str] = set()
    for body in session_requests(server):
        names.update(str(t.get("function", {}).get("name")) for t in body["tools"])
    return names


def tool_results(server: OpenAIServer) -> dict[str, str]:
    """Each tool call's result as the model received it, by call id (the latest request wins)."""
    results: dict[str, str] = {}
    for body in session_requests(server):
        for message in body.get("messages", []):
            if message.get("role") == "tool":
                content = message.get("content")
                if not isinstance(content, str):
                    content = json.dumps(content)
                results[str(message.get("tool_call_id"))] = content
    return results


def requests_containing(server: OpenAIServer, needles: Iterable[str]) -> dict[str, int]:
    """How many recorded requests (any path, body as sent) contain each needle."""
    bodies = [json.dumps(r.body) for r in server.requests]
    return {needle: sum(needle in body for body in bodies) for needle in needles}
