"""Change records: what the controller reports, one small frozen value each (STYLE 4).

Kept apart from the controllers' machinery so the window can import them
without loading the agent, LLM or HTTP code at start-up. They are frozen
dataclasses rather than pydantic models: they are built by our own code, never
parsed from outside, and a dozen pydantic classes cost ~60 ms of start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Literal, Protocol

from xworkmate.domain.change_preview import ChangePreview
from xworkmate.domain.elicitation import ElicitationForm
from xworkmate.domain.messages import Message
from xworkmate.domain.turn_endings import TurnEnding


@dataclass(frozen=True, slots=True)
class LineCreated:
    kind: ClassVar[Literal["line_created"]] = "line_created"
    key: str


@dataclass(frozen=True, slots=True)
class LineUpdated:
    kind: ClassVar[Literal["line_updated"]] = "line_updated"
    key: str


@dataclass(frozen=True, slots=True)
class CurrentLineChanged:
    kind: ClassVar[Literal["current_changed"]] = "current_changed"
    key: str


@dataclass(frozen=True, slots=True)
class MessagesAppended:
    kind: ClassVar[Literal["messages_appended"]] = "messages_appended"
    key: str
    message_ids: tuple[int, ...]
    # The messages themselves, when the writer had them in hand (a turn's, a notice, the person's): a
    # listener on the GUI thread shows them without reading them back (issue 19). Not part of equality.
    messages: tuple[Message, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class MessagesChanged:
    """Stored messages whose rendering changed (hidden from the model, shown again: Q-1)."""

    kind: ClassVar[Literal["messages_changed"]] = "messages_changed"
    key: str
    message_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RunStarted:
    kind: ClassVar[Literal["run_started"]] = "run_started"
    key: str


@dataclass(frozen=True, slots=True)
class RunDelta:
    """Text streamed by the agent, not yet stored (the pane shows it live)."""

    kind: ClassVar[Literal["run_delta"]] = "run_delta"
    key: str
    text: str


@dataclass(frozen=True, slots=True)
class ToolRunning:
    kind: ClassVar[Literal["tool_running"]] = "tool_running"
    key: str
    call_id: str
    summary: str


@dataclass(frozen=True, slots=True)
class ApprovalRequested:
    kind: ClassVar[Literal["approval_requested"]] = "approval_requested"
    key: str
    approval_id: int
    tool: str
    summary: str
    arguments: str
    # SBX-1: why the action would run without a sandbox, when it would; the card says so.
    unsandboxed: str | None = None
    # Issue 30 item 3: what the card shows will happen. A write's diff or new content (read off the
    # event loop when the approval was made), the line's folder and its network setting (SBX-4).
    change: ChangePreview | None = None
    folder: str | None = None
    network: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    # Issue 32 item 3: the agent asks for input (ACP elicitation): the card is a form; answered by ``answer_form``.
    form: ElicitationForm | None = None


@dataclass(frozen=True, slots=True)
class ApprovalSettled:
    kind: ClassVar[Literal["approval_settled"]] = "approval_settled"
    key: str
    approval_id: int
    allowed: bool


@dataclass(frozen=True, slots=True)
class SignInMethod:
    """One way to sign in to an ACP agent, as the sign-in card shows it (issue 15)."""

    id: str
    name: str
    description: str | None = None
    command: str | None = None  # a terminal method: what the person runs to sign in
    opens_terminal: bool = False  # ACP's type "terminal": the window runs ``command`` in a sign-in terminal


@dataclass(frozen=True, slots=True)
class SignInRequested:
    """The line's agent needs a sign-in and offers several methods: the line waits for the person's pick."""

    kind: ClassVar[Literal["sign_in_requested"]] = "sign_in_requested"
    key: str
    request_id: int
    agent: str
    methods: tuple[SignInMethod, ...]


class SignInTerminalView(Protocol):
    """A running sign-in program as the window sees it (issue 32 item 4): its text so far, lines to it, Stop."""

    command: tuple[str, ...]
    title: str
    text: str
    status: int | None

    def listen(self, on_text: Callable[[str], None], on_exit: Callable[[int], None]) -> None: ...

    def write_line(self, line: str) -> None: ...

    def stop(self) -> None: ...


@dataclass(frozen=True, slots=True)
class SignInTerminalOpened:
    """The line's agent signs in with its own login program: the window shows its terminal (issue 32 item 4).
    The turn goes on by itself when the program ends (status 0: signed in; else the turn ends saying so)."""

    kind: ClassVar[Literal["sign_in_terminal_opened"]] = "sign_in_terminal_opened"
    key: str
    agent: str
    terminal: SignInTerminalView


@dataclass(frozen=True, slots=True)
class SignInSettled:
    kind: ClassVar[Literal["sign_in_settled"]] = "sign_in_settled"
    key: str
    request_id: int
    method_id: str | None


@dataclass(frozen=True, slots=True)
class RunFinished:
    kind: ClassVar[Literal["run_finished"]] = "run_finished"
    key: str
    status: TurnEnding
    error: str | None = None


@dataclass(frozen=True, slots=True)
class AttentionChanged:
    """A line's attention state changed (LOOP-2): its badge, the "Needs you" list, the title's count.

    ``before`` and ``after`` are ``xworkmate.domain.attention.Attention`` values.
    """

    kind: ClassVar[Literal["attention_changed"]] = "attention_changed"
    key: str
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class ChangesRecorded:
    """LOOP-1: a turn's change set was stored, or a revert / restore changed the line's folder."""

    kind: ClassVar[Literal["changes_recorded"]] = "changes_recorded"
    key: str
    turn: int


@dataclass(frozen=True, slots=True)
class AgentSessionChanged:
    """Issue 15: what the line's ACP agent offers (modes, models, config options, commands) or the
    person's picks changed; the pickers and the slash completer re-read them."""

    kind: ClassVar[Literal["agent_session_changed"]] = "agent_session_changed"
    key: str


@dataclass(frozen=True, slots=True)
class UsageChanged:
    """Issue 15, item 6: the line's usage meter changed."""

    kind: ClassVar[Literal["usage_changed"]] = "usage_changed"
    key: str


@dataclass(frozen=True, slots=True)
class QueueChanged:
    """Issue 31 item 3: the line's follow-up queue changed (queued, edited, moved, removed, delivered; here or in
    another process): the queue strip reads it again. Its own record, not ``LineUpdated``: the line's view did
    not change, so its panes are not shown again for it (issue 34 item 1)."""

    kind: ClassVar[Literal["queue_changed"]] = "queue_changed"
    key: str


@dataclass(frozen=True, slots=True)
class AgentMcpFailed:
    """Issue 32 item 5: the line's ACP agent reported that MCP servers it was given failed to start inside it
    (the turn went on without them); ``message`` is the one line also stored as a notice on the line."""

    kind: ClassVar[Literal["agent_mcp_failed"]] = "agent_mcp_failed"
    key: str
    servers: tuple[str, ...]
    message: str


Change = (
    AgentSessionChanged
    | AgentMcpFailed
    | UsageChanged
    | QueueChanged
    | LineCreated
    | LineUpdated
    | CurrentLineChanged
    | MessagesAppended
    | MessagesChanged
    | RunStarted
    | RunDelta
    | ToolRunning
    | ApprovalRequested
    | ApprovalSettled
    | SignInRequested
    | SignInSettled
    | SignInTerminalOpened
    | RunFinished
    | AttentionChanged
    | ChangesRecorded
)
