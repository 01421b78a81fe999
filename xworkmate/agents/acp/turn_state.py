"""What every part of an ACP turn shares: the runner state it keeps "always" answers in, the state of each tool
call the agent reports, and the attributes the turn's parts (``acp.turn`` and the mixins it is made of) read and set.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from acp.schema import (
    FileEditToolCallContent,
    ToolCallStart,
    ToolCallUpdate,
)

from xworkmate.agents.acp.login_terminal import LoginLauncher, LoginShower
from xworkmate.agents.acp.process import _AgentProcess
from xworkmate.agents.acp.reports import (
    AcpAuthMethod,
    AuthChooser,
)
from xworkmate.agents.acp.sessions import SessionOffers
from xworkmate.agents.acp.terminals import TurnTerminals
from xworkmate.agents.events import (
    ApprovalDecision,
    Approver,
)
from xworkmate.agents.sandbox import SandboxPolicy
from xworkmate.domain.agent_session import AgentSessionState
from xworkmate.domain.mcp import McpServerRecord
from xworkmate.domain.runs import RunRequest
from xworkmate.domain.threads import PermissionLevel
from xworkmate.llm.events import ToolCall


class _RunnerState(Protocol):
    """What a turn keeps in the ``AcpRunner`` that started it: the "always" answers."""

    _remembered: dict[tuple[str, str], bool]

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


class _TurnState:
    """The attributes of one ``_Turn`` (set in its ``__init__``), declared once for the parts it is made of."""

    runner: _RunnerState
    request: RunRequest
    command: tuple[str, ...]
    working_directory: Path
    approver: Approver
    emit: Callable[[object], None]
    level: PermissionLevel
    provider: str | None
    agent_label: str | None
    session_id: str | None
    replaying: bool
    cancelling: bool
    parts: list[str]
    tools: dict[str, _ToolState]
    approvals: set[asyncio.Task[ApprovalDecision]]
    agent: _AgentProcess | None
    terminals: TurnTerminals
    policy: SandboxPolicy | None
    auth_method: str | None
    choose_auth: AuthChooser | None
    auth_methods: tuple[AcpAuthMethod, ...]
    signed_in: str | None
    show_login: LoginShower | None
    launch_login: LoginLauncher | None
    offers: SessionOffers | None
    choices: AgentSessionState | None
    mcp_servers: tuple[McpServerRecord, ...]
    _elicitations: int
