"""Real ACP agent processes registered as providers (controller, CLI and window tests)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from xworkmate.controllers import SessionController
from xworkmate.domain.providers import ProviderKind, ProviderRecord

SCRIPTED_AGENT = Path(__file__).resolve().parent / "acp_agent.py"
GATED_AGENT = Path(__file__).resolve().parent / "acp_gated_agent.py"


def scripted_agent(
    controller: SessionController, tmp_path: Path, name: str = "scripted", *, gated: bool = False, **script: object
) -> Path:
    """Register a real ACP agent process following ``script``; returns its report file (JSON lines).

    The agent's files (script, report, sessions, pid) live in its own state folder, declared as the
    provider's ``acp_state_dirs``: in its sandbox that is the one place besides the line's folder it
    may write (SBX-1), as ``~/.qwen`` is for Qwen Code.
    """
    folder = agent_folder(tmp_path, name)
    folder.mkdir(parents=True, exist_ok=True)
    script_file = folder / f"{name}.json"
    report = folder / f"{name}-report.jsonl"
    script_file.write_text(
        json.dumps(
            {
                "report": str(report),
                "state": str(folder / f"{name}-sessions.json"),
                "pid_file": str(folder / f"{name}.pid"),
                **script,
            }
        )
    )
    controller.providers.add_provider(
        ProviderRecord(
            name=name,
            kind=ProviderKind.ACP,
            acp_command=(sys.executable, "-m", agent_module(gated), str(script_file)),
            acp_state_dirs=(str(folder),),
        ),
        replace=True,
    )
    return report


def agent_module(gated: bool = False) -> str:
    """The module the scripted agent runs as (``python -m ...``), found wherever xworkmate is installed."""
    return "xworkmate.testing.acp_gated_agent" if gated else "xworkmate.testing.acp_agent"


def agent_folder(tmp_path: Path, name: str = "scripted") -> Path:
    """Where ``scripted_agent`` keeps that agent's script, report, sessions and pid file."""
    return tmp_path / f"{name}-agent"


def report_events(report: Path, event: str) -> list[dict[str, object]]:
    if not report.exists():
        return []
    rows = [json.loads(line) for line in report.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["event"] == event]
