"""The first list's SQL (``store/first_list.py``, read without SQLAlchemy) cannot drift from ``store/tables.py``
(issue 33 item 3; issue 19 item 7): every column it reads is in the table with the type and nullability
``FirstLine`` expects, in ``FirstLine``'s order, and it orders as the store's own list does.
"""

from __future__ import annotations

import typing

import pytest
from sqlalchemy import Column

from xworkmate.store.first_list import (
    APP_STATE_COLUMNS,
    FIRST_LIST_COLUMNS,
    FIRST_LIST_ORDER,
    FIRST_LIST_SQL,
    VALUES_SQL,
    FirstLine,
)
from xworkmate.store.tables import AppStateRow, ThreadRow


def _python_type(column: Column[typing.Any]) -> type:
    """The column's Python type; a ``TypeDecorator`` (``StoredString``) by the type it decorates."""
    kind = getattr(column.type, "impl_instance", column.type)
    return kind.python_type


@pytest.mark.parametrize(("name", "expected"), FIRST_LIST_COLUMNS, ids=[name for name, _ in FIRST_LIST_COLUMNS])
def test_each_column_the_first_list_reads_is_the_tables_with_its_type(name: str, expected: type) -> None:
    column = ThreadRow.__table__.c[name]
    assert _python_type(column) is expected
    hints = typing.get_type_hints(FirstLine)
    optional = type(None) in typing.get_args(hints[name])
    assert column.nullable == optional, f"{name}: nullable in the table {column.nullable}, FirstLine {hints[name]}"


def test_the_sql_reads_firstlines_fields_in_order_and_orders_like_the_store() -> None:
    assert [name for name, _ in FIRST_LIST_COLUMNS] == list(FirstLine._fields)
    assert all(name in ThreadRow.__table__.c for name in FIRST_LIST_ORDER)
    assert FIRST_LIST_SQL.startswith("SELECT thread_id, substr(title, 1, ")
    assert f"ORDER BY {', '.join(FIRST_LIST_ORDER)} " in FIRST_LIST_SQL
    assert all(name in AppStateRow.__table__.c for name in APP_STATE_COLUMNS)
    assert VALUES_SQL.startswith(f"SELECT {', '.join(APP_STATE_COLUMNS)} FROM {AppStateRow.__tablename__} ")
    assert f" FROM {ThreadRow.__tablename__} " in FIRST_LIST_SQL


def test_a_column_missing_from_the_table_is_caught() -> None:
    """The pin can fail: a name the table does not have is not found in its metadata."""
    with pytest.raises(KeyError):
        ThreadRow.__table__.c["workspace_pins"]
