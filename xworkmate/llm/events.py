"""Typed events of a streamed chat completion, and the assembled result.

A stream yields, in order: ``TextDelta`` / ``ReasoningDelta`` /
``ToolCallDelta`` as they arrive, one ``ToolCallReady`` per complete tool call
(when the provider reports the finish reason, or at the end of the stream), at
most one ``UsageReport``, and always exactly one ``Finished`` last.

Tool-call arguments are delivered as the raw string the model produced. When
that string is not a JSON object, the call is still returned unchanged:
``ToolCall.arguments_error`` says what is wrong and ``ToolCall.parse_arguments``
raises ``ToolArgumentsError``, whose text the agent loop sends back to the
model as the tool result so it can correct the call.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable
from dataclasses import dataclass, field
from typing import Any

from xworkmate.llm.errors import LLMError, ToolArgumentsError


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """Reasoning text some providers stream separately (``reasoning_content``)."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of tool call ``index`` as it streams; for live display only."""

    index: int
    call_id: str | None
    name: str | None
    arguments_delta: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str

    @property
    def arguments_error(self) -> str | None:
        """Why ``arguments`` is not a JSON object, or ``None`` when it is one."""
        try:
            self.parse_arguments()
        except ToolArgumentsError as exc:
            return exc.detail
        return None

    def parse_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; an empty string means no arguments."""
        if not self.arguments.strip():
            return {}
        try:
            value = json.loads(self.arguments)
        except json.JSONDecodeError as exc:
            raise ToolArgumentsError(self.name, self.id, f"{exc.msg} at position {exc.pos}") from exc
        if not isinstance(value, dict):
            raise ToolArgumentsError(self.name, self.id, f"expected a JSON object, got {type(value).__name__}")
        return value

    def to_message(self) -> dict[str, Any]:
        """The entry for an assistant message's ``tool_calls`` list."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class ToolCallReady:
    call: ToolCall


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class UsageReport:
    usage: Usage


@dataclass(frozen=True, slots=True)
class Finished:
    """The last event of every stream; ``reason`` is the provider's finish reason."""

    reason: str | None


StreamEvent = TextDelta | ReasoningDelta | ToolCallDelta | ToolCallReady | UsageReport | Finished


@dataclass(frozen=True, slots=True)
class ProviderSelected:
    """Router only: the provider whose reply follows (emitted once, before its first event)."""

    provider: str
    model: str


@dataclass(frozen=True, slots=True)
class ProviderFailover:
    """Router only: ``provider`` failed before replying; the next allowed candidate is tried (CAT-2)."""

    provider: str
    model: str
    error: LLMError


RouterEvent = StreamEvent | ProviderSelected | ProviderFailover


@dataclass(frozen=True, slots=True)
class ChatCompletion:
    """A whole reply: from a non-streamed call, or assembled from a stream."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage | None = None
    reasoning: str = ""
    model: str | None = None
    provider: str | None = None

    def to_message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            message["tool_calls"] = [call.to_message() for call in self.tool_calls]
        return message


@dataclass(slots=True)
class CompletionAccumulator:
    """Folds stream events into a ``ChatCompletion``."""

    text_parts: list[str] = field(default_factory=list)
    reasoning_parts: list[str] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage | None = None
    finished: bool = False

    def add(self, event: object) -> None:
        if isinstance(event, TextDelta):
            self.text_parts.append(event.text)
        elif isinstance(event, ReasoningDelta):
            self.reasoning_parts.append(event.text)
        elif isinstance(event, ToolCallReady):
            self.tool_calls.append(event.call)
        elif isinstance(event, UsageReport):
            self.usage = event.usage
        elif isinstance(event, Finished):
            self.finish_reason = event.reason
            self.finished = True

    def result(self, *, model: str | None = None, provider: str | None = None) -> ChatCompletion:
        return ChatCompletion(
            text="".join(self.text_parts),
            tool_calls=tuple(self.tool_calls),
            finish_reason=self.finish_reason,
            usage=self.usage,
            reasoning="".join(self.reasoning_parts),
            model=model,
            provider=provider,
        )


async def collect_stream(events: AsyncIterable[object]) -> ChatCompletion:
    """Consume a stream (of a client or the router) into one ``ChatCompletion``."""
    acc = CompletionAccumulator()
    model: str | None = None
    provider: str | None = None
    async for event in events:
        if isinstance(event, ProviderSelected):
            provider, model = event.provider, event.model
        acc.add(event)
    return acc.result(model=model, provider=provider)
