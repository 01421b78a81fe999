"""``session/request_permission`` goes to the approver, by the line's permission level, and never
lets an agent reach outside the working directory (SPEC §5, WR-1)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.acp import AgentHarness, assert_reaped, slow_approver
from xworkmate.agents.acp import (
    AcpApprovalDecision,
    AcpRunner,
    AcpTimeouts,
    needs_acp_approval,
    permission_approver,
)
from xworkmate.agents.events import ApprovalDecision, ApprovalRequest, ToolDone
from xworkmate.domain.threads import PermissionLevel
from xworkmate.llm.events import ToolCall


@pytest.fixture
def harness(tmp_path: Path) -> AgentHarness:
    return AgentHarness(tmp_path)


def _outcomes(harness: AgentHarness) -> dict[str, str]:
    return {row["id"]: row["outcome"] for row in harness.report("permission")}


def test_allowed_and_rejected_requests_reach_the_agent(harness: AgentHarness) -> None:
    async def decide(request: ApprovalRequest) -> ApprovalDecision:
        if request.call.id == "run-ls":
            return ApprovalDecision(allowed=True)
        return ApprovalDecision(allowed=False, reason="not today")

    script = harness.script(
        turn=[
            {"permission": {"id": "run-ls", "title": "Run ls", "kind": "execute", "raw_input": {"command": "ls"}}},
            {"permission": {"id": "run-rm", "title": "Run rm -rf build", "kind": "execute"}},
        ]
    )
    out = harness.run(script, approver=decide)

    assert out.error is None, out.error
    assert _outcomes(harness) == {"run-ls": "allow-once", "run-rm": "reject-once"}
    first = out.approvals[0]
    assert first.thread_id == "draft-acp" and first.call.name == "execute" and first.summary == "Run ls"
    (refused,) = out.of(ToolDone)
    assert refused.call.id == "run-rm" and refused.result.error_kind == "not_approved"
    assert "not today" in refused.result.content
    assert_reaped(harness.pid())


def test_always_is_remembered_for_the_session_and_tool_kind(harness: AgentHarness) -> None:
    runner = AcpRunner(AcpTimeouts(startup=15, idle=15))

    async def always(request: ApprovalRequest) -> ApprovalDecision:
        return AcpApprovalDecision(allowed=True, always=True)

    script = harness.script(
        session_id="sess-always",
        turn=[
            {"permission": {"id": "p1", "title": "Run make", "kind": "execute"}},
            {"permission": {"id": "p2", "title": "Run make test", "kind": "execute"}},
            {"permission": {"id": "p3", "title": "Fetch docs", "kind": "fetch", "options": "once"}},
        ],
    )
    out = harness.run(script, approver=always, runner=runner)

    assert out.error is None, out.error
    # Asked once for execute (then remembered), once for fetch; "always" falls back to "once"
    # when the agent offers no "always" option.
    assert [a.call.id for a in out.approvals] == ["p1", "p3"]
    assert _outcomes(harness) == {"p1": "allow-always", "p2": "allow-always", "p3": "allow-once"}
    assert runner.remembered("sess-always", "execute") is True
    runner.forget("sess-always")
    assert runner.remembered("sess-always", "execute") is None


def test_permission_level_decides_what_needs_a_person(harness: AgentHarness) -> None:
    script = harness.script(
        turn=[
            {"permission": {"id": "edit", "title": "Edit a.txt", "kind": "edit"}},
            {"permission": {"id": "exec", "title": "Run ls", "kind": "execute"}},
            {"permission": {"id": "read", "title": "Read a.txt", "kind": "read"}},
        ]
    )
    out = harness.run(script, level=PermissionLevel.AUTO_EDIT)

    assert out.error is None, out.error
    assert [a.call.id for a in out.approvals] == ["exec"]
    assert _outcomes(harness) == {"edit": "allow-once", "exec": "allow-once", "read": "allow-once"}


def test_locations_outside_the_working_directory_are_refused_without_asking(
    harness: AgentHarness, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    script = harness.script(
        turn=[
            {"permission": {"id": "abs", "title": "Edit outside.txt", "kind": "edit", "locations": [str(outside)]}},
            {"permission": {"id": "dots", "title": "Edit ../x", "kind": "edit", "locations": ["../x"]}},
            {
                "permission": {
                    "id": "diff",
                    "title": "Write a file",
                    "kind": "edit",
                    "locations": [str(harness.workspace / "ok.txt")],
                    "diff": {"path": str(outside), "new": "x"},
                }
            },
            {"permission": {"id": "inside", "title": "Edit ok.txt", "kind": "edit", "locations": ["ok.txt"]}},
        ]
    )
    out = harness.run(script, level=PermissionLevel.FULL)

    assert out.error is None, out.error
    assert out.approvals == []
    assert _outcomes(harness) == {
        "abs": "reject-once",
        "dots": "reject-once",
        "diff": "reject-once",
        "inside": "allow-once",
    }
    refused = {e.call.id: e.result for e in out.of(ToolDone)}
    assert set(refused) == {"abs", "dots", "diff"}
    assert all(r.error_kind == "path_escape" and "outside the working directory" in r.content for r in refused.values())


def test_waiting_for_a_person_does_not_count_as_agent_silence(harness: AgentHarness) -> None:
    runner = AcpRunner(AcpTimeouts(startup=15, idle=1.0))
    script = harness.script(turn=[{"permission": {"id": "slow", "title": "Run ls", "kind": "execute"}}, {"say": "ok"}])
    out = harness.run(script, runner=runner, approver=slow_approver(2.0, ApprovalDecision(allowed=True)))

    assert out.error is None, out.error
    assert _outcomes(harness) == {"slow": "allow-once"}


def test_a_failing_approver_rejects(harness: AgentHarness) -> None:
    async def broken(request: ApprovalRequest) -> ApprovalDecision:
        raise RuntimeError("the window went away")

    script = harness.script(turn=[{"permission": {"id": "p", "title": "Run ls", "kind": "execute"}}])
    out = harness.run(script, approver=broken)

    assert out.error is None, out.error
    assert _outcomes(harness) == {"p": "reject-once"}


def _request(kind: str, key: str = "draft-1") -> ApprovalRequest:
    call = ToolCall(id="c", name=kind, arguments='{"title": "x"}')
    return ApprovalRequest(thread_id=key, call=call, summary="Do x")


@pytest.mark.parametrize(
    ("level", "kind", "allowed"),
    [
        (PermissionLevel.FULL, "execute", True),
        (PermissionLevel.FULL, "edit", True),
        (PermissionLevel.AUTO_EDIT, "edit", True),
        (PermissionLevel.AUTO_EDIT, "delete", True),
        (PermissionLevel.AUTO_EDIT, "move", True),
        (PermissionLevel.AUTO_EDIT, "execute", False),
        (PermissionLevel.AUTO_EDIT, "fetch", False),
        (PermissionLevel.ASK, "edit", False),
        (PermissionLevel.ASK, "execute", False),
    ],
)
def test_headless_answers_follow_the_permission_level(level: PermissionLevel, kind: str, allowed: bool) -> None:
    refused: list[str] = []
    decision = asyncio.run(permission_approver(level, refused=refused)(_request(kind)))
    assert decision.allowed is allowed
    if allowed:
        assert refused == []
    else:
        assert refused == [decision.reason]
        assert "draft-1" in decision.reason and level.value in decision.reason
        assert "xworkmate thread set draft-1 --permission" in decision.reason


def test_which_requests_need_a_person() -> None:
    assert not needs_acp_approval("read", PermissionLevel.ASK)
    assert needs_acp_approval("edit", PermissionLevel.ASK)
    assert not needs_acp_approval("edit", PermissionLevel.AUTO_EDIT)
    assert needs_acp_approval("execute", PermissionLevel.AUTO_EDIT)
    assert not needs_acp_approval("execute", PermissionLevel.FULL)


def test_a_question_sent_as_a_permission_request_is_never_answered_for_the_person(harness: AgentHarness) -> None:
    """Issue 32, item 5: Qwen's ``ask_user_question`` arrives as a ``think`` permission request. On a ``full``
    line it reached the approver (the window's card) instead of being submitted unanswered, each time (an
    "always" is not remembered for questions); headless, it is refused in one line that says why."""
    question = {"id": "q", "title": "Which database should I use?", "kind": "think", "options": "once"}
    script = harness.script(turn=[{"permission": question}, {"permission": dict(question, id="q2")}])
    asked: list[str] = []

    async def always(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request.call.id)
        return ApprovalDecision(allowed=False, always=True, reason="answered in my next message")

    out = harness.run(script, level=PermissionLevel.FULL, approver=always)
    assert out.error is None, out.error
    assert asked == ["q", "q2"]
    assert _outcomes(harness) == {"q": "reject-once", "q2": "reject-once"}

    refused: list[str] = []
    decision = asyncio.run(permission_approver(PermissionLevel.FULL, refused=refused)(_request("think")))
    assert not decision.allowed and refused == [decision.reason]
    assert "\n" not in decision.reason and "asked a question" in decision.reason
    assert "not answered for you" in decision.reason
    assert needs_acp_approval("think", PermissionLevel.FULL)
