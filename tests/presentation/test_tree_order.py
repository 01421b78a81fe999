"""The task list's tree order over many shapes of list (issue 34 item 2: ``tree_order`` places a line with no
tasks under it without walking it; the order and depths must stay exactly what the plain walk gives)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from xworkmate.domain.threads import ThreadKind, ThreadSummary
from xworkmate.presentation.tree import tree_order

NOW = datetime(2026, 12, 5, tzinfo=UTC)


def _line(key: str, parent: str | None) -> ThreadSummary:
    return ThreadSummary(
        thread_id=key,
        title=key,
        kind=ThreadKind.TASK if parent else ThreadKind.CONVERSATION,
        parent_key=parent,
        category=None,
        archived=False,
        workspace_path=None,
        updated_at=NOW,
    )


def _plain_walk(lines: list[ThreadSummary]) -> tuple[list[ThreadSummary], list[int]]:
    """The tree order as first written: every root walked depth first, its tasks oldest first; a line whose
    parent is missing or itself at the top; lines the walk never reaches (a cycle) at the end, at depth 0."""
    keys = {line.thread_id for line in lines}
    children: dict[str, list[ThreadSummary]] = {}
    roots: list[ThreadSummary] = []
    for line in lines:
        if line.parent_key is not None and line.parent_key in keys and line.parent_key != line.thread_id:
            children.setdefault(line.parent_key, []).append(line)
        else:
            roots.append(line)
    ordered: list[ThreadSummary] = []
    depths: list[int] = []
    seen: set[str] = set()
    for root in roots:
        stack = [(root, 0)]
        while stack:
            line, depth = stack.pop()
            if line.thread_id in seen:
                continue
            seen.add(line.thread_id)
            ordered.append(line)
            depths.append(depth)
            stack.extend((child, depth + 1) for child in reversed(children.get(line.thread_id, [])))
    for line in lines:
        if line.thread_id not in seen:
            ordered.append(line)
            depths.append(0)
    return ordered, depths


def _random_list(rng: random.Random, size: int) -> list[ThreadSummary]:
    lines: list[ThreadSummary] = []
    for n in range(size):
        key = f"k{n}"
        roll = rng.random()
        if roll < 0.35 or not lines:
            parent = None
        elif roll < 0.8:
            parent = rng.choice(lines).thread_id  # a task of an older line
        elif roll < 0.87:
            parent = f"k{rng.randrange(n, size + 3)}"  # a newer line, or one not listed (archived, gone)
        elif roll < 0.92:
            parent = key  # itself
        else:
            parent = f"missing{n}"
        if roll > 0.97 and lines:
            key = rng.choice(lines).thread_id  # a key twice (the store never gives it; the list must not break)
        lines.append(_line(key, parent))
    return lines


@pytest.mark.parametrize("seed", range(40))
def test_the_tree_order_is_the_plain_walks_for_any_list(seed: int) -> None:
    rng = random.Random(seed)
    lines = _random_list(rng, rng.choice([0, 1, 2, 5, 30, 300]))
    ordered, depths = tree_order(lines)
    expected, expected_depths = _plain_walk(lines)
    assert [(line.thread_id, line.parent_key) for line in ordered] == [
        (line.thread_id, line.parent_key) for line in expected
    ]
    assert depths == expected_depths


def test_lines_in_a_parent_cycle_still_show_at_the_top_level_after_the_rest() -> None:
    lines = [_line("a", "b"), _line("b", "a"), _line("main", None), _line("t", "main")]
    ordered, depths = tree_order(lines)
    assert [line.thread_id for line in ordered] == ["main", "t", "a", "b"]
    assert depths == [0, 1, 0, 0]


def test_a_deep_chain_of_tasks_is_walked_without_recursion() -> None:
    lines = [_line("k0", None), *(_line(f"k{n}", f"k{n - 1}") for n in range(1, 5_000))]
    ordered, depths = tree_order(lines)
    assert depths == list(range(5_000))
    assert ordered == lines
