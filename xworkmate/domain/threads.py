"""The task line: a persisted ``TaskThread`` (SPEC §2).

Everything here is plain data and pure rules; the store persists it, the
controller decides which one is current, the UI only shows it.
"""

from __future__ import annotations

import math
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from xworkmate.domain.keys import MAIN_KEY
from xworkmate.domain.lines import (
    MAIN_TITLE,
    STATUS_EXPLANATIONS,
    FolderPin,
    LineState,
    LineSummary,
    PermissionLevel,
    ThreadKind,
    ThreadStatus,
    folder_problem,
    has_default_title,
    line_state,
    line_status,
    pin_folder,
    thread_state,
)

__all__ = [
    "DEFAULT_TURN_LIMIT_S",
    "MAIN_TITLE",
    "MAX_TURN_LIMIT_S",
    "STATUS_EXPLANATIONS",
    "BoundBy",
    "ContextState",
    "ExecutionBinding",
    "ExecutionMode",
    "FolderPin",
    "LineState",
    "LineSummary",
    "NetworkAccess",
    "PermissionLevel",
    "TaskThread",
    "ThreadKind",
    "ThreadStatus",
    "ThreadSummary",
    "WorkspaceBinding",
    "WorkspaceKind",
    "describe_turn_limit",
    "folder_problem",
    "has_default_title",
    "line_state",
    "line_status",
    "parse_turn_limit",
    "pin_folder",
    "thread_state",
]


class WorkspaceKind(StrEnum):
    LOCAL = "local"
    # Issue 16: a git worktree of a repository, on a branch of its own (``WorkspaceBinding.repo``/``branch``).
    WORKTREE = "worktree"


class BoundBy(StrEnum):
    """How a workspace binding came about (ISO-8: nothing else may change it)."""

    EXPLICIT = "explicit"
    EXECUTION_RESULT = "execution_result"


class ExecutionMode(StrEnum):
    NATIVE = "native"
    ACP = "acp"


class NetworkAccess(StrEnum):
    """SBX-4: what network the line's sandboxed processes reach (default off).

    ``allow-list``: only the line's ``host:port`` entries, through XWorkmate's proxy. An ACP agent
    always gets at least that, with its model hosts added (``off`` applies to its terminals).
    """

    OFF = "off"
    ALLOW_LIST = "allow-list"
    ON = "on"


# A turn ends like Stop once it has run this long, whatever the stream does (issue 13); per line.
DEFAULT_TURN_LIMIT_S = 30 * 60
MAX_TURN_LIMIT_S = 7 * 24 * 3600


class WorkspaceBinding(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: str | None = None
    kind: WorkspaceKind = WorkspaceKind.LOCAL
    bound_by: BoundBy = BoundBy.EXPLICIT
    # A ``worktree`` binding (issue 16, migration 0010): the repository it was added from and its branch,
    # kept while the line is archived (the worktree is removed, the branch stays) to recreate it.
    repo: str | None = None
    branch: str | None = None
    # SBX-3 (migration 0015): the folder as it was when bound (``FolderPin.text``); the store pins it whenever it
    # writes a binding, so a binding handed to the store is pinned anew. None: not pinned yet.
    pin: str | None = None

    def problem(self) -> str | None:
        """Why a turn, a checkpoint or an agent may not use this folder now (SBX-3, ISO-4), or None."""
        if not self.path:
            return STATUS_EXPLANATIONS[ThreadStatus.NEEDS_WORKSPACE]
        return folder_problem(self.path, self.pin, thorough=True)


class ExecutionBinding(BaseModel):
    model_config = ConfigDict(frozen=True)

    mode: ExecutionMode = ExecutionMode.NATIVE
    provider: str | None = None
    model: str | None = None
    acp_session_id: str | None = None


class ContextState(BaseModel):
    model_config = ConfigDict(frozen=True)

    model: str | None = None
    selected_skills: tuple[str, ...] = ()
    permission_level: PermissionLevel = PermissionLevel.ASK
    network: NetworkAccess = NetworkAccess.OFF
    # SBX-4 (migration 0016): the ``host:port`` entries an ``allow-list`` line reaches (domain.network form).
    allowed_hosts: tuple[str, ...] = ()
    # Environment variables the person lets through to the line's commands (SBX-1 allow-list).
    command_env_names: tuple[str, ...] = ()
    # The whole turn's time limit, on top of the model stream's gap timeout (migration 0006).
    turn_limit_s: int = Field(default=DEFAULT_TURN_LIMIT_S, ge=1, le=MAX_TURN_LIMIT_S)
    # Q-1 (migration 0007): untrusted tools' output is stored whole but shown to the model as a placeholder.
    quarantine_untrusted: bool = False


class TaskThread(BaseModel):
    """One task line. ``thread_id`` is its session key (ISO-1)."""

    model_config = ConfigDict(frozen=True)

    thread_id: str
    title: str
    kind: ThreadKind = ThreadKind.CONVERSATION
    parent_key: str | None = None
    category: str | None = None
    archived: bool = False
    workspace_binding: WorkspaceBinding = Field(default_factory=WorkspaceBinding)
    execution_binding: ExecutionBinding = Field(default_factory=ExecutionBinding)
    context_state: ContextState = Field(default_factory=ContextState)
    created_at: datetime
    updated_at: datetime

    @property
    def session_key(self) -> str:
        return self.thread_id

    @property
    def is_main(self) -> bool:
        return self.thread_id == MAIN_KEY


class ThreadSummary(BaseModel):
    """What the task-line list needs of a line: small, no conversation (ISO-9)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    thread_id: str
    title: str
    kind: ThreadKind
    parent_key: str | None
    category: str | None
    archived: bool
    workspace_path: str | None
    updated_at: datetime
    workspace_pin: str | None = None


def parse_turn_limit(text: str) -> int:
    """A turn limit as the person writes it: minutes (``30``, ``1.5``), or with a unit (``90s``, ``20m``, ``2h``).

    Returns whole seconds; raises ``ValueError`` naming what is wrong.
    """
    raw = text.strip().lower()
    units = {"s": 1, "m": 60, "h": 3600}
    factor = units.get(raw[-1:], 0)
    number = raw[:-1] if factor else raw
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"turn limit {text!r} is not a number of minutes (or a number with s, m or h)") from None
    seconds = round(value * (factor or 60)) if math.isfinite(value) else 0
    if not 1 <= seconds <= MAX_TURN_LIMIT_S:
        raise ValueError(f"turn limit {text!r} must be between 1 second and {MAX_TURN_LIMIT_S // 86400} days")
    return seconds


def describe_turn_limit(seconds: int) -> str:
    """``30-minute``, ``2-hour``, ``90-second``: the limit as a notice names it."""
    if seconds % 3600 == 0:
        return f"{seconds // 3600}-hour"
    if seconds % 60 == 0:
        return f"{seconds // 60}-minute"
    return f"{seconds}-second"
