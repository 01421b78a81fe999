"""What the controller's operations return: a turn's, a Send's and a follow-up's outcome (STYLE 4)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class TurnOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    status: Literal["finished", "step_limit", "failed", "stopped"]
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


class SendOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    ran: bool
    notice: str
    message_ids: tuple[int, ...]


class FollowupOutcome(BaseModel):
    """What became of a follow-up to a task (``SessionController.follow_up``, issue 14)."""

    model_config = ConfigDict(frozen=True)

    key: str
    message_id: int
    source_ids: tuple[int, ...]
    """The task's dispatch snapshot, re-captured with the follow-up (PROV-4)."""
    delivery: Literal["running", "started", "stored"]
    """``running``: the task's running turn takes it; ``started``: a turn started on it; ``stored``:
    kept for the task's next run."""
    notice: str = ""
    """Why nothing ran, when it was kept for want of a provider."""
