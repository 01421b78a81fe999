"""What of a line's stored conversation the native agent sends to a model (SPEC §5, PROV-3)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from xworkmate.agents.native import COMPONENT_INPUT_LABEL, history_to_chat
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState


def msg(
    n: int, role: MessageRole, source: MessageSource, content: str, payload: dict[str, Any] | None = None
) -> Message:
    return Message(
        id=n,
        thread_id="main",
        role=role,
        source=source,
        content=content,
        state=MessageState.COMPLETE,
        created_at=datetime.now(UTC),
        payload=payload,
    )


def test_thoughts_plans_and_notices_are_not_sent_to_the_model() -> None:
    """An ACP agent's shown thoughts and plans, and framework notices, are for the person only."""
    history = [
        msg(1, MessageRole.USER, MessageSource.HUMAN, "fix the build"),
        msg(2, MessageRole.ASSISTANT, MessageSource.AGENT, "I wonder why…", {"thought": True}),
        msg(3, MessageRole.ASSISTANT, MessageSource.AGENT, "Plan:\n- [ ] look", {"plan": [["look", "pending"]]}),
        msg(4, MessageRole.SYSTEM, MessageSource.FRAMEWORK_EVENT, "The run failed: …"),
        msg(5, MessageRole.ASSISTANT, MessageSource.AGENT, "Fixed.", {"tool_calls": []}),
    ]
    assert history_to_chat(history) == [
        {"role": "user", "content": "fix the build"},
        {"role": "assistant", "content": "Fixed."},
    ]


def test_a_tasks_goal_is_shown_as_the_dispatchers_words() -> None:
    """PROV-3: component input reaches the model, labelled as not the person's."""
    history = [msg(1, MessageRole.USER, MessageSource.COMPONENT_INPUT, "count the files")]
    assert history_to_chat(history) == [{"role": "user", "content": f"{COMPONENT_INPUT_LABEL}\ncount the files"}]


def test_a_tool_call_without_a_result_gets_one() -> None:
    """OpenAI-compatible servers reject a call without a result; a stopped turn's call gets a placeholder."""
    call = {"id": "c1", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}}
    history = [
        msg(1, MessageRole.USER, MessageSource.HUMAN, "look"),
        msg(2, MessageRole.ASSISTANT, MessageSource.AGENT, "", {"tool_calls": [call]}),
        msg(3, MessageRole.USER, MessageSource.HUMAN, "again"),
    ]
    chat = history_to_chat(history)
    assert chat[2]["role"] == "tool" and chat[2]["tool_call_id"] == "c1"
    assert chat[3] == {"role": "user", "content": "again"}
