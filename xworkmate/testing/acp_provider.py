"""The ``xwm_acp_agent`` scripting layer: a real scripted ACP agent process as a provider (issue 21).

Not named ``acp.py``: the agent runs by path from this folder too, and would import it as the SDK.

The agent (:mod:`xworkmate.testing.acp_agent`) is started by the app itself, once per turn, as
``python -m xworkmate.testing.acp_agent SCRIPT.json``. The verbs rewrite that script, so they set
what the following turns do (an ACP agent answers every prompt from the same script)::

    xwm_acp_agent.reply("Hello from the agent")
    xwm_acp_agent.stream(["Hel", "lo"], delay=0.05)
    xwm_acp_agent.tool_call("Edit a.txt", kind="edit", diff={"path": "a.txt", "old": "", "new": "hi"})
    xwm_acp_agent.fail(3, "agent crashed")
    xwm_acp_agent.requests   # every prompt the agent received: {"event", "session_id", "text"}

For anything else, ``script(...)`` takes the raw keys documented in ``acp_agent``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

from xworkmate.controllers import SessionController
from xworkmate.testing.acp_scripts import agent_folder, report_events, scripted_agent

DEFAULT_AGENT = "scripted-agent"


class ScriptedAcpAgent:
    """The provider ``name`` on ``controller``: a real ACP agent process following a script."""

    def __init__(self, controller: SessionController, folder: Path, name: str = DEFAULT_AGENT) -> None:
        self.name = name
        self._controller = controller
        self._folder = folder
        self._keys: dict[str, Any] = {}
        self.report = scripted_agent(controller, folder, name, turn=[])
        self._script_file = agent_folder(folder, name) / f"{name}.json"
        self.script(turn=[{"say": "ok"}])

    def script(self, **keys: Any) -> Self:
        """Merge raw script keys (``turn``, ``stop_reason``, ``auth_methods``…) into the agent's script."""
        self._keys.update(keys)
        current = json.loads(self._script_file.read_text(encoding="utf-8"))
        current.update(self._keys)
        self._script_file.write_text(json.dumps(current), encoding="utf-8")
        return self

    def reply(self, text: str) -> Self:
        return self.script(turn=[{"say": text}])

    def stream(self, chunks: Sequence[str], *, delay: float = 0.0) -> Self:
        steps: list[dict[str, Any]] = []
        for chunk in chunks:
            if delay > 0:
                steps.append({"sleep": delay})
            steps.append({"say": chunk})
        return self.script(turn=steps)

    def tool_call(self, title: str, /, **spec: Any) -> Self:
        """A ``tool_call`` update titled ``title`` (keys as the ``tool`` step: kind, status, diff, text…)."""
        tool = {"id": "t1", "title": title, "status": "completed", **spec}
        return self.script(turn=[{"tool": tool}])

    def fail(self, exit_code: int = 1, stderr: str = "") -> Self:
        """The agent leaves mid-turn with ``exit_code`` after printing ``stderr``."""
        steps: list[dict[str, Any]] = [{"stderr": stderr}] if stderr else []
        return self.script(turn=[*steps, {"exit": exit_code}])

    @property
    def requests(self) -> list[dict[str, object]]:
        """Every ``session/prompt`` the agent received (as it reported them), in order."""
        return report_events(self.report, "prompt")
