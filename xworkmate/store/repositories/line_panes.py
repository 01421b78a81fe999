"""What a switch shows of one line, read in one round trip (issue 19, item 1 benchmark; ISO-5, LOOP-4).

The fresh read of a switch is the line's row, its newest page of messages (as the person at the desktop
reads them, CAT-4), its usage meter when asked, and for a task its frozen dispatch sources (as the task
itself may read them, PROV-3) and its dispatcher's row. Each is the statement its own repository runs
(``_THREAD_BY_KEY``'s columns, ``newest_for_desktop``, ``USAGE_BY_KEY``, ``_SOURCES_FOR_A_THREAD``), so
the visibility predicates are the ones every other read adds, not a copy.

On PostgreSQL the statements go out together in psycopg's pipeline mode on the readers' autocommit
connection (no BEGIN): one round trip instead of one per statement, which behind a team database 20 ms
away is what the fresh view waits for. The sources are asked for before the row says whether the line is
a task (a line that is not has none; the answer is dropped). The connection is not pinged at checkout
(that would be a round trip before the read): a read on a connection the server dropped is made once
more on the one the pool gives in its place. On SQLite, where a statement costs no trip,
they run one after another and the sources only for a task.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Dialect, Select, bindparam, or_, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.compiler import SQLCompiler

from xworkmate.domain.agent_session import LineUsage
from xworkmate.domain.messages import Message
from xworkmate.domain.threads import TaskThread, ThreadKind
from xworkmate.store.agent_state import USAGE_BY_KEY, usage_from_row
from xworkmate.store.repositories.dispatch import _SOURCES_FOR_A_THREAD
from xworkmate.store.repositories.messages import _message_from_row, newest_for_desktop
from xworkmate.store.repositories.records import _THREAD_COLUMNS, _thread_from_row
from xworkmate.store.sessions import Sessions
from xworkmate.store.tables import ThreadRow

__all__ = ["LinePanesRows", "line_panes_read"]

_PARENTS = ThreadRow.__table__.alias("panes_parent")
# The line's row and, for a task, its dispatcher's: one statement on either database.
_THREAD_AND_PARENT: Select[Any] = select(*_THREAD_COLUMNS).where(
    or_(
        ThreadRow.thread_id == bindparam("key"),
        ThreadRow.thread_id
        == select(_PARENTS.c.parent_key).where(_PARENTS.c.thread_id == bindparam("key")).scalar_subquery(),
    )
)


@dataclass(frozen=True)
class LinePanesRows:
    """One line's fresh read: ``newest`` oldest first; ``usage`` only when asked; ``sources`` and
    ``dispatcher`` only for a task (``dispatcher`` only for a task with a parent)."""

    thread: TaskThread
    newest: list[Message]
    usage: LineUsage | None = None
    sources: list[Message] | None = None
    dispatcher: TaskThread | None = None


def line_panes_read(store: Sessions, key: str, *, limit: int, with_usage: bool) -> LinePanesRows | None:
    """The fresh read of the line ``key`` (a canonical key) with its newest ``limit`` messages; ``None``
    when there is no such line. One round trip on PostgreSQL, however long the connection was idle: it
    is not pinged first (``Store.connect(unpinged=True)``); when the server had dropped it, the read is
    made once more on the connection the pool gives in its place."""
    with store.connect(unpinged=True) as connection:
        try:
            return _read(connection, key, limit=limit, with_usage=with_usage)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
            return _read(connection, key, limit=limit, with_usage=with_usage)


def _read(connection: Connection, key: str, *, limit: int, with_usage: bool) -> LinePanesRows | None:
    by_key = {"key": key}
    newest_params = {"thread_id": key, "limit": limit}
    sources_params = {"task_key": key, "reader_key": key}  # PROV-3: the task as its own reader
    threads: Sequence[Any]
    newest: Sequence[Any]
    sources: Sequence[Any]
    usage_rows: Sequence[Any]
    if connection.dialect.name == "postgresql":
        reads: list[tuple[Select[Any], Mapping[str, Any]]] = [
            (_THREAD_AND_PARENT, by_key),
            (newest_for_desktop("postgresql"), newest_params),
            (_SOURCES_FOR_A_THREAD, sources_params),
        ]
        if with_usage:
            reads.append((USAGE_BY_KEY, by_key))
        answers = _pipelined(connection, reads)
        threads, newest, sources = answers[0], answers[1], answers[2]
        usage_rows = answers[3] if with_usage else []
    else:
        threads = connection.execute(_THREAD_AND_PARENT, by_key).all()
        if not any(row.thread_id == key for row in threads):
            return None
        newest = connection.execute(newest_for_desktop(connection.dialect.name), newest_params).all()
        usage_rows = connection.execute(USAGE_BY_KEY, by_key).all() if with_usage else []
        is_task = any(row.thread_id == key and row.kind == ThreadKind.TASK.value for row in threads)
        sources = connection.execute(_SOURCES_FOR_A_THREAD, sources_params).all() if is_task else []
    return _panes(key, threads, newest, usage_rows if with_usage else None, sources)


def _panes(
    key: str, threads: Sequence[Any], newest: Sequence[Any], usage_rows: Sequence[Any] | None, sources: Sequence[Any]
) -> LinePanesRows | None:
    own = next((row for row in threads if row.thread_id == key), None)
    if own is None:
        return None
    thread = _thread_from_row(own)
    usage = usage_from_row(usage_rows[0] if usage_rows else None) if usage_rows is not None else None
    messages = [_message_from_row(row) for row in reversed(newest)]
    if thread.kind is not ThreadKind.TASK:
        return LinePanesRows(thread=thread, newest=messages, usage=usage)
    parent = next((row for row in threads if row.thread_id != key), None)
    return LinePanesRows(
        thread=thread,
        newest=messages,
        usage=usage,
        sources=[_message_from_row(row) for row in sources],
        dispatcher=_thread_from_row(parent) if parent is not None and thread.parent_key else None,
    )


@lru_cache(maxsize=32)
def _compiled(statement: Select[Any], dialect: Dialect) -> SQLCompiler:
    # The statements are module constants: each is compiled once per store's dialect (a few stores at most).
    return statement.compile(dialect=dialect)


def _pipelined(connection: Connection, reads: Sequence[tuple[Select[Any], Mapping[str, Any]]]) -> list[list[Any]]:
    """Run ``reads`` on ``connection``'s psycopg connection in one pipeline: all sent, then one wait.

    SQLAlchemy reads a cursor's description as soon as it executes, which a pipelined statement does
    not have yet, so the compiled SQL goes to the driver directly, its parameters through the bind
    processors the compiler chose (``StoredString``'s among them). No result processing is skipped:
    psycopg hands back these columns' types (text, integers, booleans, ``timestamptz``, floats) as
    SQLAlchemy would.
    """
    from psycopg.rows import namedtuple_row

    driver = connection.connection.driver_connection
    assert driver is not None
    dbapi = connection.dialect.loaded_dbapi
    cursors = []
    try:
        with driver.pipeline():
            for statement, params in reads:
                compiled = _compiled(statement, connection.dialect)
                values = dict(compiled.construct_params(dict(params)) or {})
                for name, process in compiled._bind_processors.items():  # the processors the compiler chose
                    if name in values and callable(process):  # not a tuple type's list of them
                        values[name] = process(values[name])
                cursor = driver.cursor(row_factory=namedtuple_row)
                cursors.append(cursor)
                cursor.execute(compiled.string, values)
        return [cursor.fetchall() for cursor in cursors]
    except dbapi.Error as exc:
        # As SQLAlchemy's own execution would: its exception classes (ERR-1 says them), and a connection
        # the server dropped is invalidated, so the pool replaces it instead of handing it out again.
        disconnected = connection.dialect.is_disconnect(exc, driver, None)
        if disconnected:
            connection.invalidate(exc)
        raise DBAPIError.instance(
            "; ".join(_compiled(statement, connection.dialect).string for statement, _ in reads),
            None,
            exc,
            dbapi.Error,
            dialect=connection.dialect,
            connection_invalidated=disconnected,
        ) from exc
    finally:
        for cursor in cursors:
            cursor.close()
