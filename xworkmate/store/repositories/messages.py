"""``MessageRepository``: every read takes a ``viewer`` (CAT-4); what the model reads goes through ``model_view`` /
``model_view_of`` (Q-1).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Integer,
    Row,
    Select,
    bindparam,
    func,
    literal,
    select,
    tuple_,
)
from sqlalchemy.orm import Session

from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.tool_trust import can_be_quarantined
from xworkmate.domain.viewers import (
    DESKTOP,
    QuarantineMark,
    QuarantineVerdict,
    Viewer,
    judge_model_visible_text,
    placeholder_candidate_id,
    quarantine_placeholder,
    withheld_text,
)
from xworkmate.store.repositories.operations import _append_message, _recent_human_ids
from xworkmate.store.repositories.records import DEFAULT_CAPTURE_LIMIT, MessageProvenance, _aware, _mark_of
from xworkmate.store.sessions import Sessions
from xworkmate.store.tables import (
    MessageRow,
)
from xworkmate.store.visibility import human_source_clause, visible_thread_clause

# What a ``Message`` is built from; Core reads of these skip the ORM's per-row bookkeeping.
_MESSAGE_COLUMNS = tuple(
    MessageRow.__table__.c[name]
    for name in ("id", "thread_id", "role", "source", "content", "state", "created_at", "payload", "quarantined")
)


_FIRST_ID, _LAST_ID = -(2**63), 2**63 - 1


def line_page(
    dialect: str, thread_id: Any, *, after: Any = None, before: Any = None, newest_first: bool
) -> tuple[list[ColumnElement[bool]], list[Any]]:
    """The WHERE clauses and ORDER BY of a page of one line's messages with ``after < id < before``.

    Issue 34 item 2: on PostgreSQL the page is a range of ``(thread_id, id)`` ordered by both, which only
    the line's index ``ix_messages_thread_id_id`` gives in order, so the plan reads that index from the
    page's edge and stops after the page. Written as ``thread_id = :key ORDER BY id``, the planner may
    instead walk the primary key from the edge and filter by line, expecting the line's rows spread
    evenly; where they are not (the page past a big line's first message, a line others wrote after)
    it walked every other message: 2 s for the last page of a line at 1,000,000 messages. SQLite reads
    the line's index for the equality already, and keeps it.
    """
    line, key = MessageRow.thread_id, MessageRow.id
    if dialect == "postgresql":
        both = tuple_(line, key)
        low = both > tuple_(thread_id, after) if after is not None else both >= tuple_(thread_id, _bound(_FIRST_ID))
        high = both < tuple_(thread_id, before) if before is not None else both <= tuple_(thread_id, _bound(_LAST_ID))
        return [low, high], [line.desc(), key.desc()] if newest_first else [line, key]
    where = [line == thread_id]
    if after is not None:
        where.append(key > after)
    if before is not None:
        where.append(key < before)
    return where, [key.desc() if newest_first else key]


def _bound(value: int) -> Any:
    return literal(value, BigInteger)


def _newest_statement(viewer: Viewer, dialect: str) -> Select[Any]:
    where, order = line_page(dialect, bindparam("thread_id"), newest_first=True)
    return (
        select(*_MESSAGE_COLUMNS)
        .where(*where, visible_thread_clause(viewer))
        .order_by(*order)
        .limit(bindparam("limit", type_=Integer))
    )


# The desktop's predicate does not depend on anything live, so its statement is built once per dialect.
_NEWEST_FOR_DESKTOP = {dialect: _newest_statement(DESKTOP, dialect) for dialect in ("sqlite", "postgresql")}


def newest_for_desktop(dialect: str) -> Select[Any]:
    """The desktop's read of a line's newest ``:limit`` messages (``:thread_id``), newest first."""
    stmt = _NEWEST_FOR_DESKTOP.get(dialect)
    return stmt if stmt is not None else _newest_statement(DESKTOP, dialect)


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

    def __init__(self, store: Sessions) -> None:
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
        with self._store.connect() as connection:
            where, order = line_page(connection.dialect.name, thread_id, before=before_id, newest_first=True)
            stmt = select(MessageRow.id).where(*where, visible_thread_clause(viewer)).order_by(*order).limit(limit)
            ids = list(connection.scalars(stmt))
        ids.reverse()
        return ids

    def newest(self, thread_id: str, *, limit: int, viewer: Viewer) -> list[Message]:
        """The newest ``limit`` messages of a thread that ``viewer`` may read, oldest first, in one read.

        Opening a line shows these at once; older ones are paged by id (``page_ids``).
        """
        with self._store.connect() as connection:
            dialect = connection.dialect.name
            stmt = newest_for_desktop(dialect) if viewer == DESKTOP else _newest_statement(viewer, dialect)
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

    def iter_for_thread(self, thread_id: str, *, viewer: Viewer, page: int = 500) -> Iterator[Message]:
        """``list_for_thread`` a page at a time (keyset on ``(thread_id, id)``, one short read each): what an
        export writes as it reads, so a line of a gigabyte is never whole in memory (issue 34 item 2)."""
        after: int | None = None
        while True:
            with self._store.connect() as connection:
                where, order = line_page(connection.dialect.name, thread_id, after=after, newest_first=False)
                stmt = select(*_MESSAGE_COLUMNS).where(*where, visible_thread_clause(viewer)).order_by(*order)
                rows = connection.execute(stmt.limit(page)).all()
            yield from (_message_from_row(row) for row in rows)
            if len(rows) < page:
                return
            after = rows[-1].id

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
