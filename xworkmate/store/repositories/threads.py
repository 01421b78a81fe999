"""``ThreadRepository``: lines and tasks, their bindings, categories (CAT-7, CAT-10) and session generations
(PROV-2).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel
from sqlalchemy import (
    Connection,
    Row,
    Select,
    bindparam,
    func,
    select,
    update,
)

from xworkmate.domain.categories import requested_category
from xworkmate.domain.search import folded_title
from xworkmate.domain.threads import (
    ExecutionBinding,
    NetworkAccess,
    PermissionLevel,
    TaskThread,
    ThreadKind,
    ThreadSummary,
    WorkspaceBinding,
    pin_folder,
)
from xworkmate.domain.viewers import (
    NeutralThreadStatus,
    Viewer,
)
from xworkmate.store.repositories.operations import (
    _current_session_id,
    _insert_thread,
    _insert_thread_if_absent,
    _start_generation,
    _subtree_levels,
)
from xworkmate.store.repositories.records import (
    _SUMMARY_COLUMNS,
    _THREAD_BY_KEY,
    LIST_ORDER,
    CategoryConflictError,
    SessionGeneration,
    ThreadLabels,
    _generation_from_row,
    _labels_from_row,
    _thread_from_row,
    list_place,
    utcnow,
)
from xworkmate.store.sessions import Sessions
from xworkmate.store.tables import (
    ThreadRow,
    ThreadSessionRow,
)

_LIST_ORDER_DESC = tuple(column.desc() for column in LIST_ORDER)


def _place_of(row: Sequence[Any]) -> tuple[datetime, str]:
    """``list_place`` of a row of ``_ORDERED`` (its key first, its ``created_at`` last)."""
    return list_place(row[-1], row[0])


_SUMMARIES = select(*_SUMMARY_COLUMNS).order_by(*LIST_ORDER)
_LISTED_SUMMARIES = _SUMMARIES.where(ThreadRow.archived.is_(False))
_CATEGORY_BY_KEY = select(ThreadRow.category).where(ThreadRow.thread_id == bindparam("key"))
"""Built once: the list's reads (every line; the ones not archived), a reader's category as it is now."""
_ORDERED = select(*_SUMMARY_COLUMNS, ThreadRow.created_at)
_OLDEST = _ORDERED.order_by(*LIST_ORDER)
_NEWEST = _ORDERED.order_by(*_LIST_ORDER_DESC)
"""The window's first read of its lines (``first_summaries``): rows with their place in the list's order
(``created_at``, last)."""

FIRST_ROWS = 100
"""How many of the oldest and of the newest lines the window's first read takes (issue 34 item 2): more than a
screenful at either end of the list, whichever the current line shows."""
FIRST_TASK_ROWS = 1_000
"""The most tasks (and tasks of tasks) of those oldest lines the first read adds, so the top of the list is
whole: a line's tasks sit right under it, however late they came."""


class FirstLines(NamedTuple):
    """The lines the window is first built with (``ThreadRepository.first_summaries``), in the list's order, and
    whether they are every line (else the rest follow: ``summaries``)."""

    lines: list[ThreadSummary]
    complete: bool


_Model = TypeVar("_Model", bound=BaseModel)
_SUMMARY_SET = set(ThreadSummary.model_fields)
_NEUTRAL_DEFAULTS = {
    name: field.default for name, field in NeutralThreadStatus.model_fields.items() if not field.is_required()
}
_NEUTRAL_SET = set(NeutralThreadStatus.model_fields).difference(_NEUTRAL_DEFAULTS)
_KINDS = {kind.value: kind for kind in ThreadKind}


_SLOT = BaseModel.__dict__  # pydantic's instance slots, set as ``model_construct`` sets them
_set_dict = object.__setattr__
_set_fields_set = _SLOT["__pydantic_fields_set__"].__set__
_set_extra = _SLOT["__pydantic_extra__"].__set__
_set_private = _SLOT["__pydantic_private__"].__set__


def _unvalidated(model: type[_Model], fields_set: set[str], values: dict[str, Any]) -> _Model:
    """``model`` with ``values`` (every field, the given ones named by ``fields_set``), not validated.

    What ``model_construct`` builds, for a row the store itself wrote and whose values are already the field
    types, without its per-field Python work, which costs more than validating (issue 34 item 2: 20,000
    lines at start-up). Only for plain frozen models: frozen, no private attributes, extras or post-init (checked at
    import; ``tests/store/test_summaries_read.py`` compares the result with the validated one).

    ``fields_set`` is shared by every model built from it (a set a line was a third of the build): a frozen
    model never changes its own, and pydantic copies it before it changes a copy's (``model_copy``). Never
    change ``model_fields_set`` of a listed line."""
    built = object.__new__(model)
    _set_dict(built, "__dict__", values)
    _set_fields_set(built, fields_set)
    _set_extra(built, None)
    _set_private(built, None)
    return built


def _plain(model: type[BaseModel]) -> bool:
    return (
        model.model_config.get("frozen") is True
        and not model.__private_attributes__
        and model.model_config.get("extra") in (None, "ignore")
        and model.__pydantic_post_init__ is None
        and not model.__pydantic_root_model__
    )


if not (_plain(ThreadSummary) and _plain(NeutralThreadStatus)):  # pragma: no cover - a model change, at import
    raise TypeError("_unvalidated builds only plain pydantic models: ThreadSummary or NeutralThreadStatus changed")


def _summaries_from(rows: Sequence[Sequence[Any]]) -> list[ThreadSummary]:
    """The list's lines from its rows (``_SUMMARY_COLUMNS``' order), as ``_summary_from`` builds each, but in one
    pass and without validating: the values are the columns' own types, a kind is one of ``ThreadKind`` (an
    unknown one raises ``ValueError`` as before) and a time is made timezone-aware (``_aware``, inline)."""
    kinds = _KINDS
    fields = _SUMMARY_SET
    return [
        _unvalidated(
            ThreadSummary,
            fields,
            {
                "thread_id": thread_id,
                "title": title,
                "kind": kinds.get(kind) or ThreadKind(kind),
                "parent_key": parent_key,
                "category": category,
                "archived": bool(archived),
                "workspace_path": workspace_path,
                "updated_at": updated_at if updated_at.tzinfo is not None else updated_at.replace(tzinfo=UTC),
                "workspace_pin": workspace_pin,
            },
        )
        for thread_id, title, kind, parent_key, category, archived, workspace_path, updated_at, workspace_pin in rows
    ]


def _ends(connection: Connection, order: Select[Any], rows: int) -> list[Row[Any]]:
    """The first ``rows`` rows in ``order`` (``_OLDEST``, ``_NEWEST``), read as two walks of the index on
    (``archived``, ``created_at``), one per value, merged: one ordered walk of the table reads every row."""
    got = [
        *connection.execute(order.where(ThreadRow.archived.is_(False)).limit(rows)),
        *connection.execute(order.where(ThreadRow.archived.is_(True)).limit(rows)),
    ]
    got.sort(key=_place_of, reverse=order is _NEWEST)
    return got[:rows]


class ThreadRepository:
    def __init__(self, store: Sessions) -> None:
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
        """Every line for the list, oldest first; only the small columns (ISO-9).

        Issue 34 item 2: one Core read (no ORM session) and no validation per line, so 20,000 lines cost
        little more than fetching their rows (``_summaries_from``)."""
        with self._store.connect() as connection:
            rows = connection.execute(_SUMMARIES if include_archived else _LISTED_SUMMARIES).all()
        return _summaries_from(rows)

    def first_summaries(self, wanted: Iterable[str] = (), *, rows: int = FIRST_ROWS) -> FirstLines:
        """The lines a window shows first (issue 34 item 2), archived too, in ``summaries``' order: every line
        when there are at most ``rows``; else the ``rows`` oldest with their tasks (at most ``FIRST_TASK_ROWS``,
        level by level), the ``rows`` newest, the ``wanted`` ones (the current line, the ones that need the
        person), and every line above one of these in the tree. So they are a part of the list closed upwards:
        in tree order they keep the order and depth they have in the whole list, and the rest only ever come
        between them (``TaskLineModel.complete``). A bounded number of reads and rows, whatever the list's size."""
        with self._store.connect() as connection:
            oldest = _ends(connection, _OLDEST, rows + 1)
            if len(oldest) <= rows:
                return FirstLines(_summaries_from([row[:-1] for row in oldest]), complete=True)
            found: dict[str, Any] = {row[0]: row for row in oldest[:rows]}
            level = list(found)
            budget = FIRST_TASK_ROWS
            while level and budget > 0:  # the oldest lines' tasks, level by level, oldest first
                under = connection.execute(_OLDEST.where(ThreadRow.parent_key.in_(level)).limit(budget)).all()
                level = [row[0] for row in under if row[0] not in found]
                found.update((row[0], row) for row in under)
                budget -= len(under)
            found.update((row[0], row) for row in _ends(connection, _NEWEST, rows))
            # The wanted lines, and every line above one found: ``found`` only grows, so a cycle ends too.
            missing = {key for key in wanted if key not in found}
            missing.update(row[3] for row in found.values() if row[3] is not None and row[3] not in found)
            while missing:
                got = connection.execute(_ORDERED.where(ThreadRow.thread_id.in_(sorted(missing)))).all()
                found.update((row[0], row) for row in got)
                missing = {row[3] for row in got if row[3] is not None and row[3] not in found}
        ordered = sorted(found.values(), key=_place_of)
        return FirstLines(_summaries_from([row[:-1] for row in ordered]), complete=False)

    def summaries_for(
        self, viewer: Viewer, *, include_archived: bool = False
    ) -> list[ThreadSummary | NeutralThreadStatus]:
        """The list as ``viewer`` may see it: lines it may not read show a neutral status (CAT-4)."""
        with self._store.connect() as connection:
            reader = viewer
            if not viewer.sees_everything and viewer.thread_id is not None:
                current = connection.scalar(_CATEGORY_BY_KEY, {"key": viewer.thread_id})
                reader = Viewer.of_thread(viewer.thread_id, current)
            rows = connection.execute(_SUMMARIES if include_archived else _LISTED_SUMMARIES).all()
        readable = _summaries_from(rows)
        out: list[ThreadSummary | NeutralThreadStatus] = []
        for summary in readable:
            if reader.can_read(summary.category):
                out.append(summary)
            else:
                out.append(
                    _unvalidated(
                        NeutralThreadStatus,
                        _NEUTRAL_SET,
                        {  # in the fields' order, as validation gives them
                            "thread_id": summary.thread_id,
                            "kind": summary.kind,
                            "parent_key": summary.parent_key,
                            "archived": summary.archived,
                            "updated_at": summary.updated_at,
                            **_NEUTRAL_DEFAULTS,
                        },
                    )
                )
        return out

    def count(self) -> int:
        with self._store.read() as session:
            return int(session.scalar(select(func.count()).select_from(ThreadRow)) or 0)

    def children(self, key: str) -> list[str]:
        with self._store.read() as session:
            return list(
                session.scalars(select(ThreadRow.thread_id).where(ThreadRow.parent_key == key).order_by(*LIST_ORDER))
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
            workspace_pin=pin_folder(binding.path),  # SBX-3: every bind pins the folder as it is now
        )

    def pin_workspace(self, key: str) -> TaskThread:
        """Pin the line's folder as it is now (SBX-3): a worktree added again, or a line not pinned yet."""
        thread = self.get(key)
        if thread is None:
            raise KeyError(key)
        return self._update(key, workspace_pin=pin_folder(thread.workspace_binding.path))

    def set_acp_session(self, key: str, acp_session_id: str | None) -> TaskThread:
        return self._update(key, acp_session_id=acp_session_id)

    def bound_to_acp_session(self, provider: str, acp_session_id: str) -> list[str]:
        """Keys of the lines (archived too) whose ACP agent ``provider`` continues session ``acp_session_id``."""
        stmt = (
            select(ThreadRow.thread_id)
            .where(ThreadRow.provider == provider, ThreadRow.acp_session_id == acp_session_id)
            .order_by(ThreadRow.thread_id)
        )
        with self._store.read() as session:
            return list(session.scalars(stmt))

    def set_permission(self, key: str, level: PermissionLevel) -> TaskThread:
        return self._update(key, permission_level=level.value)

    def set_sandbox(
        self,
        key: str,
        *,
        network: NetworkAccess | None = None,
        allowed_hosts: tuple[str, ...] | None = None,
        command_env_names: tuple[str, ...] | None = None,
    ) -> TaskThread:
        """SBX-1/SBX-4: the line's network setting, its allow-list and the variables its commands receive."""
        values: dict[str, object] = {}
        if network is not None:
            values["network_mode"] = network.value
        if allowed_hosts is not None:
            values["network_hosts"] = json.dumps(list(allowed_hosts))
        if command_env_names is not None:
            values["command_env_names"] = json.dumps(list(command_env_names))
        return self._update(key, **values)

    def set_turn_limit(self, key: str, seconds: int) -> TaskThread:
        """How long one turn on the line may run (issue 13)."""
        return self._update(key, turn_limit_s=seconds)

    def set_quarantine_untrusted(self, key: str, on: bool) -> TaskThread:
        """Q-1: whether the output of the line's untrusted tools is stored quarantined."""
        return self._update(key, quarantine_untrusted=on)

    def set_selected_skills(self, key: str, names: Sequence[str]) -> TaskThread:
        """SKL-1: the line's selected skills, in the order chosen."""
        return self._update(key, selected_skills=json.dumps(list(names)))

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
        return self._update(key, title=title, title_folded=folded_title(title))

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
