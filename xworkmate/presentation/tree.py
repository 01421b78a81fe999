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
    Linear in the lines (issue 34 item 2): one pass to group them under their parents, one walk; a line with
    no tasks under it is placed without the walk.
    """
    keys = {line.thread_id for line in lines}
    children: dict[str, list[Line]] = {}
    roots: list[Line] = []
    for line in lines:
        parent = line.parent_key
        if parent is not None and parent in keys and parent != line.thread_id:
            if parent in children:
                children[parent].append(line)
            else:
                children[parent] = [line]
        else:
            roots.append(line)
    ordered: list[Line] = []
    depths: list[int] = []
    seen: set[str] = set()
    for root in roots:
        key = root.thread_id
        if key in seen:
            continue
        seen.add(key)
        ordered.append(root)
        depths.append(0)
        if key not in children:
            continue
        stack = [(child, 1) for child in reversed(children[key])]
        while stack:
            line, depth = stack.pop()
            key = line.thread_id
            if key in seen:
                continue
            seen.add(key)
            ordered.append(line)
            depths.append(depth)
            under = children.get(key)
            if under is not None:
                stack.extend([(child, depth + 1) for child in reversed(under)])
    if len(ordered) < len(lines):
        for line in lines:  # a parent cycle cannot happen in the store; if it did, the rows still show
            if line.thread_id not in seen:
                ordered.append(line)
                depths.append(0)
    return ordered, depths
