"""The scripted ACP agent (xworkmate/testing/acp_agent.py) with one more step: ask, then act only if allowed.

A real agent CLI asks for permission and writes only when the person allows it;
the plain scripted agent runs its steps whatever the answer. Step::

    {"ask_then": {"permission": {...same keys as the "permission" step...},
                  "then": [ ...steps run only when an "allow" option was chosen... ]}}

Run it exactly like the scripted agent: ``python -m xworkmate.testing.acp_gated_agent SCRIPT.json``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from acp import run_agent

from xworkmate.testing.acp_agent import ScriptedAgent, load_script


class GatedAgent(ScriptedAgent):
    async def _step(
        self, session_id: str, step: dict[str, Any], prompt: str, said: list[str], cancelled: asyncio.Event
    ) -> str | None:
        if "ask_then" not in step:
            return await super()._step(session_id, step, prompt, said, cancelled)
        spec = step["ask_then"]
        permission = spec["permission"]
        await super()._step(session_id, {"permission": permission}, prompt, said, cancelled)
        # The plain "permission" step says "[permission ID: OPTION]" as its last words.
        if said and said[-1].startswith(f"[permission {permission['id']}: allow"):
            for then in spec.get("then", []):
                outcome = await super()._step(session_id, then, prompt, said, cancelled)
                if outcome is not None:
                    return outcome
        return None


def main(argv: list[str]) -> None:
    script = load_script(argv)
    if script.get("pid_file"):
        Path(script["pid_file"]).write_text(str(os.getpid()), encoding="utf-8")
    asyncio.run(run_agent(GatedAgent(script)))


if __name__ == "__main__":
    main(sys.argv)
