"""The native agent loop (SPEC §5, native mode).

One turn: the line's history goes to the model through the category router
(CAT-2); the reply streams out as events; tool calls run confined to the
line's working directory, writes through the write gate (WR-1), and actions
that need approval wait for it according to the line's permission level. The
loop persists nothing itself: the controller turns events into messages.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from xworkmate.agents.events import (
    AgentEvent,
    ApprovalRequest,
    Approver,
    AssistantDone,
    EventSink,
    ProviderChosen,
    StepLimitReached,
    ToolDone,
    ToolStarted,
    UsageReported,
)
from xworkmate.agents.sandbox import Sandbox, looks_secret
from xworkmate.agents.stream_text import StreamedText
from xworkmate.agents.tools import (
    ToolContext,
    ToolResult,
    dispatch_tool_call_async,
    tool_schemas,
)
from xworkmate.agents.write_gate import EvidenceMessage
from xworkmate.domain.attachments import attachments_in, text_with_attachments
from xworkmate.domain.interruptions import PARTIAL_REPLY
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.permissions import action_kind, needs_approval
from xworkmate.domain.runs import RunRequest
from xworkmate.domain.skills import Skill, skills_prompt
from xworkmate.domain.threads import PermissionLevel
from xworkmate.domain.tool_errors import ToolErrorKind
from xworkmate.domain.tools import ActionKind, tool_spec
from xworkmate.llm.events import (
    ProviderSelected,
    TextDelta,
    ToolCall,
    ToolCallReady,
    UsageReport,
)
from xworkmate.llm.router import ModelRouter

log = logging.getLogger(__name__)


def usage_reported(report: UsageReport) -> UsageReported:
    """An OpenAI-compatible response's ``usage`` as the line's meter counts it (issue 15, item 6):
    tokens in and out add up; the context is what this call's prompt and answer filled."""
    usage = report.usage
    prompt, completion = usage.prompt_tokens or 0, usage.completion_tokens or 0
    context = usage.total_tokens if usage.total_tokens is not None else prompt + completion
    return UsageReported(tokens_in=prompt, tokens_out=completion, context_used=context or None)


DEFAULT_MAX_STEPS = 16
# How many of the line's most recent human messages count as evidence for the write gate.
EVIDENCE_WINDOW = 12

# Issue 34 item 1: one step of a turn on the event loop (a burst of buffered stream events handled without a
# real await) runs at most this long before the window and the other lines get a turn of the loop.
STEP_BUDGET_S = 0.004

# The kinds of the native tools, and whether they wait for the person, live in domain/permissions.py.

SYSTEM_PROMPT = """You are the built-in agent of XWorkmate, working for one person on one task line.
Your working directory is {working_directory}; every path you use is relative to it and you cannot
leave it. Use the tools to look before you change anything. When you call write_file or edit_file,
pass `quote`: the exact words from the person's own message that ask for this change (copy them
verbatim; a paraphrase or "the user asked" is refused). Keep replies short and say what you changed."""

TASK_TOOLS_PROMPT = """You may start a background task with task_start when a part of the work stands on its own,
and send it follow-ups with task_send."""


def command_environment(extra_secret_names: Sequence[str] = ()) -> dict[str, str]:
    """The environment for ``run_command``: the app's, minus anything that looks like a secret.

    A command such as ``env`` must not copy provider keys into a tool result
    that is stored and sent to a model (SPEC §7: secrets never in the database).
    """
    hidden = set(extra_secret_names)
    return {k: v for k, v in os.environ.items() if k not in hidden and not looks_secret(k)}


@dataclass(frozen=True)
class TurnResult:
    steps: int
    finished: bool
    text: str


@dataclass
class NativeAgent:
    """Runs turns for one line. ``history`` already ends with the person's new message."""

    router: ModelRouter
    request: RunRequest
    history: Sequence[Message]
    permission: PermissionLevel
    approver: Approver
    emit: EventSink
    pinned_provider: str | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    tool_context: ToolContext | None = None
    secret_env_names: Sequence[str] = ()
    # SBX-1: where commands run. None: no sandbox was set up, so every command asks the person.
    sandbox: Sandbox | None = None
    # The environment commands get; None: ours minus anything that looks like a secret.
    command_env: Mapping[str, str] | None = None
    # WR-1: the task's evidence (own recent human messages + dispatch snapshot), read afresh per write.
    evidence: Callable[[], Sequence[EvidenceMessage]] | None = None
    # Extra tools beyond the workspace ones (task_start / task_send): schemas and an async handler.
    extra_tools: Sequence[dict[str, Any]] = ()
    extra_tool_handler: Callable[[ToolCall], Awaitable[ToolResult]] | None = None
    # Messages sent to the line while the turn runs (follow-ups), read at each safe point (awaited:
    # the controller reads them on its store thread, after the turn's own writes).
    inbox: Callable[[], Awaitable[Sequence[Message]]] | None = None
    # what the model is shown of a tool's result once it is stored (a quarantined one: its
    # placeholder). None: the result as the tool returned it.
    tool_text_for_model: Callable[[ToolCall, ToolResult], Awaitable[str]] | None = None
    # SKL-2: the line's selected skills: named and described in the system prompt, read with read_skill.
    skills: Sequence[Skill] = ()
    _evidence: list[EvidenceMessage] = field(default_factory=list)
    _extra_names: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        self._extra_names = frozenset(t["function"]["name"] for t in self.extra_tools)
        humans = [m for m in self.history if m.source is MessageSource.HUMAN]
        self._evidence = [EvidenceMessage.from_message(m) for m in humans[-EVIDENCE_WINDOW:]]
        if self.tool_context is None:
            evidence = self.evidence or (lambda: tuple(self._evidence))
            base = ToolContext.for_working_directory(self.request.working_directory, evidence)
            self.tool_context = ToolContext(
                write_gate=base.write_gate,
                limits=base.limits,
                command_env=self.command_env
                if self.command_env is not None
                else command_environment(self.secret_env_names),
                sandbox=self.sandbox,
                skills=tuple(self.skills),
            )
        elif self.skills and not self.tool_context.skills:
            self.tool_context = replace(self.tool_context, skills=tuple(self.skills))

    async def run(self) -> TurnResult:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self._system_prompt()},
            *history_to_chat(self.history),
        ]
        tools = [*tool_schemas(skills=bool(self.tool_context and self.tool_context.skills)), *self.extra_tools]
        pinned = self.pinned_provider or self.request.execution.provider
        last_text = ""
        for step in range(1, self.max_steps + 1):
            text, calls, provider, model = await self._one_reply(messages, tools, pinned)
            last_text = text or last_text
            self.emit(AssistantDone(text=text, tool_calls=calls, provider=provider, model=model))
            assistant: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                assistant["tool_calls"] = [call.to_message() for call in calls]
            messages.append(assistant)
            for call in calls:
                result = await self._run_tool(call)
                shown = await self.tool_text_for_model(call, result) if self.tool_text_for_model else result.content
                messages.append({"role": "tool", "tool_call_id": call.id, "content": shown})
            # A safe point, at the end of every step: follow-ups that arrived while it ran (a streamed
            # answer or a tool round) join the conversation, and the next step answers them (PROV-4, issue 14).
            followups = history_to_chat(await self.inbox()) if self.inbox is not None else []
            messages.extend(followups)
            if not calls and not followups:
                return TurnResult(steps=step, finished=True, text=last_text)
        self.emit(StepLimitReached(self.max_steps))
        return TurnResult(steps=self.max_steps, finished=False, text=last_text)

    def _system_prompt(self) -> str:
        prompt = SYSTEM_PROMPT.format(working_directory=self.request.working_directory)
        if self.extra_tools:
            prompt = f"{prompt}\n{TASK_TOOLS_PROMPT}"
        skills = self.tool_context.skills if self.tool_context is not None else ()
        return f"{prompt}\n{skills_prompt(skills)}" if skills else prompt

    async def _one_reply(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], pinned: str | None
    ) -> tuple[str, tuple[ToolCall, ...], str | None, str | None]:
        parts: list[str] = []
        calls: list[ToolCall] = []
        provider: str | None = None
        model: str | None = None
        stream = self.router.stream(
            messages,
            content_category=self.request.category,
            tools=tools,
            pinned=pinned,
            chain=[] if pinned else None,
        )
        # Issue 34 item 1: text that arrives in one step of the loop (a burst the HTTP client had buffered)
        # goes out as one ``AssistantDelta`` when the step ends; any other event after it (agents/stream_text.py).
        out = StreamedText[AgentEvent](self.emit)
        stepped = time.perf_counter()
        try:
            async for event in stream:
                if time.perf_counter() - stepped >= STEP_BUDGET_S:
                    out.flush()
                    await asyncio.sleep(0)
                    stepped = time.perf_counter()
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                    out.text(event.text)
                elif isinstance(event, ToolCallReady):
                    calls.append(event.call)
                elif isinstance(event, ProviderSelected):
                    provider, model = event.provider, event.model
                    out(ProviderChosen(event.provider, event.model))
                elif isinstance(event, UsageReport):
                    out(usage_reported(event))  # issue 15, item 6: the line's meter
                # reasoning deltas: not shown.
            out.flush()
        except asyncio.CancelledError:
            # Stop keeps what streamed so far, marked as interrupted.
            out(
                AssistantDone(
                    text="".join(parts),
                    tool_calls=(),
                    state=MessageState.INTERRUPTED,
                    provider=provider,
                    model=model,
                )
            )
            raise
        finally:
            out.close()  # a failed stream: what arrived goes out now, never after the turn's end was reported
            await stream.aclose()
        return "".join(parts), tuple(calls), provider, model

    async def _run_tool(self, call: ToolCall) -> ToolResult:
        assert self.tool_context is not None
        if call.arguments_error is not None:
            result = ToolResult(
                ok=False,
                content=f"the arguments of {call.name} are not valid JSON ({call.arguments_error}); "
                "call the tool again with a JSON object",
                tool_name=call.name,
                error_kind=ToolErrorKind.INVALID_ARGUMENTS,
            )
            self.emit(ToolDone(call, result))
            return result
        sandbox = self.tool_context.sandbox
        sandboxed = sandbox is not None and sandbox.available
        if needs_approval(call.name, self.permission, sandboxed=sandboxed):
            unsandboxed = None
            if action_kind(call.name) is ActionKind.COMMAND and not sandboxed:
                unsandboxed = sandbox.status.detail if sandbox is not None else "no sandbox was set up for this run"
            decision = await self.approver(
                ApprovalRequest(
                    thread_id=self.request.thread_id,
                    call=call,
                    summary=describe_call(call),
                    unsandboxed=unsandboxed,
                )
            )
            if not decision.allowed:
                result = ToolResult(
                    ok=False,
                    content=f"{call.name} was not approved: {decision.reason or 'the person rejected it'}",
                    tool_name=call.name,
                    error_kind=ToolErrorKind.NOT_APPROVED,
                )
                self.emit(ToolDone(call, result))
                return result
        self.emit(ToolStarted(call))
        try:
            if call.name in self._extra_names and self.extra_tool_handler is not None:
                result = await self.extra_tool_handler(call)
            else:
                result = await dispatch_tool_call_async(call.name, call.arguments, self.tool_context)
        except asyncio.CancelledError:
            self.emit(
                ToolDone(
                    call,
                    ToolResult(
                        ok=False,
                        content="stopped before it finished",
                        tool_name=call.name,
                        error_kind=ToolErrorKind.CANCELLED,
                    ),
                )
            )
            raise
        if not result.ok and result.error_kind == ToolErrorKind.WRITE_REFUSED:
            log.warning("write refused on %s: %s", self.request.thread_id, result.content)
        self.emit(ToolDone(call, result))
        return result


def describe_call(call: ToolCall) -> str:
    """A one-line description of a tool call for cards and approvals."""
    try:
        args = call.parse_arguments()
    except Exception:
        return f"{call.name}({call.arguments[:80]})"
    spec = tool_spec(call.name)  # issue 33 item 3: the wording is the tool table's (domain/tools.py)
    return spec.describe(args) if spec is not None else call.name


COMPONENT_INPUT_LABEL = "[From the agent that dispatched this task, not from the person:]"
_NO_RESULT = "(no result: the turn was stopped before this tool ran)"


def person_content(message: Message) -> str | list[dict[str, Any]]:
    """The person's message as the model reads it (ATT-1): their words, each attached text file fenced
    with its name, and each image as an OpenAI ``image_url`` part (a ``data:`` URL). Whether the
    provider takes images is the router's to check (``llm.router``), as it picks the provider."""
    attachments = attachments_in(message.payload)
    text = text_with_attachments(message.content, attachments)
    images = [a for a in attachments if a.is_image]
    if not images:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    parts.extend({"type": "image_url", "image_url": {"url": a.data_url()}} for a in images)
    return parts


def history_to_chat(history: Sequence[Message]) -> list[dict[str, Any]]:
    """The line's stored messages as OpenAI chat messages.

    Framework notices are not shown to the model. Every assistant tool call is
    followed by a result, even if the turn was stopped before it ran, because
    OpenAI-compatible servers reject a call without one.
    """
    out: list[dict[str, Any]] = []
    pending: list[str] = []

    def close_pending() -> None:
        for call_id in pending:
            out.append({"role": "tool", "tool_call_id": call_id, "content": _NO_RESULT})
        pending.clear()

    for message in history:
        if message.role is MessageRole.TOOL:
            call_id = (message.payload or {}).get("tool_call_id")
            if call_id in pending:
                pending.remove(call_id)
                out.append({"role": "tool", "tool_call_id": call_id, "content": message.content})
            continue
        close_pending()
        if message.role is MessageRole.USER and message.source is MessageSource.HUMAN:
            out.append({"role": "user", "content": person_content(message)})
        elif message.role is MessageRole.USER and message.source is MessageSource.COMPONENT_INPUT:
            # A task's goal or an agent's follow-up: visible, but marked as not the person's words (PROV-3).
            out.append({"role": "user", "content": f"{COMPONENT_INPUT_LABEL}\n{message.content}"})
        elif message.role is MessageRole.ASSISTANT:
            if {"thought", "plan", PARTIAL_REPLY} & set(message.payload or {}):
                # An ACP agent's shown reasoning and plans are for the person, not for a model; so is the reply
                # a crash cut short (issue 31): Resume re-runs that step from what is stored before it.
                continue
            calls = list((message.payload or {}).get("tool_calls") or [])
            if not message.content and not calls:
                continue
            entry: dict[str, Any] = {"role": "assistant", "content": message.content or None}
            if calls:
                entry["tool_calls"] = calls
                pending.extend(str(c["id"]) for c in calls)
            out.append(entry)
    close_pending()
    return out
