"""The task list's tree order and its category badge, without Qt (issue 19, item 3)."""

from __future__ import annotations

from typing import TypeVar

from xworkmate.domain.lines import LineSummary

__all__ = ["category_badge", "tree_order"]

Line = TypeVar("Line", bound=LineSummary)


def category_badge(category: str | None) -> str:
    return f"● {category}" if category else ""


def tree_order(lines: list[Line]) -> tuple[list[Line], list[int]]:
    """The lines in tree order (each followed by its tasks and forks, oldest first) with their depths.

    A line whose parent is not in the list is shown at the top level, so nothing is ever lost.
    """
    keys = {line.thread_id for line in lines}
    children: dict[str, list[Line]] = {}
    roots: list[Line] = []
    for line in lines:
        if line.parent_key is not None and line.parent_key in keys and line.parent_key != line.thread_id:
            children.setdefault(line.parent_key, []).append(line)
        else:
            roots.append(line)
    ordered: list[Line] = []
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
    for line in lines:  # a parent cycle cannot happen in the store; if it did, the rows still show
        if line.thread_id not in seen:
            ordered.append(line)
            depths.append(0)
    return ordered, depths
