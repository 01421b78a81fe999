"""What an ACP turn reports beyond the shared turn events: the session, sign-in, approval decisions, the result; and
the turn's timeouts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from xworkmate.agents.events import (
    ApprovalDecision,
)


@dataclass(frozen=True)
class AcpSessionReady:
    """Emitted once a turn has its ACP session, before the prompt is sent.

    The controller should store ``session_id`` at once (the line resumes it next
    turn even if this one fails). ``note`` says why a stored session could not be
    resumed, when that happened.
    """

    session_id: str
    resumed: bool
    note: str | None = None
    agent: str | None = None


@dataclass(frozen=True)
class AcpAuthMethod:
    """One entry of the agent's ``authMethods`` (``initialize``), as a person is shown it.

    ``kind``: ``"agent"`` (the agent signs in by itself), ``"terminal"`` (a command the person runs;
    ``command`` is it, ready to paste) or ``"env_var"``.
    """

    id: str
    name: str
    description: str | None = None
    kind: str = "agent"
    command: str | None = None
    env_names: tuple[str, ...] = ()
    """A terminal method's ``env``: the names the agent sets for its login run (the values are its own)."""
    runs_in_terminal: bool = False
    """ACP's ``type: "terminal"`` (issue 32 item 4): the client runs ``command`` for the person and never sends
    ``authenticate`` with it. (Qwen's older ``_meta`` marking still signs in through ``authenticate``.)"""
    login_args: tuple[str, ...] = ()
    """A terminal method's ``args``, added to the agent's command to run its login program."""
    login_env: tuple[tuple[str, str], ...] = ()
    """A terminal method's ``env``, set for its login program (the agent's own values)."""

    def describe(self) -> str:
        text = self.name if self.name == self.id else f"{self.name} ({self.id})"
        if self.description:
            text += f": {self.description}"
        if self.command:
            text += f" — run `{self.command}` in a terminal"
        return text


@dataclass(frozen=True)
class AcpSignedIn:
    """Emitted when ``authenticate`` succeeded; ``chosen_by`` says why this method."""

    method_id: str
    chosen_by: str  # "provider" | "only" | "person"


# Asked when the agent needs a sign-in and offers several methods; the chosen id, or None to give up.
AuthChooser = Callable[[tuple[AcpAuthMethod, ...]], Awaitable[str | None]]


# "always" is on every ApprovalDecision now, so the window answers without asking the store which agent runs the
# line (issue 19, LOOP-4); the old name is kept while imports move.
AcpApprovalDecision = ApprovalDecision


@dataclass(frozen=True)
class AcpTurnResult:
    session_id: str
    stop_reason: str
    text: str = ""
    resumed: bool = False


@dataclass(frozen=True)
class AcpTimeouts:
    """Seconds. ``startup``: each of initialize and session/new|load must be answered within it.
    ``idle``: during the prompt, the agent must send something at least this often (time spent
    waiting for a person's approval does not count); ``None`` waits forever.
    """

    startup: float = 60.0
    idle: float | None = 600.0
    cancel_grace: float = 3.0
    exit_grace: float = 2.0
    kill_grace: float = 2.0
