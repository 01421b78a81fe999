"""The line's ACP agent: its offers and the person's picks, the usage meter, MCP servers (issue 15).

``AgentSessionController`` is that section of ``SessionController``; the window
and the CLI call its operations alike. ``record_agent_event`` is how a turn's
recorder stores what the runner reports (``AcpOffersChanged``,
``AcpChoiceRefused``, ``UsageReported``, ``McpServerSkipped``, ``McpServerFailed``).

A pick is stored on the line and sent by the next turn once its session is
open (``session/set_mode|set_model|set_config_option``); while a turn runs, it
is sent to the live session at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from xworkmate.controllers.changes import AgentMcpFailed, AgentSessionChanged, LineUpdated, UsageChanged
from xworkmate.domain.agent_session import AgentInfo, AgentSessionState, LineUsage
from xworkmate.domain.mcp import McpServerError, McpServerRecord, servers_for_category
from xworkmate.domain.messages import MessageState

if TYPE_CHECKING:
    from xworkmate.agents.events import Approver
    from xworkmate.agents.sandbox import Sandbox
    from xworkmate.controllers.context import ControllerContext
    from xworkmate.domain.providers import ProviderRecord
    from xworkmate.domain.runs import ExecutionResult
    from xworkmate.domain.threads import TaskThread

__all__ = ["AgentSessionController", "record_agent_event"]

log = logging.getLogger(__name__)

AGENT_INFO_STATE = "acp_agent_info:"  # + provider name, in app_state


class AgentSessionController:
    """Issue-15 operations of ``SessionController``.

    ``live_acp_runner`` is the app's ACP runner (None before any ACP turn), ``acp_sandbox`` how a turn
    starts an agent CLI contained, ``apply_execution_result`` the one way a session id reaches the line.
    """

    def __init__(
        self,
        ctx: ControllerContext,
        *,
        live_acp_runner: Callable[[], Any],
        acp_sandbox: Callable[[TaskThread, ProviderRecord, Approver, bool], Awaitable[Sandbox]],
        apply_execution_result: Callable[[str, ExecutionResult], TaskThread],
    ) -> None:
        self._ctx = ctx
        self._live_acp_runner = live_acp_runner
        self._acp_sandbox = acp_sandbox
        self._apply_execution_result = apply_execution_result

    # -- offers and picks (item 4) --------------------------------------------------

    def agent_session(self, key: str) -> AgentSessionState:
        """What the line's agent offered on its last turn, with the person's picks.

        Offers of another agent (the line was switched since) are not shown.
        """
        thread = self._ctx.get_thread(key)
        state = self._ctx.store.agent_state.state(thread.thread_id)
        provider = thread.execution_binding.provider
        if state.agent is not None and state.agent != provider:
            return AgentSessionState(agent=provider)
        return state

    def choose_agent_mode(self, key: str, mode_id: str) -> AgentSessionState:
        return self._choose(key, lambda s: s.choose_mode(mode_id))

    def choose_agent_model(self, key: str, model_id: str) -> AgentSessionState:
        return self._choose(key, lambda s: s.choose_model(model_id))

    def choose_agent_config(self, key: str, config_id: str, value: str | bool) -> AgentSessionState:
        return self._choose(key, lambda s: s.choose_config(config_id, value))

    def _choose(self, key: str, pick: Any) -> AgentSessionState:
        thread = self._ctx.get_thread(key)
        state: AgentSessionState = pick(self.agent_session(thread.thread_id))  # UnknownAgentChoiceError: one line
        self._ctx.store.agent_state.set_state(thread.thread_id, state)
        self._ctx.emit(AgentSessionChanged(key=thread.thread_id))
        runner = self._live_acp_runner()
        if runner is not None:
            runner.apply_live(thread.thread_id, state)  # a running turn switches now
        return state

    # -- the agent's existing sessions (item 7) -------------------------------------------

    async def agent_sessions(self, key: str, *, delete: str | None = None) -> Any:
        """``session/list`` of the line's ACP agent for the line's folder (``AgentSessions``; ``supported``
        False when the agent does not advertise it). Started as a turn starts it: sandboxed, headless.

        ``delete``: first ``session/delete`` that session (issue 32, item 6; refused in one line when the
        agent does not advertise it); every line bound to it with this agent starts a new session on its next
        turn."""
        from xworkmate.agents.acp import check_acp_allowed, resolve_env_refs
        from xworkmate.agents.acp_probe import list_agent_sessions
        from xworkmate.agents.confinement import real_working_directory
        from xworkmate.agents.events import ApprovalDecision
        from xworkmate.controllers.containment import sandbox_env
        from xworkmate.controllers.providers import acp_agent_problem

        def agent_of_line() -> tuple[TaskThread, ProviderRecord, str]:
            thread = self._ctx.get_thread(key)
            check_acp_allowed(thread.category)  # CAT-3: a category line never starts an agent CLI
            swapped = thread.workspace_binding.problem()
            folder = thread.workspace_binding.path
            if swapped is not None or folder is None:  # SBX-3: no agent starts in a folder swapped since it was bound
                raise LookupError(swapped or "the line has no folder")
            name = thread.execution_binding.provider
            record = self._ctx.store.providers.get(name) if name else None
            problem = acp_agent_problem(thread.thread_id, name, record)
            if problem is not None or record is None:
                raise LookupError(problem or "no ACP agent")
            return thread, record, folder

        # LOOP-4 (issue 33 item 2): the reads and writes around the agent's answer run on the store thread, as a
        # turn's do; only waiting for the agent's process runs on the loop (the window's, under qasync).
        thread, record, folder = await self._ctx.store_thread.call(agent_of_line)

        async def refuse(_request: Any) -> ApprovalDecision:
            return ApprovalDecision(allowed=False, reason="headless")

        sandbox = await self._acp_sandbox(thread, record, refuse, True)
        env = await asyncio.to_thread(resolve_env_refs, record.acp_env_refs)  # a keyring read: off the loop too
        found = await list_agent_sessions(
            record.acp_command,
            cwd=real_working_directory(folder),
            env=env,
            base_env=sandbox_env(thread, proxies=True),
            sandbox=sandbox,
            auth_method=record.acp_auth_method,
            delete=delete,
        )

        def store_answer() -> Any:
            if delete is not None:  # the next turn of each line bound to it starts a new session
                for bound in self._ctx.store.threads.bound_to_acp_session(record.name, delete):
                    self._ctx.store.threads.set_acp_session(bound, None)
                    self._ctx.emit(LineUpdated(key=bound))
            if found.info is not None:
                self._ctx.store.app_state.set(f"{AGENT_INFO_STATE}{record.name}", found.info.model_dump_json())
            return with_said_titles(found, self.agent_session(thread.thread_id))

        return await self._ctx.store_thread.call(store_answer)

    async def bind_agent_session(self, key: str, session_id: str, *, known: Any = None) -> Any:
        """Bind the line to one of its agent's existing sessions (only where the agent lists them);
        ``known``: what ``agent_sessions`` just answered for this line, else the agent is asked."""
        from xworkmate.domain.runs import ExecutionResult

        found = known if known is not None else await self.agent_sessions(key)
        thread = await self._ctx.store_thread.call(lambda: self._ctx.get_thread(key))  # LOOP-4: off the loop
        if not found.supported:
            raise ValueError(
                f"the agent {thread.execution_binding.provider} does not list its sessions (no session/list);"
                " the line keeps the session it has"
            )
        ids = [s.session_id for s in found.sessions]
        if session_id not in ids:
            raise LookupError(
                f"the agent has no session {session_id!r} for this folder (it has: {', '.join(ids) or 'none'})"
            )
        return await self._ctx.store_thread.call(
            lambda: self._apply_execution_result(thread.thread_id, ExecutionResult(acp_session_id=session_id))
        )

    # -- what each agent says it is (item 8) ---------------------------------------------

    def acp_agent_info(self, provider: str) -> AgentInfo | None:
        """The ``agentInfo`` the ACP agent ``provider`` reported when it last started."""
        raw = self._ctx.store.app_state.get(f"{AGENT_INFO_STATE}{provider}")
        return AgentInfo.model_validate_json(raw) if raw else None

    # -- usage (item 6) --------------------------------------------------------------

    def line_usage(self, key: str) -> LineUsage:
        return self._ctx.store.agent_state.usage(self._ctx.get_thread(key).thread_id)

    # -- MCP servers (item 3) --------------------------------------------------------

    def mcp_servers(self) -> list[McpServerRecord]:
        return self._ctx.store.mcp_servers.all()

    def add_mcp_server(self, record: McpServerRecord, *, replace: bool = False) -> McpServerRecord:
        if record.transport == "stdio" and not record.command:
            raise McpServerError(f"MCP server {record.name!r} needs --command (or --url for http)")
        if record.transport == "http" and not (record.url or "").startswith(("http://", "https://")):
            raise McpServerError(f"MCP server {record.name!r}: --url must start with http:// or https://")
        return self._ctx.store.mcp_servers.add(record, replace=replace)

    def remove_mcp_server(self, name: str) -> None:
        if not self._ctx.store.mcp_servers.remove(name):
            raise LookupError(f"no MCP server named {name!r}")

    def line_mcp_servers(self, key: str) -> list[McpServerRecord]:
        return self._ctx.store.mcp_servers.for_line(self._ctx.get_thread(key).thread_id)

    def set_line_mcp_servers(self, key: str, names: Sequence[str]) -> list[McpServerRecord]:
        """Which configured servers the line gets; a category line only servers tagged with it (CAT-2)."""
        thread = self._ctx.get_thread(key)
        known = {s.name: s for s in self.mcp_servers()}
        chosen: list[McpServerRecord] = []
        for name in dict.fromkeys(n.strip() for n in names if n.strip()):
            server = known.get(name)
            if server is None:
                listed = ", ".join(known) or "none; add one with `xworkmate mcp add NAME --command ...`"
                raise LookupError(f"no MCP server named {name!r} (configured: {listed})")
            chosen.append(server)
        allowed = servers_for_category(chosen, thread.category)
        refused = [s.name for s in chosen if s not in allowed]
        if refused:
            raise McpServerError(
                f"line {thread.thread_id} carries category {thread.category}: MCP server(s) {', '.join(refused)}"
                f" are not tagged {thread.category} (add --tag {thread.category} to them)"
            )
        self._ctx.store.mcp_servers.set_for_line(thread.thread_id, [s.name for s in chosen])
        self._ctx.emit(AgentSessionChanged(key=thread.thread_id))
        return chosen

    def turn_mcp_servers(self, key: str) -> list[McpServerRecord]:
        """What a turn hands the agent: the line's servers its category allows (the same rule as providers)."""
        thread = self._ctx.get_thread(key)
        return servers_for_category(self.line_mcp_servers(thread.thread_id), thread.category)


def with_said_titles(found: Any, state: AgentSessionState) -> Any:
    """``session/list``'s sessions titled as the agent last said in a ``session_info_update`` (issue 32 item 6),
    which is newer than a listing that may lag behind or lack titles."""
    import dataclasses

    sessions = tuple(
        dataclasses.replace(s, title=state.title_of(s.session_id)) if state.title_of(s.session_id) else s
        for s in found.sessions
    )
    return dataclasses.replace(found, sessions=sessions)


def record_agent_event(recorder: Any, event: object) -> bool:
    """Store what an ACP turn or a model call reported; False when ``event`` is none of these kinds."""
    from xworkmate.agents.acp.sessions import AcpAgentReported, AcpChoiceRefused, AcpOffersChanged, AcpSessionInfo
    from xworkmate.agents.acp_mcp import McpServerFailed, McpServerSkipped
    from xworkmate.agents.events import ToolOutputGrew, UsageReported
    from xworkmate.controllers.changes import ToolRunning

    turn, key = recorder.turn, recorder.key
    repo = turn.ctx.store.agent_state
    if isinstance(event, UsageReported):
        usage = repo.usage(key).plus(
            tokens_in=event.tokens_in,
            tokens_out=event.tokens_out,
            context_used=event.context_used,
            context_size=event.context_size,
            cost=event.cost,
            currency=event.currency,
        )
        repo.set_usage(key, usage)
        turn.ctx.emit(UsageChanged(key=key))
    elif isinstance(event, ToolOutputGrew):
        # The live tool card: its summary, then the output so far (the stored card replaces it).
        turn.ctx.emit(ToolRunning(key=key, call_id=event.call_id, summary=f"{event.summary}\n{event.output}"))
    elif isinstance(event, AcpOffersChanged):
        provider = turn.ctx.get_thread(key).execution_binding.provider
        stored = turn.agent_session(key)
        offered = stored.offered(event.state.model_copy(update={"agent": provider}))
        repo.set_state(key, _settled(offered))
        turn.ctx.emit(AgentSessionChanged(key=key))
    elif isinstance(event, AcpSessionInfo):
        state = turn.agent_session(key).with_session_info(event.session_id, event.title, event.updated_at)
        repo.set_state(key, state)
        turn.ctx.emit(AgentSessionChanged(key=key))
    elif isinstance(event, AcpChoiceRefused):
        recorder.notice(event.message, MessageState.COMPLETE)
        state = turn.agent_session(key)
        if event.kind == "mode":
            state = state.model_copy(update={"wanted_mode": None})
        elif event.kind == "model":
            state = state.model_copy(update={"wanted_model": None, "chosen_model": None})
        else:
            wanted = {k: v for k, v in state.wanted_config.items() if k != event.choice}
            state = state.model_copy(update={"wanted_config": wanted})
        repo.set_state(key, state)
        turn.ctx.emit(AgentSessionChanged(key=key))
    elif isinstance(event, AcpAgentReported):
        provider = turn.ctx.get_thread(key).execution_binding.provider
        if provider:
            info = AgentInfo(
                name=event.name,
                title=event.title,
                version=event.version,
                lists_sessions=event.lists_sessions,
                takes_images=event.takes_images,
            )
            turn.ctx.store.app_state.set(f"{AGENT_INFO_STATE}{provider}", info.model_dump_json())
    elif isinstance(event, McpServerSkipped):
        recorder.notice(event.message + " The turn went on without it.", MessageState.COMPLETE)
    elif isinstance(event, McpServerFailed):
        # Issue 32 item 5 (ERR-1): one line on the line, in the outcome (`run` says it on stderr), and a change
        # record for the window.
        recorder.notice(event.message, MessageState.COMPLETE)
        recorder.warnings.append(event.message)
        turn.ctx.emit(AgentMcpFailed(key=key, servers=event.names, message=event.message))
    else:
        return False
    return True


def _settled(state: AgentSessionState) -> AgentSessionState:
    """Picks the agent now reports as current are applied: they are no longer waiting."""
    wanted_config = {k: v for k, v in state.wanted_config.items() if (o := state.option(k)) is None or o.value != v}
    return state.model_copy(
        update={
            "wanted_mode": None if state.wanted_mode == state.mode else state.wanted_mode,
            "wanted_model": None if state.wanted_model == state.model else state.wanted_model,
            "wanted_config": wanted_config,
        }
    )
