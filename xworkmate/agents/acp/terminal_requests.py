"""An ACP turn's answers to the agent's ``terminal/*`` requests: the rules of the native ``run_command`` (issue 15
item 2, SBX-1), asking the person when they say so; ``acp.terminals`` runs the commands.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from acp.schema import (
    CreateTerminalResponse,
    EnvVariable,
    KillTerminalResponse,
    ReleaseTerminalResponse,
    TerminalOutputResponse,
    TerminalToolCallContent,
    WaitForTerminalExitResponse,
)

from xworkmate.agents.acp.approvals import describe_acp_call, needs_acp_approval
from xworkmate.agents.acp.requests import _AgentRequests
from xworkmate.agents.acp.terminals import terminal_refusal
from xworkmate.agents.confinement import (
    display_path,
)
from xworkmate.agents.events import (
    ToolOutputGrew,
)
from xworkmate.domain.tool_errors import ToolErrorKind
from xworkmate.llm.events import ToolCall

log = logging.getLogger(__name__)


class _TerminalRequests(_AgentRequests):
    """The part of ``_Turn`` that answers the agent's terminal requests."""

    # -- terminals (issue 15 item 2, SBX-1): the rules of the native run_command

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        self._check_session(session_id)
        plan = self.terminals.plan(command, args, env, cwd, output_byte_limit)
        if self.cancelling:
            raise terminal_refusal(f"{plan.label} was not run: the turn is being stopped", ToolErrorKind.CANCELLED)
        unsandboxed = self.terminals.unsandboxed_reason()
        remembered = self.runner.remembered(session_id, "execute")
        if unsandboxed is None and remembered is False:
            raise terminal_refusal(
                f"{plan.label} was not run: commands were rejected always", ToolErrorKind.NOT_APPROVED
            )
        # Like run_command: asked at ask/auto-edit; without a sandbox at every level, saying so.
        if unsandboxed is not None or (remembered is None and needs_acp_approval("execute", self.level)):
            arguments = {
                "title": f"run {plan.label}",
                "kind": "execute",
                "locations": [],
                "input": {
                    "command": command,
                    "args": args or [],
                    "cwd": display_path(self.working_directory, plan.cwd),
                },
            }
            call = ToolCall(id=f"terminal-{len(self.tools)}", name="execute", arguments=json.dumps(arguments))
            decision = await self._ask(call, unsandboxed)
            if decision is None or not decision.allowed:
                why = decision.reason if decision is not None and decision.reason else "the person rejected it"
                log.info("line %s: ACP terminal refused: %s: %s", self.request.thread_id, plan.label, why)
                raise terminal_refusal(f"{plan.label} was not approved: {why}", ToolErrorKind.NOT_APPROVED)
        return CreateTerminalResponse(terminal_id=self.terminals.start(plan))

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> TerminalOutputResponse:
        self._check_session(session_id)
        return self.terminals.output(terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        self._check_session(session_id)
        agent = self.agent
        assert agent is not None
        # Issue 15: while the agent waits, the command's output streams into its tool card.
        pump = asyncio.ensure_future(self.terminals.stream_output(terminal_id, self._terminal_output(terminal_id)))
        try:
            with agent.paused_clock():  # the agent is rightly silent while its command works
                return await self.terminals.wait_for_exit(terminal_id)
        finally:
            await asyncio.wait({pump}, timeout=1.0)  # it ends on its own with the last output
            pump.cancel()
            await asyncio.wait({pump})

    def _terminal_output(self, terminal_id: str) -> Callable[[str], None]:
        """Reports a terminal's output as its tool's (the tool call that shows it), else its own."""

        def report(output: str) -> None:
            for tool in self.tools.values():
                shows = any(
                    isinstance(c, TerminalToolCallContent) and c.terminal_id == terminal_id for c in tool.content
                )
                if shows and not tool.done:
                    self.emit(ToolOutputGrew(tool.id, describe_acp_call(tool.to_call()), output))
                    return
            self.emit(ToolOutputGrew(terminal_id, f"terminal {terminal_id}", output))

        return report

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> KillTerminalResponse | None:
        self._check_session(session_id)
        await self.terminals.kill(terminal_id)
        return KillTerminalResponse()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse | None:
        self._check_session(session_id)
        await self.terminals.release(terminal_id)
        return ReleaseTerminalResponse()
