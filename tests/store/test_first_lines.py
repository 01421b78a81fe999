"""The window's first lines (issue 34 item 2: start-up with 20,000 lines keeps its ratios).

``ThreadRepository.first_summaries`` reads a bounded part of the list for the window's first read: both ends of
it, the tasks under its oldest lines, the lines asked for (the current one, the ones that need the person) and
every line above one of those; all of them when the list is short. These pin what it holds, that it is a part
of ``summaries(include_archived=True)`` in the same order and closed upwards (so the tree order keeps each
line's place: the window only ever inserts the rest), and that it reads as many rows and statements at 8,000
lines as at 2,000 (counted, never timed), on both databases.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import event, insert

from xworkmate.presentation.tree import tree_order
from xworkmate.store import Store
from xworkmate.store.repositories.threads import FIRST_ROWS, FIRST_TASK_ROWS
from xworkmate.store.tables import ThreadRow

START = datetime(2026, 1, 1, tzinfo=UTC)


def _seed(store: Store, count: int, prefix: str = "line", start: datetime = START) -> list[str]:
    """``count`` lines as a person's list holds them, in the order they were made: every tenth
    archived; the first line dispatches a task after every hundredth line up to the 1,500th (its tasks come
    late, so they are not among the oldest lines); every fiftieth line is a task of the line before it; a
    chain of tasks four deep in the middle."""
    rows: list[dict[str, Any]] = []
    first = f"{prefix}-000000"
    for n in range(count):
        key = f"{prefix}-{n:06d}"
        parent = None
        if n and n % 100 == 0 and n < 1_500:
            parent = first
        elif (n % 50 == 1 and n > 1) or count // 2 < n <= count // 2 + 4:
            parent = f"{prefix}-{n - 1:06d}"
        rows.append(
            {
                "thread_id": key,
                "title": f"Line {n}",
                "kind": "task" if parent else "conversation",
                "parent_key": parent,
                "archived": n % 10 == 7,
                "workspace_path": f"/work/{key}",
                "created_at": start + timedelta(seconds=n),
                "updated_at": start + timedelta(seconds=n),
            }
        )
    with store.begin() as connection:
        connection.execute(insert(ThreadRow), rows)
    return [row["thread_id"] for row in rows]


@contextmanager
def _counted(store: Store) -> Iterator[list[int]]:
    """The statements run on ``store``'s engine meanwhile (``[0]``)."""
    counts = [0]

    def before(*_args: object) -> None:
        counts[0] += 1

    event.listen(store.engine, "before_cursor_execute", before)
    try:
        yield counts
    finally:
        event.remove(store.engine, "before_cursor_execute", before)


def test_a_short_list_is_read_whole(store: Store) -> None:
    _seed(store, FIRST_ROWS - 2)  # with main: one line short of the bound
    first = store.threads.first_summaries(["main"])
    assert first.complete
    assert first.lines == store.threads.summaries(include_archived=True)


def test_the_first_lines_are_a_bounded_part_of_the_list_closed_upwards(store: Store) -> None:
    keys = _seed(store, 2_000)
    deep = keys[2_000 // 2 + 4]  # four lines above it
    wanted = [deep, keys[777], "no-such-line"]
    first = store.threads.first_summaries(wanted)
    every = store.threads.summaries(include_archived=True)
    assert not first.complete
    held = [line.thread_id for line in first.lines]
    # A part of the list, in its order, each line as the whole read gives it.
    by_key = {line.thread_id: line for line in every}
    assert held == [line.thread_id for line in every if line.thread_id in set(held)]
    assert all(line == by_key[line.thread_id] for line in first.lines)
    # Both ends, the tasks the oldest lines dispatched late, the wanted lines and every line above them.
    order = [line.thread_id for line in every]
    assert set(order[:FIRST_ROWS]) <= set(held) and set(order[-FIRST_ROWS:]) <= set(held)
    assert {key for key in keys if by_key[key].parent_key == keys[0]} <= set(held)
    assert {deep, keys[777], *keys[2_000 // 2 : 2_000 // 2 + 4]} <= set(held)
    assert all(line.parent_key is None or line.parent_key in set(held) for line in first.lines)
    # So in tree order each line keeps its place and depth among all of them.
    whole, whole_depths = tree_order(every)
    part, part_depths = tree_order(first.lines)
    depth_of = {line.thread_id: depth for line, depth in zip(whole, whole_depths, strict=True)}
    kept = [line.thread_id for line in whole if line.thread_id in set(held)]
    assert [line.thread_id for line in part] == kept
    assert part_depths == [depth_of[line.thread_id] for line in part]
    assert len(held) <= 2 * FIRST_ROWS + FIRST_TASK_ROWS + len(wanted) * 5


def test_the_first_read_reads_as_much_at_10000_lines_as_at_2000(store: Store) -> None:
    """Rows and statements counted; the list five times longer reads the same (it read every row before)."""
    read: list[tuple[int, int]] = []
    later = START
    for count, prefix in ((2_000, "early"), (8_000, "later")):
        keys = _seed(store, count, prefix, later)
        later += timedelta(days=1)
        with _counted(store) as statements:
            first = store.threads.first_summaries(["main", keys[-3]])
        read.append((len(first.lines), statements[0]))
    assert store.threads.count() == 10_000
    assert read[0] == read[1], read
