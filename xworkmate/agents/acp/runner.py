"""``AcpRunner``: spawns the agent CLI for a turn, speaks ACP with it and reaps it however the turn ends."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import cast

from acp.client.connection import ClientSideConnection

from xworkmate.agents.acp.approvals import agent_environment
from xworkmate.agents.acp.errors import AcpCommandNotFound, AcpWorkingDirectoryError, check_acp_allowed
from xworkmate.agents.acp.login_terminal import LoginShower, LoginTerminal
from xworkmate.agents.acp.process import _AgentProcess
from xworkmate.agents.acp.reports import AcpAuthMethod, AcpTimeouts, AcpTurnResult, AuthChooser
from xworkmate.agents.acp.terminals import TurnTerminals
from xworkmate.agents.acp.turn import _Turn
from xworkmate.agents.confinement import (
    WorkingDirectoryError,
    real_working_directory,
)
from xworkmate.agents.events import (
    Approver,
    EventSink,
)
from xworkmate.agents.net_proxy import ProxyConnection, proxied
from xworkmate.agents.sandbox import Sandbox
from xworkmate.domain.agent_session import AgentSessionState
from xworkmate.domain.attachments import Attachment
from xworkmate.domain.mcp import McpServerRecord
from xworkmate.domain.runs import RunRequest
from xworkmate.domain.skills import Skill
from xworkmate.domain.threads import PermissionLevel


class AcpRunner:
    """Runs ACP turns. One instance may serve many lines at once; it remembers "always" answers
    per (ACP session, tool kind) for as long as it lives."""

    def __init__(self, timeouts: AcpTimeouts | None = None) -> None:
        self.timeouts = timeouts or AcpTimeouts()
        self._remembered: dict[tuple[str, str], bool] = {}
        self._live: dict[str, tuple[ClientSideConnection, _Turn]] = {}  # line → its open session (issue 15)

    def apply_live(self, thread_id: str, choices: AgentSessionState) -> bool:
        """Send the person's picks to the line's running turn, if it has an open session; True if it had."""
        live = self._live.get(thread_id)
        if live is None:
            return False
        connection, turn = live
        if turn.offers is None or turn.session_id is None:
            return False
        task = asyncio.ensure_future(turn.offers.apply_choices(connection, turn.session_id, choices))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return True

    def remembered(self, session_id: str, kind: str) -> bool | None:
        """The "always" answer given for this session and tool kind, if any."""
        return self._remembered.get((session_id, kind))

    def forget(self, session_id: str) -> None:
        for key in [k for k in self._remembered if k[0] == session_id]:
            del self._remembered[key]

    async def run_turn(
        self,
        request: RunRequest,
        *,
        command: Sequence[str],
        env: Mapping[str, str],
        prompt: str,
        acp_session_id: str | None,
        approver: Approver,
        emit: EventSink,
        permission_level: PermissionLevel,
        provider: str | None = None,
        sandbox: Sandbox | None = None,
        base_env: Mapping[str, str] | None = None,
        command_sandbox: Sandbox | None = None,
        command_env: Mapping[str, str] | None = None,
        auth_method: str | None = None,
        choose_auth: AuthChooser | None = None,
        show_login: LoginShower | None = None,
        choices: AgentSessionState | None = None,
        mcp_servers: Sequence[McpServerRecord] = (),
        attachments: Sequence[Attachment] = (),
        skills: Sequence[Skill] = (),
    ) -> AcpTurnResult:
        """One prompt turn of the agent ``command`` in ``request.working_directory``.

        ``env`` is added to the agent's environment (``base_env``, else ours minus
        secret-looking names); pass the provider's resolved references here.
        ``auth_method``: the sign-in method the person chose for this agent, used up front;
        otherwise, when the agent answers "authentication required", its only method, else
        ``choose_auth`` asks (None: refuse in one line naming the methods). ``show_login``: the window shows a
        terminal method's login program, which runs on a pty in the agent's sandbox with its environment
        (issue 32 item 4; None: ``auth.terminal`` is not advertised and the method is refused in one line).
        ``sandbox`` contains the agent process and everything it starts (SBX-1);
        the caller decides, with the person, whether to run without one.
        ``command_sandbox`` and ``command_env``: the line's own sandbox (its network setting)
        and environment allow-list for the agent's terminals; without a usable sandbox every
        terminal asks, saying so. ``choices``: the person's picks of mode, model and config options,
        sent once the session is open (issue 15, item 4). ``mcp_servers``: the line's MCP servers,
        passed as the agent's mcpCapabilities allow (item 3). ``skills``: the line's selected skills, sent
        with the prompt (SKL-2: embedded resources when the agent takes them, else one text block). Raises
        ``AcpCategoryError`` for a category line and ``AcpAgentError`` subclasses
        for everything the agent does wrong; cancelling the task cancels the turn.
        """
        check_acp_allowed(request.category)  # CAT-3, before anything starts
        command = tuple(command)
        child_env = {**base_env, **env} if base_env is not None else agent_environment(env)
        executable = _find_executable(command, child_env)
        try:
            working_directory = real_working_directory(request.working_directory)
        except WorkingDirectoryError as exc:
            raise AcpWorkingDirectoryError(command, str(exc)) from None
        turn = _Turn(
            runner=self,
            request=request,
            command=command,
            working_directory=working_directory,
            approver=approver,
            emit=cast(Callable[[object], None], emit),
            level=permission_level,
            provider=provider,
        )
        turn.auth_method, turn.choose_auth = auth_method, choose_auth
        turn.choices, turn.mcp_servers = choices, tuple(mcp_servers)
        turn.attachments = tuple(attachments)  # ATT-1: sent as the agent's promptCapabilities take them
        turn.skills = tuple(skills)
        report = cast(Callable[[ProxyConnection], None], turn.emit)  # in order with the turn's streamed text
        # SBX-4: an allow-list sandbox (the agent's, its terminals') reaches the network through its own
        # proxy, for the life of the agent process; each connection is reported to the turn.
        async with proxied(sandbox, report) as (sandbox, agent_proxy), proxied(command_sandbox, report) as routed:
            command_sandbox, terminal_proxy = routed
            terminal_env = {**command_env, **terminal_proxy} if command_env is not None else None
            turn.terminals = TurnTerminals(working_directory, sandbox=command_sandbox, env=terminal_env)
            # SBX-2: the client file system refuses what the agent's sandbox hides (one list, the line's).
            contained = sandbox or command_sandbox
            turn.policy = contained.policy if contained is not None else None
            agent = _AgentProcess(command, self.timeouts)
            agent_env = {**child_env, **agent_proxy}
            if show_login is not None:
                turn.show_login = show_login
                turn.launch_login = partial(_launch_login, command, executable, working_directory, agent_env, sandbox)
            await agent.start(executable, working_directory, agent_env, sandbox)
            try:
                return await turn.drive(agent, prompt, acp_session_id)
            finally:
                await agent.close_reaped()


async def _launch_login(
    command: tuple[str, ...],
    executable: str,
    working_directory: Path,
    env: Mapping[str, str],
    sandbox: Sandbox | None,
    method: AcpAuthMethod,
) -> LoginTerminal:
    """A terminal method's login program: the agent's executable and arguments plus the method's ``args``, with
    the method's ``env`` over the agent's own, in the agent's sandbox (SBX-1, SBX-4) and folder."""
    shown = (*command, *method.login_args)
    terminal = LoginTerminal(shown, method.name)
    argv = [executable, *command[1:], *method.login_args]
    await terminal.start(argv, working_directory, {**env, **dict(method.login_env)}, sandbox)
    return terminal


def _find_executable(command: tuple[str, ...], env: Mapping[str, str]) -> str:
    if not command or not command[0].strip():
        raise AcpCommandNotFound(command, "the provider has no command configured")
    found = shutil.which(command[0], path=env.get("PATH", os.defpath))
    if found is None:
        raise AcpCommandNotFound(command, f"no executable {command[0]!r} on PATH")
    return found
