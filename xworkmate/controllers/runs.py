"""Turns of the native agent, as the controller runs them (SPEC §5, ISO-8, WR-1).

``TurnRunner`` turns agent events into stored messages and change records.
Messages are stored as they complete; a stopped turn keeps what streamed so
far, marked interrupted; a failed turn keeps the conversation and says why.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from xworkmate.agents.agent_config import ConfigPath, config_fingerprint, describe_config_changes
from xworkmate.agents.events import (
    ApprovalDecision,
    ApprovalRequest,
    Approver,
    AssistantDelta,
    AssistantDone,
    PlanUpdated,
    ProviderChosen,
    StepLimitReached,
    ThoughtDelta,
    ToolDone,
    ToolStarted,
)
from xworkmate.agents.native import NativeAgent, describe_call, history_to_chat
from xworkmate.agents.net_proxy import ProxyConnection, proxied
from xworkmate.agents.repo_guard import describe_changes as describe_repository_changes
from xworkmate.agents.repo_guard import fingerprint as repository_fingerprint
from xworkmate.agents.repo_guard import prepare_control_paths
from xworkmate.agents.sandbox import Sandbox
from xworkmate.agents.tools import ToolResult
from xworkmate.controllers.changes import (
    ApprovalRequested,
    ApprovalSettled,
    RunDelta,
    RunFinished,
    RunStarted,
    ToolRunning,
)
from xworkmate.controllers.containment import agent_config_paths, agent_state_dirs, line_sandbox, sandbox_env
from xworkmate.controllers.line_network import agent_model_hosts, agent_network
from xworkmate.controllers.outcomes import TurnOutcome
from xworkmate.controllers.providers import (
    ProviderConfigError,
    RouterFactory,
    acp_agent_problem,
    default_router,
    provider_config,
)
from xworkmate.controllers.skills import selected_skills_of
from xworkmate.controllers.store_thread import TurnWrites, held_changes
from xworkmate.dispatch.tools import dispatch_tool_schemas, handle_dispatch_tool
from xworkmate.domain.attachments import Attachment, attachments_in
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.network import ToolConnections
from xworkmate.domain.permissions import TASK_SEND, TASK_START
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.runs import ExecutionResult, RunRequest
from xworkmate.domain.skills import Skill
from xworkmate.domain.threads import ExecutionMode, PermissionLevel, TaskThread
from xworkmate.domain.tool_trust import quarantines_output
from xworkmate.domain.turn_endings import WINDOW_CLOSED, TurnEnding
from xworkmate.domain.viewers import QuarantineMark
from xworkmate.llm.errors import LLMError
from xworkmate.llm.events import ToolCall

if TYPE_CHECKING:
    from xworkmate.agents.write_gate import EvidenceMessage
    from xworkmate.controllers.approvals import Approvals
    from xworkmate.controllers.checkpoints import CheckpointController
    from xworkmate.controllers.context import ControllerContext
    from xworkmate.controllers.recovery import TurnLease
    from xworkmate.dispatch.service import DispatchService
    from xworkmate.domain.agent_session import AgentSessionState
    from xworkmate.domain.mcp import McpServerRecord
    from xworkmate.domain.viewers import Viewer
    from xworkmate.llm.router import ModelRouter

# The run change records live in controllers.changes, the provider helpers in controllers.providers;
# re-exported here for older imports.
__all__ = [
    "ApprovalRequested",
    "ApprovalSettled",
    "ProviderConfigError",
    "RouterFactory",
    "RunDelta",
    "RunFinished",
    "RunStarted",
    "ToolRunning",
    "TurnContext",
    "TurnOutcome",
    "TurnRunner",
    "default_router",
    "headless_approver",
    "provider_config",
]

log = logging.getLogger(__name__)

# At a safe point, how many of the newest rows to look at for follow-ups (the turn's own rows are among them).
INBOX_PAGE = 100
STOPPED_NOTICE = "Stopped. What streamed so far is kept above."
CLOSED_NOTICE = (
    "Stopped: XWorkmate was closed while this turn ran. What streamed so far is kept above; send a follow-up to go on."
)
"""A turn the window closed on (``WINDOW_CLOSED``): stopped as Stop stops it, and said so, not as a crash."""


@dataclasses.dataclass(frozen=True)
class TurnContext:
    """Everything a turn needs from the rest of the controller, passed in explicitly (issue 19).

    The callables are the public operations of the other pieces; ``dispatch`` and ``checkpoints``
    are built on first use, so they are asked for when the turn needs them.
    """

    ctx: ControllerContext
    approvals: Approvals
    router: Callable[[], ModelRouter]
    dispatch: Callable[[], DispatchService]
    checkpoints: Callable[[], CheckpointController]
    agent_session: Callable[[str], AgentSessionState]
    turn_mcp_servers: Callable[[str], list[McpServerRecord]]
    apply_execution_result: Callable[[str, ExecutionResult], TaskThread]
    task_dispatched: Callable[[str], Awaitable[None]]
    """An agent's ``task_start`` made this task (the follow-up policy may start it)."""
    task_followed_up: Callable[[str], Awaitable[None]]
    """An agent's ``task_send`` reached this task (the one follow-up policy decides)."""


def headless_approver(level: PermissionLevel, key: str, refused: list[str]) -> Approver:
    """For ``xworkmate run``: nobody is there to approve, so what needs approval is refused."""

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        if request.unsandboxed is not None:
            # SBX-1: what cannot be contained is never run headless, whatever the permission level.
            reason = (
                f"{request.summary} was not run on line {key}: it cannot run in a sandbox here ({request.unsandboxed})"
            )
            refused.append(reason)
            return ApprovalDecision(allowed=False, reason=reason)
        reason = (
            f"{request.summary} needs approval on line {key} (permission level {level.value}) and no one"
            f" is at the window; allow it with `xworkmate thread set {key} --permission full`"
            if level is PermissionLevel.AUTO_EDIT
            else f"{request.summary} needs approval on line {key} (permission level {level.value}) and no"
            f" one is at the window; allow it with `xworkmate thread set {key} --permission auto-edit`"
            " (edits) or `--permission full` (edits and commands)"
        )
        refused.append(reason)
        return ApprovalDecision(allowed=False, reason=reason)

    return approve


class TurnRunner:
    """Runs one native or ACP turn for a line and records it."""

    def __init__(self, turn: TurnContext) -> None:
        self._turn = turn
        self._acp_runner: Any = None  # one AcpRunner for the app, so "always" answers last

    @property
    def acp_runner(self) -> Any:
        """The app's ACP runner once a turn on an ACP line made it, else None (a pick is sent to it live)."""
        return self._acp_runner

    async def run(
        self,
        request: RunRequest,
        *,
        provider: str | None,
        approver: Approver | None,
        headless: bool = False,
        followups: tuple[int, ...] = (),
        lease: TurnLease | None = None,
        answers: Mapping[str, str] | None = None,
    ) -> TurnOutcome:
        """One turn, checkpointed before it and after it whatever its ending (LOOP-1).

        ``lease``: the line's ``turn_owners`` row, which keeps the reply being streamed (issue 31)."""
        checkpoints = self._turn.checkpoints()
        # One queue for every row the turn writes, its checkpoint rows included (issue 33 item 2).
        writes = TurnWrites(self._turn.ctx.store_thread)
        started = await checkpoints.before_turn(request.thread_id, writes)
        control = await asyncio.to_thread(self._control_files_before, request.working_directory)
        status = TurnEnding.STOPPED  # what a cancelled turn ends as
        try:
            outcome = await self._run_one(
                request,
                provider=provider,
                approver=approver,
                headless=headless,
                followups=followups,
                lease=lease,
                answers=answers,
                writes=writes,
            )
            status = outcome.status
            return outcome
        finally:
            await checkpoints.after_turn(started, status, writes)
            await asyncio.shield(self._control_files_notice(request, control))

    @staticmethod
    def _control_files_before(folder: str) -> dict[str, str]:
        """SBX-3: the repository's hooks and config before the turn (a missing ``hooks``/``info``
        folder made first, as the sandbox will, so it is not reported as the turn's)."""
        prepare_control_paths(folder)
        return repository_fingerprint(folder)

    async def _control_files_notice(self, request: RunRequest, before: dict[str, str]) -> None:
        """SBX-3: when the turn changed the repository's hooks or config anyway (beyond the sandbox's
        reach, or with none), the line says so: git runs them as the person."""
        try:
            after = await asyncio.to_thread(repository_fingerprint, request.working_directory)
            text = describe_repository_changes(before, after)
            if text is not None:
                ctx, key = self._turn.ctx, request.thread_id
                await ctx.store_thread.call(lambda: ctx.notice(key, text))
        except Exception:  # the turn's own ending stands (ERR-1)
            log.warning("could not compare the repository's control files on %s", request.thread_id, exc_info=True)

    async def _agent_config_notice(self, key: str, watched: tuple[ConfigPath, ...], before: dict[str, str]) -> None:
        """SBX-3: when the agent changed what its CLI runs outside the sandbox (a config file it could
        create, or anything where no sandbox ran), the line names each path."""
        try:
            after = await asyncio.to_thread(config_fingerprint, watched)
            text = describe_config_changes(before, after, watched)
            if text is not None:
                ctx = self._turn.ctx
                await ctx.store_thread.call(lambda: ctx.notice(key, text))
        except Exception:  # the turn's own ending stands (ERR-1)
            log.warning("could not compare the agent's config on %s", key, exc_info=True)

    async def _run_one(
        self,
        request: RunRequest,
        *,
        provider: str | None,
        approver: Approver | None,
        headless: bool = False,
        followups: tuple[int, ...] = (),
        lease: TurnLease | None = None,
        answers: Mapping[str, str] | None = None,
        writes: TurnWrites | None = None,
    ) -> TurnOutcome:
        """One turn. ``approver`` wins; else headless turns answer by permission level, window turns ask.

        ``followups``: the follow-ups a previous turn left unanswered; an ACP agent gets them as its prompt.
        """
        refused: list[str] = []  # what the headless policy refused, reported in the outcome
        turn = self._turn
        key = request.thread_id
        thread = await turn.ctx.store_thread.call(lambda: turn.ctx.get_thread(key))
        mode = thread.execution_binding.mode
        quarantine = thread.context_state.quarantine_untrusted
        recorder = _TurnRecorder(
            turn, key, acp=mode is ExecutionMode.ACP, quarantine_untrusted=quarantine, lease=lease, writes=writes
        )
        # Issue 13: the whole turn has a time limit (the line's), on top of the stream's gap timeout;
        # one place for native and ACP turns. Past it the turn ends as Stop ends it.
        limit = thread.context_state.turn_limit_s
        deadline = asyncio.timeout(limit)
        try:
            try:
                async with deadline:
                    if mode is ExecutionMode.ACP:
                        text, finished = await self._run_acp(
                            request, thread, approver, refused, headless, recorder, followups, answers
                        )
                    else:
                        if approver is None and headless:
                            approver = headless_approver(thread.context_state.permission_level, key, refused)
                        text, finished = await self._run_native(request, thread, provider, approver, recorder)
                    await recorder.writes.settle()  # ERR-1: a write that failed fails the turn
            except asyncio.CancelledError as exc:
                closed = WINDOW_CLOSED in exc.args  # the window closed on the turn, not the person's Stop
                recorder.notice(CLOSED_NOTICE if closed else STOPPED_NOTICE, MessageState.INTERRUPTED)
                raise
            except TimeoutError as exc:
                if deadline.expired():
                    return await recorder.limit_reached(limit)
                log.error("turn on %s failed", key, exc_info=True)  # a timeout of something inside the turn
                return await recorder.failed(str(exc) or "something the turn waited for timed out")
            except (LLMError, ProviderConfigError, AcpSetupError) as exc:
                return await recorder.failed(str(exc))
            except Exception as exc:
                from xworkmate.agents.acp import AcpError

                if isinstance(exc, AcpError):
                    return await recorder.failed(str(exc))
                # ERR-1: a background turn never dies with a traceback; it fails in one line, the log keeps the rest.
                if exc is not recorder.writes.error:  # a failed write was logged where it failed
                    log.error("turn on %s failed", key, exc_info=True)
                from xworkmate.controllers.failures import describe_failure

                return await recorder.failed(describe_failure(exc, turn.ctx.settings.effective_database_url), exc)
        finally:
            await recorder.writes.drained()  # every message is stored and said before the turn ends
        status = TurnEnding.FINISHED if finished else TurnEnding.STEP_LIMIT
        return TurnOutcome(
            key=key,
            status=status,
            text=text,
            message_ids=tuple(recorder.ids),
            refused_approvals=tuple(refused),
            followups=tuple(recorder.followups),
            warnings=tuple(recorder.warnings),
            **recorder.chosen,
        )

    async def _run_native(
        self,
        request: RunRequest,
        thread: TaskThread,
        provider: str | None,
        approver: Approver | None,
        recorder: _TurnRecorder,
    ) -> tuple[str, bool]:
        turn = self._turn
        key = request.thread_id
        dispatch = turn.dispatch()
        messages = turn.ctx.store.messages

        def start() -> _NativeStart:
            """What the turn reads before it starts, in one trip to the store thread."""
            viewer = dispatch.viewer_for(key)
            history = messages.model_view(key, viewer=viewer)
            return _NativeStart(
                router=turn.router(),
                viewer=viewer,
                history=history,
                # SBX-1: commands run contained, with the allow-listed environment.
                sandbox=line_sandbox(turn.ctx.settings, turn.ctx.store, thread),
                # WR-1: the line's own recent human messages plus its frozen dispatch snapshot.
                evidence=dispatch.evidence_provider(key),
                # SKL-2: the line's selected skills, on this line's own (category-routed) requests only.
                skills=selected_skills_of(turn.ctx.settings.home, thread),
            )

        begun = await turn.ctx.store_thread.call(start)
        router, viewer, history = begun.router, begun.viewer, begun.history

        async def dispatch_tool(call: ToolCall) -> ToolResult:
            def handle() -> tuple[ToolResult, list[str]]:
                before = set(turn.ctx.store.threads.children(key)) if call.name == TASK_START else set()
                result = handle_dispatch_tool(dispatch, call.name, call.arguments, key)
                started = []
                if result.ok and call.name == TASK_START:
                    started = [k for k in turn.ctx.store.threads.children(key) if k not in before]
                return result, started

            result, started = await recorder.writes.read(handle)
            for task_key in started:
                await turn.task_dispatched(task_key)
            if result.ok and call.name == TASK_SEND:
                await turn.task_followed_up(str(call.parse_arguments()["task"]).strip())
            return result

        inbox = self._inbox(key, viewer, recorder, last_seen=max((m.id for m in history), default=0))

        async def tool_text_for_model(call: ToolCall, result: ToolResult) -> str:
            """Q-1: the stored result as the model may see it (a quarantined one is its placeholder)."""

            def seen() -> Message | None:
                stored = recorder.tool_results.get(call.id)
                return messages.model_view_of([stored], viewer=viewer).get(stored) if stored is not None else None

            shown = await recorder.writes.read(seen)
            if shown is not None:
                return shown.content
            if quarantines_output(call.name, quarantine_untrusted=recorder.quarantine_untrusted):
                return "[withheld: this tool's result was not stored, so it is not shown to the model]"
            return result.content

        # SBX-4: an allow-list line's commands reach the network through one proxy for the turn.
        async with proxied(begun.sandbox, recorder.record) as (sandbox, proxy_env):
            agent = NativeAgent(
                router=router,
                request=request,
                # quarantined rows reach the model as their frozen placeholders.
                history=history,
                inbox=inbox,
                tool_text_for_model=tool_text_for_model,
                permission=thread.context_state.permission_level,
                approver=approver or self._turn.approvals.window_approver(key),
                emit=recorder.record,
                pinned_provider=provider,
                secret_env_names=[p.api_key_env for p in router.providers if p.api_key_env],
                sandbox=sandbox,
                command_env={**sandbox_env(thread), **proxy_env},
                evidence=begun.evidence,
                extra_tools=dispatch_tool_schemas(),
                extra_tool_handler=dispatch_tool,
                skills=begun.skills,
            )
            result = await agent.run()
        # Issue 14: one that came after the last safe point (another process's `task send`) starts the next turn.
        recorder.followups = [m.id for m in await inbox()]
        return result.text, result.finished

    def _inbox(
        self, key: str, viewer: Viewer, recorder: _TurnRecorder, *, last_seen: int
    ) -> Callable[[], Awaitable[list[Message]]]:
        """Follow-ups stored on the line after ``last_seen`` (the window's Send, `task send`), oldest first;
        each call returns only what the previous calls did not. Read on the store thread, after the
        turn's own writes (``recorder.ids``, filled there): those are not read again, so a safe point with
        nothing new but the turn's own rows costs one small read of ids (issue 34 item 1)."""
        messages = self._turn.ctx.store.messages

        def newer_than(seen: int) -> tuple[int, list[Message]]:
            newer = [i for i in messages.page_ids(key, limit=INBOX_PAGE, viewer=viewer) if i > seen]
            if not newer:
                return seen, []
            own = set(recorder.ids)
            others = [i for i in newer if i not in own]
            if not others:
                return max(newer), []
            rows = messages.model_view_of(others, viewer=viewer)  # as the model may see them
            return max(newer), [rows[i] for i in others if i in rows and rows[i].role is MessageRole.USER]

        async def inbox() -> list[Message]:
            nonlocal last_seen
            last_seen, followups = await recorder.writes.read(lambda: newer_than(last_seen))
            return followups

        return inbox

    async def _run_acp(
        self,
        request: RunRequest,
        thread: TaskThread,
        approver: Approver | None,
        refused: list[str],
        headless: bool,
        recorder: _TurnRecorder,
        followups: tuple[int, ...] = (),
        answers: Mapping[str, str] | None = None,
    ) -> tuple[str, bool]:
        """An external agent CLI over ACP, in the line's folder (SPEC §5, CAT-3).

        A follow-up sent while the agent works cannot join its prompt; it is its next prompt (issue 14).
        """
        from xworkmate.agents.acp import (
            AcpRunner,
            check_acp_allowed,
            permission_approver,
            resolve_env_refs,
        )

        check_acp_allowed(request.category)  # CAT-3: before any process starts
        turn, key = self._turn, request.thread_id
        name = thread.execution_binding.provider
        record = await turn.ctx.store_thread.call(lambda: turn.ctx.store.providers.get(name) if name else None)
        # The gate refused this before the turn began; the agent may have been removed since.
        problem = acp_agent_problem(key, name, record)
        if problem is not None or record is None:
            raise AcpSetupError(problem or "no ACP agent")
        if self._acp_runner is None:
            self._acp_runner = AcpRunner()
        level = thread.context_state.permission_level
        if approver is None and headless:
            approver = permission_approver(level, refused=refused, answers=answers)
        approver = approver or turn.approvals.window_approver(key)
        sandbox = await self.acp_sandbox(thread, record, approver, headless)

        def start() -> _AcpStart:
            """What the turn reads before the agent starts, in one trip to the store thread."""
            viewer = turn.dispatch().viewer_for(key)
            newest = turn.ctx.store.messages.page_ids(key, limit=1, viewer=viewer)
            attachments: tuple[Attachment, ...] = ()
            if request.prompt:
                prompt = request.prompt
                # ATT-1: the person's message this turn sends (stored as the turn began) and what it carries.
                sent = turn.ctx.store.messages.model_view_of(tuple(newest), viewer=viewer)
                attachments = tuple(a for m in sent.values() for a in attachments_in(m.payload))
            elif followups:
                rows = turn.ctx.store.messages.model_view_of(followups, viewer=viewer)
                prompt = _user_prompt([rows[i] for i in followups if i in rows], key)
            else:
                prompt = self._unanswered_prompt(key)
            return _AcpStart(
                viewer=viewer,
                last_seen=max(newest, default=0),
                prompt=prompt,
                attachments=attachments,
                # SBX-1: its terminals run as run_command does, in the line's sandbox with the line's network.
                command_sandbox=line_sandbox(turn.ctx.settings, turn.ctx.store, thread),
                # Issue 15: the person's picks, and the line's MCP servers its category allows.
                choices=turn.agent_session(key),
                mcp_servers=turn.turn_mcp_servers(key),
                skills=selected_skills_of(turn.ctx.settings.home, thread),  # SKL-2
            )

        begun = await turn.ctx.store_thread.call(start)
        inbox = self._inbox(key, begun.viewer, recorder, last_seen=begun.last_seen)
        # SBX-3: what the agent's CLI would run outside the sandbox, before its process starts and after it ends.
        watched = agent_config_paths(
            agent_state_dirs(record.acp_command, record.acp_state_dirs), sandboxed=sandbox.available
        )
        config_before = await asyncio.to_thread(config_fingerprint, watched)
        try:
            result = await self._acp_runner.run_turn(
                # CAT-3: content on the ACP path carries no category.
                request.model_copy(update={"category": None}),
                command=record.acp_command,
                env=resolve_env_refs(record.acp_env_refs),
                prompt=begun.prompt,
                attachments=begun.attachments,
                acp_session_id=thread.execution_binding.acp_session_id,
                approver=approver,
                emit=recorder.record,
                permission_level=level,
                provider=record.name,
                sandbox=sandbox,
                # SBX-1: the allow-list (proxies included: the agent must reach its model) plus its references.
                base_env=sandbox_env(thread, proxies=True),
                command_sandbox=begun.command_sandbox,
                command_env=sandbox_env(thread),
                # Issue 15: the person's method up front; else the only one, else the window's card (headless: refuse).
                auth_method=record.acp_auth_method,
                choose_auth=None if headless else turn.approvals.window_sign_in(key, record.name),
                # Issue 32 item 4: a terminal method's login program runs in the window (headless: refused).
                show_login=None if headless else turn.approvals.window_login(key, record.name),
                choices=begun.choices,
                mcp_servers=begun.mcp_servers,
                skills=begun.skills,
            )
        finally:
            await asyncio.shield(self._agent_config_notice(key, watched, config_before))
        if result.session_id:
            session_id = result.session_id
            await recorder.writes.read(
                lambda: turn.apply_execution_result(key, ExecutionResult(acp_session_id=session_id))
            )
        recorder.chosen.update(provider=record.name, model=None)
        recorder.followups = [m.id for m in await inbox()]
        return result.text, True

    async def acp_sandbox(
        self, thread: TaskThread, record: ProviderRecord, approver: Approver, headless: bool
    ) -> Sandbox:
        """SBX-1 for an agent CLI: its folder and its own state folders writable; SBX-4: its network is the
        allow-list with its model hosts (the whole network only on a line set to ``on``).

        Without a sandbox the agent starts only if the person allows it at the window; headless, never.
        """
        import shutil

        from xworkmate.agents.acp import describe_acp_call
        from xworkmate.agents.sandbox import python_module_files

        found = shutil.which(record.acp_command[0]) if record.acp_command else None
        # The agent's program and the files its command names must stay readable in its sandbox.
        named = [arg for arg in record.acp_command[1:] if os.path.isabs(arg) and os.path.exists(arg)]
        named += python_module_files(record.acp_command)  # `python -m pkg`: the package's folder
        executable = [found, *named] if found else named
        ctx = self._turn.ctx
        sandbox = await ctx.store_thread.call(
            lambda: line_sandbox(
                ctx.settings,
                ctx.store,
                thread,
                network=agent_network(thread),
                allow_hosts=agent_model_hosts(record),
                writable=agent_state_dirs(record.acp_command, record.acp_state_dirs),
                executable=executable,
            )
        )
        if sandbox.available:
            return sandbox
        detail = sandbox.status.detail
        key = thread.thread_id
        if headless:
            raise AcpSetupError(
                f"ACP agent {record.name!r} was not started on line {key}: it cannot run in a sandbox here ({detail})"
            )
        call = ToolCall(
            id=f"sandbox-{key}",
            name="start_agent",
            arguments=json.dumps({"title": f"start the agent {record.name}", "command": list(record.acp_command)}),
        )
        decision = await approver(
            ApprovalRequest(thread_id=key, call=call, summary=describe_acp_call(call), unsandboxed=detail)
        )
        if not decision.allowed:
            raise AcpSetupError(f"ACP agent {record.name!r} was not started: running it without a sandbox was refused")
        return sandbox

    def _unanswered_prompt(self, key: str) -> str:
        """A task run on ACP has no new message of the person's: send what it has not answered yet.

        That is its goal (the dispatcher's words, labelled as such) and any follow-ups since the
        agent last spoke, in order.
        """
        # the model view, as the task itself may read its line; a quarantined row is its placeholder.
        viewer = self._turn.dispatch().viewer_for(key)
        history = self._turn.ctx.store.messages.model_view(key, viewer=viewer)
        last_reply = max((i for i, m in enumerate(history) if m.role is MessageRole.ASSISTANT), default=-1)
        return _user_prompt(history[last_reply + 1 :], key)


@dataclasses.dataclass(frozen=True)
class _NativeStart:
    router: ModelRouter
    viewer: Viewer
    history: list[Message]
    sandbox: Sandbox
    evidence: Callable[[], list[EvidenceMessage]]
    skills: tuple[Skill, ...]


@dataclasses.dataclass(frozen=True)
class _AcpStart:
    viewer: Viewer
    last_seen: int
    prompt: str
    attachments: tuple[Attachment, ...]
    command_sandbox: Sandbox
    choices: AgentSessionState
    mcp_servers: list[McpServerRecord]
    skills: tuple[Skill, ...]


def _user_prompt(messages: list[Message], key: str) -> str:
    """An ACP prompt from stored messages: the same user-side view the native agent sends (component
    input labelled as not the person's), in order."""
    parts = [entry["content"] for entry in history_to_chat(messages) if entry["role"] == "user"]
    if not parts:
        raise AcpSetupError(f"task {key} has nothing new to send to its agent")
    return "\n\n".join(parts)


class AcpSetupError(ValueError):
    """A line set to ACP mode without a usable ACP provider."""


class _TurnRecorder:
    """Turns agent events into stored messages and change records, for one turn of one line.

    The agent's sink (``record``) runs on the loop and never waits: what an event stores is queued
    on the turn's ``writes`` (``controllers/store_thread``), which runs it on the store thread in
    the order the events came, and delivers its change records on the loop. ``ids`` and
    ``tool_results`` are filled there; the turn reads them once the queue is drained.
    """

    def __init__(
        self,
        turn: TurnContext,
        key: str,
        *,
        acp: bool,
        quarantine_untrusted: bool,
        lease: TurnLease | None = None,
        writes: TurnWrites | None = None,
    ) -> None:
        self.turn = turn
        self.lease = lease  # issue 31: the reply streamed so far is kept in the line's turn_owners row
        self.key = key
        self.acp = acp
        # Q-1: the line quarantines its untrusted tools' output (``domain.tool_trust``) as it is stored.
        self.quarantine_untrusted = quarantine_untrusted
        self.writes = writes or TurnWrites(turn.ctx.store_thread)
        self.tool_results: dict[str, int] = {}  # tool call id → the stored result's message id
        self.ids: list[int] = []
        self.followups: list[int] = []  # stored after the turn's last safe point (issue 14)
        self.warnings: list[str] = []  # what went wrong without ending the turn, in the outcome (issue 32 item 5)
        self.chosen: dict[str, str | None] = {"provider": None, "model": None}
        self._thought: list[str] = []
        # On the loop: a thought was streamed and no event that stores it (it stores the thought first) came since.
        self._thinking = False
        self._network_seen: set[tuple[str, bool]] = set()  # SBX-4: destinations logged this turn
        self.connections = ToolConnections()  # SBX-4: which tool call each connection belongs to (its card)

    def _describe(self, call: ToolCall) -> str:
        if self.acp:
            from xworkmate.agents.acp import describe_acp_call

            return describe_acp_call(call)
        return describe_call(call)

    def _network_connection(self, event: ProxyConnection) -> None:
        """SBX-4: the turn's network log. Each destination is stored once per turn and verdict, with a
        ``network`` payload the window reads (a denied one offers "Allow this host for this line"), naming
        the tool call it belongs to (``ToolConnections``), whose card lists it too."""
        call_id = self.connections.connection(event.host, event.port, event.allowed)
        destination = event.destination
        if (destination, event.allowed) in self._network_seen:
            return
        self._network_seen.add((destination, event.allowed))
        if event.allowed:
            text = f"Network: reached {destination} (on this line's allow-list)."
        else:
            text = (
                f"Network: {destination} was refused: it is not on this line's allow-list. Allow it with"
                f" `xworkmate thread set {self.key} --allow-host {destination}`."
            )
        self.flush_thought()
        self._append(
            role=MessageRole.SYSTEM,
            source=MessageSource.FRAMEWORK_EVENT,
            content=text,
            state=MessageState.COMPLETE if event.allowed else MessageState.ERROR,
            payload={
                "network": {
                    "host": event.host,
                    "port": event.port,
                    "allowed": event.allowed,
                    **({"tool_call_id": call_id} if call_id is not None else {}),
                }
            },
        )

    def _append(self, **kwargs: Any) -> Message:
        """Store a message of the turn (on the store thread) and say so."""
        message = self.turn.ctx.store.messages.append(self.key, **kwargs)
        self.ids.append(message.id)
        self.turn.ctx.emit_messages(self.key, (message.id,), (message,))
        return message

    def notice(self, text: str, state: MessageState = MessageState.ERROR, *, after_failure: bool = False) -> None:
        """A framework notice on the line: stored at once on the store thread, else queued."""
        if held_changes() is None:
            self.writes.write(lambda: self.notice(text, state), after_failure=after_failure)
            return
        self.flush_thought()
        self.ids.append(self.turn.ctx.notice(self.key, text, state))

    async def failed(self, error: str, cause: BaseException | None = None) -> TurnOutcome:
        from xworkmate.controllers.failures import describe_failure, failure_kind

        await self.writes.drained()
        if self.writes.error is not None:
            # ERR-1: a write failed first, so the database (or the disk under it) is the cause, not the stream
            # or the tool that failed after it (a broken stream is what a lost database looks like from there).
            cause = self.writes.error
            error = describe_failure(cause, self.turn.ctx.settings.effective_database_url)
        # Tried even after a failed write; if the database itself failed (read-only, full), it is not
        # stored either (logged), and the window still hears why through RunFinished.
        self.notice(f"The run failed: {error}", after_failure=True)
        await self.writes.drained()
        return TurnOutcome(
            key=self.key,
            status=TurnEnding.FAILED,
            error=error,
            failure=failure_kind(cause) if cause is not None else None,
            message_ids=tuple(self.ids),
            **self.chosen,
        )

    async def limit_reached(self, limit_s: int) -> TurnOutcome:
        """The turn ran past the line's time limit: ended like Stop, the notice names the limit."""
        from xworkmate.domain.threads import describe_turn_limit

        limit = describe_turn_limit(limit_s)
        error = f"stopped after the line's {limit} turn limit"
        self.notice(
            f"Stopped after the line's {limit} turn limit. What streamed so far is kept above; send a follow-up"
            f" to continue, or change the limit with `xworkmate thread set {self.key} --turn-limit MINUTES`.",
            MessageState.INTERRUPTED,
        )
        await self.writes.drained()
        return TurnOutcome(
            key=self.key, status=TurnEnding.STOPPED, error=error, message_ids=tuple(self.ids), **self.chosen
        )

    def flush_thought(self) -> None:
        if self._thought:
            text, self._thought = "".join(self._thought), []
            self._append(
                role=MessageRole.ASSISTANT,
                source=MessageSource.AGENT,
                content=text,
                payload={"thought": True},
            )

    def record(self, event: object) -> None:
        """The agent's event sink, on the loop: streamed text goes out at once (after what is queued)."""
        turn, key = self.turn, self.key
        lease = self.lease
        if isinstance(event, AssistantDelta):
            delta = RunDelta(key=key, text=event.text)
            self.writes.then(lambda: turn.ctx.emit(delta))
            if lease is not None:
                text = event.text
                self.writes.then(lambda: lease.streamed(text))
        elif isinstance(event, ThoughtDelta):
            self._thinking = True
            thought = event.text
            self.writes.then(lambda: self._thought.append(thought))
        elif isinstance(event, ProviderChosen):
            self.chosen.update(provider=event.provider, model=event.model)
        elif isinstance(event, ToolStarted) and not self._thinking:
            # Issue 34 item 1: a tool's running card stores nothing (no thought is waiting to be stored before
            # it): it goes out on the loop, in its place in the queue, without a trip to the store thread.
            call = event.call
            self.writes.then(lambda: self._tool_started(call))
        else:
            if isinstance(event, AssistantDone | ToolStarted | ToolDone | PlanUpdated):
                self._thinking = False  # what it stores comes after the thought, which it stores first
            self.writes.write(lambda: self._store(event))
            if lease is not None and isinstance(event, AssistantDone):
                # Once the reply is stored, it is no longer partial. Not at a tool card: an ACP agent's answer
                # goes on after its cards and is stored whole at the end, so what streamed before a card stays
                # in the lease (a crash keeps it); a native reply is stored (AssistantDone) before its tools run.
                self.writes.then(lease.reply_ended)

    def _tool_started(self, call: ToolCall) -> None:
        """A tool began: its card says so (on the store thread after a thought it stores first, else on the loop)."""
        self.connections.started(call.id)
        self.turn.ctx.emit(ToolRunning(key=self.key, call_id=call.id, summary=self._describe(call)))

    def _store(self, event: object) -> None:
        """What an event stores and says, on the store thread (its change records are held for the loop)."""
        turn, key = self.turn, self.key
        if isinstance(event, AssistantDone):
            self.flush_thought()
            if not event.text and not event.tool_calls and event.state is MessageState.COMPLETE:
                return
            self._append(
                role=MessageRole.ASSISTANT,
                source=MessageSource.AGENT,
                content=event.text,
                state=event.state,
                payload={
                    "tool_calls": [c.to_message() for c in event.tool_calls],
                    "provider": event.provider,
                    "model": event.model,
                    # CAT-3: a turn on the ACP path is recorded with category None.
                    **({"mode": "acp", "category": None} if self.acp else {}),
                },
            )
        elif isinstance(event, ToolStarted):
            self.flush_thought()
            self._tool_started(event.call)
        elif isinstance(event, ToolDone):
            self.flush_thought()
            result = event.result
            connections = self.connections.finished(event.call.id)
            # a native tool's untrusted output is stored whole; the model sees the placeholder.
            # (An ACP agent ran its own tools and saw their output before we heard of them.)
            quarantine = not self.acp and quarantines_output(
                event.call.name, quarantine_untrusted=self.quarantine_untrusted, error_kind=result.error_kind
            )
            stored = self._append(
                role=MessageRole.TOOL,
                source=MessageSource.TOOL,
                quarantine=QuarantineMark() if quarantine else None,
                content=result.content,
                state=MessageState.COMPLETE if result.ok else MessageState.ERROR,
                payload={
                    "tool_call_id": event.call.id,
                    "name": event.call.name,
                    "arguments": event.call.arguments,
                    "summary": self._describe(event.call),
                    "ok": result.ok,
                    "error_kind": result.error_kind,
                    "changed_path": str(result.changed_path) if result.changed_path else None,
                    "diff": result.diff,
                    **({"connections": connections} if connections else {}),
                    **({"mode": "acp"} if self.acp else {}),
                },
            )
            self.tool_results[event.call.id] = stored.id
        elif isinstance(event, PlanUpdated):
            self.flush_thought()
            lines = [f"- [{'x' if status == 'completed' else ' '}] {text}" for text, status in event.entries]
            self._append(
                role=MessageRole.ASSISTANT,
                source=MessageSource.AGENT,
                content="Plan:\n" + "\n".join(lines),
                payload={"plan": [list(entry) for entry in event.entries]},
            )
        elif isinstance(event, ProxyConnection):
            self._network_connection(event)
        elif isinstance(event, StepLimitReached):
            self.notice(f"Stopped after {event.steps} steps in one turn; send a follow-up to continue.")
        elif type(event).__name__ == "AcpSignedIn":
            method_id = getattr(event, "method_id", "?")
            self.notice(f"Signed in to the agent with its method {method_id!r}.", MessageState.COMPLETE)
        elif type(event).__name__ == "AcpSessionReady":
            session_id = getattr(event, "session_id", None)
            if session_id:
                # Stored at once, for the line that started the run (ISO-8): a crashed turn still resumes.
                turn.apply_execution_result(key, ExecutionResult(acp_session_id=session_id))
            note = getattr(event, "note", None)
            if note:
                self.notice(note, MessageState.COMPLETE)
        else:
            from xworkmate.controllers.agent_session import record_agent_event

            record_agent_event(self, event)  # issue 15: offers, refused picks, usage, skipped MCP servers
