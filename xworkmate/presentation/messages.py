"""What kind of row a stored message is: an answer, a thought or a plan (issue 19, item 3)."""

from __future__ import annotations

from xworkmate.domain.messages import Message, MessageRole

__all__ = ["is_answer", "is_plan", "is_thought"]


def is_thought(message: Message) -> bool:
    return message.role is MessageRole.ASSISTANT and bool(message.payload and message.payload.get("thought"))


def is_plan(message: Message) -> bool:
    return message.role is MessageRole.ASSISTANT and bool(message.payload and "plan" in message.payload)


def is_answer(message: Message) -> bool:
    """An assistant message that is the agent's answer (not its reasoning, not its plan)."""
    return message.role is MessageRole.ASSISTANT and not is_thought(message) and not is_plan(message)
