"""Rows of per-turn checkpoints (LOOP-1): which snapshots a turn began and ended with.

The snapshots themselves live in the line's shadow git repository (``agents/checkpoints.py``);
a row keeps their commit ids, the turn's last message and its change set.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict
from sqlalchemy import delete, func, select

from xworkmate.domain.checkpoints import ChangedTurn, FileChange
from xworkmate.store.repositories import utcnow
from xworkmate.store.repositories.messages import line_page
from xworkmate.store.tables import CheckpointTurnRow, MessageRow, ThreadRow

if TYPE_CHECKING:
    from xworkmate.store.database import Store

__all__ = ["BEFORE_MISSING", "BEFORE_NOT_EXACT", "BEFORE_TAKING", "CheckpointRepository", "CheckpointTurn"]

# A turn's "before" snapshot, when it was not simply taken before the turn began (issue 34 item 3):
BEFORE_TAKING = "taking"  # a big folder's first snapshot, running beside the turn
BEFORE_NOT_EXACT = "not_exact"  # taken, but files changed after the turn began: it may hold some of the turn's
BEFORE_MISSING = "missing"  # the process stopped before it was taken


class CheckpointTurn(BaseModel):
    """One checkpointed turn as stored."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    key: str
    turn: int
    before_commit: str
    before_state: str | None = None  # None: taken before the turn began, exact
    after_commit: str | None
    message_id: int | None
    fork_before_id: int | None
    files: tuple[FileChange, ...] | None
    status: str | None
    started_at: datetime
    finished_at: datetime | None


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _from_row(row: CheckpointTurnRow) -> CheckpointTurn:
    files = None if row.files is None else tuple(FileChange.model_validate(f) for f in json.loads(row.files))
    return CheckpointTurn(
        key=row.thread_id,
        turn=row.turn,
        before_commit=row.before_commit,
        before_state=row.before_state,
        after_commit=row.after_commit,
        message_id=row.message_id,
        fork_before_id=row.fork_before_id,
        files=files,
        status=row.status,
        started_at=_aware(row.started_at),
        finished_at=None if row.finished_at is None else _aware(row.finished_at),
    )


class CheckpointRepository:
    def __init__(self, store: Store) -> None:
        self._store = store

    def begin(self, key: str, before_commit: str, before_state: str | None = None) -> CheckpointTurn:
        """A new turn on the line, numbered after its last one, with the snapshot taken before it
        (``before_state`` ``taking``: none yet, ``set_before`` gives it)."""
        with self._store.session() as session:
            last = session.scalar(select(func.max(CheckpointTurnRow.turn)).where(CheckpointTurnRow.thread_id == key))
            # The line's newest message through its own index (``line_page``): on PostgreSQL a walk of the
            # primary key read every message other lines wrote after it (issue 34 item 2).
            where, order = line_page(session.get_bind().dialect.name, key, newest_first=True)
            newest = session.scalars(select(MessageRow).where(*where).order_by(*order).limit(1)).first()
            # The fork point (restore with fork): before the turn's prompt when the newest message is the
            # person's, else after the newest message.
            fork_before = None if newest is None else newest.id if newest.role == "user" else newest.id + 1
            row = CheckpointTurnRow(
                thread_id=key,
                turn=(last or 0) + 1,
                before_commit=before_commit,
                before_state=before_state,
                fork_before_id=fork_before,
                started_at=utcnow(),
            )
            session.add(row)
            session.flush()
            return _from_row(row)

    def set_before(self, key: str, turn: int, before_commit: str, *, exact: bool) -> None:
        """The snapshot a turn's row waited for (``taking``) is taken."""
        with self._store.session() as session:
            row = session.scalars(
                select(CheckpointTurnRow).where(CheckpointTurnRow.thread_id == key, CheckpointTurnRow.turn == turn)
            ).one()
            row.before_commit = before_commit
            row.before_state = None if exact else BEFORE_NOT_EXACT

    def before_missing(self, key: str, turn: int) -> None:
        """The snapshot a turn's row waited for could not be taken."""
        with self._store.session() as session:
            row = session.scalars(
                select(CheckpointTurnRow).where(CheckpointTurnRow.thread_id == key, CheckpointTurnRow.turn == turn)
            ).one()
            row.before_state = BEFORE_MISSING

    def finish(
        self, key: str, turn: int, after_commit: str | None, files: tuple[FileChange, ...] | None, status: str
    ) -> None:
        """The turn ended. ``after_commit`` ``None``: its after-snapshot failed, and the row still ends, so
        nothing waits on it as on a running turn (a row with neither is one; issue 29 item 5)."""
        with self._store.session() as session:
            row = session.scalars(
                select(CheckpointTurnRow).where(CheckpointTurnRow.thread_id == key, CheckpointTurnRow.turn == turn)
            ).one()
            row.after_commit = after_commit
            row.files = None if files is None else json.dumps([f.model_dump(mode="json") for f in files])
            row.status = status
            row.finished_at = utcnow()
            row.message_id = session.scalar(select(func.max(MessageRow.id)).where(MessageRow.thread_id == key))

    def end_unfinished(self, key: str, status: str) -> int:
        """End the line's rows whose turn died with its process (no after-snapshot); how many.

        Called once the line's owner is known dead (``controllers.recovery``), so a row a live
        process is still writing is never ended (issue 34; issue 29 item 5)."""
        with self._store.session() as session:
            rows = session.scalars(
                select(CheckpointTurnRow).where(
                    CheckpointTurnRow.thread_id == key, CheckpointTurnRow.finished_at.is_(None)
                )
            ).all()
            for row in rows:
                if row.before_state == BEFORE_TAKING:
                    row.before_state = BEFORE_MISSING
                row.status = status
                row.finished_at = utcnow()
                row.message_id = session.scalar(select(func.max(MessageRow.id)).where(MessageRow.thread_id == key))
            return len(rows)

    def changed_turns(self, key: str) -> list[ChangedTurn]:
        """The line's turns that changed files, oldest first, each with how many: the stored lists are counted
        by the JSON decoder, no ``FileChange`` is made (50 turns of 3,000 files: ~60 ms against ~1 s for ``turns``)."""
        statement = (
            select(CheckpointTurnRow.turn, CheckpointTurnRow.message_id, CheckpointTurnRow.files)
            .where(CheckpointTurnRow.thread_id == key, CheckpointTurnRow.files.is_not(None))
            .order_by(CheckpointTurnRow.turn)
        )
        with self._store.read() as session:
            rows = session.execute(statement).all()
        counted = (ChangedTurn(turn, message_id, len(json.loads(files or "[]"))) for turn, message_id, files in rows)
        return [turn for turn in counted if turn.files]

    def turns(self, key: str) -> list[CheckpointTurn]:
        with self._store.read() as session:
            rows = session.scalars(
                select(CheckpointTurnRow).where(CheckpointTurnRow.thread_id == key).order_by(CheckpointTurnRow.turn)
            )
            return [_from_row(row) for row in rows]

    def get(self, key: str, turn: int) -> CheckpointTurn | None:
        with self._store.read() as session:
            row = session.scalars(
                select(CheckpointTurnRow).where(CheckpointTurnRow.thread_id == key, CheckpointTurnRow.turn == turn)
            ).first()
            return None if row is None else _from_row(row)

    def line_ends(self, key: str) -> tuple[CheckpointTurn, CheckpointTurn] | None:
        """The line's first and last turns that have an after-snapshot (what the whole line's changes compare),
        read as two rows; ``None`` when it has none."""
        ended = select(CheckpointTurnRow).where(
            CheckpointTurnRow.thread_id == key, CheckpointTurnRow.after_commit.is_not(None)
        )
        with self._store.read() as session:
            first = session.scalars(ended.order_by(CheckpointTurnRow.turn).limit(1)).first()
            last = session.scalars(ended.order_by(CheckpointTurnRow.turn.desc()).limit(1)).first()
            return None if first is None or last is None else (_from_row(first), _from_row(last))

    def last(self, key: str) -> CheckpointTurn | None:
        with self._store.read() as session:
            row = session.scalars(
                select(CheckpointTurnRow)
                .where(CheckpointTurnRow.thread_id == key)
                .order_by(CheckpointTurnRow.turn.desc())
                .limit(1)
            ).first()
            return None if row is None else _from_row(row)

    def archived_before(self, cutoff: datetime) -> list[str]:
        """Archived lines, last changed before ``cutoff``, that still have checkpoint rows."""
        with self._store.read() as session:
            rows = session.execute(
                select(ThreadRow.thread_id, ThreadRow.updated_at)
                .where(ThreadRow.archived.is_(True), ThreadRow.thread_id.in_(select(CheckpointTurnRow.thread_id)))
                .order_by(ThreadRow.thread_id)
            )
            return [key for key, updated in rows if _aware(updated) < cutoff]

    def forget(self, key: str) -> int:
        """Drop the line's checkpoint rows (its shadow repository is gone); returns how many."""
        with self._store.session() as session:
            result = session.execute(delete(CheckpointTurnRow).where(CheckpointTurnRow.thread_id == key))
            return int(getattr(result, "rowcount", 0) or 0)
