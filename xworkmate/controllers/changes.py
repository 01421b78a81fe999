"""Change records: what the controller reports, one small frozen value each (STYLE 4).

Kept apart from the controllers' machinery so the window can import them
without loading the agent, LLM or HTTP code at start-up.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class LineCreated(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["line_created"] = "line_created"
    key: str


class LineUpdated(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["line_updated"] = "line_updated"
    key: str


class CurrentLineChanged(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["current_changed"] = "current_changed"
    key: str


class MessagesAppended(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["messages_appended"] = "messages_appended"
    key: str
    message_ids: tuple[int, ...]


class RunStarted(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["run_started"] = "run_started"
    key: str


class RunDelta(BaseModel):
    """Text streamed by the agent, not yet stored (the pane shows it live)."""

    model_config = ConfigDict(frozen=True)
    kind: Literal["run_delta"] = "run_delta"
    key: str
    text: str


class ToolRunning(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["tool_running"] = "tool_running"
    key: str
    call_id: str
    summary: str


class ApprovalRequested(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["approval_requested"] = "approval_requested"
    key: str
    approval_id: int
    tool: str
    summary: str
    arguments: str


class ApprovalSettled(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["approval_settled"] = "approval_settled"
    key: str
    approval_id: int
    allowed: bool


class RunFinished(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["run_finished"] = "run_finished"
    key: str
    status: Literal["finished", "step_limit", "failed", "stopped"]
    error: str | None = None


Change = (
    LineCreated
    | LineUpdated
    | CurrentLineChanged
    | MessagesAppended
    | RunStarted
    | RunDelta
    | ToolRunning
    | ApprovalRequested
    | ApprovalSettled
    | RunFinished
)
