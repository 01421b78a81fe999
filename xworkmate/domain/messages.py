"""Messages of a conversation and where they came from (SPEC PROV-3)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict


class MessageRole(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"


class MessageSource(StrEnum):
    """Who actually produced a message. ``role=user`` alone proves nothing (PROV-3)."""

    HUMAN = "human"
    AGENT = "agent"
    TOOL = "tool"
    FRAMEWORK_EVENT = "framework_event"
    COMPONENT_INPUT = "component_input"
    QUARANTINE = "quarantine"


class MessageState(StrEnum):
    COMPLETE = "complete"
    INTERRUPTED = "interrupted"
    ERROR = "error"


class Message(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    id: int
    thread_id: str
    role: MessageRole
    source: MessageSource
    content: str
    state: MessageState = MessageState.COMPLETE
    created_at: datetime
    # Structured part: an assistant's tool calls, the call a tool result answers, card data.
    payload: dict[str, Any] | None = None
    # the row carries a quarantine mark; the model sees only its placeholder.
    quarantined: bool = False
