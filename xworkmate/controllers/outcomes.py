"""What the controller's operations return: a turn's, a Send's and a follow-up's outcome (STYLE 4)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from xworkmate.domain.turn_endings import TurnEnding


class TurnOutcome(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    key: str
    status: TurnEnding
    error: str | None = None
    failure: Literal["database", "system"] | None = None
    """A failed turn's cause when it was not the agent's or the provider's (``controllers.failures.failure_kind``):
    the command exits 3 for the database, 4 for the system (ERR-1)."""
    text: str = ""
    provider: str | None = None
    model: str | None = None
    message_ids: tuple[int, ...] = ()
    refused_approvals: tuple[str, ...] = ()
    followups: tuple[int, ...] = ()
    """Follow-ups stored on the line after the turn's last safe point: the next turn answers them (issue 14)."""
    warnings: tuple[str, ...] = ()
    """One line each for what failed without ending the turn (an MCP server the agent could not start:
    issue 32 item 5); also stored as notices on the line. ``run`` says them on stderr."""


class SendOutcome(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    key: str
    ran: bool
    notice: str
    message_ids: tuple[int, ...]
    queued: int | None = None
    """The line was running: the message is queued at this position (issue 31), not sent yet."""


class FollowupOutcome(BaseModel):
    """What became of a follow-up to a task (``SessionController.followups.follow_up``, issue 14)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    key: str
    message_id: int | None
    """``None`` while it is queued: it becomes a message when it is delivered."""
    source_ids: tuple[int, ...]
    """The task's dispatch snapshot, re-captured with the follow-up (PROV-4); empty while it is queued
    (re-captured when the queued item is delivered)."""
    delivery: Literal["running", "started", "stored", "queued"]
    """``running``: the task's running turn takes it at its next safe point (Send now); ``started``: a turn
    started on it; ``stored``: kept for the task's next run; ``queued``: the task was running, so it waits in
    the line's follow-up queue for its own turn (issue 31)."""
    queued: int | None = None
    """Its position in the queue when ``queued``."""
    notice: str = ""
    """Why nothing ran, when it was kept for want of a provider."""
