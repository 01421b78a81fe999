"""Issue 32 item 5: an MCP server the agent got but could not start, as the agent reports it, through a real
scripted agent process that reports it as Qwen Code does (one line on its stderr; ``agents/acp_mcp.py`` has how
each pinned agent reports it). The real Qwen Code is in ``test_qwen_sign_in.py``; ``run``'s stderr in
``tests/cli/test_agent_cli.py``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import cast

from xworkmate.agents.acp_mcp import mcp_failures_said
from xworkmate.controllers import SessionController
from xworkmate.controllers.changes import AgentMcpFailed
from xworkmate.domain.mcp import McpServerRecord
from xworkmate.domain.messages import MessageSource
from xworkmate.testing.acp_scripts import report_events, scripted_agent

QWEN_SAYS = (
    "Warning: MCP server(s) failed to start: {}. Continuing with built-in tools and any servers that did connect."
)


def test_qwens_report_names_the_servers_and_nothing_else_is_taken_for_one() -> None:
    assert mcp_failures_said(QWEN_SAYS.format("broken")) == ("broken",)
    assert mcp_failures_said("\x1b[33m" + QWEN_SAYS.format("a, b, a") + "\x1b[0m") == ("a", "b")
    assert mcp_failures_said("Warning: MCP server(s) are slow. Continuing with built-in tools") == ()
    assert mcp_failures_said("MCP startup failed: handshaking with MCP server failed") == ()


def test_a_reported_failure_is_a_notice_a_warning_of_the_outcome_and_a_change_record(
    controller: SessionController, tmp_path: Path
) -> None:
    report = scripted_agent(
        controller, tmp_path, turn=[{"stderr": QWEN_SAYS.format("broken")}, {"sleep": 0.5}, {"say": "ok"}]
    )
    controller.agents.add_mcp_server(McpServerRecord(name="broken", command=("false",)))
    line = controller.lines.create_line("mcp")
    key = line.thread_id
    controller.line_settings.set_execution(key, "acp", "scripted")
    controller.agents.set_line_mcp_servers(key, ["broken"])
    changes: list[AgentMcpFailed] = []
    controller.subscribe(lambda change: changes.append(change) if isinstance(change, AgentMcpFailed) else None)

    outcome = asyncio.run(controller.turns.run_turn(key, "hi", headless=True))

    assert outcome.status == "finished" and outcome.text == "ok", outcome.error
    [new] = report_events(report, "new_session")
    given = cast("list[dict[str, object]]", new["mcp"])
    assert [s["name"] for s in given] == ["broken"]  # the agent got it; it is the agent that failed it
    [warning] = outcome.warnings
    assert warning.startswith("MCP server 'broken' failed to start inside ") and "\n" not in warning
    assert [(c.key, c.servers, c.message) for c in changes] == [(key, ("broken",), warning)]
    notices = [m for m in controller.lines.messages(key) if m.source is MessageSource.FRAMEWORK_EVENT]
    assert [m.content for m in notices if "failed to start" in m.content] == [warning]
