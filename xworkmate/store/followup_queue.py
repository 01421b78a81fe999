"""``queued_followups`` rows (migration 0019, issue 31 item 3): each line's follow-up queue.

Every change is one transaction that rewrites the affected positions, so a queue is always
numbered 1..n in delivery order; two processes (the window and ``xworkmate queue``) see the
same queue, and each change tells the other processes' windows so in its transaction
(``change_notices.notify_queue_changed`` on PostgreSQL; SQLite's watcher reads the queues).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.engine import Connection

from xworkmate.domain.followup_queue import (
    QueuedFollowup,
    QueueItemError,
    Which,
    check_position,
    check_text,
    locate,
)
from xworkmate.store.change_notices import notify_queue_changed
from xworkmate.store.repositories.records import _aware
from xworkmate.store.sessions import Sessions
from xworkmate.store.tables import QueuedFollowupRow

_TABLE: Any = QueuedFollowupRow.__table__


def _item(row: Any, position: int) -> QueuedFollowup:
    return QueuedFollowup(
        id=int(row.id), key=row.thread_id, position=position, text=row.text, created_at=_aware(row.created_at)
    )


class FollowupQueueRepository:
    """A line's queue, read and changed by 1-based position or by the item as shown (``Which``)."""

    def __init__(self, store: Sessions) -> None:
        self._store = store

    @staticmethod
    def _rows(connection: Connection, key: str, *, lock: bool = True) -> list[Any]:
        """The line's rows in order; in a change, locked on PostgreSQL (``FOR UPDATE``), so two processes
        changing one queue (a turn's end taking the next item, the person's edit) take turns. SQLite's
        writes are serialised already (``BEGIN IMMEDIATE``)."""
        query = select(_TABLE).where(_TABLE.c.thread_id == key).order_by(_TABLE.c.position, _TABLE.c.id)
        if lock:
            query = query.with_for_update()
        return list(connection.execute(query).all())

    @staticmethod
    def _renumber(connection: Connection, ids: list[int]) -> None:
        for position, row_id in enumerate(ids, start=1):
            connection.execute(update(_TABLE).where(_TABLE.c.id == row_id).values(position=position))

    def items(self, key: str) -> list[QueuedFollowup]:
        with self._store.connect() as connection:
            rows = self._rows(connection, key, lock=False)
        return [_item(row, n) for n, row in enumerate(rows, start=1)]

    def counts(self) -> dict[str, int]:
        """How many follow-ups each line with a queue holds."""
        query = select(_TABLE.c.thread_id, func.count()).group_by(_TABLE.c.thread_id)
        with self._store.connect() as connection:
            return {key: int(n) for key, n in connection.execute(query).all()}

    def add(self, key: str, text: str) -> QueuedFollowup:
        """Queue ``text`` last on the line."""
        check_text(text)
        with self._store.begin() as connection:
            last = connection.execute(
                select(func.max(_TABLE.c.position)).where(_TABLE.c.thread_id == key)
            ).scalar_one_or_none()
            position = int(last or 0) + 1
            now = datetime.now(UTC)
            inserted = connection.execute(
                _TABLE.insert().values(thread_id=key, position=position, text=text, created_at=now)
            ).inserted_primary_key
            assert inserted is not None
            row_id = inserted[0]
            notify_queue_changed(connection, key)
        return QueuedFollowup(id=int(row_id), key=key, position=position, text=text, created_at=now)

    def remove(self, key: str, which: Which) -> QueuedFollowup:
        """Take item ``which`` out of the queue (it is not sent) and return it."""
        with self._store.begin() as connection:
            rows = self._rows(connection, key)
            index = locate(key, [row.id for row in rows], which)
            taken = rows.pop(index)
            connection.execute(delete(_TABLE).where(_TABLE.c.id == taken.id))
            self._renumber(connection, [row.id for row in rows])
            notify_queue_changed(connection, key)
        return _item(taken, index + 1)

    def edit(self, key: str, which: Which, text: str) -> QueuedFollowup:
        check_text(text)
        with self._store.begin() as connection:
            rows = self._rows(connection, key)
            index = locate(key, [row.id for row in rows], which)
            row = rows[index]
            connection.execute(update(_TABLE).where(_TABLE.c.id == row.id).values(text=text))
            notify_queue_changed(connection, key)
        return QueuedFollowup(id=int(row.id), key=key, position=index + 1, text=text, created_at=_aware(row.created_at))

    def move(self, key: str, which: Which, to: int) -> list[QueuedFollowup]:
        """Move item ``which`` to position ``to``; returns the queue in its new order."""

        def target(_index: int, length: int) -> int:
            check_position(key, to, length, what="position")
            return to

        return self._move(key, which, target)

    def shift(self, key: str, which: Which, step: int) -> list[QueuedFollowup]:
        """Move item ``which`` ``step`` places from where it is now (-1: one earlier; the window's ↑)."""

        def target(index: int, length: int) -> int:
            to = index + 1 + step
            if not 1 <= to <= length:
                end = "first" if step < 0 else "last"
                raise QueueItemError(f"follow-up {index + 1} of line {key} is already {end}")
            return to

        return self._move(key, which, target)

    def _move(self, key: str, which: Which, target: Callable[[int, int], int]) -> list[QueuedFollowup]:
        with self._store.begin() as connection:
            rows = self._rows(connection, key)
            index = locate(key, [row.id for row in rows], which)
            to = target(index, len(rows))
            rows.insert(to - 1, rows.pop(index))
            self._renumber(connection, [row.id for row in rows])
            notify_queue_changed(connection, key)
        return [_item(row, n) for n, row in enumerate(rows, start=1)]

    def take_first(self, key: str) -> QueuedFollowup | None:
        """The next item to deliver, out of the queue (``None`` when it is empty)."""
        with self._store.begin() as connection:
            rows = self._rows(connection, key)
            if not rows:
                return None
            connection.execute(delete(_TABLE).where(_TABLE.c.id == rows[0].id))
            self._renumber(connection, [row.id for row in rows[1:]])
            notify_queue_changed(connection, key)
        return _item(rows[0], 1)
