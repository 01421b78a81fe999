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
    """Register a real ACP agent process following ``script``; returns its report file (JSON lines)."""
    script_file = tmp_path / f"{name}.json"
    report = tmp_path / f"{name}-report.jsonl"
    script_file.write_text(
        json.dumps(
            {
                "report": str(report),
                "state": str(tmp_path / f"{name}-sessions.json"),
                "pid_file": str(tmp_path / f"{name}.pid"),
                **script,
            }
        )
    )
    agent = GATED_AGENT if gated else SCRIPTED_AGENT
    controller.add_provider(
        ProviderRecord(name=name, kind=ProviderKind.ACP, acp_command=(sys.executable, str(agent), str(script_file))),
        replace=True,
    )
    return report


def report_events(report: Path, event: str) -> list[dict[str, object]]:
    if not report.exists():
        return []
    rows = [json.loads(line) for line in report.read_text().splitlines() if line.strip()]
    return [r for r in rows if r["event"] == event]
