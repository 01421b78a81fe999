"""What the repositories return and raise beside the domain models, and the row conversions they share."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Row,
    bindparam,
    func,
    select,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from xworkmate.domain.messages import MessageSource
from xworkmate.domain.threads import (
    BoundBy,
    ContextState,
    ExecutionBinding,
    ExecutionMode,
    NetworkAccess,
    PermissionLevel,
    TaskThread,
    ThreadKind,
    WorkspaceBinding,
    WorkspaceKind,
)
from xworkmate.domain.titles import TITLE_MAX_CHARS
from xworkmate.domain.viewers import (
    QuarantineMark,
    Viewer,
)
from xworkmate.store.tables import (
    MessageRow,
    ThreadRow,
    ThreadSessionRow,
)

# PROV-1: how many of the dispatcher's recent human messages a task is dispatched on.
DEFAULT_CAPTURE_LIMIT = 12


def utcnow() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything we write is UTC.
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class _KeyBytes(FunctionElement[str]):
    """A line's key as the list orders it: compared byte by byte, whatever the database's own collation."""

    name = "key_bytes"
    inherit_cache = True


@compiles(_KeyBytes)
def _key_bytes(element: _KeyBytes, compiler: SQLCompiler, **kw: Any) -> str:
    return f"{compiler.process(element.clauses, **kw)} COLLATE BINARY"  # SQLite's default for text, said


@compiles(_KeyBytes, "postgresql")
def _key_bytes_postgresql(element: _KeyBytes, compiler: SQLCompiler, **kw: Any) -> str:
    return f'{compiler.process(element.clauses, **kw)} COLLATE "C"'


LIST_ORDER = (ThreadRow.created_at, _KeyBytes(ThreadRow.thread_id))
"""The task list's order, oldest first, in SQL: when a line was made, then its key compared byte by byte. Every
read of the list orders by it (``list_place`` is the same order in Python), on both databases: a PostgreSQL
made in a person's locale (``en_US.UTF-8``) orders ``:``, ``-``, ``_`` and case otherwise in its default
collation, and the reads merged in Python would not agree with the ones ordered in SQL (the window then read
the whole list again: ``TaskLineModel.complete``). ``COLLATE "C"`` on the key adds no sort the index on
(``archived``, ``created_at``) saved: the key was never in it, the walk is by ``created_at`` either way."""


def list_place(created_at: datetime, thread_id: str) -> tuple[datetime, str]:
    """A line's place in ``LIST_ORDER``, for a sort in Python: the same order, for every key.

    Python compares strings by code point; UTF-8 keeps code point order byte by byte; ``COLLATE "C"``
    (PostgreSQL) and ``BINARY`` (SQLite) compare the stored bytes, a shorter prefix first as Python does. So in
    a UTF-8 database (SQLite's default, PostgreSQL's usual) the two agree for any key, and in any encoding for
    the ASCII keys the app makes (``domain.keys``: ``main``, ``draft:<ULID>``, ``agent:<id>:<key>``); a NUL
    never reaches the store (``StoredString``), a lone surrogate cannot be encoded (tests/store/test_list_order.py
    compares the reads with a sort of the keys' UTF-8 bytes, a key past ASCII among them). The time is made
    timezone-aware as every read makes it (SQLite gives it naive, in UTC)."""
    return (_aware(created_at), thread_id)


LISTED_TITLE = func.substr(ThreadRow.title, 1, TITLE_MAX_CHARS).label("title")
"""A title as every line read takes it: its prefix, so a crafted 200 MB title stays in the database."""
_THREAD_COLUMNS = tuple(LISTED_TITLE if c.name == "title" else c for c in ThreadRow.__table__.c)
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
            pin=row.workspace_pin,
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
            network=NetworkAccess(row.network_mode),
            allowed_hosts=tuple(json.loads(row.network_hosts or "[]")),
            command_env_names=tuple(json.loads(row.command_env_names or "[]")),
            turn_limit_s=row.turn_limit_s,
            quarantine_untrusted=row.quarantine_untrusted,
        ),
        created_at=_aware(row.created_at),
        updated_at=_aware(row.updated_at),
    )


_SUMMARY_COLUMNS = (
    ThreadRow.thread_id,
    LISTED_TITLE,
    ThreadRow.kind,
    ThreadRow.parent_key,
    ThreadRow.category,
    ThreadRow.archived,
    ThreadRow.workspace_path,
    ThreadRow.updated_at,
    ThreadRow.workspace_pin,
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
