"""The person's marks per line: seen, last outcome, mute, draft (migration 0013, LOOP-2).

Each write touches one column of one row, created on first use (an upsert on
both databases), so the window can save a mark on every switch or a draft as
it is typed without reading first.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from xworkmate.domain.attention import LineMark
from xworkmate.store.repositories.records import _aware
from xworkmate.store.sessions import Sessions
from xworkmate.store.tables import LineMarkRow

_COLUMNS = (
    "last_seen_message_id",
    "last_outcome",
    "last_outcome_at",
    "outcome_message_id",
    "notifications_muted",
    "draft",
)


def _mark_from(row: Any) -> LineMark:
    at = row.last_outcome_at
    return LineMark(
        key=row.thread_id,
        last_seen_message_id=row.last_seen_message_id,
        last_outcome=row.last_outcome,
        last_outcome_at=_aware(at) if at is not None else None,
        outcome_message_id=row.outcome_message_id,
        notifications_muted=bool(row.notifications_muted),
        draft=row.draft or "",
    )


class LineMarkRepository:
    """``line_marks`` rows; a line without a row has the defaults of ``LineMark``."""

    def __init__(self, store: Sessions) -> None:
        self._store = store

    def all(self) -> dict[str, LineMark]:
        with self._store.connect() as connection:
            rows = connection.execute(select(LineMarkRow.__table__)).all()
        return {row.thread_id: _mark_from(row) for row in rows}

    def get(self, key: str) -> LineMark:
        with self._store.connect() as connection:
            row = connection.execute(select(LineMarkRow.__table__).where(LineMarkRow.thread_id == key)).first()
        return _mark_from(row) if row is not None else LineMark(key=key)

    def _set(self, key: str, **values: Any) -> None:
        assert set(values) <= set(_COLUMNS)
        with self._store.begin() as connection:
            dialect = connection.dialect.name
            from sqlalchemy.dialects import postgresql, sqlite

            insert: Any = postgresql.insert if dialect == "postgresql" else sqlite.insert
            stmt = insert(LineMarkRow).values(thread_id=key, **values)
            connection.execute(stmt.on_conflict_do_update(index_elements=[LineMarkRow.thread_id], set_=values))

    def set_seen(self, key: str, message_id: int) -> None:
        self._set(key, last_seen_message_id=message_id)

    def set_outcome(self, key: str, outcome: str, at: datetime, message_id: int | None) -> None:
        """How the line's turn ended, when, and its newest message then."""
        self._set(key, last_outcome=outcome, last_outcome_at=at, outcome_message_id=message_id)

    def set_muted(self, key: str, muted: bool) -> None:
        self._set(key, notifications_muted=muted)

    def set_draft(self, key: str, draft: str) -> None:
        self._set(key, draft=draft)
