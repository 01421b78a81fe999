"""The one visibility predicate, as SQL (SPEC CAT-4, CAT-8, PROV-3).

Every message read in ``MessageRepository`` and every read of a task's
dispatch sources adds ``visible_thread_clause(viewer)``: a row is visible if
its thread is normal or has the viewer's category; global roles (the person at
the desktop, an auditor) see everything. The same rule, for values already in
memory, is ``Viewer.can_read`` and ``assert_delivery_flow`` in
``xworkmate.domain.viewers``.

A thread viewer's category is read from the database *in the same query*, not
taken from the ``Viewer`` value: a thread that was relabelled a moment ago
reads with its new category even through a viewer built before the relabel.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, and_, exists, or_, select, true

from xworkmate.domain.messages import MessageSource
from xworkmate.domain.viewers import (
    AUDITOR,
    DESKTOP,
    DeliveryFlowError,
    Viewer,
    assert_delivery_flow,
)
from xworkmate.store.tables import MessageRow, ThreadRow

__all__ = [
    "AUDITOR",
    "DESKTOP",
    "DeliveryFlowError",
    "Viewer",
    "assert_delivery_flow",
    "human_source_clause",
    "readable_category_clause",
    "visible_thread_clause",
]


# Built once: Core aliases of ``threads`` for the row's owner and for the reader. Building the
# predicate per read is then a handful of cheap Core constructs whose compiled SQL is cached;
# ORM ``aliased()`` here cost about a millisecond a read (issue 7, evidence benchmark).
_THREADS = ThreadRow.__table__
_OWNER = _THREADS.alias("visibility_owner")
_READER = _THREADS.alias("visibility_reader")


def readable_category_clause(
    viewer: Viewer, category: ColumnElement[Any] | Any, *, reader_key: ColumnElement[Any] | None = None
) -> ColumnElement[bool]:
    """CAT-4 over a column holding a thread's category: normal, or the viewer's own.

    ``reader_key`` stands in for a thread viewer's key (a bind parameter), so a statement
    built once serves every thread reader; the rule is the same.
    """
    if viewer.sees_everything:
        return true()
    normal = category.is_(None)
    if viewer.thread_id is not None:
        key = reader_key if reader_key is not None else viewer.thread_id
        reader_category = select(_READER.c.category).where(_READER.c.thread_id == key).scalar_subquery()
        # NULL = NULL is not true: a normal reader only reads normal rows.
        return or_(normal, category == reader_category)
    if viewer.category is None:
        return normal
    return or_(normal, category == viewer.category)


def visible_thread_clause(
    viewer: Viewer,
    thread_id: ColumnElement[Any] | Any = MessageRow.thread_id,
    *,
    reader_key: ColumnElement[Any] | None = None,
) -> ColumnElement[bool]:
    """CAT-4: may ``viewer`` read rows of the thread named by ``thread_id``?

    ``thread_id`` is a column, ``messages.thread_id`` unless another is given;
    ``reader_key`` as in ``readable_category_clause``.
    """
    if viewer.sees_everything:
        return true()
    return exists().where(
        _OWNER.c.thread_id == thread_id, readable_category_clause(viewer, _OWNER.c.category, reader_key=reader_key)
    )


def human_source_clause() -> ColumnElement[bool]:
    """PROV-3: a human's own words. ``role=user`` proves nothing; quarantined rows never count."""
    return and_(MessageRow.source == MessageSource.HUMAN.value, MessageRow.quarantined.is_(False))
