"""``AppStateRepository``: small named values the application keeps between runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import (
    bindparam,
)

from xworkmate.store.sessions import Sessions
from xworkmate.store.tables import (
    AppStateRow,
)

_APP_STATE_UPSERTS: dict[str, Any] = {}


def _app_state_upsert(dialect: str) -> Any:
    """Insert or replace a named value in one statement, built once per dialect.

    Only SQLite and PostgreSQL get past migration 0003 (the CAT-7 trigger); both have ON CONFLICT.
    """
    upsert = _APP_STATE_UPSERTS.get(dialect)
    if upsert is None:
        from sqlalchemy.dialects import postgresql, sqlite  # here: the PostgreSQL dialect is not a start-up cost

        dialect_insert: Any = postgresql.insert if dialect == "postgresql" else sqlite.insert
        stmt = dialect_insert(AppStateRow).values(name=bindparam("name"), value=bindparam("value"))
        upsert = stmt.on_conflict_do_update(index_elements=[AppStateRow.name], set_={"value": stmt.excluded.value})
        _APP_STATE_UPSERTS[dialect] = upsert
    return upsert


class AppStateRepository:
    def __init__(self, store: Sessions) -> None:
        self._store = store

    def get(self, name: str) -> str | None:
        with self._store.read() as session:
            row = session.get(AppStateRow, name)
            return row.value if row is not None else None

    def with_prefix(self, prefix: str) -> dict[str, str]:
        """Every value whose name starts with ``prefix``, by name, in one statement."""
        with self._store.read() as session:
            rows = session.query(AppStateRow).filter(AppStateRow.name.startswith(prefix, autoescape=True))
            return {row.name: row.value for row in rows}

    def set(self, name: str, value: str) -> None:
        """Insert or replace in one statement (the current line is saved on every switch)."""
        with self._store.begin() as connection:
            connection.execute(_app_state_upsert(connection.dialect.name), {"name": name, "value": value})

    def set_many(self, values: Mapping[str, str]) -> None:
        """Insert or replace each, in one transaction and one statement (executemany)."""
        if not values:
            return
        with self._store.begin() as connection:
            connection.execute(
                _app_state_upsert(connection.dialect.name), [{"name": n, "value": v} for n, v in values.items()]
            )
