"""Issue 15 leftover: an ACP terminal's output streams live into its tool card while the agent waits
for it (real scripted agent, real command in real bubblewrap)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.acp.test_terminals import _line
from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController, ToolRunning
from xworkmate.domain.messages import MessageRole
from xworkmate.testing.acp_scripts import scripted_agent


@needs_bwrap
def test_terminal_output_streams_into_the_tool_card_before_the_command_ends(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"terminal": {"command": "echo alpha-$((1+1)); sleep 1.5; echo beta-$((2+2))", "tool_id": "t1"}},
            {"say": "ok"},
        ],
    )
    key, _folder = _line(controller)
    seen: list[tuple[float, ToolRunning]] = []
    controller.subscribe(
        lambda change: seen.append((time.monotonic(), change)) if isinstance(change, ToolRunning) else None
    )
    outcome = asyncio.run(asyncio.wait_for(controller.turns.run_turn(key, "go", headless=True), 30))
    ended = time.monotonic()
    assert outcome.status == "finished", outcome.error
    live = [(at, c) for at, c in seen if c.call_id == "t1" and "alpha-2" in c.summary]
    assert live, [c.summary for _at, c in seen]
    first_at, first = live[0]
    assert "beta-4" not in first.summary  # shown while the command still ran
    # The tool card's summary (the agent's title for it: the command), then the output so far.
    assert first.summary.splitlines() == ["echo alpha-$((1+1)); sleep 1.5; echo beta-$((2+2))", "alpha-2"]
    assert ended - first_at > 1.0
    assert any("beta-4" in c.summary for _at, c in live)
    cards = [m.content for m in controller.lines.messages(key) if m.role is MessageRole.TOOL]
    assert any("alpha-2" in c and "beta-4" in c for c in cards), cards
