"""One ACP turn: the client side the agent talks to. Session updates become turn events, permission requests go to
the approver, and the client file system and terminals stay inside the working directory.

The turn is made of parts, one module each: ``turn_state`` (what they share), ``tool_cards``, ``requests``
(session updates, permissions, files), ``terminal_requests`` and ``sign_in``; this module drives the turn.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, cast
from urllib.parse import quote

from acp import (
    PROTOCOL_VERSION,
    RequestError,
    embedded_text_resource,
    image_block,
    resource_block,
    text_block,
)
from acp.client.connection import ClientSideConnection
from acp.interfaces import Client
from acp.schema import (
    AuthCapabilities,
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    EmbeddedResourceContentBlock,
    FileSystemCapabilities,
    Implementation,
    LoadSessionRequest,
    LoadSessionResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptCapabilities,
    ResumeSessionRequest,
    ResumeSessionResponse,
    TextContentBlock,
)
from pydantic import ValidationError

from xworkmate import __version__
from xworkmate.agents.acp.errors import (
    AcpAgentError,
    AcpAttachmentRefused,
    AcpProtocolError,
    AcpRequestFailed,
)
from xworkmate.agents.acp.login_terminal import LoginLauncher, LoginShower
from xworkmate.agents.acp.process import _AgentProcess, connect
from xworkmate.agents.acp.reports import (
    AcpAuthMethod,
    AcpSessionReady,
    AcpTurnResult,
    AuthChooser,
)
from xworkmate.agents.acp.sessions import AcpAgentReported, SessionOffers, open_session, prompt_usage
from xworkmate.agents.acp.sign_in import _auth_methods, _SignIn
from xworkmate.agents.acp.terminal_requests import _TerminalRequests
from xworkmate.agents.acp.terminals import TurnTerminals
from xworkmate.agents.acp.turn_state import _RunnerState, _ToolState
from xworkmate.agents.acp_mcp import mcp_failure_event, mcp_failures_said, session_mcp_servers
from xworkmate.agents.events import (
    ApprovalDecision,
    Approver,
    AssistantDone,
    ProviderChosen,
)
from xworkmate.agents.sandbox import SandboxPolicy
from xworkmate.agents.stream_text import StreamedText
from xworkmate.domain.agent_session import AgentSessionState
from xworkmate.domain.attachments import Attachment, AttachmentKind, text_with_attachments
from xworkmate.domain.mcp import McpServerRecord
from xworkmate.domain.messages import MessageState
from xworkmate.domain.runs import RunRequest
from xworkmate.domain.skills import Skill, skills_text
from xworkmate.domain.threads import PermissionLevel
from xworkmate.domain.tool_errors import ToolErrorKind

log = logging.getLogger(__name__)


class _LiveRunner(_RunnerState, Protocol):
    """What a turn keeps in the ``AcpRunner`` that started it: the "always" answers and its line's live session."""

    _live: dict[str, tuple[ClientSideConnection, _Turn]]


class _Turn(_TerminalRequests, _SignIn):
    """The ACP client for one turn: session updates become events, permission requests go to the
    approver, and the client file system stays inside the working directory."""

    runner: _LiveRunner

    def __init__(
        self,
        *,
        runner: _LiveRunner,
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
        # Issue 34 item 1: the text of agent_message_chunks (and of agent_thought_chunks) read in one loop step
        # goes out as one delta, and every other report after the text before it (agents/stream_text.py: the
        # native agent's rule too).
        self.stream = StreamedText[object](emit)
        self.emit: Callable[[object], None] = self.stream
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
        # SBX-2: what the agent's sandbox hides, its file-system requests are refused too.
        self.policy: SandboxPolicy | None = None
        # Issue 15: signing in.
        self.auth_method: str | None = None
        self.choose_auth: AuthChooser | None = None
        self.auth_methods: tuple[AcpAuthMethod, ...] = ()
        self.signed_in: str | None = None
        # Issue 32 item 4: a terminal method's login program, run in the window (None: headless, refused).
        self.show_login: LoginShower | None = None
        self.launch_login: LoginLauncher | None = None
        # Issue 15, items 3-7: the agent's offers, the person's picks, the line's MCP servers.
        self.offers: SessionOffers | None = None
        self.choices: AgentSessionState | None = None
        self.mcp_servers: tuple[McpServerRecord, ...] = ()
        # ATT-1: what the person attached to the message this turn sends.
        self.attachments: tuple[Attachment, ...] = ()
        # SKL-2: the line's selected skills, sent with the prompt.
        self.skills: tuple[Skill, ...] = ()
        self._elicitations = 0  # issue 32 item 3: numbers the conversation's records of them
        self.closes = False  # issue 32 item 6: the agent advertised sessionCapabilities.close
        self._mcp_failed: set[str] = set()  # issue 32 item 5: MCP servers the agent said failed, said once
        self._ended = False

    # -- driving the turn

    async def drive(self, agent: _AgentProcess, prompt: str, stored_session: str | None) -> AcpTurnResult:
        self.agent = agent
        assert agent.process is not None and agent.process.stdin is not None
        agent.on_stderr = self._stderr_said
        connection = connect(cast(Client, self), agent)
        protocol = asyncio.create_task(self._protocol(connection, prompt, stored_session))
        try:
            try:
                either: set[asyncio.Future[Any]] = {protocol, agent.failure}
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            except asyncio.CancelledError:
                await self._cancel(connection, protocol)
                self._close_events(MessageState.INTERRUPTED, ToolErrorKind.CANCELLED, "stopped before it finished")
                raise
            try:
                result = await self._outcome(agent, protocol)
            except AcpAgentError:
                self._close_events(
                    MessageState.ERROR, ToolErrorKind.AGENT_FAILED, "the agent stopped before it finished"
                )
                raise
            self._close_events(
                MessageState.COMPLETE, ToolErrorKind.UNFINISHED, "the agent ended its turn without a result"
            )
            return result
        finally:
            self._ended = True
            self.stream.close()  # a turn that failed some other way: its text before the failure, nothing after
            if not protocol.done():
                protocol.cancel()
            await asyncio.wait({protocol})
            if not protocol.cancelled():
                protocol.exception()  # retrieved: it was handled above or replaced by the agent's failure
            if self.runner._live.get(self.request.thread_id, (None, None))[1] is self:
                del self.runner._live[self.request.thread_id]
            try:
                await self._close_session(connection)
            finally:
                try:
                    await self.terminals.close()  # SBX-1: no terminal outlives the turn
                finally:
                    await agent.close_reaped(connection)

    def _stderr_said(self, line: str) -> None:
        """Issue 32 item 5: an MCP server the agent got but could not start, as the agent reports it on its
        stderr (``acp_mcp.mcp_failures_said``): one line on the line per server, the first time it is said."""
        names = tuple(n for n in mcp_failures_said(line) if n not in self._mcp_failed)
        if not names:
            return
        if self._ended:  # said after the turn's last event: the log keeps it (the next turn hears it again)
            log.info("line %s: the agent said after the turn: %s", self.request.thread_id, line)
            return
        self._mcp_failed.update(names)
        self.emit(mcp_failure_event(names, self.agent_label))

    async def _close_session(self, connection: ClientSideConnection) -> None:
        """Issue 32 item 6: the agent process lives for one turn, so its session is closed as the turn ends
        (``session/close``, when advertised) and no archived line leaves one open; the next turn resumes it.
        A short wait; an agent that fails or does not answer is stopped as before, and it is only logged."""
        agent = self.agent
        if not self.closes or self.session_id is None or agent is None or agent.failure.done():
            return
        closing = asyncio.create_task(connection.close_session(session_id=self.session_id))
        await asyncio.wait({closing}, timeout=agent.timeouts.cancel_grace)
        if not closing.done():
            closing.cancel()
            log.debug("line %s: the agent did not answer session/close", self.request.thread_id)
        await asyncio.wait({closing})
        if not closing.cancelled() and closing.exception() is not None:
            log.debug("line %s: session/close failed: %s", self.request.thread_id, closing.exception())

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
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                terminal=True,
                # Issue 32 item 3: forms become a card in the window (headless: --answer, else refused).
                elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()),
                # Issue 32 item 4: only a window runs a terminal method's login program (headless: refused).
                auth=AuthCapabilities(terminal=self.show_login is not None),
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
            images = bool(caps and caps.prompt_capabilities and caps.prompt_capabilities.image)
            self.emit(AcpAgentReported(info.name, info.title, info.version, lists, images))  # issue 15, items 7-8
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
        self.closes = bool(sessions and sessions.close is not None)
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
                answer = await self._signed(
                    connection, method, lambda: open_session(connection, method, params, answer_type)
                )
                offers.opened(answer)
                self.session_id, resumed = stored_session, True
            except RequestError as exc:
                note = f"could not resume the agent's session {stored_session} ({exc}); started a new session"
            finally:
                self.replaying = False
        elif stored_session:
            note = f"the agent cannot resume sessions; started a new session instead of {stored_session}"
        if self.session_id is None:
            agent.enter("session/new")
            created = await self._signed(
                connection,
                "session/new",
                lambda: open_session(
                    connection, "session/new", NewSessionRequest(cwd=cwd, mcp_servers=mcp), NewSessionResponse
                ),
            )
            self.session_id = created.session_id
            offers.opened(created)
        if note:
            log.info("line %s: %s", self.request.thread_id, note)
        self.emit(AcpSessionReady(self.session_id, resumed=resumed, note=note, agent=self.agent_label))
        if self.choices is not None:
            agent.enter("session/prompt")
            await offers.apply_choices(connection, self.session_id, self.choices)
        blocks = self._prompt_blocks(prompt, capabilities.prompt_capabilities if capabilities else None)
        self.runner._live[self.request.thread_id] = (connection, self)
        agent.enter("session/prompt")
        response = await connection.prompt(session_id=self.session_id, prompt=blocks)
        usage = prompt_usage(response)
        if usage is not None:
            self.emit(usage)
        return AcpTurnResult(
            session_id=self.session_id, stop_reason=str(response.stop_reason), text="".join(self.parts), resumed=resumed
        )

    def _prompt_blocks(self, prompt: str, offered: PromptCapabilities | None) -> list[Any]:
        """ATT-1: the prompt and what the person attached, as the agent's ``promptCapabilities`` take them:
        an image as an ``image`` block only when it takes images (else refused in one line, before the prompt
        is sent), a text file as a ``resource`` block when it takes embedded context, else as text."""
        images = bool(offered and offered.image)
        embedded = bool(offered and offered.embedded_context)
        if any(a.is_image for a in self.attachments) and not images:
            raise AcpAttachmentRefused(
                self.command, "does not take images (its promptCapabilities.image is not true); remove the image"
            )
        texts = [a for a in self.attachments if a.kind is AttachmentKind.TEXT]
        # SKL-2: the line's selected skills first, as resources where the agent takes embedded context.
        blocks: list[Any] = [
            *skill_blocks(self.skills, embedded=embedded),
            text_block(prompt if embedded else text_with_attachments(prompt, texts)),
        ]
        for attachment in self.attachments:
            if attachment.is_image:
                blocks.append(image_block(attachment.data_base64 or "", attachment.mime_type))
            elif embedded:
                uri = f"attachment:///{quote(attachment.name)}"
                resource = embedded_text_resource(uri, attachment.text or "", mime_type=attachment.mime_type)
                blocks.append(resource_block(resource))
        return blocks

    # -- ending the turn

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
        self.stream.close()  # the text streamed so far, before the cards and the message that end the turn
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


SKILL_MIME_TYPE = "text/markdown"


def skill_blocks(skills: Sequence[Skill], *, embedded: bool) -> list[EmbeddedResourceContentBlock | TextContentBlock]:
    """SKL-2: the selected skills as prompt content: one ``resource`` block per ``SKILL.md`` when the agent
    advertises ``promptCapabilities.embeddedContext``, else one text block holding them all."""
    if not skills:
        return []
    if not embedded:
        return [text_block(skills_text(skills))]
    return [
        resource_block(
            embedded_text_resource(
                Path(skill.skill_file).as_uri(), f"{_FRONT.format(skill=skill)}{skill.body}", mime_type=SKILL_MIME_TYPE
            )
        )
        for skill in skills
    ]


_FRONT = "---\nname: {skill.name}\ndescription: {skill.description}\n---\n"
