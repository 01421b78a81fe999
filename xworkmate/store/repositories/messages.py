"""Repositories: the only code that reads and writes rows. They return domain models.

Every message read takes a ``viewer`` (CAT-4), a required argument, and adds
the one visibility predicate, ``store.visibility.visible_thread_clause``; the
person at the desktop is ``DESKTOP``, named by the caller, never assumed. What
the model reads goes through ``model_view`` / ``model_view_of`` (Q-1). The dispatch repository
keeps what must happen in one transaction together: a task's identity and its
frozen dispatch sources (PROV-1), a follow-up and the snapshot it replaces
(PROV-4), a fork and the messages, marks and sources it copies (Q-1).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    ColumnElement,
    Integer,
    Row,
    Select,
    bindparam,
    delete,
    func,
    select,
    update,
)
from sqlalchemy.orm import Session

from xworkmate.domain.categories import normalize_category, requested_category
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.stored_text import storable_message
from xworkmate.domain.threads import (
    BoundBy,
    ContextState,
    ExecutionBinding,
    ExecutionMode,
    NetworkAccess,
    PermissionLevel,
    TaskThread,
    ThreadKind,
    ThreadSummary,
    WorkspaceBinding,
    WorkspaceKind,
)
from xworkmate.domain.tool_trust import can_be_quarantined
from xworkmate.domain.viewers import (
    DESKTOP,
    NeutralThreadStatus,
    QuarantineMark,
    QuarantineVerdict,
    Viewer,
    assert_delivery_flow,
    judge_model_visible_text,
    placeholder_candidate_id,
    quarantine_placeholder,
    withheld_text,
)
from xworkmate.store.tables import (
    AppStateRow,
    DispatchSourceRow,
    MessageRow,
    ProviderRow,
    ThreadRow,
    ThreadSessionRow,
)
from xworkmate.store.visibility import human_source_clause, visible_thread_clause

if TYPE_CHECKING:
    from xworkmate.store.database import Store

# PROV-1: how many of the dispatcher's recent human messages a task is dispatched on.
DEFAULT_CAPTURE_LIMIT = 12


def utcnow() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything we write is UTC.
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


_THREAD_COLUMNS = tuple(ThreadRow.__table__.c)
# Built once: the statements a switch runs (building a select per call cost as much as running it).
_THREAD_BY_KEY = select(*_THREAD_COLUMNS).where(ThreadRow.thread_id == bindparam("key"))


def _thread_from_row(row: ThreadRow | Row[Any]) -> TaskThread:
    return TaskThread(
        thread_id=row.thread_id,
        title=row.title,
        kind=ThreadKind(row.kind),
        parent_key=row.parent_key,
        category=row.category,
        archived=row.archived,
        workspace_binding=WorkspaceBinding(
            path=row.workspace_path,
            kind=WorkspaceKind(row.workspace_kind),
            bound_by=BoundBy(row.workspace_bound_by),
            repo=row.worktree_repo,
            branch=row.worktree_branch,
        ),
        execution_binding=ExecutionBinding(
            mode=ExecutionMode(row.execution_mode),
            provider=row.provider,
            model=row.model,
            acp_session_id=row.acp_session_id,
        ),
        context_state=ContextState(
            model=row.context_model,
            selected_skills=tuple(json.loads(row.selected_skills or "[]")),
            permission_level=PermissionLevel(row.permission_level),
            network=NetworkAccess.ON if row.network_access else NetworkAccess.OFF,
            command_env_names=tuple(json.loads(row.command_env_names or "[]")),
            turn_limit_s=row.turn_limit_s,
            quarantine_untrusted=row.quarantine_untrusted,
        ),
        created_at=_aware(row.created_at),
        updated_at=_aware(row.updated_at),
    )


_SUMMARY_COLUMNS = (
    ThreadRow.thread_id,
    ThreadRow.title,
    ThreadRow.kind,
    ThreadRow.parent_key,
    ThreadRow.category,
    ThreadRow.archived,
    ThreadRow.workspace_path,
    ThreadRow.updated_at,
)


class CategoryConflictError(ValueError):
    """CAT-7 / CAT-10 at the application layer: a relabel the database trigger would refuse or undo."""


class NotATaskError(ValueError):
    """A follow-up or a dispatch-source read on a thread that is not a dispatched task."""


@dataclass(frozen=True)
class ThreadLabels:
    """What the category and provenance rules need of a thread, beyond ``TaskThread``."""

    thread_id: str
    kind: ThreadKind
    parent_key: str | None
    category: str | None
    category_own: bool
    seal_level: int
    current_session_id: int | None

    def viewer(self) -> Viewer:
        return Viewer.of_thread(self.thread_id, self.category)


@dataclass(frozen=True)
class SessionGeneration:
    """One session generation of a thread (PROV-2). ``ended_at is None`` for the current one."""

    id: int
    thread_id: str
    generation: int
    started_at: datetime
    ended_at: datetime | None
    end_reason: str | None


@dataclass(frozen=True)
class MessageProvenance:
    """Where a stored message belongs and what the model may see of it (PROV-2, Q-1)."""

    id: int
    thread_id: str
    session_id: int | None
    source: MessageSource
    model_visible_text: str | None
    mark: QuarantineMark | None

    @property
    def quarantined(self) -> bool:
        return self.mark is not None


def _labels_from_row(row: ThreadRow) -> ThreadLabels:
    return ThreadLabels(
        thread_id=row.thread_id,
        kind=ThreadKind(row.kind),
        parent_key=row.parent_key,
        category=row.category,
        category_own=row.category_own,
        seal_level=row.seal_level,
        current_session_id=row.current_session_id,
    )


def _generation_from_row(row: ThreadSessionRow) -> SessionGeneration:
    return SessionGeneration(
        id=row.id,
        thread_id=row.thread_id,
        generation=row.generation,
        started_at=_aware(row.started_at),
        ended_at=_aware(row.ended_at) if row.ended_at is not None else None,
        end_reason=row.end_reason,
    )


def _mark_of(row: MessageRow) -> QuarantineMark | None:
    return QuarantineMark(message_id=row.quarantine_message_id) if row.quarantined else None


# -- operations on an open session, shared by the repositories --------------------------------


def _start_generation(session: Session, thread_id: str, *, now: datetime) -> ThreadSessionRow:
    latest = session.scalar(
        select(func.max(ThreadSessionRow.generation)).where(ThreadSessionRow.thread_id == thread_id)
    )
    generation = ThreadSessionRow(thread_id=thread_id, generation=int(latest or 0) + 1, started_at=now)
    session.add(generation)
    session.flush()
    session.execute(
        update(ThreadRow)
        .where(ThreadRow.thread_id == thread_id)
        .values(current_session_id=generation.id)
        .execution_options(synchronize_session=False)
    )
    return generation


def _current_session_id(session: Session, thread_id: str) -> int:
    """The thread's current generation, started on the spot for rows written before there were any."""
    current = session.scalar(select(ThreadRow.current_session_id).where(ThreadRow.thread_id == thread_id))
    if current is not None:
        return int(current)
    if session.get(ThreadRow, thread_id) is None:
        raise KeyError(thread_id)
    return _start_generation(session, thread_id, now=utcnow()).id


def _insert_thread(session: Session, thread: TaskThread, *, category_own: bool, seal_level: int) -> ThreadRow:
    row = ThreadRow(**_thread_values(thread, category_own=category_own, seal_level=seal_level))
    session.add(row)
    session.flush()
    _start_generation(session, thread.thread_id, now=thread.created_at)
    # The CAT-7 trigger may have copied the parent's category into the row.
    session.refresh(row)
    return row


def _insert_thread_if_absent(session: Session, thread: TaskThread) -> bool:
    """ERR-3: one statement decides, so of processes creating the same line at once exactly one does.

    INSERT … ON CONFLICT DO NOTHING on both dialects; only the process whose row went in starts the
    line's first generation (a PostgreSQL insert that meets an uncommitted twin waits for its commit).
    """
    from sqlalchemy.dialects import postgresql, sqlite  # here: the PostgreSQL dialect is not a start-up cost

    dialect_insert: Any = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = (
        dialect_insert(ThreadRow.__table__)
        .values(_thread_values(thread, category_own=False, seal_level=0))
        .on_conflict_do_nothing(index_elements=["thread_id"])
        .returning(ThreadRow.__table__.c.thread_id)
    )
    if session.connection().execute(statement).first() is None:
        return False
    _start_generation(session, thread.thread_id, now=thread.created_at)
    return True


def _thread_values(thread: TaskThread, *, category_own: bool, seal_level: int) -> dict[str, Any]:
    return dict(
        thread_id=thread.thread_id,
        title=thread.title,
        kind=thread.kind.value,
        parent_key=thread.parent_key,
        category=normalize_category(thread.category),
        category_own=category_own,
        seal_level=seal_level,
        archived=thread.archived,
        workspace_path=thread.workspace_binding.path,
        workspace_kind=thread.workspace_binding.kind.value,
        workspace_bound_by=thread.workspace_binding.bound_by.value,
        worktree_repo=thread.workspace_binding.repo,
        worktree_branch=thread.workspace_binding.branch,
        execution_mode=thread.execution_binding.mode.value,
        provider=thread.execution_binding.provider,
        model=thread.execution_binding.model,
        acp_session_id=thread.execution_binding.acp_session_id,
        context_model=thread.context_state.model,
        selected_skills=json.dumps(list(thread.context_state.selected_skills)),
        permission_level=thread.context_state.permission_level.value,
        network_access=thread.context_state.network is NetworkAccess.ON,
        command_env_names=json.dumps(list(thread.context_state.command_env_names)),
        turn_limit_s=thread.context_state.turn_limit_s,
        quarantine_untrusted=thread.context_state.quarantine_untrusted,
        created_at=thread.created_at,
        updated_at=thread.updated_at,
    )


def _append_message(
    session: Session,
    thread_id: str,
    *,
    role: MessageRole,
    source: MessageSource,
    content: str,
    state: MessageState = MessageState.COMPLETE,
    payload: dict[str, Any] | None = None,
    model_visible_text: str | None = None,
    quarantine: QuarantineMark | None = None,
    created_at: datetime | None = None,
) -> MessageRow:
    now = created_at or utcnow()
    # ERR-3: the text both databases keep; the payload says if NUL bytes were replaced (the card shows it).
    content, model_visible_text, payload = storable_message(content, model_visible_text, payload)
    row = MessageRow(
        thread_id=thread_id,
        role=role.value,
        source=source.value,
        content=content,
        state=state.value,
        created_at=now,
        payload=json.dumps(payload) if payload is not None else None,
        # A missing thread is left to the foreign key, which refuses the row.
        session_id=_current_session_id(session, thread_id) if session.get(ThreadRow, thread_id) else None,
        model_visible_text=model_visible_text,
        quarantined=quarantine is not None,
        quarantine_message_id=quarantine.message_id if quarantine is not None else None,
    )
    session.add(row)
    session.flush()
    if quarantine is not None and model_visible_text is None:
        # frozen once, at write time; nothing rewrites it afterwards.
        row.model_visible_text = quarantine_placeholder(quarantine.source_id(row.id))
        session.flush()
    session.execute(
        update(ThreadRow)
        .where(ThreadRow.thread_id == thread_id)
        .values(updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    return row


def _recent_human_ids(session: Session, thread_id: str, *, limit: int) -> list[int]:
    """PROV-1: the thread's latest human messages of its current generation, oldest first."""
    current = session.scalar(select(ThreadRow.current_session_id).where(ThreadRow.thread_id == thread_id))
    if current is None:
        return []
    ids = session.scalars(
        select(MessageRow.id)
        .where(MessageRow.thread_id == thread_id, MessageRow.session_id == current, human_source_clause())
        .order_by(MessageRow.id.desc())
        .limit(limit)
    ).all()
    return sorted(ids)


def _held_source_ids(session: Session, task_key: str) -> list[int]:
    return list(
        session.scalars(
            select(DispatchSourceRow.message_id)
            .where(DispatchSourceRow.task_key == task_key)
            .order_by(DispatchSourceRow.position)
        )
    )


def _capture(session: Session, dispatcher_key: str, *, limit: int) -> list[int]:
    """PROV-1, PROV-5: the dispatcher's held sources, then its recent human messages; ids only."""
    merged = dict.fromkeys(_held_source_ids(session, dispatcher_key))
    merged.update(dict.fromkeys(_recent_human_ids(session, dispatcher_key, limit=limit)))
    return list(merged)


def _replace_sources(session: Session, task_key: str, message_ids: Iterable[int]) -> list[int]:
    """PROV-4: the snapshot is replaced as a set, never appended to."""
    ids = list(dict.fromkeys(message_ids))
    session.execute(delete(DispatchSourceRow).where(DispatchSourceRow.task_key == task_key))
    session.add_all(
        DispatchSourceRow(task_key=task_key, position=position, message_id=message_id)
        for position, message_id in enumerate(ids)
    )
    session.flush()
    return ids


def _subtree_levels(session: Session, key: str) -> list[list[str]]:
    """The thread and its descendants, one list per depth, root first (parents before children)."""
    levels = [[key]]
    seen = {key}
    while True:
        children = [
            k
            for k in session.scalars(
                select(ThreadRow.thread_id)
                .where(ThreadRow.parent_key.in_(levels[-1]))
                .order_by(ThreadRow.created_at, ThreadRow.thread_id)
            )
            if k not in seen
        ]
        if not children:
            return levels
        seen.update(children)
        levels.append(children)


def _summary_from(r: Any) -> ThreadSummary:
    return ThreadSummary(
        thread_id=r.thread_id,
        title=r.title,
        kind=ThreadKind(r.kind),
        parent_key=r.parent_key,
        category=r.category,
        archived=r.archived,
        workspace_path=r.workspace_path,
        updated_at=_aware(r.updated_at),
    )


class ThreadRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def get(self, key: str) -> TaskThread | None:
        """One thread by key: one primary-key read, never a scan (Core: it runs on every switch)."""
        with self._store.connect() as connection:
            row = connection.execute(_THREAD_BY_KEY, {"key": key}).first()
        return _thread_from_row(row) if row is not None else None

    def exists(self, key: str) -> bool:
        with self._store.read() as session:
            return session.get(ThreadRow, key) is not None

    def insert(self, thread: TaskThread, *, category_own: bool = False, seal_level: int = 0) -> TaskThread:
        """Persist a thread and start its first session generation.

        Under a category parent the CAT-7 trigger copies the parent's category
        unless ``category_own`` (only task threads set it), and refuses another
        category with ``IntegrityError``.
        """
        with self._store.session() as session:
            return _thread_from_row(_insert_thread(session, thread, category_own=category_own, seal_level=seal_level))

    def insert_if_absent(self, thread: TaskThread) -> bool:
        """Persist a thread and its first generation unless its key is taken; True if this call stored it.

        For a line every process may create on its first start, ``main`` (ERR-3).
        """
        with self._store.session() as session:
            return _insert_thread_if_absent(session, thread)

    def labels(self, key: str) -> ThreadLabels | None:
        with self._store.read() as session:
            row = session.get(ThreadRow, key)
            return _labels_from_row(row) if row is not None else None

    def viewer(self, key: str) -> Viewer:
        """The thread as a reader, with its category as it is now (CAT-4)."""
        labels = self.labels(key)
        if labels is None:
            raise KeyError(key)
        return labels.viewer()

    def summaries(self, *, include_archived: bool = False) -> list[ThreadSummary]:
        """Every line for the list, oldest first; only the small columns (ISO-9)."""
        stmt = select(*_SUMMARY_COLUMNS).order_by(ThreadRow.created_at, ThreadRow.thread_id)
        if not include_archived:
            stmt = stmt.where(ThreadRow.archived.is_(False))
        with self._store.read() as session:
            return [_summary_from(r) for r in session.execute(stmt)]

    def summaries_for(
        self, viewer: Viewer, *, include_archived: bool = False
    ) -> list[ThreadSummary | NeutralThreadStatus]:
        """The list as ``viewer`` may see it: lines it may not read show a neutral status (CAT-4)."""
        stmt = select(*_SUMMARY_COLUMNS).order_by(ThreadRow.created_at, ThreadRow.thread_id)
        if not include_archived:
            stmt = stmt.where(ThreadRow.archived.is_(False))
        with self._store.read() as session:
            reader = viewer
            if not viewer.sees_everything and viewer.thread_id is not None:
                current = session.scalar(select(ThreadRow.category).where(ThreadRow.thread_id == viewer.thread_id))
                reader = Viewer.of_thread(viewer.thread_id, current)
            out: list[ThreadSummary | NeutralThreadStatus] = []
            for r in session.execute(stmt):
                if reader.can_read(r.category):
                    out.append(_summary_from(r))
                else:
                    out.append(
                        NeutralThreadStatus(
                            thread_id=r.thread_id,
                            kind=ThreadKind(r.kind),
                            parent_key=r.parent_key,
                            archived=r.archived,
                            updated_at=_aware(r.updated_at),
                        )
                    )
            return out

    def count(self) -> int:
        with self._store.read() as session:
            return int(session.scalar(select(func.count()).select_from(ThreadRow)) or 0)

    def children(self, key: str) -> list[str]:
        with self._store.read() as session:
            return list(
                session.scalars(
                    select(ThreadRow.thread_id)
                    .where(ThreadRow.parent_key == key)
                    .order_by(ThreadRow.created_at, ThreadRow.thread_id)
                )
            )

    def workspace_paths(self) -> list[str]:
        """Every folder some line is bound to, archived lines included (SBX-1 hides them from the others)."""
        with self._store.read() as session:
            rows = session.scalars(
                select(ThreadRow.workspace_path).where(ThreadRow.workspace_path.is_not(None)).distinct()
            )
            return [path for path in rows if path]

    def subtree(self, key: str) -> list[str]:
        """The thread and all its descendants, parents before children."""
        with self._store.read() as session:
            if session.get(ThreadRow, key) is None:
                raise KeyError(key)
            return [k for level in _subtree_levels(session, key) for k in level]

    def _update(self, key: str, **values: object) -> TaskThread:
        values["updated_at"] = utcnow()
        with self._store.session() as session:
            result = session.execute(update(ThreadRow).where(ThreadRow.thread_id == key).values(**values))
            if result.rowcount == 0:  # type: ignore[attr-defined]
                raise KeyError(key)
            row = session.get(ThreadRow, key, populate_existing=True)
            assert row is not None
            return _thread_from_row(row)

    def set_workspace(self, key: str, binding: WorkspaceBinding) -> TaskThread:
        return self._update(
            key,
            workspace_path=binding.path,
            workspace_kind=binding.kind.value,
            workspace_bound_by=binding.bound_by.value,
            worktree_repo=binding.repo,
            worktree_branch=binding.branch,
        )

    def set_acp_session(self, key: str, acp_session_id: str | None) -> TaskThread:
        return self._update(key, acp_session_id=acp_session_id)

    def set_permission(self, key: str, level: PermissionLevel) -> TaskThread:
        return self._update(key, permission_level=level.value)

    def set_sandbox(
        self, key: str, *, network: NetworkAccess | None = None, command_env_names: tuple[str, ...] | None = None
    ) -> TaskThread:
        """SBX-1: the line's network setting and the variables its commands receive."""
        values: dict[str, object] = {}
        if network is not None:
            values["network_access"] = network is NetworkAccess.ON
        if command_env_names is not None:
            values["command_env_names"] = json.dumps(list(command_env_names))
        return self._update(key, **values)

    def set_turn_limit(self, key: str, seconds: int) -> TaskThread:
        """How long one turn on the line may run (issue 13)."""
        return self._update(key, turn_limit_s=seconds)

    def set_quarantine_untrusted(self, key: str, on: bool) -> TaskThread:
        """Q-1: whether the output of the line's untrusted tools is stored quarantined."""
        return self._update(key, quarantine_untrusted=on)

    def set_execution(self, key: str, binding: ExecutionBinding) -> TaskThread:
        return self._update(
            key,
            execution_mode=binding.mode.value,
            provider=binding.provider,
            model=binding.model,
            acp_session_id=binding.acp_session_id,
        )

    def set_archived(self, key: str, archived: bool) -> TaskThread:
        return self._update(key, archived=archived)

    def set_title(self, key: str, title: str) -> TaskThread:
        return self._update(key, title=title)

    def touch(self, key: str) -> None:
        self._update(key)

    def set_category(self, key: str, category: str | None) -> list[str]:
        """CAT-10: relabel the thread and its whole subtree, normal tasks included; returns the keys moved.

        A thread under a category parent may only take the parent's category
        (or, if it is a task with its own category, become normal): anything
        else is what the CAT-7 trigger refuses, so it is refused here first
        with a clear message. A blank label is refused too; ``None`` clears.

        The CAT-7 triggers check every row against its parent and its children
        (0003, 0005), so no single level may be relabelled while its neighbours
        still hold the old category. In one transaction the subtree is cleared
        parents first (nothing is checked under a normal parent), then labelled
        children first (each parent then agrees with children already moved).
        """
        label = requested_category(category)
        with self._store.session() as session:
            row = session.get(ThreadRow, key)
            if row is None:
                raise KeyError(key)
            parent = session.get(ThreadRow, row.parent_key) if row.parent_key is not None else None
            ceiling = parent.category if parent is not None else None
            # A task with its own category may become normal under its category parent (CAT-5).
            if ceiling is not None and label != ceiling and not (label is None and row.category_own):
                raise CategoryConflictError(
                    f"{key} is inside a {ceiling!r} conversation ({row.parent_key}), so it can only"
                    f" carry {ceiling!r}: relabel the top of that tree instead (CAT-7)"
                )
            levels = _subtree_levels(session, key)
            now = utcnow()
            passes = [(levels, None)] if label is None else [(levels, None), (levels[::-1], label)]
            for ordered, value in passes:
                for level in ordered:
                    session.execute(
                        update(ThreadRow)
                        .where(ThreadRow.thread_id.in_(level))
                        .values(category=value, updated_at=now)
                        .execution_options(synchronize_session=False)
                    )
            return [k for level in levels for k in level]

    def set_seal_level(self, key: str, level: int) -> list[str]:
        """Seal the thread and its subtree (CAT-10: independent of categories); returns the keys sealed."""
        if level < 0:
            raise ValueError("a seal level is 0 (open) or more")
        with self._store.session() as session:
            if session.get(ThreadRow, key) is None:
                raise KeyError(key)
            keys = [k for lvl in _subtree_levels(session, key) for k in lvl]
            session.execute(
                update(ThreadRow)
                .where(ThreadRow.thread_id.in_(keys))
                .values(seal_level=level, updated_at=utcnow())
                .execution_options(synchronize_session=False)
            )
            return keys

    # -- session generations (PROV-2) ------------------------------------------------------

    def current_session(self, key: str) -> SessionGeneration:
        with self._store.session() as session:
            current = session.get(ThreadSessionRow, _current_session_id(session, key))
            assert current is not None
            return _generation_from_row(current)

    def sessions(self, key: str) -> list[SessionGeneration]:
        with self._store.read() as session:
            rows = session.scalars(
                select(ThreadSessionRow).where(ThreadSessionRow.thread_id == key).order_by(ThreadSessionRow.generation)
            )
            return [_generation_from_row(r) for r in rows]

    def rotate_session(self, key: str, *, reason: str = "compaction") -> SessionGeneration:
        """End the current generation and start the next. Messages and dispatch sources are untouched."""
        now = utcnow()
        with self._store.session() as session:
            current = session.get(ThreadSessionRow, _current_session_id(session, key))
            assert current is not None
            current.ended_at = now
            current.end_reason = reason[:32]
            session.flush()
            return _generation_from_row(_start_generation(session, key, now=now))


# What a ``Message`` is built from; Core reads of these skip the ORM's per-row bookkeeping.
_MESSAGE_COLUMNS = tuple(
    MessageRow.__table__.c[name]
    for name in ("id", "thread_id", "role", "source", "content", "state", "created_at", "payload", "quarantined")
)


def _newest_statement(viewer: Viewer) -> Select[Any]:
    return (
        select(*_MESSAGE_COLUMNS)
        .where(MessageRow.thread_id == bindparam("thread_id"), visible_thread_clause(viewer))
        .order_by(MessageRow.id.desc())
        .limit(bindparam("limit", type_=Integer))
    )


# The desktop's predicate does not depend on anything live, so its statement is built once.
_NEWEST_FOR_DESKTOP = _newest_statement(DESKTOP)


def _message_from_row(row: MessageRow | Row[Any]) -> Message:
    return Message(
        id=row.id,
        thread_id=row.thread_id,
        role=MessageRole(row.role),
        source=MessageSource(row.source),
        content=row.content,
        state=MessageState(row.state),
        created_at=_aware(row.created_at),
        payload=json.loads(row.payload) if row.payload else None,
        quarantined=bool(row.quarantined),
    )


class MessageRepository:
    """Messages. Every read goes through the visibility predicate for its ``viewer`` (CAT-4)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def append(
        self,
        thread_id: str,
        *,
        role: MessageRole,
        source: MessageSource,
        content: str,
        state: MessageState = MessageState.COMPLETE,
        payload: dict[str, Any] | None = None,
        model_visible_text: str | None = None,
        quarantine: QuarantineMark | None = None,
    ) -> Message:
        """Store a message in the thread's current generation.

        With ``quarantine`` the row is stored whole and the model sees the
        standard placeholder naming ``quarantine.message_id or`` the new row's
        id (Q-1), frozen now unless ``model_visible_text`` is given.
        """
        with self._store.session() as session:
            row = _append_message(
                session,
                thread_id,
                role=role,
                source=source,
                content=content,
                state=state,
                payload=payload,
                model_visible_text=model_visible_text,
                quarantine=quarantine,
            )
            return _message_from_row(row)

    def append_quarantined(
        self,
        thread_id: str,
        *,
        content: str,
        role: MessageRole = MessageRole.TOOL,
        source: MessageSource = MessageSource.TOOL,
        state: MessageState = MessageState.COMPLETE,
        payload: dict[str, Any] | None = None,
    ) -> Message:
        """Q-1: an untrusted tool result, kept whole; the model sees only ``quarantine_placeholder(id)``."""
        return self.append(
            thread_id,
            role=role,
            source=source,
            content=content,
            state=state,
            payload=payload,
            quarantine=QuarantineMark(),
        )

    def count(self, thread_id: str, *, viewer: Viewer) -> int:
        with self._store.read() as session:
            stmt = (
                select(func.count())
                .select_from(MessageRow)
                .where(MessageRow.thread_id == thread_id, visible_thread_clause(viewer))
            )
            return int(session.scalar(stmt) or 0)

    def page_ids(self, thread_id: str, *, viewer: Viewer, before_id: int | None = None, limit: int = 200) -> list[int]:
        """The ids of up to ``limit`` messages older than ``before_id``, oldest first.

        The message pane holds only ids and asks for rows when it paints them.
        """
        stmt = select(MessageRow.id).where(MessageRow.thread_id == thread_id, visible_thread_clause(viewer))
        if before_id is not None:
            stmt = stmt.where(MessageRow.id < before_id)
        stmt = stmt.order_by(MessageRow.id.desc()).limit(limit)
        with self._store.read() as session:
            ids = list(session.scalars(stmt))
        ids.reverse()
        return ids

    def newest(self, thread_id: str, *, limit: int, viewer: Viewer) -> list[Message]:
        """The newest ``limit`` messages of a thread that ``viewer`` may read, oldest first, in one read.

        Opening a line shows these at once; older ones are paged by id (``page_ids``).
        """
        stmt = _NEWEST_FOR_DESKTOP if viewer == DESKTOP else _newest_statement(viewer)
        with self._store.connect() as connection:
            rows = connection.execute(stmt, {"thread_id": thread_id, "limit": limit}).all()
        return [_message_from_row(row) for row in reversed(rows)]

    def get_many(self, ids: Sequence[int], *, viewer: Viewer) -> dict[int, Message]:
        """The rows of ``ids`` that ``viewer`` may read, as stored (for the person; the model reads
        ``model_view_of``); the others are simply absent."""
        if not ids:
            return {}
        stmt = select(*_MESSAGE_COLUMNS).where(MessageRow.id.in_(list(ids)), visible_thread_clause(viewer))
        with self._store.connect() as connection:
            rows = connection.execute(stmt).all()
        return {row.id: _message_from_row(row) for row in rows}

    def list_for_thread(self, thread_id: str, *, viewer: Viewer) -> list[Message]:
        with self._store.read() as session:
            rows = session.scalars(
                select(MessageRow)
                .where(MessageRow.thread_id == thread_id, visible_thread_clause(viewer))
                .order_by(MessageRow.id)
            )
            return [_message_from_row(row) for row in rows]

    def recent_human(self, thread_id: str, *, viewer: Viewer, limit: int = DEFAULT_CAPTURE_LIMIT) -> list[Message]:
        """The thread's latest human messages of its current generation, oldest first (PROV-1, PROV-3)."""
        with self._store.read() as session:
            ids = _recent_human_ids(session, thread_id, limit=limit)
            rows = session.scalars(
                select(MessageRow)
                .where(MessageRow.id.in_(ids), human_source_clause(), visible_thread_clause(viewer))
                .order_by(MessageRow.id)
            )
            return [_message_from_row(row) for row in rows]

    def provenance(self, ids: Sequence[int], *, viewer: Viewer) -> dict[int, MessageProvenance]:
        if not ids:
            return {}
        with self._store.read() as session:
            rows = session.scalars(
                select(MessageRow).where(MessageRow.id.in_(list(ids)), visible_thread_clause(viewer))
            )
            return {
                row.id: MessageProvenance(
                    id=row.id,
                    thread_id=row.thread_id,
                    session_id=row.session_id,
                    source=MessageSource(row.source),
                    model_visible_text=row.model_visible_text,
                    mark=_mark_of(row),
                )
                for row in rows
            }

    def quarantine_verdicts(self, ids: Sequence[int]) -> dict[int, QuarantineVerdict]:
        """Q-1: may the model see each row's frozen text? (Answers only; reads no content out.)"""
        if not ids:
            return {}
        with self._store.read() as session:
            rows = list(session.scalars(select(MessageRow).where(MessageRow.id.in_(list(ids)))))
            return _verdicts(session, rows)

    def model_view(self, thread_id: str, *, viewer: Viewer) -> list[Message]:
        """The thread's messages as the model sees them: ``content`` is the frozen model-visible text.

        Quarantined rows show their placeholder (Q-1); a row whose placeholder
        fails the check shows ``withheld_text`` instead, never its stored content.
        """
        with self._store.read() as session:
            rows = list(
                session.scalars(
                    select(MessageRow)
                    .where(MessageRow.thread_id == thread_id, visible_thread_clause(viewer))
                    .order_by(MessageRow.id)
                )
            )
            return _as_the_model_sees(session, rows)

    def model_view_of(self, ids: Sequence[int], *, viewer: Viewer) -> dict[int, Message]:
        """The rows of ``ids`` that ``viewer`` may read, as the model sees them (``model_view``'s rule).

        For model-facing reads of given rows: a running agent's inbox, a task's next prompt.
        """
        if not ids:
            return {}
        with self._store.read() as session:
            rows = list(
                session.scalars(
                    select(MessageRow)
                    .where(MessageRow.id.in_(list(ids)), visible_thread_clause(viewer))
                    .order_by(MessageRow.id)
                )
            )
            return {message.id: message for message in _as_the_model_sees(session, rows)}

    # -- a person's quarantine (Q-1) ------------------------------------------------------

    def quarantine(self, message_id: int) -> Message:
        """Hide a stored row from the model: the row keeps its content, the model sees the placeholder.

        A person's decision, on any row but the person's own words and framework notices
        (those never reach the model as evidence or text of another's). Already quarantined: unchanged.
        """
        with self._store.session() as session:
            row = session.get(MessageRow, message_id)
            if row is None:
                raise LookupError(f"no message {message_id}")
            if not can_be_quarantined(MessageSource(row.source)):
                raise ValueError(
                    f"message {message_id} is {_source_words(row.source)}; only tool results and"
                    " agents' messages can be hidden from the model (Q-1)"
                )
            frozen = row.model_visible_text
            # An unmarked copy that already shows a placeholder keeps its frozen text (Q-1's legacy rule).
            if not row.quarantined and (frozen is None or placeholder_candidate_id(frozen) is None):
                row.quarantined = True
                row.quarantine_message_id = None
                row.model_visible_text = quarantine_placeholder(row.id)
                session.flush()
            return _message_from_row(row)

    def release(self, message_id: int) -> Message:
        """Show a quarantined row to the model again (a person's decision; ``quarantine`` undone).

        Only this row: forks and copies made while it was hidden keep their own marks.
        """
        with self._store.session() as session:
            row = session.get(MessageRow, message_id)
            if row is None:
                raise LookupError(f"no message {message_id}")
            if row.quarantined:
                row.quarantined = False
                row.quarantine_message_id = None
                row.model_visible_text = None
                session.flush()
            return _message_from_row(row)


def _source_words(source: str) -> str:
    return "the person's own words" if source == MessageSource.HUMAN.value else "a framework notice"


def _as_the_model_sees(session: Session, rows: Sequence[MessageRow]) -> list[Message]:
    """Q-1: each row with ``content`` replaced by what the model may see of it."""
    verdicts = _verdicts(session, rows)
    out = []
    for row in rows:
        message = _message_from_row(row)
        verdict = verdicts[row.id]
        if verdict is QuarantineVerdict.REJECTED:
            message = message.model_copy(update={"content": withheld_text(row.id)})
        elif row.model_visible_text is not None:
            message = message.model_copy(update={"content": row.model_visible_text})
        out.append(message)
    return out


def _model_text(row: MessageRow) -> str:
    return row.model_visible_text if row.model_visible_text is not None else row.content


def _verdicts(session: Session, rows: Sequence[MessageRow]) -> dict[int, QuarantineVerdict]:
    candidates = {
        row.id: candidate
        for row in rows
        if not row.quarantined and (candidate := placeholder_candidate_id(_model_text(row))) is not None
    }
    quarantined_ids: set[int] = set()
    if candidates:
        quarantined_ids = set(
            session.scalars(
                select(MessageRow.id).where(
                    MessageRow.id.in_(set(candidates.values())), MessageRow.quarantined.is_(True)
                )
            )
        )
    return {
        row.id: judge_model_visible_text(
            row.id,
            _model_text(row),
            _mark_of(row),
            candidate_is_quarantined=candidates.get(row.id) in quarantined_ids,
        )
        for row in rows
    }


# -- dispatch: task identity, frozen sources, forks (PROV-1..PROV-5, Q-1) ---------------------


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

    def __init__(self, store: Store) -> None:
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
    def __init__(self, store: Store) -> None:
        self._store = store

    def get(self, name: str) -> str | None:
        with self._store.read() as session:
            row = session.get(AppStateRow, name)
            return row.value if row is not None else None

    def set(self, name: str, value: str) -> None:
        """Insert or replace in one statement (the current line is saved on every switch)."""
        with self._store.begin() as connection:
            connection.execute(_app_state_upsert(connection.dialect.name), {"name": name, "value": value})


class ProviderExistsError(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"a provider named {name!r} already exists")
        self.name = name


def _provider_from_row(row: ProviderRow) -> ProviderRecord:
    # Not re-validated: a row stored before a rule existed must still list (and can be fixed or removed).
    return ProviderRecord.model_construct(
        name=row.name,
        kind=ProviderKind(row.kind),
        base_url=row.base_url,
        model=row.model,
        tags=tuple(json.loads(row.tags or "[]")),
        api_key_env=row.api_key_env,
        api_key_keyring=row.api_key_keyring,
        is_default=row.is_default,
        acp_command=tuple(json.loads(row.acp_command or "[]")),
        acp_env_refs=tuple(tuple(pair) for pair in json.loads(row.acp_env_refs or "[]")),
        acp_state_dirs=None if row.acp_state_dirs is None else tuple(json.loads(row.acp_state_dirs)),
        acp_auth_method=row.acp_auth_method,
    )


class ProviderRepository:
    """Providers in the order they were added. At most one is the default."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def list(self) -> list[ProviderRecord]:
        with self._store.read() as session:
            rows = session.scalars(select(ProviderRow).order_by(ProviderRow.created_at, ProviderRow.name))
            return [_provider_from_row(row) for row in rows]

    def get(self, name: str) -> ProviderRecord | None:
        with self._store.read() as session:
            row = session.get(ProviderRow, name)
            return _provider_from_row(row) if row is not None else None

    def add(self, record: ProviderRecord, *, replace: bool = False) -> ProviderRecord:
        with self._store.session() as session:
            existing = session.get(ProviderRow, record.name)
            if existing is not None and not replace:
                raise ProviderExistsError(record.name)
            if record.is_default:
                session.execute(update(ProviderRow).values(is_default=False))
            values = {
                "kind": record.kind.value,
                "base_url": record.base_url,
                "model": record.model,
                "tags": json.dumps(sorted(record.tags)),
                "api_key_env": record.api_key_env,
                "api_key_keyring": record.api_key_keyring,
                "is_default": record.is_default,
                "acp_command": json.dumps(list(record.acp_command)),
                "acp_env_refs": json.dumps([list(pair) for pair in record.acp_env_refs]),
                "acp_state_dirs": None if record.acp_state_dirs is None else json.dumps(list(record.acp_state_dirs)),
                "acp_auth_method": record.acp_auth_method,
            }
            if existing is None:
                session.add(ProviderRow(name=record.name, created_at=utcnow(), **values))
            else:
                for column, value in values.items():
                    setattr(existing, column, value)
        stored = self.get(record.name)
        assert stored is not None
        return stored

    def remove(self, name: str) -> bool:
        with self._store.session() as session:
            result = session.execute(delete(ProviderRow).where(ProviderRow.name == name))
            return bool(result.rowcount)  # type: ignore[attr-defined]
