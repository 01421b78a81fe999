"""Cancelling a turn sends ``session/cancel``, lets the agent stop, then terminates it (SPEC §5)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.acp import AgentHarness, Outcome, assert_reaped, run_concurrently
from xworkmate.agents.acp import AcpRunner, AcpTimeouts
from xworkmate.agents.events import ApprovalDecision, ApprovalRequest, AssistantDelta, AssistantDone, ToolDone
from xworkmate.domain.messages import MessageState

Scenarios = dict[str, tuple[AgentHarness, Outcome]]


async def _never(request: ApprovalRequest) -> ApprovalDecision:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


def _after_text(text: str) -> Any:
    return lambda events: any(isinstance(e, AssistantDelta) and e.text == text for e in events)


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Scenarios:
    runner = AcpRunner(AcpTimeouts(startup=15, idle=15, cancel_grace=1.0, exit_grace=1.0, kill_grace=1.0))
    harnesses = {n: AgentHarness(tmp_path_factory.mktemp(n)) for n in ("polite", "deaf", "approval")}
    hang_tool = {"tool": {"id": "t1", "title": "Run tests", "kind": "execute", "status": "in_progress"}}
    turns = {
        "polite": harnesses["polite"].turn(
            harnesses["polite"].script(turn=[{"say": "working"}, hang_tool, {"hang": True}]),
            runner=runner,
            cancel_when=_after_text("working"),
        ),
        "deaf": harnesses["deaf"].turn(
            harnesses["deaf"].script(turn=[{"say": "busy"}, {"hang": True, "ignore_cancel": True}]),
            runner=runner,
            cancel_when=_after_text("busy"),
        ),
        "approval": harnesses["approval"].turn(
            harnesses["approval"].script(
                turn=[{"say": "may I?"}, {"permission": {"id": "p", "title": "Run ls", "kind": "execute"}}]
            ),
            runner=runner,
            approver=_never,
            cancel_on_approval=True,
        ),
    }
    outcomes = run_concurrently(turns)
    return {n: (harnesses[n], outcomes[n]) for n in harnesses}


def test_cancel_sends_session_cancel_and_the_agent_stops(scenarios: Scenarios) -> None:
    harness, out = scenarios["polite"]
    assert isinstance(out.error, asyncio.CancelledError)
    assert len(harness.report("cancel")) == 1
    assert len(harness.report("stopped_after_cancel")) == 1
    (done,) = out.of(AssistantDone)
    assert done.text == "working" and done.state is MessageState.INTERRUPTED
    (tool,) = out.of(ToolDone)
    assert tool.result.error_kind == "cancelled" and not tool.result.ok
    assert_reaped(harness.pid())


def test_an_agent_that_ignores_cancel_is_terminated(scenarios: Scenarios) -> None:
    harness, out = scenarios["deaf"]
    assert isinstance(out.error, asyncio.CancelledError)
    assert len(harness.report("cancel")) == 1
    assert harness.report("stopped_after_cancel") == []
    assert_reaped(harness.pid())


def test_cancel_while_a_person_decides_answers_the_agent_cancelled(scenarios: Scenarios) -> None:
    harness, out = scenarios["approval"]
    assert isinstance(out.error, asyncio.CancelledError)
    assert [a.call.id for a in out.approvals] == ["p"]
    assert [r["outcome"] for r in harness.report("permission")] == ["cancelled"]
    assert len(harness.report("cancel")) == 1
    assert_reaped(harness.pid())
