"""Operations on an open session, shared by the repositories: generations, thread inserts, message appends, dispatch
sources (PROV-1, PROV-2).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import (
    delete,
    func,
    select,
    update,
)
from sqlalchemy.orm import Session

from xworkmate.domain.categories import normalize_category
from xworkmate.domain.messages import MessageRole, MessageSource, MessageState
from xworkmate.domain.search import folded_title
from xworkmate.domain.stored_text import storable_message
from xworkmate.domain.threads import (
    TaskThread,
    ThreadKind,
    ThreadSummary,
    pin_folder,
)
from xworkmate.domain.viewers import (
    QuarantineMark,
    quarantine_placeholder,
)
from xworkmate.store.repositories.records import LIST_ORDER, _aware, utcnow
from xworkmate.store.tables import (
    DispatchSourceRow,
    MessageRow,
    ThreadRow,
    ThreadSessionRow,
)
from xworkmate.store.visibility import human_source_clause


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
        title_folded=folded_title(thread.title),
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
        workspace_pin=pin_folder(thread.workspace_binding.path),  # SBX-3: pinned as the folder is now
        execution_mode=thread.execution_binding.mode.value,
        provider=thread.execution_binding.provider,
        model=thread.execution_binding.model,
        acp_session_id=thread.execution_binding.acp_session_id,
        context_model=thread.context_state.model,
        selected_skills=json.dumps(list(thread.context_state.selected_skills)),
        permission_level=thread.context_state.permission_level.value,
        network_mode=thread.context_state.network.value,
        network_hosts=json.dumps(list(thread.context_state.allowed_hosts)),
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
                select(ThreadRow.thread_id).where(ThreadRow.parent_key.in_(levels[-1])).order_by(*LIST_ORDER)
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
        workspace_pin=r.workspace_pin,
    )
