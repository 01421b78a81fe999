"""Tests of the ACP runner against a real scripted agent process (xworkmate/testing/acp_agent.py).

``AgentHarness`` owns one test's folders: the line's working directory, the
agent's report (what it saw and did, one JSON object a line), its pid file and
its session store. ``AgentHarness.turn`` drives ``AcpRunner.run_turn`` and
returns the result (or the exception) with every event and approval request;
``run`` does one turn under ``asyncio.run``; ``run_concurrently`` runs several
independent turns at once, so that the slow scenarios overlap.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xworkmate.agents.acp import AcpRunner, AcpTimeouts, AcpTurnResult
from xworkmate.agents.events import ApprovalDecision, ApprovalRequest, Approver
from xworkmate.agents.sandbox import Sandbox
from xworkmate.domain.runs import RunRequest
from xworkmate.domain.threads import ExecutionBinding, ExecutionMode, PermissionLevel

AGENT = Path(__file__).resolve().parents[2] / "xworkmate" / "testing" / "acp_agent.py"  # issue 21: moved here
FAST = AcpTimeouts(startup=15.0, idle=15.0, cancel_grace=3.0, exit_grace=2.0, kill_grace=2.0)


async def allow_all(request: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision(allowed=True)


@dataclass
class Outcome:
    result: AcpTurnResult | None
    error: BaseException | None
    events: list[Any]
    approvals: list[ApprovalRequest]
    first_event_at: float | None = None  # time.monotonic() when the turn's first event came
    ended_at: float = 0.0  # time.monotonic() when the turn's task ended

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


@dataclass
class AgentHarness:
    root: Path
    workspace: Path = field(init=False)

    def __post_init__(self) -> None:
        self.workspace = (self.root / "ws").resolve()
        self.workspace.mkdir(parents=True, exist_ok=True)

    @property
    def report_path(self) -> Path:
        return self.root / "report.jsonl"

    @property
    def pid_path(self) -> Path:
        return self.root / "agent.pid"

    @property
    def state_path(self) -> Path:
        return self.root / "sessions.json"

    def script(self, **keys: Any) -> dict[str, Any]:
        return {
            "report": str(self.report_path),
            "pid_file": str(self.pid_path),
            "state": str(self.state_path),
            **keys,
        }

    @staticmethod
    def command() -> tuple[str, ...]:
        return (sys.executable, "-m", "xworkmate.testing.acp_agent")

    def request(self, *, category: str | None = None, key: str = "draft-acp") -> RunRequest:
        return RunRequest(
            session_id=key,
            thread_id=key,
            working_directory=str(self.workspace),
            prompt="do the thing",
            execution=ExecutionBinding(mode=ExecutionMode.ACP, provider="scripted"),
            category=category,
        )

    def report(self, event: str | None = None) -> list[dict[str, Any]]:
        if not self.report_path.exists():
            return []
        rows = [json.loads(line) for line in self.report_path.read_text().splitlines() if line.strip()]
        return [r for r in rows if event is None or r["event"] == event]

    def pid(self) -> int:
        return int(self.pid_path.read_text())

    def run(self, script: dict[str, Any], **options: Any) -> Outcome:
        """One turn under its own ``asyncio.run``; see ``turn`` for the options."""
        return asyncio.run(self.turn(script, **options))

    async def turn(
        self,
        script: dict[str, Any],
        *,
        approver: Approver | None = None,
        level: PermissionLevel = PermissionLevel.ASK,
        acp_session_id: str | None = None,
        runner: AcpRunner | None = None,
        request: RunRequest | None = None,
        command: tuple[str, ...] | None = None,
        env: dict[str, str] | None = None,
        prompt: str = "do the thing",
        cancel_when: Callable[[list[Any]], bool] | None = None,
        cancel_on_approval: bool = False,
        command_sandbox: Sandbox | None = None,
    ) -> Outcome:
        """One turn. ``cancel_when`` cancels the turn's task as soon as the events so far satisfy it;
        ``cancel_on_approval`` as soon as the approver is asked; ``command_sandbox`` is the line's (its
        terminals run in it, its file-system requests refuse what it hides)."""
        events: list[Any] = []
        approvals: list[ApprovalRequest] = []
        base = approver or allow_all

        trigger = asyncio.Event()

        async def recording_approver(req: ApprovalRequest) -> ApprovalDecision:
            approvals.append(req)
            if cancel_on_approval:
                trigger.set()
            return await base(req)

        first_event_at: list[float] = []

        def emit(event: object) -> None:
            if not events:
                first_event_at.append(time.monotonic())
            events.append(event)
            if cancel_when is not None and cancel_when(events):
                trigger.set()

        task = asyncio.create_task(
            (runner or AcpRunner(FAST)).run_turn(
                request or self.request(),
                command=command or self.command(),
                env={"XWM_ACP_SCRIPT": json.dumps(script), **(env or {})},
                prompt=prompt,
                acp_session_id=acp_session_id,
                approver=recording_approver,
                emit=emit,
                permission_level=level,
                command_sandbox=command_sandbox,
            )
        )
        if cancel_when is not None or cancel_on_approval:
            waiter = asyncio.create_task(trigger.wait())
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            await asyncio.wait({waiter})
            task.cancel()
        await asyncio.wait({task})
        ended_at = time.monotonic()
        first = first_event_at[0] if first_event_at else None
        if task.cancelled():
            return Outcome(None, asyncio.CancelledError(), events, approvals, first, ended_at)
        error = task.exception()
        return Outcome(None if error else task.result(), error, events, approvals, first, ended_at)


def run_concurrently(turns: dict[str, Awaitable[Outcome]]) -> dict[str, Outcome]:
    """Several independent turns at once (each its own agent process), as several lines would run."""

    async def main() -> dict[str, Outcome]:
        names = list(turns)
        results = await asyncio.gather(*(turns[n] for n in names))
        return dict(zip(names, results, strict=True))

    return asyncio.run(main())


def assert_reaped(pid: int) -> None:
    """The agent process is gone and was waited for: not our child any more, and no zombie left."""
    try:
        waited = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        waited = None
    assert waited is None, f"process {pid} is still our child (waitpid returned {waited})"
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():  # the pid may have been reused by an unrelated process, but never as our zombie
        fields = stat.read_text().rsplit(")", 1)[1].split()
        assert fields[0] != "Z" or int(fields[1]) != os.getpid(), f"process {pid} is a zombie of ours"


def slow_approver(seconds: float, decision: ApprovalDecision) -> Approver:
    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        await asyncio.sleep(seconds)
        return decision

    return approve
