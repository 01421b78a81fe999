"""Ask an ACP agent which sessions it has, outside a turn (issue 15, item 7).

``list_agent_sessions`` starts the agent as a turn would (its sandbox, its
environment, the line's folder), sends ``initialize``, signs in with the
person's method when one is chosen (or the only one, when the agent asks), and
calls ``session/list`` for the folder when the agent advertises it
(``sessionCapabilities.list``). With ``delete``, it first asks the agent to
delete that session (``session/delete``, only when advertised: issue 32,
item 6) and lists what is left. Nothing else is asked of the agent; it is
stopped and reaped however the probe ends.

It reuses the runner's process machinery (``_AgentProcess``: timeouts,
stdout checking, reaping), which is the one home for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, RequestError
from acp.interfaces import Client
from acp.schema import ClientCapabilities, DeniedOutcome, Implementation, RequestPermissionResponse

from xworkmate import __version__
from xworkmate.agents.acp.approvals import agent_environment
from xworkmate.agents.acp.errors import AUTH_REQUIRED, AcpAuthError, AcpRequestFailed, command_label
from xworkmate.agents.acp.process import _AgentProcess, connect
from xworkmate.agents.acp.reports import AcpTimeouts
from xworkmate.agents.acp.runner import _find_executable
from xworkmate.agents.sandbox import Sandbox
from xworkmate.domain.agent_session import AgentInfo

__all__ = ["AgentSession", "AgentSessions", "SessionDeleteRefused", "list_agent_sessions"]


class SessionDeleteRefused(LookupError):
    """The agent cannot delete sessions (it does not advertise ``session/delete``); one line."""


@dataclass(frozen=True)
class AgentSession:
    session_id: str
    title: str | None = None
    updated_at: str | None = None
    cwd: str | None = None


@dataclass(frozen=True)
class AgentSessions:
    """``supported`` False: the agent does not advertise session/list (nothing was asked); ``deletes``: it
    advertises session/delete (``sessionCapabilities.delete``, issue 32 item 6)."""

    supported: bool
    sessions: tuple[AgentSession, ...] = ()
    info: AgentInfo | None = None
    deletes: bool = False


class _ProbeClient:
    """The client side of a probe: the agent should ask nothing of us; if it does, it is refused."""

    def on_connect(self, conn: object) -> None:
        return None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def request_permission(self, *args: Any, **kwargs: Any) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


async def list_agent_sessions(
    command: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    base_env: Mapping[str, str] | None = None,
    sandbox: Sandbox | None = None,
    auth_method: str | None = None,
    timeouts: AcpTimeouts | None = None,
    delete: str | None = None,
) -> AgentSessions:
    command = tuple(command)
    child_env = {**base_env, **env} if base_env is not None else agent_environment(env)
    executable = _find_executable(command, child_env)
    agent = _AgentProcess(command, timeouts or AcpTimeouts())
    await agent.start(executable, cwd, child_env, sandbox)
    connection = None
    try:
        assert agent.process is not None and agent.process.stdin is not None
        connection = connect(cast(Client, _ProbeClient()), agent)
        probe = asyncio.ensure_future(_probe(agent, connection, str(cwd), auth_method, delete))
        either: set[asyncio.Future[Any]] = {probe, agent.failure}
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if not probe.done():
            probe.cancel()
            await asyncio.wait({probe})
            raise agent.failure.result()
        error = probe.exception()
        if isinstance(error, RequestError):
            raise AcpRequestFailed(command, agent.phase, error) from None
        if error is not None:
            if agent.failure.done():
                raise agent.failure.result() from None
            raise error
        return probe.result()
    finally:
        await agent.close_reaped(connection)


async def _probe(
    agent: _AgentProcess, connection: Any, cwd: str, auth_method: str | None, delete: str | None
) -> AgentSessions:
    agent.enter("initialize")
    init = await connection.initialize(
        protocol_version=PROTOCOL_VERSION,
        client_capabilities=ClientCapabilities(),
        client_info=Implementation(name="xworkmate", title="XWorkmate", version=__version__),
    )
    info = init.agent_info
    capabilities = init.agent_capabilities
    sessions = capabilities.session_capabilities if capabilities else None
    lists = bool(sessions and sessions.list is not None)
    reported = AgentInfo(name=info.name, title=info.title, version=info.version, lists_sessions=lists) if info else None
    if delete is not None and not (sessions and sessions.delete is not None):
        raise SessionDeleteRefused(
            f"ACP agent {command_label(agent.command)} cannot delete sessions (it does not advertise session/delete)"
        )
    deletes = bool(sessions and sessions.delete is not None)
    if not (sessions and sessions.list is not None):
        return AgentSessions(supported=False, info=reported, deletes=deletes)
    methods = [m.id for m in init.auth_methods or []]
    if auth_method is not None:
        await _authenticate(agent, connection, auth_method)
    agent.enter("session/new")  # the startup timeout applies to the listing too
    try:
        await _delete(agent, connection, delete)
        listed = await connection.list_sessions(cwd=cwd)
    except RequestError as exc:
        if exc.code != AUTH_REQUIRED or auth_method is not None or len(methods) != 1:
            raise
        await _authenticate(agent, connection, methods[0])
        agent.enter("session/new")
        await _delete(agent, connection, delete)
        listed = await connection.list_sessions(cwd=cwd)
    found = tuple(
        AgentSession(session_id=s.session_id, title=s.title, updated_at=s.updated_at, cwd=s.cwd)
        for s in listed.sessions
    )
    return AgentSessions(supported=True, sessions=found, info=reported, deletes=deletes)


async def _delete(agent: _AgentProcess, connection: Any, session_id: str | None) -> None:
    """``session/delete`` (the SDK has no call for it yet: the schema's ``DeleteSessionRequest``, as is)."""
    if session_id is None:
        return
    try:
        await connection._conn.send_request("session/delete", {"sessionId": session_id})
    except RequestError as exc:
        if exc.code == AUTH_REQUIRED:
            raise
        raise SessionDeleteRefused(
            f"ACP agent {command_label(agent.command)} did not delete session {session_id!r}: {exc}"
        ) from None


async def _authenticate(agent: _AgentProcess, connection: Any, method_id: str) -> None:
    agent.enter("authenticate")
    try:
        await connection.authenticate(method_id=method_id)
    except RequestError as exc:
        raise AcpAuthError(
            agent.command, f"ACP agent {command_label(agent.command)} refused sign-in with {method_id!r}: {exc}"
        ) from None
