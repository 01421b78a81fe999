"""The task list's tree order and a message's kind, without Qt (issue 19, item 3)."""

from __future__ import annotations

from datetime import UTC, datetime

from xworkmate.domain.messages import Message, MessageRole, MessageSource
from xworkmate.domain.threads import ThreadKind, ThreadSummary
from xworkmate.presentation.messages import is_answer, is_plan, is_thought
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
