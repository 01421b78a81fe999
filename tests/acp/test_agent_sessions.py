"""Issue 15, item 7: session/resume when the agent advertises it (else session/load), with a real
scripted agent process. Binding a line through session/list: tests/cli/test_agent_cli.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

from xworkmate.controllers import SessionController
from xworkmate.testing.acp_scripts import report_events, scripted_agent


def test_a_stored_session_is_resumed_when_the_agent_advertises_resume(
    controller: SessionController, tmp_path: Path
) -> None:
    report = scripted_agent(
        controller, tmp_path, session_id="s-9", load_session=True, resume_session=True, turn=[{"say": "hi"}]
    )
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    assert asyncio.run(controller.turns.run_turn(line.thread_id, "one", headless=True)).status == "finished"
    assert asyncio.run(controller.turns.run_turn(line.thread_id, "two", headless=True)).status == "finished"
    assert [e["session_id"] for e in report_events(report, "resume_session")] == ["s-9"]
    assert report_events(report, "load_session") == []  # resume, not load: nothing replayed
    assert len(report_events(report, "new_session")) == 1
    answers = [m.content for m in controller.lines.messages(line.thread_id) if m.content == "hi"]
    assert answers == ["hi", "hi"]
