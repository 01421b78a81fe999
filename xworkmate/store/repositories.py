"""Repositories: the only code that reads and writes rows. They return domain models."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, select, update

from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.threads import (
    BoundBy,
    ContextState,
    ExecutionBinding,
    ExecutionMode,
    PermissionLevel,
    TaskThread,
    ThreadKind,
    ThreadSummary,
    WorkspaceBinding,
    WorkspaceKind,
)
from xworkmate.store.tables import AppStateRow, MessageRow, ProviderRow, ThreadRow

if TYPE_CHECKING:
    from xworkmate.store.database import Store


def utcnow() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything we write is UTC.
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _thread_from_row(row: ThreadRow) -> TaskThread:
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


class ThreadRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def get(self, key: str) -> TaskThread | None:
        """One thread by key: one primary-key read, never a scan."""
        with self._store.read() as session:
            row = session.get(ThreadRow, key)
            return _thread_from_row(row) if row is not None else None

    def exists(self, key: str) -> bool:
        with self._store.read() as session:
            return session.get(ThreadRow, key) is not None

    def insert(self, thread: TaskThread) -> TaskThread:
        row = ThreadRow(
            thread_id=thread.thread_id,
            title=thread.title,
            kind=thread.kind.value,
            parent_key=thread.parent_key,
            category=thread.category,
            category_own=False,
            archived=thread.archived,
            workspace_path=thread.workspace_binding.path,
            workspace_kind=thread.workspace_binding.kind.value,
            workspace_bound_by=thread.workspace_binding.bound_by.value,
            execution_mode=thread.execution_binding.mode.value,
            provider=thread.execution_binding.provider,
            model=thread.execution_binding.model,
            acp_session_id=thread.execution_binding.acp_session_id,
            context_model=thread.context_state.model,
            selected_skills=json.dumps(list(thread.context_state.selected_skills)),
            permission_level=thread.context_state.permission_level.value,
            created_at=thread.created_at,
            updated_at=thread.updated_at,
        )
        with self._store.session() as session:
            session.add(row)
            session.flush()
            session.refresh(row)
            return _thread_from_row(row)

    def summaries(self, *, include_archived: bool = False) -> list[ThreadSummary]:
        """Every line for the list, oldest first; only the small columns (ISO-9)."""
        stmt = select(*_SUMMARY_COLUMNS).order_by(ThreadRow.created_at, ThreadRow.thread_id)
        if not include_archived:
            stmt = stmt.where(ThreadRow.archived.is_(False))
        with self._store.read() as session:
            return [
                ThreadSummary(
                    thread_id=r.thread_id,
                    title=r.title,
                    kind=ThreadKind(r.kind),
                    parent_key=r.parent_key,
                    category=r.category,
                    archived=r.archived,
                    workspace_path=r.workspace_path,
                    updated_at=_aware(r.updated_at),
                )
                for r in session.execute(stmt)
            ]

    def count(self) -> int:
        with self._store.read() as session:
            return int(session.scalar(select(func.count()).select_from(ThreadRow)) or 0)

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
        )

    def set_acp_session(self, key: str, acp_session_id: str | None) -> TaskThread:
        return self._update(key, acp_session_id=acp_session_id)

    def set_permission(self, key: str, level: PermissionLevel) -> TaskThread:
        return self._update(key, permission_level=level.value)

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


def _message_from_row(row: MessageRow) -> Message:
    return Message(
        id=row.id,
        thread_id=row.thread_id,
        role=MessageRole(row.role),
        source=MessageSource(row.source),
        content=row.content,
        state=MessageState(row.state),
        created_at=_aware(row.created_at),
        payload=json.loads(row.payload) if row.payload else None,
    )


class MessageRepository:
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
    ) -> Message:
        now = utcnow()
        row = MessageRow(
            thread_id=thread_id,
            role=role.value,
            source=source.value,
            content=content,
            state=state.value,
            created_at=now,
            payload=json.dumps(payload) if payload is not None else None,
        )
        with self._store.session() as session:
            session.add(row)
            session.execute(update(ThreadRow).where(ThreadRow.thread_id == thread_id).values(updated_at=now))
            session.flush()
            return _message_from_row(row)

    def count(self, thread_id: str) -> int:
        with self._store.read() as session:
            stmt = select(func.count()).select_from(MessageRow).where(MessageRow.thread_id == thread_id)
            return int(session.scalar(stmt) or 0)

    def page_ids(self, thread_id: str, *, before_id: int | None = None, limit: int = 200) -> list[int]:
        """The ids of up to ``limit`` messages older than ``before_id``, oldest first.

        The message pane holds only ids and asks for rows when it paints them.
        """
        stmt = select(MessageRow.id).where(MessageRow.thread_id == thread_id)
        if before_id is not None:
            stmt = stmt.where(MessageRow.id < before_id)
        stmt = stmt.order_by(MessageRow.id.desc()).limit(limit)
        with self._store.read() as session:
            ids = list(session.scalars(stmt))
        ids.reverse()
        return ids

    def get_many(self, ids: Sequence[int]) -> dict[int, Message]:
        if not ids:
            return {}
        with self._store.read() as session:
            rows = session.scalars(select(MessageRow).where(MessageRow.id.in_(list(ids))))
            return {row.id: _message_from_row(row) for row in rows}

    def list_for_thread(self, thread_id: str) -> list[Message]:
        with self._store.read() as session:
            rows = session.scalars(
                select(MessageRow).where(MessageRow.thread_id == thread_id).order_by(MessageRow.id)
            )
            return [_message_from_row(row) for row in rows]


class AppStateRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def get(self, name: str) -> str | None:
        with self._store.read() as session:
            row = session.get(AppStateRow, name)
            return row.value if row is not None else None

    def set(self, name: str, value: str) -> None:
        with self._store.session() as session:
            row = session.get(AppStateRow, name)
            if row is None:
                session.add(AppStateRow(name=name, value=value))
            else:
                row.value = value


class ProviderExistsError(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"a provider named {name!r} already exists")
        self.name = name


def _provider_from_row(row: ProviderRow) -> ProviderRecord:
    return ProviderRecord(
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
