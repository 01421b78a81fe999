"""The task list's tree order and what a message's row says, without Qt (issue 19, item 3)."""

from __future__ import annotations

from datetime import UTC, datetime

from xworkmate.domain.messages import Message, MessageRole, MessageSource
from xworkmate.domain.threads import ThreadKind, ThreadSummary
from xworkmate.presentation.messages import (
    DISPLAY_LIMIT,
    is_answer,
    is_plan,
    is_thought,
    message_header,
    message_text,
)
from xworkmate.presentation.tree import category_badge, tree_order

NOW = datetime(2026, 12, 2, tzinfo=UTC)


def line(key: str, parent: str | None = None) -> ThreadSummary:
    kind = ThreadKind.TASK if parent else ThreadKind.CONVERSATION
    return ThreadSummary(
        thread_id=key,
        title=key,
        kind=kind,
        parent_key=parent,
        category=None,
        archived=False,
        workspace_path=None,
        updated_at=NOW,
    )


def test_each_line_is_followed_by_its_tasks_oldest_first_with_their_depths() -> None:
    lines = [line("main"), line("a"), line("t1", "main"), line("t2", "main"), line("t1a", "t1"), line("b")]
    ordered, depths = tree_order(lines)
    assert [(s.thread_id, d) for s, d in zip(ordered, depths, strict=True)] == [
        ("main", 0),
        ("t1", 1),
        ("t1a", 2),
        ("t2", 1),
        ("a", 0),
        ("b", 0),
    ]


def test_a_line_whose_parent_is_not_listed_or_is_itself_shows_at_the_top_level() -> None:
    ordered, depths = tree_order([line("orphan", "archived-parent"), line("self", "self")])
    assert [s.thread_id for s in ordered] == ["orphan", "self"] and depths == [0, 0]
    assert category_badge("medical") == "● medical" and category_badge(None) == ""


def test_a_message_is_an_answer_a_thought_or_a_plan() -> None:
    def assistant(payload: dict[str, object] | None) -> Message:
        return Message(
            id=1,
            thread_id="main",
            role=MessageRole.ASSISTANT,
            source=MessageSource.AGENT,
            content="x",
            payload=payload,
            created_at=NOW,
        )

    thought, plan, answer = assistant({"thought": True}), assistant({"plan": []}), assistant(None)
    assert is_thought(thought) and not is_answer(thought)
    assert is_plan(plan) and not is_answer(plan)
    assert is_answer(answer) and not is_thought(answer) and not is_plan(answer)


def test_a_row_says_who_wrote_it_and_what_it_is_without_qt() -> None:
    """PROV-3: ``role=user`` alone is not "You"; a thought is folded to one line until expanded (Q-1 marks)."""
    stamp = NOW.astimezone().strftime("%H:%M")

    def message(role: MessageRole, source: MessageSource, content: str, **fields: object) -> Message:
        return Message(id=2, thread_id="main", role=role, source=source, content=content, created_at=NOW, **fields)

    mine = message(MessageRole.USER, MessageSource.HUMAN, "hello")
    asked = message(MessageRole.USER, MessageSource.COMPONENT_INPUT, "do this")
    thought = message(MessageRole.ASSISTANT, MessageSource.AGENT, "a b c", payload={"thought": True, "model": "m1"})
    hidden = message(MessageRole.TOOL, MessageSource.TOOL, "out", quarantined=True)
    assert message_header(mine) == f"You · {stamp}"
    assert message_header(asked) == f"Request · from the dispatching agent · {stamp}"
    assert message_header(thought) == f"Agent (thinking) · m1 · {stamp}"
    assert message_header(hidden) == f"Tool · {stamp} · hidden from the model"
    assert message_text(thought) == "Thinking… (3 words — click to show)"
    assert message_text(thought, expanded=True) == "a b c"
    calls = message(
        MessageRole.ASSISTANT, MessageSource.AGENT, "", payload={"tool_calls": [{"function": {"name": "ls"}}]}
    )
    assert message_text(calls) == "→ calls ls"
    long = message(MessageRole.ASSISTANT, MessageSource.AGENT, "x" * (DISPLAY_LIMIT + 1))
    assert message_text(long).endswith("\n… (1 more character not shown in the list)")
