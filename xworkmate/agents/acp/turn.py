"""One ACP turn: the client side the agent talks to. Session updates become turn events, permission requests go to
the approver, and the client file system and terminals stay inside the working directory.
"""

from __future__ import annotations

import asyncio
import difflib
import errno
import json
import logging
import os
import shlex
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from acp import PROTOCOL_VERSION, RequestError, connect_to_agent, text_block
from acp.client.connection import ClientSideConnection
from acp.interfaces import Client
from acp.schema import (
    AgentMessageChunk,
    AgentPlanContentUpdate,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AllowedOutcome,
    ClientCapabilities,
    ContentToolCallContent,
    CreateTerminalResponse,
    DeniedOutcome,
    EnvVariable,
    FileEditToolCallContent,
    FileSystemCapabilities,
    Implementation,
    KillTerminalResponse,
    LoadSessionRequest,
    LoadSessionResponse,
    NewSessionRequest,
    NewSessionResponse,
    PermissionOption,
    PlanUpdateItems,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    ResourceContentBlock,
    ResumeSessionRequest,
    ResumeSessionResponse,
    TerminalOutputResponse,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)
from pydantic import ValidationError

from xworkmate import __version__
from xworkmate.agents.acp.approvals import describe_acp_call, needs_acp_approval
from xworkmate.agents.acp.errors import (
    AUTH_REQUIRED,
    AcpAgentError,
    AcpAuthError,
    AcpProtocolError,
    AcpRequestFailed,
    command_label,
)
from xworkmate.agents.acp.process import _AgentProcess
from xworkmate.agents.acp.reports import (
    AcpAuthMethod,
    AcpSessionReady,
    AcpSignedIn,
    AcpTurnResult,
    AuthChooser,
)
from xworkmate.agents.acp.sessions import AcpAgentReported, SessionOffers, open_session, prompt_usage
from xworkmate.agents.acp.terminals import TurnTerminals, terminal_refusal
from xworkmate.agents.acp_mcp import session_mcp_servers
from xworkmate.agents.confinement import (
    ToolError,
    display_path,
    open_confined_file,
    resolve_file_inside,
    resolve_inside,
)
from xworkmate.agents.events import (
    ApprovalDecision,
    ApprovalRequest,
    Approver,
    AssistantDelta,
    AssistantDone,
    PlanUpdated,
    ProviderChosen,
    ThoughtDelta,
    ToolDone,
    ToolOutputGrew,
    ToolStarted,
)
from xworkmate.agents.tools import ToolLimits, ToolResult
from xworkmate.domain.agent_session import AgentSessionState
from xworkmate.domain.mcp import McpServerRecord
from xworkmate.domain.messages import MessageState
from xworkmate.domain.permissions import ActionKind, action_kind
from xworkmate.domain.runs import RunRequest
from xworkmate.domain.threads import PermissionLevel
from xworkmate.llm.events import ToolCall

log = logging.getLogger(__name__)


_READ_MAX_BYTES = 8 * 1024 * 1024


class _RunnerState(Protocol):
    """What a turn keeps in the ``AcpRunner`` that started it: the "always" answers and its line's live session."""

    _remembered: dict[tuple[str, str], bool]
    _live: dict[str, tuple[ClientSideConnection, _Turn]]

    def remembered(self, session_id: str, kind: str) -> bool | None: ...


@dataclass
class _ToolState:
    id: str
    title: str = ""
    kind: str = "other"
    status: str = "pending"
    raw_input: Any = None
    raw_output: Any = None
    content: list[Any] = field(default_factory=list)
    locations: list[str] = field(default_factory=list)
    started: bool = False
    done: bool = False

    def merge(self, update: ToolCallUpdate | ToolCallStart) -> None:
        if update.title is not None:
            self.title = update.title
        if update.kind is not None:
            self.kind = update.kind
        if update.status is not None:
            self.status = update.status
        if update.raw_input is not None:
            self.raw_input = update.raw_input
        if update.raw_output is not None:
            self.raw_output = update.raw_output
        if update.content is not None:
            self.content = list(update.content)
        if update.locations is not None:
            self.locations = [loc.path for loc in update.locations]

    def paths(self) -> list[str]:
        """Every path the call names: its locations and the files its diffs change."""
        diffs = [c.path for c in self.content if isinstance(c, FileEditToolCallContent)]
        return list(dict.fromkeys([*self.locations, *diffs]))

    def to_call(self) -> ToolCall:
        arguments = {"title": self.title or self.id, "kind": self.kind, "locations": self.locations}
        if self.raw_input is not None:
            arguments["input"] = self.raw_input
        return ToolCall(id=self.id, name=self.kind, arguments=json.dumps(arguments, default=str))


class _Turn:
    """The ACP client for one turn: session updates become events, permission requests go to the
    approver, and the client file system stays inside the working directory."""

    def __init__(
        self,
        *,
        runner: _RunnerState,
        request: RunRequest,
        command: tuple[str, ...],
        working_directory: Path,
        approver: Approver,
        emit: Callable[[object], None],
        level: PermissionLevel,
        provider: str | None,
    ) -> None:
        self.runner = runner
        self.request = request
        self.command = command
        self.working_directory = working_directory
        self.approver = approver
        self.emit = emit
        self.level = level
        self.provider = provider
        self.agent_label: str | None = None
        self.session_id: str | None = None
        self.replaying = False
        self.cancelling = False
        self.parts: list[str] = []
        self.tools: dict[str, _ToolState] = {}
        self.approvals: set[asyncio.Task[ApprovalDecision]] = set()
        self.agent: _AgentProcess | None = None
        self.terminals = TurnTerminals(working_directory, sandbox=None, env=None)
        # Issue 15: signing in.
        self.auth_method: str | None = None
        self.choose_auth: AuthChooser | None = None
        self.auth_methods: tuple[AcpAuthMethod, ...] = ()
        self.signed_in: str | None = None
        # Issue 15, items 3-7: the agent's offers, the person's picks, the line's MCP servers.
        self.offers: SessionOffers | None = None
        self.choices: AgentSessionState | None = None
        self.mcp_servers: tuple[McpServerRecord, ...] = ()

    # -- driving the turn

    async def drive(self, agent: _AgentProcess, prompt: str, stored_session: str | None) -> AcpTurnResult:
        self.agent = agent
        assert agent.process is not None and agent.process.stdin is not None
        connection = connect_to_agent(cast(Client, self), agent.process.stdin, agent.reader)
        protocol = asyncio.create_task(self._protocol(connection, prompt, stored_session))
        try:
            try:
                either: set[asyncio.Future[Any]] = {protocol, agent.failure}
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            except asyncio.CancelledError:
                await self._cancel(connection, protocol)
                self._close_events(MessageState.INTERRUPTED, "cancelled", "stopped before it finished")
                raise
            try:
                result = await self._outcome(agent, protocol)
            except AcpAgentError:
                self._close_events(MessageState.ERROR, "agent_failed", "the agent stopped before it finished")
                raise
            self._close_events(MessageState.COMPLETE, "unfinished", "the agent ended its turn without a result")
            return result
        finally:
            if not protocol.done():
                protocol.cancel()
            await asyncio.wait({protocol})
            if not protocol.cancelled():
                protocol.exception()  # retrieved: it was handled above or replaced by the agent's failure
            if self.runner._live.get(self.request.thread_id, (None, None))[1] is self:
                del self.runner._live[self.request.thread_id]
            try:
                await self.terminals.close()  # SBX-1: no terminal outlives the turn
            finally:
                await agent.close_reaped(connection)

    async def _outcome(self, agent: _AgentProcess, protocol: asyncio.Task[AcpTurnResult]) -> AcpTurnResult:
        if not protocol.done():
            protocol.cancel()
            await asyncio.wait({protocol})
            raise agent.failure.result()
        if protocol.cancelled():
            raise agent.failure.result() if agent.failure.done() else asyncio.CancelledError()
        error = protocol.exception()
        if error is None:
            return protocol.result()
        if isinstance(error, AcpAgentError):
            raise error
        if isinstance(error, RequestError):
            raise AcpRequestFailed(self.command, agent.phase, error) from None
        # The connection closed under a request: the agent went away. Say how.
        await asyncio.wait({agent.failure}, timeout=agent.timeouts.exit_grace + 0.5)
        if agent.failure.done():
            raise agent.failure.result() from None
        if isinstance(error, ValidationError):
            detail = f"its answer has the wrong shape ({error.error_count()} errors)"
            raise AcpProtocolError(self.command, agent.phase, detail) from None
        if isinstance(error, ConnectionError):
            raise AcpProtocolError(self.command, agent.phase, "the connection closed") from None
        raise error

    async def _protocol(
        self, connection: ClientSideConnection, prompt: str, stored_session: str | None
    ) -> AcpTurnResult:
        agent = self.agent
        assert agent is not None
        agent.enter("initialize")
        init = await connection.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
            ),
            client_info=Implementation(name="xworkmate", title="XWorkmate", version=__version__),
        )
        if init.protocol_version != PROTOCOL_VERSION:
            raise AcpProtocolError(
                self.command,
                "initialize",
                f"it speaks ACP version {init.protocol_version}; XWorkmate speaks version {PROTOCOL_VERSION}",
            )
        info = init.agent_info
        self.agent_label = f"{info.title or info.name} {info.version}" if info else None
        if info is not None:
            caps = init.agent_capabilities
            lists = bool(caps and caps.session_capabilities and caps.session_capabilities.list is not None)
            self.emit(AcpAgentReported(info.name, info.title, info.version, lists))  # issue 15, items 7-8
        name = os.path.basename(self.command[0])
        self.emit(ProviderChosen(self.provider or name, self.agent_label or name))
        self.auth_methods = _auth_methods(init.auth_methods or [], self.command)
        if self.auth_method is not None:
            await self._authenticate(connection, self._method(self.auth_method), "provider")
        cwd = str(self.working_directory)
        resumed = False
        note: str | None = None
        capabilities = init.agent_capabilities
        self.offers = offers = SessionOffers(self.emit, self.agent_label)
        mcp, skipped = session_mcp_servers(self.mcp_servers, capabilities)
        for skip in skipped:
            self.emit(skip)
        can_load = bool(capabilities and capabilities.load_session)
        sessions = capabilities.session_capabilities if capabilities else None
        can_resume = bool(sessions and sessions.resume is not None)
        if stored_session and (can_resume or can_load):
            # Issue 15, item 7: resume (no replay) when advertised, else load (the agent replays).
            method = "session/resume" if can_resume else "session/load"
            params: NewSessionRequest | LoadSessionRequest | ResumeSessionRequest
            if can_resume:
                params = ResumeSessionRequest(cwd=cwd, session_id=stored_session, mcp_servers=mcp)
            else:
                params = LoadSessionRequest(cwd=cwd, session_id=stored_session, mcp_servers=mcp)
            answer_type = ResumeSessionResponse if can_resume else LoadSessionResponse
            self.replaying = not can_resume  # the agent replays the conversation we already keep
            try:
                answer, raw = await self._signed(
                    connection, method, lambda: open_session(connection, method, params, answer_type)
                )
                offers.opened(answer, raw)
                self.session_id, resumed = stored_session, True
            except RequestError as exc:
                note = f"could not resume the agent's session {stored_session} ({exc}); started a new session"
            finally:
                self.replaying = False
        elif stored_session:
            note = f"the agent cannot resume sessions; started a new session instead of {stored_session}"
        if self.session_id is None:
            agent.enter("session/new")
            created, raw = await self._signed(
                connection,
                "session/new",
                lambda: open_session(
                    connection, "session/new", NewSessionRequest(cwd=cwd, mcp_servers=mcp), NewSessionResponse
                ),
            )
            self.session_id = created.session_id
            offers.opened(created, raw)
        if note:
            log.info("line %s: %s", self.request.thread_id, note)
        self.emit(AcpSessionReady(self.session_id, resumed=resumed, note=note, agent=self.agent_label))
        if self.choices is not None:
            agent.enter("session/prompt")
            await offers.apply_choices(connection, self.session_id, self.choices)
        self.runner._live[self.request.thread_id] = (connection, self)
        agent.enter("session/prompt")
        response = await connection.prompt(session_id=self.session_id, prompt=[text_block(prompt)])
        usage = prompt_usage(response)
        if usage is not None:
            self.emit(usage)
        return AcpTurnResult(
            session_id=self.session_id, stop_reason=str(response.stop_reason), text="".join(self.parts), resumed=resumed
        )

    # -- signing in (issue 15)

    async def _signed(self, connection: ClientSideConnection, phase: str, call: Callable[[], Awaitable[Any]]) -> Any:
        """``call`` (session/new or session/load); on "authentication required", sign in once and call again."""
        agent = self.agent
        assert agent is not None
        agent.enter(phase)
        try:
            return await call()
        except RequestError as exc:
            if exc.code != AUTH_REQUIRED or self.signed_in is not None:
                raise
        await self._sign_in(connection, phase)
        agent.enter(phase)
        return await call()

    async def _sign_in(self, connection: ClientSideConnection, phase: str) -> None:
        agent = self.agent
        assert agent is not None
        label = command_label(self.command)
        methods = self.auth_methods
        if not methods:
            raise AcpAuthError(
                self.command,
                f"ACP agent {label} refused {phase}: authentication required, and it lists no sign-in method;"
                f" sign in by running {label} once in a terminal",
            )
        if len(methods) == 1:
            await self._authenticate(connection, methods[0], "only")
            return
        if self.choose_auth is None:
            name = self.provider or "NAME"
            raise AcpAuthError(
                self.command,
                f"ACP agent {label} needs sign-in and offers several methods ({', '.join(m.id for m in methods)});"
                f" choose one with `xworkmate provider set {name} --acp-auth METHOD`",
            )
        with agent.paused_clock():  # a person is choosing: the startup timeout waits
            chosen = await self.choose_auth(methods)
        if chosen is None:
            raise AcpAuthError(self.command, f"ACP agent {label} was not signed in: no sign-in method was chosen")
        await self._authenticate(connection, self._method(chosen), "person")

    def _method(self, method_id: str) -> AcpAuthMethod:
        for method in self.auth_methods:
            if method.id == method_id:
                return method
        offered = ", ".join(m.id for m in self.auth_methods) or "none"
        name = self.provider or "NAME"
        raise AcpAuthError(
            self.command,
            f"ACP agent {command_label(self.command)} has no sign-in method {method_id!r} (it offers: {offered});"
            f" change it with `xworkmate provider set {name} --acp-auth METHOD` (or `--acp-auth none`)",
        )

    async def _authenticate(self, connection: ClientSideConnection, method: AcpAuthMethod, chosen_by: str) -> None:
        agent = self.agent
        assert agent is not None
        agent.enter("authenticate")
        try:
            await connection.authenticate(method_id=method.id)
        except RequestError as exc:
            hint = f"; sign in by running `{method.command}` in a terminal" if method.command else ""
            # The agent's own explanation (``data.details``) is kept, on the same one line.
            details = exc.data.get("details") if isinstance(exc.data, dict) else None
            why = f"{exc} ({' '.join(str(details).split())})" if details else str(exc)
            raise AcpAuthError(
                self.command,
                f"ACP agent {command_label(self.command)} refused sign-in with {method.id!r}: {why}"
                f" (code {exc.code}){hint}",
            ) from None
        self.signed_in = method.id
        log.info("line %s: signed in to ACP agent %s with %r", self.request.thread_id, self.command[0], method.id)
        self.emit(AcpSignedIn(method.id, chosen_by))

    async def _cancel(self, connection: ClientSideConnection, protocol: asyncio.Task[AcpTurnResult]) -> None:
        """``session/cancel``, pending permission requests answered "cancelled", a short wait for the
        agent to end its turn; then the caller's ``close_reaped`` terminates it if it did not."""
        self.cancelling = True
        agent = self.agent
        assert agent is not None
        for task in list(self.approvals):
            task.cancel()
        if self.session_id is not None and agent.phase == "session/prompt" and not protocol.done():
            sending = asyncio.create_task(connection.cancel(session_id=self.session_id))
            await asyncio.wait({sending}, timeout=1.0)
            if not sending.done():
                sending.cancel()
            await asyncio.wait({sending})
            if not sending.cancelled() and sending.exception() is None:
                either: set[asyncio.Future[Any]] = {protocol, agent.failure}
                await asyncio.wait(either, timeout=agent.timeouts.cancel_grace, return_when=asyncio.FIRST_COMPLETED)
        if not protocol.done():
            protocol.cancel()
        await asyncio.wait({protocol})

    def _close_events(self, state: MessageState, error_kind: str, content: str) -> None:
        for tool in self.tools.values():
            if tool.started and not tool.done:
                self._finish_tool(tool, ok=False, error_kind=error_kind, content=content)
        if state is MessageState.COMPLETE or self.parts:
            self.emit(
                AssistantDone(
                    text="".join(self.parts),
                    tool_calls=(),
                    state=state,
                    provider=self.provider,
                    model=self.agent_label,
                )
            )

    # -- ACP client methods (called by the SDK with the agent's requests)

    def on_connect(self, conn: object) -> None:
        return None

    def _ours(self, session_id: str) -> bool:
        return self.session_id is None or session_id == self.session_id

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if self.offers is not None and self._ours(session_id) and self.offers.on_update(update):
            return  # modes, config options, commands, usage (issue 15), during a replay too
        if self.replaying or not self._ours(session_id):
            return
        if isinstance(update, AgentMessageChunk):
            text = _content_text(update.content)
            if text:
                self.parts.append(text)
                self.emit(AssistantDelta(text))
        elif isinstance(update, AgentThoughtChunk):
            text = _content_text(update.content)
            if text:
                self.emit(ThoughtDelta(text))
        elif isinstance(update, ToolCallStart | ToolCallProgress):
            self._tool_update(update)
        elif isinstance(update, AgentPlanUpdate):
            self.emit(PlanUpdated(tuple((e.content, str(e.status)) for e in update.entries)))
        elif isinstance(update, AgentPlanContentUpdate) and isinstance(update.plan, PlanUpdateItems):
            self.emit(PlanUpdated(tuple((e.content, str(e.status)) for e in update.plan.entries)))
        # user_message_chunk, session info: nothing to show.

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        if not self._ours(session_id):
            raise RequestError.invalid_params({"details": f"unknown session {session_id}"})
        tool = self.tools.get(tool_call.tool_call_id) or _ToolState(id=tool_call.tool_call_id)
        self.tools[tool.id] = tool
        tool.merge(tool_call)
        call = tool.to_call()
        outside = self._outside(tool.paths())
        if outside:
            reason = f"{describe_acp_call(call)} was refused: {outside}"
            log.warning("line %s: ACP permission request refused: %s", self.request.thread_id, reason)
            self._finish_tool(tool, ok=False, error_kind="path_escape", content=reason)
            return _answer(options, allowed=False, always=False)
        if self.cancelling:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        remembered = self.runner.remembered(session_id, tool.kind)
        if remembered is not None:
            if not remembered:
                self._finish_tool(tool, ok=False, error_kind="not_approved", content="rejected always for this line")
            return _answer(options, allowed=remembered, always=True)
        if not needs_acp_approval(tool.kind, self.level):
            return _answer(options, allowed=True, always=False)
        decision = await self._ask(call)
        if decision is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        always = decision.always
        if always:
            self.runner._remembered[(session_id, tool.kind)] = decision.allowed
        if not decision.allowed:
            self._finish_tool(
                tool,
                ok=False,
                error_kind="not_approved",
                content=f"{describe_acp_call(call)} was not approved: {decision.reason or 'the person rejected it'}",
            )
        return _answer(options, allowed=decision.allowed, always=always)

    async def _ask(self, call: ToolCall, unsandboxed: str | None = None) -> ApprovalDecision | None:
        agent = self.agent
        assert agent is not None
        request = ApprovalRequest(
            thread_id=self.request.thread_id, call=call, summary=describe_acp_call(call), unsandboxed=unsandboxed
        )
        task: asyncio.Task[ApprovalDecision] = asyncio.ensure_future(self.approver(request))
        self.approvals.add(task)
        try:
            with agent.paused_clock():
                await asyncio.wait({task})
        finally:
            self.approvals.discard(task)
            if not task.done():  # the connection is closing under us
                task.cancel()
        if task.cancelled():
            return None
        error = task.exception()
        if error is not None:
            log.error("the approver failed on line %s", self.request.thread_id, exc_info=error)
            return ApprovalDecision(allowed=False, reason=f"the approval failed: {error}")
        return task.result()

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        target = self._confined(session_id, path)
        if target.is_dir():
            raise RequestError.invalid_params({"details": f"{path} is a directory"})
        try:
            # SBX-2: the file actually opened is checked again (hard links, a link swapped in).
            with os.fdopen(open_confined_file(target, display_path(self.working_directory, target)), "rb") as fh:
                data = fh.read(_READ_MAX_BYTES + 1)
        except ToolError as exc:
            raise self._refusal(path, exc) from None
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None
        except OSError as exc:
            raise RequestError.internal_error({"details": f"cannot read {path}: {exc.strerror}"}) from None
        if len(data) > _READ_MAX_BYTES:
            raise RequestError.invalid_params({"details": f"{path} is larger than {_READ_MAX_BYTES} bytes"})
        text = data.decode("utf-8", "replace")
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            end = start + limit if limit is not None else None
            text = "".join(lines[start:end])
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse | None:
        target = self._confined(session_id, path)
        shown = display_path(self.working_directory, target)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            # SBX-2: truncated only after the file actually opened passed the hard-link rule.
            fd = open_confined_file(target, shown, write=True)
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(content)
        except ToolError as exc:
            raise self._refusal(path, exc) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                detail = f"{shown} is a symbolic link"
            else:
                detail = f"cannot write {shown}: {exc.strerror or exc}"
            raise RequestError.internal_error({"details": detail}) from None
        log.info("line %s: the ACP agent wrote %s", self.request.thread_id, shown)
        return WriteTextFileResponse()

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
            raise terminal_refusal(f"{plan.label} was not run: the turn is being stopped", "cancelled")
        unsandboxed = self.terminals.unsandboxed_reason()
        remembered = self.runner.remembered(session_id, "execute")
        if unsandboxed is None and remembered is False:
            raise terminal_refusal(f"{plan.label} was not run: commands were rejected always", "not_approved")
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
                raise terminal_refusal(f"{plan.label} was not approved: {why}", "not_approved")
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

    # -- helpers

    def _check_session(self, session_id: str) -> None:
        if not self._ours(session_id):
            raise RequestError.invalid_params({"details": f"unknown session {session_id}"})

    def _confined(self, session_id: str, path: str) -> Path:
        if not self._ours(session_id):
            raise RequestError.invalid_params({"details": f"unknown session {session_id}"})
        try:
            # SBX-2: outside the folder, or a file with more than one hard link.
            return resolve_file_inside(self.working_directory, path)
        except ToolError as exc:
            raise self._refusal(path, exc) from None

    def _refusal(self, path: str, exc: ToolError) -> RequestError:
        log.warning("line %s: ACP file access refused: %s", self.request.thread_id, exc)
        return RequestError(-32602, f"refused: {exc}", {"path": path, "reason": exc.kind})

    def _outside(self, paths: Sequence[str]) -> str | None:
        for path in paths:
            try:
                resolve_inside(self.working_directory, path)
            except ToolError as exc:
                return str(exc)
        return None

    def _tool_update(self, update: ToolCallStart | ToolCallProgress) -> None:
        tool = self.tools.get(update.tool_call_id)
        if tool is None:
            tool = self.tools[update.tool_call_id] = _ToolState(id=update.tool_call_id)
        if tool.done:
            return  # refused or already finished: later reports add nothing
        tool.merge(update)
        if not tool.started:
            tool.started = True
            self.emit(ToolStarted(tool.to_call()))
        if tool.status in ("completed", "failed"):
            ok = tool.status == "completed"
            self._finish_tool(tool, ok=ok, error_kind=None if ok else "failed", content=None)

    def _finish_tool(self, tool: _ToolState, *, ok: bool, error_kind: str | None, content: str | None) -> None:
        tool.done = True
        diff, changed = self._diff(tool)
        result = ToolResult(
            ok=ok,
            content=content if content is not None else self._tool_text(tool),
            tool_name=tool.kind,
            error_kind=error_kind,
            changed_path=changed,
            diff=diff,
        )
        self.emit(ToolDone(tool.to_call(), result))

    def _tool_text(self, tool: _ToolState) -> str:
        parts: list[str] = []
        for item in tool.content:
            if isinstance(item, ContentToolCallContent):
                text = _content_text(item.content)
                if text:
                    parts.append(text)
            elif isinstance(item, TerminalToolCallContent):
                parts.append(self.terminals.card_text(item.terminal_id) or f"(terminal {item.terminal_id})")
        if not parts and tool.raw_output is not None:
            raw = tool.raw_output if isinstance(tool.raw_output, str) else json.dumps(tool.raw_output, default=str)
            parts.append(raw)
        text = "\n".join(parts) or f"{tool.title or tool.kind}: {tool.status}"
        limit = ToolLimits().read_max_chars
        return text if len(text) <= limit else text[:limit] + "\n[output truncated]\n"

    def _diff(self, tool: _ToolState) -> tuple[str | None, Path | None]:
        limits = ToolLimits()
        chunks: list[str] = []
        changed: Path | None = None
        for item in tool.content:
            if not isinstance(item, FileEditToolCallContent):
                continue
            inside = self._inside(item.path)
            if changed is None:
                changed = inside
            shown = display_path(self.working_directory, inside) if inside else item.path
            before = (item.old_text or "").splitlines(keepends=True)
            after = item.new_text.splitlines(keepends=True)
            source = f"a/{shown}" if item.old_text is not None else "/dev/null"
            chunks.append("".join(difflib.unified_diff(before, after, source, f"b/{shown}")))
        if changed is None and action_kind(tool.kind) is ActionKind.EDIT and tool.locations:
            changed = self._inside(tool.locations[0])
        text = "".join(chunks) or None
        if text is not None and len(text) > limits.diff_max_chars:
            text = text[: limits.diff_max_chars] + "\n[diff truncated]\n"
        return text, changed

    def _inside(self, path: str) -> Path | None:
        try:
            return resolve_inside(self.working_directory, path)
        except ToolError:
            return None


def _auth_methods(advertised: Sequence[Any], command: Sequence[str]) -> tuple[AcpAuthMethod, ...]:
    """The agent's ``authMethods`` as shown to a person; a terminal method gets the command to run."""
    methods: list[AcpAuthMethod] = []
    for entry in advertised:
        meta = entry.field_meta if isinstance(entry.field_meta, dict) else {}
        kind = str(getattr(entry, "type", None) or meta.get("type") or "agent")
        text: str | None = None
        if kind == "terminal":
            args = getattr(entry, "args", None) or meta.get("args") or []
            text = shlex.join([*command, *[str(a) for a in args]]) if command else None
        methods.append(
            AcpAuthMethod(
                id=entry.id, name=entry.name or entry.id, description=entry.description, kind=kind, command=text
            )
        )
    return tuple(methods)


def _answer(options: Sequence[PermissionOption], *, allowed: bool, always: bool) -> RequestPermissionResponse:
    """The agent's option that matches a decision; "once" falls back to "always" of the same sense
    (and back), and a decision no option expresses is sent as "cancelled"."""
    if allowed:
        kinds = ("allow_always", "allow_once") if always else ("allow_once", "allow_always")
    else:
        kinds = ("reject_always", "reject_once") if always else ("reject_once", "reject_always")
    for kind in kinds:
        for option in options:
            if option.kind == kind:
                return RequestPermissionResponse(outcome=AllowedOutcome(option_id=option.option_id, outcome="selected"))
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def _content_text(block: Any) -> str:
    if isinstance(block, TextContentBlock):
        return block.text
    if isinstance(block, ResourceContentBlock):
        return f"[{block.title or block.name}]({block.uri})"
    return ""
