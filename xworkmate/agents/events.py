"""What an agent turn reports, native or ACP alike (SPEC §5).

The controller turns these into stored messages and change records; the
agents themselves persist nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from xworkmate.agents.tools import ToolResult
from xworkmate.domain.elicitation import ElicitationAnswer, ElicitationForm
from xworkmate.domain.messages import MessageState
from xworkmate.llm.events import ToolCall


@dataclass(frozen=True)
class ProviderChosen:
    provider: str
    model: str


@dataclass(frozen=True)
class AssistantDelta:
    text: str


@dataclass(frozen=True)
class AssistantDone:
    """A complete (or, when stopped, interrupted) assistant message."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    state: MessageState = MessageState.COMPLETE
    provider: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class ToolStarted:
    call: ToolCall


@dataclass(frozen=True)
class ToolDone:
    call: ToolCall
    result: ToolResult


@dataclass(frozen=True)
class StepLimitReached:
    steps: int


@dataclass(frozen=True)
class ApprovalRequest:
    """A tool call that waits for the person (permission level ``ask``/``auto-edit``)."""

    thread_id: str
    call: ToolCall
    summary: str
    # SBX-1: set when the action would run without a sandbox; says why, shown on the card.
    unsandboxed: str | None = None
    # Issue 30 item 3: an ACP agent's edit carries its diff (unified, ``/dev/null`` for a new file); the card shows it.
    diff: str | None = None
    # Issue 32 item 3: the agent asks the person for input (ACP ``elicitation/create``): the window shows a form
    # card instead of Allow/Reject, and the decision carries the ``answer``.
    form: ElicitationForm | None = None


@dataclass(frozen=True)
class ApprovalDecision:
    """The person's answer. ``always`` ("Always for this line", allowed only): an ACP runner remembers it
    for its session and tool kind; a native agent ignores it (the controller raises the line's level)."""

    allowed: bool
    reason: str = ""
    always: bool = False
    answer: ElicitationAnswer | None = None
    """For a request with a ``form``: what the person answered (None: not answered, taken as ``cancel``)."""


@dataclass(frozen=True)
class ThoughtDelta:
    """Reasoning an agent chose to show (ACP ``agent_thought_chunk``); never sent back to a model."""

    text: str


@dataclass(frozen=True)
class PlanUpdated:
    """An agent's plan (ACP ``plan``): entries with their status."""

    entries: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ToolOutputGrew:
    """A running tool's output so far (an ACP terminal's, issue 15): its card shows it live."""

    call_id: str
    summary: str
    output: str


@dataclass(frozen=True)
class UsageReported:
    """Issue 15, item 6: what a model call or an ACP agent said it used.

    ``tokens_in``/``tokens_out`` are added to the line's totals; ``context_used``, ``context_size``
    and ``cost`` (cumulative, as the agent reports it) replace what the line had; ``None``: not said.
    """

    tokens_in: int = 0
    tokens_out: int = 0
    context_used: int | None = None
    context_size: int | None = None
    cost: float | None = None
    currency: str | None = None


# What an agent reports while a turn runs; a sink takes any of them (the native agent emits UsageReported,
# an ACP terminal ToolOutputGrew).
AgentEvent = (
    ProviderChosen
    | AssistantDelta
    | AssistantDone
    | ToolStarted
    | ToolDone
    | StepLimitReached
    | ThoughtDelta
    | PlanUpdated
    | ToolOutputGrew
    | UsageReported
)
EventSink = Callable[[AgentEvent], None]
Approver = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]
