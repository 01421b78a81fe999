"""Which process runs each line's turn, so a turn whose process died is found (issue 31 item 4, ERR-2, ISO-4).

Several processes may share one database (the window and the CLI on one SQLite file, a team on one
PostgreSQL server). A turn is dead only when the process that owns it is gone: on the same host that is
asked of the operating system (the pid, and that process's start time, so a reused pid is not taken for
it); on another host the owner's heartbeat is older than the lease. A live turn of another process is
never taken for a dead one.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import sys
from datetime import UTC, datetime, timedelta
from functools import cache

from sqlalchemy import delete, select, update

from xworkmate.proc_stat import process_started, process_stat
from xworkmate.store.sessions import Sessions
from xworkmate.store.tables import TurnOwnerRow

HEARTBEAT_S = 20.0
"""How often a running turn says it is alive (and flushes the reply it is streaming, if it had nothing newer)."""
LEASE_S = 120.0
"""A turn owned on another host whose heartbeat is older than this is dead (its process cannot be asked)."""


@dataclasses.dataclass(frozen=True)
class ProcessOwner:
    """A process: its host, its pid and when it started (the kernel's clock ticks since boot; '' if unknown)."""

    host: str
    pid: int
    started: str


@cache
def this_process() -> ProcessOwner:
    # A forked child has another pid: the cache is keyed on nothing, so it is checked below.
    return ProcessOwner(socket.gethostname()[:255], os.getpid(), process_started(os.getpid()))


def current_owner() -> ProcessOwner:
    owner = this_process()
    if owner.pid != os.getpid():  # forked since it was cached
        this_process.cache_clear()
        owner = this_process()
    return owner


def process_alive(pid: int, started: str) -> bool:
    """Whether ``pid`` on this host is still the process that wrote ``started``."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, as another user
    except OSError:
        return False
    state, now = process_stat(pid)
    if state in {"Z", "X"}:
        return False  # it died and waits to be reaped: its turn is over
    if started:
        if now and now != started:
            return False  # the pid was reused by another process
        if not now and sys.platform.startswith("linux"):
            return False  # gone between the two looks
    return True


@dataclasses.dataclass(frozen=True)
class TurnOwner:
    """A stored ``turn_owners`` row."""

    key: str
    owner: ProcessOwner
    mode: str
    after_message_id: int
    partial_text: str
    started_at: datetime
    heartbeat_at: datetime

    def dead(self, *, here: ProcessOwner, now: datetime, lease_s: float = LEASE_S) -> bool:
        """Whether the process that owns the turn is gone (asked of the OS on its host, else by its lease)."""
        if self.owner.host == here.host:
            if self.owner.pid == here.pid and self.owner.started == here.started:
                return False  # this very process (another controller in it runs the turn)
            return not process_alive(self.owner.pid, self.owner.started)
        beat = self.heartbeat_at if self.heartbeat_at.tzinfo else self.heartbeat_at.replace(tzinfo=UTC)
        return now - beat > timedelta(seconds=lease_s)


def _row(row: TurnOwnerRow) -> TurnOwner:
    return TurnOwner(
        key=row.thread_id,
        owner=ProcessOwner(row.host, row.pid, row.process_started),
        mode=row.mode,
        after_message_id=row.after_message_id,
        partial_text=row.partial_text,
        started_at=row.started_at,
        heartbeat_at=row.heartbeat_at,
    )


def _mine(key: str, owner: ProcessOwner) -> list[object]:
    return [
        TurnOwnerRow.thread_id == key,
        TurnOwnerRow.host == owner.host,
        TurnOwnerRow.pid == owner.pid,
        TurnOwnerRow.process_started == owner.started,
    ]


def claim(store: Sessions, key: str, *, mode: str, after_message_id: int) -> None:
    """This process owns ``key``'s turn from now (a row left by an earlier turn of the line is replaced:
    the gate let this turn start, so no live turn runs there)."""
    owner, now = current_owner(), datetime.now(UTC)
    with store.session() as session:
        session.execute(delete(TurnOwnerRow).where(TurnOwnerRow.thread_id == key))
        session.add(
            TurnOwnerRow(
                thread_id=key,
                host=owner.host,
                pid=owner.pid,
                process_started=owner.started,
                mode=mode,
                after_message_id=after_message_id,
                partial_text="",
                started_at=now,
                heartbeat_at=now,
            )
        )


def beat(store: Sessions, key: str, *, partial_text: str | None = None) -> None:
    """The turn is alive; with ``partial_text``, that is the reply streamed so far (kept if the process dies)."""
    values: dict[str, object] = {"heartbeat_at": datetime.now(UTC)}
    if partial_text is not None:
        values["partial_text"] = partial_text
    with store.session() as session:
        session.execute(update(TurnOwnerRow).where(*_mine(key, current_owner())).values(**values))  # type: ignore[arg-type]


def release(store: Sessions, key: str) -> None:
    """The turn ended (however it ended) in this process."""
    with store.session() as session:
        session.execute(delete(TurnOwnerRow).where(*_mine(key, current_owner())))  # type: ignore[arg-type]


def owners(store: Sessions) -> list[TurnOwner]:
    with store.read() as session:
        return [_row(row) for row in session.scalars(select(TurnOwnerRow)).all()]


def dead_turns(store: Sessions, *, lease_s: float = LEASE_S) -> list[TurnOwner]:
    """The turns whose process is gone."""
    return _owners_by_life(store, lease_s, dead=True)


def running_turns(store: Sessions, *, lease_s: float = LEASE_S) -> list[TurnOwner]:
    """The turns running now, in this process or another one (those whose process is alive)."""
    return _owners_by_life(store, lease_s, dead=False)


def _owners_by_life(store: Sessions, lease_s: float, *, dead: bool) -> list[TurnOwner]:
    here, now = current_owner(), datetime.now(UTC)
    return [row for row in owners(store) if row.dead(here=here, now=now, lease_s=lease_s) == dead]


def take(store: Sessions, dead: TurnOwner) -> bool:
    """Remove a dead turn's row if it is still that one; True for the one process that removed it
    (two processes starting at once never both report the same interruption)."""
    with store.session() as session:
        result = session.execute(delete(TurnOwnerRow).where(*_mine(dead.key, dead.owner)))  # type: ignore[arg-type]
        return bool(getattr(result, "rowcount", 0))
