"""Noticing writes by another process (the CLI, another desktop) to the same database (issue 18 and
issue 19, item 6).

What changed arrives as one ``ExternalChange``: lines created, lines changed,
new messages (line and id), run statuses (``line_runs``, migration 0014), the
lines whose follow-up queue changed (issue 31 item 3) and whether the providers changed.

* **PostgreSQL**: triggers (migration 0014) send ``NOTIFY xworkmate_changes``
  at the writer's commit; a follow-up queue's writer sends its own
  (``store.change_notices``). ``ChangeWatcher.listen`` keeps one connection of its
  own (psycopg, autocommit) that has said ``LISTEN`` and then only waits on
  its socket with ``select``, beside a wake-up pipe that ``close`` writes to:
  no statement at all while nothing happens. A notice sent by one of this
  process's own connections (its backend pid was seen at checkout) is dropped
  there. If the connection drops, the listener reconnects and reports
  ``everything`` (notices sent meanwhile are lost).
* **SQLite**: ``PRAGMA data_version`` on a connection of its own (the number
  moves only when another connection committed): one cheap statement when
  nothing happened, asked every ``SQLITE_INTERVAL_S`` by the listener thread
  and at once on ``wake`` (the window came to the front). When it moved, five
  small reads say what: messages after the newest id seen (the primary key:
  cost by what is new, not by the table's size), the lines' rows without
  ``updated_at`` (a few hundred rows, compared with the last read: rename,
  archive, binding — ``updated_at`` alone moves with every message, which the
  message read already reports), every ``line_runs`` row, every queued
  follow-up (a few, while turns run) and every provider row. Chosen over a
  change-log table written by triggers: no write cost on every message,
  nothing to prune, and the lines' read is the only one that grows with the
  data (with the number of lines, not of messages). This
  process's own writes also move ``data_version`` and come back here; the
  controller drops its own messages and statuses (``origin``), and re-applying
  a line's change is harmless.

``poll`` (the same reads, on both databases) stays for callers that ask.
Everything here may run on a worker thread; ``listen`` calls ``deliver`` on its
own thread.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import select
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, DateTime, ForeignKey, MetaData, String, Table, event, func
from sqlalchemy import select as sql_select
from sqlalchemy.engine import make_url

from xworkmate.store.change_notices import CHANNEL, QUEUE_CHANGED
from xworkmate.store.database import Store
from xworkmate.store.repositories.records import LISTED_TITLE
from xworkmate.store.tables import KEY_LEN, MessageRow, ProviderRow, QueuedFollowupRow, ThreadRow

log = logging.getLogger(__name__)

SQLITE_INTERVAL_S = 0.5
"""How often the SQLite listener asks ``PRAGMA data_version`` (the 1 s bound, with room for the reads)."""
RECONNECT_S = 2.0
MESSAGE_READ_LIMIT = 2000
"""More new messages than this at once: report ``everything`` rather than each id."""

ORIGIN = f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"[:64]
"""This process, as ``line_runs.origin`` names it: its own statuses are not news to it."""

line_runs = Table(
    "line_runs",
    MetaData(),
    Column("thread_id", String(KEY_LEN), ForeignKey(ThreadRow.thread_id, ondelete="CASCADE"), primary_key=True),
    Column("status", String(16), nullable=False),
    Column("origin", String(64), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
"""Migration 0014: each line's run status, as the process running its turn last wrote it."""


@dataclass(frozen=True)
class RunMark:
    """A line's run status as another process wrote it."""

    key: str
    status: str


@dataclass(frozen=True)
class ExternalChange:
    """What another process changed in the database, since the last report."""

    providers: bool = False
    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    messages: tuple[tuple[str, int], ...] = ()
    """(line key, message id), oldest first."""
    runs: tuple[RunMark, ...] = ()
    queues: tuple[str, ...] = ()
    """Lines whose follow-up queue changed (issue 31 item 3)."""
    everything: bool = False
    """Read it all again (the listener lost its connection for a while, or too much changed)."""

    @property
    def threads(self) -> bool:
        """A line was created or its row changed."""
        return bool(self.created or self.updated) or self.everything

    @property
    def any(self) -> bool:
        return self.providers or self.threads or bool(self.messages or self.runs or self.queues)


NOTHING = ExternalChange()


def mark_run(store: Store, key: str, status: str, *, origin: str = ORIGIN) -> None:
    """Write the line's run status (an upsert), for the other processes' windows."""
    values = {"status": status, "origin": origin, "updated_at": datetime.now(UTC)}
    with store.begin() as connection:
        from sqlalchemy.dialects import postgresql, sqlite

        insert: Any = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
        stmt = insert(line_runs).values(thread_id=key, **values)
        connection.execute(stmt.on_conflict_do_update(index_elements=[line_runs.c.thread_id], set_=values))


def run_statuses(store: Store, *, besides: str | None = None) -> dict[str, RunMark]:
    """Every line's stored run status (a line that never ran has none); ``besides``: not that origin's."""
    query = sql_select(line_runs.c.thread_id, line_runs.c.status)
    if besides is not None:
        query = query.where(line_runs.c.origin != besides)
    with store.connect() as connection:
        rows = connection.execute(query).all()
    return {row.thread_id: RunMark(row.thread_id, row.status) for row in rows}


@dataclass
class _Snapshot:
    providers: int = 0
    lines: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    runs: dict[str, tuple[str, str]] = field(default_factory=dict)
    newest_message: int = 0
    queues: dict[str, int] = field(default_factory=dict)
    """Each line's follow-up queue, as a hash of its rows (a queue holds a few)."""


_QUEUE: Any = QueuedFollowupRow.__table__

_LINE_COLUMNS = [
    *(c for c in ThreadRow.__table__.c if c.name not in {"updated_at", "title"}),
    # A title by its listed prefix and its length: what the list shows changes, and memory stays bounded.
    LISTED_TITLE,
    func.length(ThreadRow.title).label("title_length"),
]


def _differs(before: _Snapshot, after: _Snapshot, key: str) -> bool:
    return before.queues.get(key) != after.queues.get(key)


class ChangeWatcher:
    """Reports what other processes committed to one store (see the module's notes)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._sqlite = store.engine.dialect.name == "sqlite"
        self._raw: Any = None
        self._version: int | None = None
        self._own_pids: set[int] = set()
        if not self._sqlite:
            for engine in store.engines:
                event.listen(engine, "checkout", self._saw_connection)
        self._snapshot, _ = self._read()
        self._version = self._data_version()
        self._listener: _Listener | None = None

    # -- reading ---------------------------------------------------------------

    def _saw_connection(self, dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        driver = getattr(dbapi_connection, "driver_connection", dbapi_connection)
        pid = getattr(getattr(driver, "info", None), "backend_pid", None)
        if isinstance(pid, int):
            self._own_pids.add(pid)

    def _data_version(self) -> int | None:
        if not self._sqlite:
            return None
        if self._raw is None:
            self._raw = self._store.engine.raw_connection()  # its own: data_version is per connection
        cursor = self._raw.cursor()
        try:
            cursor.execute("PRAGMA data_version")
            row = cursor.fetchone()
        finally:
            cursor.close()
        return int(row[0]) if row else None

    def _read(self, newest_message: int | None = None) -> tuple[_Snapshot, list[tuple[str, int]]]:
        """The four small reads, and the messages after ``newest_message`` (None: just the newest id)."""
        messages: list[tuple[str, int]] = []
        with self._store.connect() as connection:
            providers = connection.execute(sql_select(ProviderRow.__table__).order_by(ProviderRow.name)).all()
            lines = connection.execute(sql_select(*_LINE_COLUMNS)).all()
            runs = connection.execute(sql_select(line_runs.c.thread_id, line_runs.c.status, line_runs.c.origin)).all()
            queued = connection.execute(
                sql_select(_QUEUE.c.thread_id, _QUEUE.c.id, _QUEUE.c.position, _QUEUE.c.text).order_by(
                    _QUEUE.c.thread_id, _QUEUE.c.position, _QUEUE.c.id
                )
            ).all()
            if newest_message is None:
                newest = connection.execute(sql_select(func.max(MessageRow.id))).scalar() or 0
            else:
                rows = connection.execute(
                    sql_select(MessageRow.thread_id, MessageRow.id)
                    .where(MessageRow.id > newest_message)
                    .order_by(MessageRow.id)
                    .limit(MESSAGE_READ_LIMIT + 1)
                ).all()
                messages = [(r.thread_id, r.id) for r in rows]
                newest = max([newest_message, *(r.id for r in rows)])
        queues: dict[str, list[tuple[Any, ...]]] = {}
        for row in queued:
            queues.setdefault(row.thread_id, []).append((row.id, row.position, row.text))
        snapshot = _Snapshot(
            providers=hash(tuple(tuple(row) for row in providers)),
            lines={row.thread_id: tuple(row) for row in lines},
            runs={row.thread_id: (row.status, row.origin) for row in runs},
            newest_message=newest,
            queues={key: hash(tuple(rows)) for key, rows in queues.items()},
        )
        return snapshot, messages

    def poll(self) -> ExternalChange:
        """What changed since the last poll (nothing, cheaply on SQLite, when no one wrote)."""
        with self._lock:
            if self._sqlite:
                version = self._data_version()
                if version == self._version:
                    return NOTHING
                self._version = version
            before = self._snapshot
            after, messages = self._read(before.newest_message)
            self._snapshot = after
        too_many = len(messages) > MESSAGE_READ_LIMIT
        return ExternalChange(
            providers=after.providers != before.providers,
            created=tuple(k for k in after.lines if k not in before.lines),
            updated=tuple(k for k, row in after.lines.items() if k in before.lines and before.lines[k] != row),
            messages=() if too_many else tuple(messages),
            runs=tuple(
                RunMark(k, status)
                for k, (status, origin) in after.runs.items()
                if origin != ORIGIN and before.runs.get(k) != (status, origin)
            ),
            queues=tuple(sorted(k for k in before.queues.keys() | after.queues.keys() if _differs(before, after, k))),
            everything=too_many,
        )

    # -- listening -------------------------------------------------------------

    def listen(self, deliver: Callable[[ExternalChange], None]) -> None:
        """Start reporting on a thread of its own: ``deliver(change)`` is called there, for each change."""
        with self._lock:
            if self._listener is None:
                self._listener = _Listener(self, deliver)

    @property
    def listening(self) -> bool:
        """The listener is ready: PostgreSQL has taken its ``LISTEN``; SQLite's thread runs."""
        listener = self._listener
        return listener is not None and listener.ready.is_set()

    def wake(self) -> None:
        """Look now (SQLite; on PostgreSQL the notices come by themselves)."""
        if self._listener is not None:
            self._listener.wake()

    def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            if not self._sqlite:
                for engine in self._store.engines:
                    if event.contains(engine, "checkout", self._saw_connection):
                        event.remove(engine, "checkout", self._saw_connection)
            if self._raw is not None:
                self._raw.close()
                self._raw = None

    def _notices(self, pairs: list[tuple[int, str]]) -> ExternalChange:
        """PostgreSQL notices (sender's backend pid, payload) as one change; this process's own dropped."""
        created: list[str] = []
        updated: list[str] = []
        messages: list[tuple[str, int]] = []
        runs: list[RunMark] = []
        queues: list[str] = []
        providers = False
        for pid, payload in pairs:
            if pid in self._own_pids:
                continue
            try:
                item = json.loads(payload)
                kind = item[0]
            except (ValueError, IndexError, TypeError):
                log.warning("an unreadable change notice: %r", payload[:200])
                continue
            if kind == "m":
                messages.append((str(item[1]), int(item[2])))
            elif kind == "l+":
                created.append(str(item[1]))
            elif kind == "l" and item[1] not in updated:
                updated.append(str(item[1]))
            elif kind == "p":
                providers = True
            elif kind == "r" and item[3] != ORIGIN:
                runs.append(RunMark(str(item[1]), str(item[2])))
            elif kind == QUEUE_CHANGED and item[1] not in queues:
                queues.append(str(item[1]))
        return ExternalChange(
            providers=providers,
            created=tuple(created),
            updated=tuple(k for k in updated if k not in created),
            messages=tuple(messages),
            runs=tuple(runs),
            queues=tuple(queues),
        )


class _Listener:
    """The watcher's thread: PostgreSQL's ``LISTEN`` connection, or SQLite's slow ``data_version`` check."""

    def __init__(self, watcher: ChangeWatcher, deliver: Callable[[ExternalChange], None]) -> None:
        self._watcher = watcher
        self._deliver = deliver
        self._stopped = threading.Event()
        self._now = threading.Event()
        self.ready = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        sqlite = watcher._sqlite
        target = self._run_sqlite if sqlite else self._run_postgres
        self._thread = threading.Thread(target=target, name="xworkmate-external-changes", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._now.set()

    def close(self) -> None:
        self._stopped.set()
        self._now.set()
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        self._thread.join(timeout=5)
        os.close(self._wake_r)
        os.close(self._wake_w)

    def _send(self, change: ExternalChange) -> None:
        if change.any and not self._stopped.is_set():
            try:
                self._deliver(change)
            except Exception:
                log.exception("could not hand over a change from another process")

    def _run_sqlite(self) -> None:
        self.ready.set()
        while not self._stopped.is_set():
            self._now.wait(SQLITE_INTERVAL_S)
            self._now.clear()
            if self._stopped.is_set():
                return
            try:
                self._send(self._watcher.poll())
            except Exception as exc:  # the file went away for a moment: the next round asks again
                log.warning("could not check the database for outside changes: %s", exc)

    def _run_postgres(self) -> None:
        import psycopg

        url = make_url(self._watcher._store.engine.url.render_as_string(hide_password=False))
        conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        lost = False
        while not self._stopped.is_set():
            try:
                with psycopg.connect(conninfo, autocommit=True, application_name="xworkmate-listener") as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.ready.set()
                    if lost:
                        self._send(ExternalChange(everything=True))  # notices sent while away are gone
                    self._wait(conn)
            except (psycopg.Error, OSError) as exc:
                if self._stopped.is_set():
                    return
                lost = True
                log.warning("the change listener lost the database, retrying: %s", exc)
                self._stopped.wait(RECONNECT_S)

    def _wait(self, conn: Any) -> None:
        """Sleep on the socket (and the wake-up pipe) until notices come; no statement is sent."""
        pgconn = conn.pgconn
        while not self._stopped.is_set():
            readable, _, _ = select.select([conn.fileno(), self._wake_r], [], [])
            if self._stopped.is_set():
                return
            if self._wake_r in readable:
                os.read(self._wake_r, 64)
            pgconn.consume_input()
            if pgconn.status != 0:  # CONNECTION_OK
                raise OSError("the listening connection is closed")
            pairs: list[tuple[int, str]] = []
            while (notice := pgconn.notifies()) is not None:
                pairs.append((notice.be_pid, notice.extra.decode("utf-8", "replace")))
            if pairs:
                self._send(self._watcher._notices(pairs))
