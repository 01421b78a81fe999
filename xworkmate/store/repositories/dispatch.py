"""``DispatchRepository``: task identity, frozen sources, follow-ups and forks, each in one transaction
(PROV-1..PROV-5, Q-1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    bindparam,
    select,
)
from sqlalchemy.orm import Session

from xworkmate.domain.messages import Message, MessageRole, MessageSource
from xworkmate.domain.threads import (
    TaskThread,
    ThreadKind,
)
from xworkmate.domain.viewers import (
    Viewer,
    assert_delivery_flow,
)
from xworkmate.store.repositories.messages import _MESSAGE_COLUMNS, _message_from_row
from xworkmate.store.repositories.operations import (
    _append_message,
    _capture,
    _current_session_id,
    _held_source_ids,
    _insert_thread,
    _recent_human_ids,
    _replace_sources,
)
from xworkmate.store.repositories.records import DEFAULT_CAPTURE_LIMIT, NotATaskError, _thread_from_row
from xworkmate.store.sessions import Sessions
from xworkmate.store.tables import (
    DispatchSourceRow,
    MessageRow,
    ThreadRow,
)
from xworkmate.store.visibility import human_source_clause, visible_thread_clause


@dataclass(frozen=True)
class CreatedTask:
    thread: TaskThread
    category_own: bool
    seal_level: int
    source_ids: tuple[int, ...]
    first_message: Message


@dataclass(frozen=True)
class RecordedFollowup:
    message: Message
    source_ids: tuple[int, ...]


@dataclass(frozen=True)
class CreatedFork:
    thread: TaskThread
    message_ids: tuple[int, ...]
    source_ids: tuple[int, ...]


def _copy_rows(session: Session, rows: Sequence[MessageRow], target_key: str) -> list[int]:
    """Q-1: copies keep the frozen model-visible text and point their mark at the original row."""
    session_id = _current_session_id(session, target_key)
    copies = []
    for row in rows:
        copy = MessageRow(
            thread_id=target_key,
            role=row.role,
            source=row.source,
            content=row.content,
            state=row.state,
            created_at=row.created_at,
            payload=row.payload,
            session_id=session_id,
            model_visible_text=row.model_visible_text,
            quarantined=row.quarantined,
            quarantine_message_id=(
                (row.quarantine_message_id if row.quarantine_message_id is not None else row.id)
                if row.quarantined
                else None
            ),
        )
        session.add(copy)
        copies.append(copy)
    session.flush()
    return [c.id for c in copies]


def _sources_statement(viewer: Viewer, reader_key: ColumnElement[Any] | None = None) -> Select[Any]:
    """PROV-3's read: a task's frozen sources, human only, as ``viewer`` may read them, in capture order."""
    return (
        select(*_MESSAGE_COLUMNS)
        .join(DispatchSourceRow, DispatchSourceRow.message_id == MessageRow.id)
        .where(
            DispatchSourceRow.task_key == bindparam("task_key"),
            human_source_clause(),
            visible_thread_clause(viewer, reader_key=reader_key),
        )
        .order_by(DispatchSourceRow.position)
    )


# Built once for every thread reader: its key is a parameter, its category is read live in the query.
_SOURCES_FOR_A_THREAD = _sources_statement(Viewer.of_thread("reader", None), reader_key=bindparam("reader_key"))


class DispatchRepository:
    """Tasks and their frozen dispatch sources; each method is one transaction."""

    def __init__(self, store: Sessions) -> None:
        self._store = store

    def create_task(
        self,
        task: TaskThread,
        *,
        category_own: bool,
        goal_text: str,
        goal_source: MessageSource = MessageSource.COMPONENT_INPUT,
        capture_limit: int = DEFAULT_CAPTURE_LIMIT,
    ) -> CreatedTask:
        """PROV-1: the task row, its first message and its dispatch sources, in one transaction.

        ``task.parent_key`` is the dispatcher. Its seal level is inherited
        (CAT-10); its category is whatever ``task`` and ``category_own`` say,
        subject to the CAT-7 trigger.
        """
        if task.parent_key is None:
            raise ValueError("a task needs its dispatcher as parent_key")
        if goal_source is MessageSource.HUMAN:
            raise ValueError("a task's goal is written by its dispatcher, not by the human (PROV-3)")
        with self._store.session() as session:
            dispatcher = session.get(ThreadRow, task.parent_key)
            if dispatcher is None:
                raise KeyError(task.parent_key)
            source_ids = _capture(session, dispatcher.thread_id, limit=capture_limit)
            row = _insert_thread(session, task, category_own=category_own, seal_level=dispatcher.seal_level)
            goal = _append_message(session, row.thread_id, role=MessageRole.USER, source=goal_source, content=goal_text)
            _replace_sources(session, row.thread_id, source_ids)
            return CreatedTask(
                thread=_thread_from_row(row),
                category_own=row.category_own,
                seal_level=row.seal_level,
                source_ids=tuple(source_ids),
                first_message=_message_from_row(goal),
            )

    def record_followup(
        self,
        task_key: str,
        text: str,
        *,
        source: MessageSource = MessageSource.HUMAN,
        capture_limit: int = DEFAULT_CAPTURE_LIMIT,
    ) -> RecordedFollowup:
        """PROV-4: store the follow-up on the task and replace its snapshot from its dispatcher, atomically."""
        with self._store.session() as session:
            task = session.get(ThreadRow, task_key)
            if task is None:
                raise KeyError(task_key)
            if task.kind != ThreadKind.TASK.value or task.parent_key is None:
                raise NotATaskError(f"{task_key} is not a dispatched task, so it takes no follow-up")
            source_ids = _capture(session, task.parent_key, limit=capture_limit)
            message = _append_message(session, task_key, role=MessageRole.USER, source=source, content=text)
            _replace_sources(session, task_key, source_ids)
            return RecordedFollowup(message=_message_from_row(message), source_ids=tuple(source_ids))

    def source_ids(self, task_key: str) -> list[int]:
        """The frozen ids, unfiltered (for diagnostics; readers use ``sources``)."""
        with self._store.read() as session:
            return _held_source_ids(session, task_key)

    def sources(self, task_key: str, *, viewer: Viewer) -> list[Message]:
        """PROV-3: the snapshot as ``viewer`` may read it now, human sources only, in capture order."""
        params = {"task_key": task_key}
        if viewer.thread_id is not None and not viewer.sees_everything:
            stmt = _SOURCES_FOR_A_THREAD  # the common case, a task reading its own sources
            params["reader_key"] = viewer.thread_id
        else:
            stmt = _sources_statement(viewer)
        with self._store.connect() as connection:
            return [_message_from_row(row) for row in connection.execute(stmt, params)]

    def evidence(self, thread_key: str, *, viewer: Viewer, limit: int = DEFAULT_CAPTURE_LIMIT) -> list[Message]:
        """WR-1: the thread's own recent human messages plus its visible dispatch snapshot."""
        with self._store.read() as session:
            own = _recent_human_ids(session, thread_key, limit=limit)
            rows = session.scalars(
                select(MessageRow)
                .outerjoin(
                    DispatchSourceRow,
                    (DispatchSourceRow.message_id == MessageRow.id) & (DispatchSourceRow.task_key == thread_key),
                )
                .where(
                    (MessageRow.id.in_(own)) | (DispatchSourceRow.task_key.is_not(None)),
                    human_source_clause(),
                    visible_thread_clause(viewer),
                )
                .order_by(MessageRow.id)
            )
            return [_message_from_row(row) for row in rows]

    def copy_messages(self, source_key: str, target_key: str, ids: Sequence[int] | None = None) -> list[int]:
        """Copy messages of one thread into another (CAT-4: only if the target may read the source)."""
        with self._store.session() as session:
            source = session.get(ThreadRow, source_key)
            target = session.get(ThreadRow, target_key)
            if source is None or target is None:
                raise KeyError(source_key if source is None else target_key)
            assert_delivery_flow(source, target)
            stmt = select(MessageRow).where(MessageRow.thread_id == source_key).order_by(MessageRow.id)
            if ids is not None:
                stmt = stmt.where(MessageRow.id.in_(list(ids)))
            return _copy_rows(session, list(session.scalars(stmt)), target_key)

    def fork(self, source_key: str, fork: TaskThread, *, before_id: int | None = None) -> CreatedFork:
        """A fork (or branch, clone, side chat): inherits the category (CAT-7), copies messages,
        marks, frozen text and dispatch sources (Q-1, PROV-2), in one transaction.

        ``before_id``: copy only the messages with a smaller id (a fork at a turn, LOOP-1)."""
        if fork.parent_key != source_key:
            raise ValueError("a fork's parent_key is the thread it was forked from")
        with self._store.session() as session:
            source = session.get(ThreadRow, source_key)
            if source is None:
                raise KeyError(source_key)
            row = _insert_thread(session, fork, category_own=False, seal_level=source.seal_level)
            assert_delivery_flow(source, row)
            stmt = select(MessageRow).where(MessageRow.thread_id == source_key).order_by(MessageRow.id)
            if before_id is not None:
                stmt = stmt.where(MessageRow.id < before_id)
            copied = _copy_rows(session, list(session.scalars(stmt)), row.thread_id)
            sources = _replace_sources(session, row.thread_id, _held_source_ids(session, source_key))
            session.refresh(row)
            return CreatedFork(thread=_thread_from_row(row), message_ids=tuple(copied), source_ids=tuple(sources))
