"""Opening the database: engine, pragmas, migrations, clear failures (SPEC §7).

Alembic is the only way the schema is created or upgraded. A database that
cannot be reached, or a file that is not a SQLite database, gives one clear
line (``StoreOpenError``) and is never overwritten.

ERR-3: any number of processes may open a fresh database at once. Upgrades
run under a lock (SQLite's write lock, taken by ``BEGIN IMMEDIATE``;
``pg_advisory_xact_lock`` on PostgreSQL) and re-read the revision once they
hold it. SQLite writers take the write lock when their transaction begins, so
they wait out a busy timeout instead of failing at their first write; the few
places where SQLite answers "locked" without waiting are retried. PostgreSQL
pools are small, and a server with no free slot is retried briefly at connect,
then named in one line.
"""

from __future__ import annotations

import contextlib
import logging
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, inspect, make_url, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError, DisconnectionError, NoSuchModuleError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from xworkmate.store import search as _search  # noqa: F401  (LOOP-3: the index follows every message write)
from xworkmate.store.agent_state import AgentStateRepository, McpServerRepository
from xworkmate.store.followup_queue import FollowupQueueRepository
from xworkmate.store.line_marks import LineMarkRepository
from xworkmate.store.repositories import (
    AppStateRepository,
    MessageRepository,
    ProviderRepository,
    ThreadRepository,
)
from xworkmate.store.revisions import MIGRATIONS_DIR, head_revision, revisions
from xworkmate.store.revisions import StoreOpenError as StoreOpenError  # its home before issue 19 item 7

log = logging.getLogger(__name__)


# ERR-3: how long one SQLite statement waits for another process's lock, and how often a wait that
# ran out (or a "locked" that SQLite gives without waiting) is tried again.
SQLITE_BUSY_TIMEOUT_S = 5.0
SQLITE_LOCKED_ATTEMPTS = 4
# ERR-3: connections per PostgreSQL pool (a process has two: writers and readers), and how long a
# connect keeps trying while the server has no free connection slot.
PG_POOL_SIZE = 2
PG_POOL_OVERFLOW = 3
PG_FULL_RETRY_S = 10.0
# How long connecting to a PostgreSQL server waits for it, unless the URL says (``?connect_timeout=30``).
PG_CONNECT_TIMEOUT_S = 5
# A pooled PostgreSQL connection idle longer than this is pinged as it is checked out; one used more
# recently is trusted (a switch's reads follow each other by milliseconds, and a ping is a round trip).
PG_PING_IDLE_S = 1.0
# ERR-3: the advisory lock key that serialises schema upgrades on one PostgreSQL database ("xwmigrat").
PG_MIGRATION_LOCK = 0x78776D6967726174
# Issue 34 item 2: what the readers' connections tell the planner a random page read costs. With the
# default (4.0: a seek of a spinning disk, against 1.0 for the next page) a search for a word in one
# message of 2,000 among 5,000,000 walked every index entry newest first (115,000 entries read and
# tested, 43 ms) rather than take the GIN index's 2,574 matches and their pages (4.4 ms): the walk's pages
# count as sequential. What the app reads is the store's hot part; 1.1 is the figure PostgreSQL's
# documentation gives for storage where a random read costs about a sequential one.
PG_READ_RANDOM_PAGE_COST = 1.1

_T = TypeVar("_T")


if TYPE_CHECKING:
    from alembic.config import Config


def _alembic_config(connection: Any | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def _known_revision(revision: str) -> bool:
    return revision in revisions()


def _current_revision(connection: Any) -> str | None:
    if not inspect(connection).has_table("alembic_version"):
        return None
    value = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return str(value) if value is not None else None


def _describe(url: URL) -> str:
    if url.get_backend_name() == "sqlite":
        return f"SQLite database {url.database or ':memory:'}"
    return url.render_as_string(hide_password=True)


def describe_database_url(database_url: str) -> str:
    """Where a database is, for a person: ``SQLite database /path`` or the URL without its password."""
    try:
        return _describe(make_url(database_url))
    except Exception:
        return database_url or "the database"


def database_failure(exc: BaseException, database_url: str) -> str:
    """One line for a database failure during an operation (ERR-1): what happened, where, what to do."""
    where = describe_database_url(database_url)
    detail = _first_line(exc)
    lowered = detail.lower()
    if "readonly database" in lowered or "read-only" in lowered:
        return f"{where} is read-only, so nothing could be saved ({detail}); check its permissions and its disk"
    if "disk is full" in lowered or "no space left" in lowered or "could not extend file" in lowered:
        return f"the disk holding {where} is full, so nothing more could be saved ({detail}); free some space"
    if "disk i/o error" in lowered:
        return f"{where} could not be read or written ({detail}); its disk may be full, read-only or failing"
    if "database is locked" in lowered or "database is busy" in lowered:
        return f"{where} stayed locked by another process ({detail}); try again"
    if "too many clients" in lowered or "connection slots are reserved" in lowered:
        return f"the database server for {where} has no free connections ({detail}); try again later"
    return f"the database failed: {where}: {detail}"


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()
    return text[0] if text else type(orig).__name__


def _sqlite_locked(exc: BaseException) -> bool:
    message = str(getattr(exc, "orig", None) or exc).lower()
    return "database is locked" in message or "database is busy" in message


def _server_full(exc: BaseException) -> bool:
    message = str(getattr(exc, "orig", None) or exc).lower()
    return "too many clients" in message or "connection slots are reserved" in message


def _retry_while_locked(attempt: Callable[[], _T]) -> _T:
    """ERR-3: run ``attempt`` again, after a short random pause, while SQLite says the database is locked."""
    for tries in range(1, SQLITE_LOCKED_ATTEMPTS):
        try:
            return attempt()
        except (sqlite3.OperationalError, OperationalError) as exc:
            if not _sqlite_locked(exc):
                raise
            time.sleep(random.uniform(0.02, 0.1) * tries)  # apart, so that the waiters do not meet again
    return attempt()


def _set_sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # The busy timeout comes first (it also came with connect's ``timeout``): every later statement,
    # on the writers' and the readers' connections alike, waits for a lock instead of failing (ERR-3).
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        # Turning a new file to WAL needs it to itself, and SQLite says "locked" here without waiting.
        _retry_while_locked(lambda: cursor.execute("PRAGMA journal_mode=WAL"))
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()
    # pysqlite's own BEGIN is deferred and comes only before DML; the writers say BEGIN themselves.
    dbapi_connection.isolation_level = None


def _plan_reads_for_hot_pages(dbapi_connection: Any, _record: Any) -> None:
    """A new reader connection on PostgreSQL: ``PG_READ_RANDOM_PAGE_COST`` for the session (one statement
    when the connection is made, none per read); the SQLAlchemy recipe for a session setting on connect."""
    autocommit = dbapi_connection.autocommit
    dbapi_connection.autocommit = True
    try:
        with dbapi_connection.cursor() as cursor:
            cursor.execute(f"SET SESSION random_page_cost = {PG_READ_RANDOM_PAGE_COST}")
    finally:
        dbapi_connection.autocommit = autocommit


def _begin_immediate(connection: Connection) -> None:
    """ERR-3: a SQLite write transaction takes the write lock as it begins (the SQLAlchemy pysqlite recipe).

    A deferred transaction that has read and then writes gets "database is locked" at once when
    another process wrote in between; ``BEGIN IMMEDIATE`` waits for the lock under the busy timeout
    instead. It also makes a schema upgrade on SQLite one transaction that holds the lock throughout.
    """
    if connection.get_execution_options().get("isolation_level") == "AUTOCOMMIT":
        return  # a reader's statement needs no transaction
    _retry_while_locked(lambda: connection.exec_driver_sql("BEGIN IMMEDIATE"))


def _connect_when_server_has_room(dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
    """ERR-3: a PostgreSQL server with no free connection slot is asked again for a few seconds."""
    deadline = time.monotonic() + PG_FULL_RETRY_S
    pause = 0.05
    while True:
        try:
            return dialect.connect(*cargs, **cparams)
        except dialect.loaded_dbapi.OperationalError as exc:
            left = deadline - time.monotonic()
            if not _server_full(exc) or left <= 0:
                raise
        time.sleep(min(left, random.uniform(pause / 2, pause)))
        pause = min(pause * 2, 1.0)


# Set on a thread while it checks out a connection for a read that retries on its own (``Store.connect``).
_UNPINGED = threading.local()


@contextmanager
def _unpinged() -> Iterator[None]:
    before = getattr(_UNPINGED, "on", False)
    _UNPINGED.on = True
    try:
        yield
    finally:
        _UNPINGED.on = before


def _ping_when_idle(engine: Engine) -> None:
    """The pool's pre-ping, only for a connection idle for ``PG_PING_IDLE_S`` or more: a dead one is
    replaced at checkout (``DisconnectionError``, SQLAlchemy's pessimistic recipe), as before."""

    def used(_dbapi_connection: Any, record: Any, *_args: Any) -> None:
        record.info["xw_used"] = time.monotonic()

    def checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if getattr(_UNPINGED, "on", False) or time.monotonic() - record.info.get("xw_used", 0.0) < PG_PING_IDLE_S:
            return
        dialect = engine.dialect
        try:
            alive = dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as exc:
            if not dialect.is_disconnect(exc, dbapi_connection, None):
                raise
            alive = False
        if not alive:
            raise DisconnectionError("the server closed the pooled connection")
        record.info["xw_used"] = time.monotonic()

    event.listen(engine, "connect", used)
    event.listen(engine, "checkin", used)
    event.listen(engine, "checkout", checkout)


def create_store_engine(database_url: str, *, autocommit: bool = False) -> Engine:
    """An engine for this URL; ``autocommit`` for the readers' own pool (no BEGIN/ROLLBACK per read)."""
    try:
        url = make_url(database_url)
    except ArgumentError as exc:
        raise StoreOpenError(f"XWORKMATE_DATABASE_URL is not a valid database URL: {database_url!r}") from exc
    backend = url.get_backend_name()
    kwargs: dict[str, Any] = {"isolation_level": "AUTOCOMMIT"} if autocommit else {}
    if backend == "postgresql":
        if url.drivername == "postgresql":
            url = url.set(drivername="postgresql+psycopg")
        if "connect_timeout" not in url.query:  # a URL may set its own (a slow link, a test)
            kwargs["connect_args"] = {"connect_timeout": PG_CONNECT_TIMEOUT_S}
        kwargs["pool_size"] = PG_POOL_SIZE  # ERR-3: many processes share one server's connection slots
        kwargs["max_overflow"] = PG_POOL_OVERFLOW
    elif backend == "sqlite":
        if url.database and url.database != ":memory:":
            db_path = Path(url.database)
            if db_path.is_dir():
                raise StoreOpenError(f"{_describe(url)} is a folder, not a database file")
            db_path.parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_S}
        kwargs["poolclass"] = NullPool if url.database in (None, "", ":memory:") else None
        if kwargs["poolclass"] is None:
            del kwargs["poolclass"]
    try:
        engine = create_engine(url, **kwargs)
    except (NoSuchModuleError, ArgumentError, ImportError) as exc:
        raise StoreOpenError(f"cannot use database URL {_describe(url)}: {_first_line(exc)}") from exc
    if backend == "sqlite":
        event.listen(engine, "connect", _set_sqlite_pragmas)
        if not autocommit:
            event.listen(engine, "begin", _begin_immediate)
    elif backend == "postgresql":
        event.listen(engine, "do_connect", _connect_when_server_has_room)
        if autocommit:
            event.listen(engine, "connect", _plan_reads_for_hot_pages)
        _ping_when_idle(engine)
    return engine


class _Scope:
    """What ``Store.operation()`` holds on one thread: one reader and one writer connection, each checked
    out (on PostgreSQL, pinged only when idle: ``PG_PING_IDLE_S``) at most once, when first needed."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._reader: Connection | None = None
        self._writer: Connection | None = None

    def reader(self, *, unpinged: bool = False) -> Connection:
        if self._reader is None:
            with _unpinged() if unpinged else contextlib.nullcontext():
                self._reader = self._store._reader.connect()
        return self._reader

    def writer(self) -> Connection:
        if self._writer is None:
            self._writer = self._store.engine.connect()
        return self._writer

    def close(self, failed: bool) -> None:
        for connection in (self._writer, self._reader):
            if connection is None:
                continue
            if failed and connection.in_transaction():
                connection.rollback()
            connection.close()
        self._reader = self._writer = None


class Store:
    """One database. Every repository call opens its own short ``Session`` (STYLE 5), or, inside
    ``with store.operation():``, shares the one connection per pool the operation holds."""

    def __init__(self, engine: Engine, reader: Engine | None = None) -> None:
        self.engine = engine
        self._closed = False
        self._before_close: list[Callable[[], None]] = []
        self._local = threading.local()  # the scope of the operation running on each thread
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        # Reads are single statements: on an autocommit pool of their own they need no BEGIN and
        # ROLLBACK round trips (on PostgreSQL, half of what a read cost; issue 7, evidence figure).
        self._reader = reader if reader is not None else engine.execution_options(isolation_level="AUTOCOMMIT")
        self._read_sessions = sessionmaker(self._reader, expire_on_commit=False)
        for pool_of in {id(e): e for e in self.engines}.values():
            event.listen(pool_of, "checkin", self._close_late_checkin)
        self.threads = ThreadRepository(self)
        self.providers = ProviderRepository(self)
        self.messages = MessageRepository(self)
        self.app_state = AppStateRepository(self)
        self.line_marks = LineMarkRepository(self)  # issue 17: seen, outcome, mute, draft per line
        self.agent_state = AgentStateRepository(self)  # issue 15: agent offers, usage (0012)
        self.mcp_servers = McpServerRepository(self)
        self.followup_queue = FollowupQueueRepository(self)  # issue 31: queued follow-ups (0019)

    @property
    def engines(self) -> tuple[Engine, Engine]:
        """The writers' engine and the readers' autocommit engine (one database, two pools)."""
        return self.engine, self._reader.engine

    @property
    def description(self) -> str:
        return _describe(self.engine.url)

    @contextmanager
    def operation(self) -> Iterator[None]:
        """One operation's scope on this thread (issue 19, item 1: one store session per operation).

        Every ``read``/``connect`` inside it uses ONE connection from the readers' pool, and every
        ``session``/``begin`` ONE connection from the writers' pool: a checkout (and at most one
        PostgreSQL ping) per scope instead of one per repository call. A nested scope is the outer one.
        Each write still commits when its own ``session``/``begin`` block ends, as outside a scope: a
        SQLite write lock (or a PostgreSQL row lock) is never held across the operation's other work
        (such as handing a turn to the GUI loop, ``ui/operations``), and what a failed operation wrote
        before it failed stays written, as its change records say. Leaving the scope returns both
        connections, rolling back any transaction a failure left open. Thread-local, not a contextvar:
        a task created inside the scope must not inherit the worker's connections.
        """
        if getattr(self._local, "scope", None) is not None:
            yield
            return
        scope = _Scope(self)
        self._local.scope = scope
        failed = True
        try:
            yield
            failed = False
        finally:
            self._local.scope = None
            scope.close(failed)

    def _scope(self) -> _Scope | None:
        scope: _Scope | None = getattr(self._local, "scope", None)
        return scope

    @contextmanager
    def session(self) -> Iterator[Session]:
        """An ORM session in a write transaction, committed on leaving (on SQLite, ``BEGIN IMMEDIATE``)."""
        scope = self._scope()
        if scope is None:
            with self._sessions() as session, session.begin():
                yield session
            return
        connection = scope.writer()
        with self._joined(connection), self._sessions(bind=connection) as session, session.begin():
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading: autocommit, each statement sees the latest committed data."""
        scope = self._scope()
        with self._read_sessions(bind=scope.reader()) if scope else self._read_sessions() as session:
            yield session

    @contextmanager
    def connect(self, *, unpinged: bool = False) -> Iterator[Connection]:
        """A Core connection for reading, from the autocommit pool (no ORM unit of work, no transaction).

        ``unpinged``: not pinged at checkout however long it was idle, for a read that is tried once more
        when its connection turns out to be gone (the switch's fresh read, ``repositories/line_panes``:
        the ping would be a round trip of its own before it). The connection a failed read invalidated
        is replaced by the pool when it is used again.
        """
        scope = self._scope()
        if scope is not None:
            yield scope.reader(unpinged=unpinged)
            return
        with _unpinged() if unpinged else contextlib.nullcontext():
            connection = self._reader.connect()
        with connection:
            yield connection

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """A Core connection in a transaction, committed on leaving."""
        scope = self._scope()
        if scope is None:
            with self.engine.begin() as connection:
                yield connection
            return
        connection = scope.writer()
        with self._joined(connection):
            yield connection

    @staticmethod
    @contextmanager
    def _joined(connection: Connection) -> Iterator[None]:
        """The scope's writer in a transaction: its own, committed on leaving, or (nested in another
        write block of the same scope) the one already open, which that block commits."""
        if connection.in_transaction():
            yield
            return
        with connection.begin():
            yield

    @property
    def closed(self) -> bool:
        """``close`` was called: best-effort writers (another thread's run statuses) skip their write, so no
        connection is opened on a pool nobody will close again."""
        return self._closed

    def before_close(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` when the store closes, before its pools go (a writer on another thread finishes
        first, so no connection is checked in to a pool already disposed and left open until collected)."""
        self._before_close.append(hook)

    def _close_late_checkin(self, dbapi_connection: Any, record: Any) -> None:
        """A connection given back after ``close`` (a read another thread was still making) is closed now: the
        pool it goes back to is disposed, and it would stay open until collected (``before_close`` lets the
        writers that know they run finish first; a read in flight cannot be waited for, closing never waits)."""
        if self._closed and dbapi_connection is not None:
            record.invalidate()

    def close(self) -> None:
        self._closed = True
        for hook in self._before_close:
            try:
                hook()
            except Exception:  # closing goes on: the pools must go whatever a hook did
                log.exception("a hook before closing the store failed")
        self.engine.dispose()
        self._reader.engine.dispose()


def open_store(database_url: str, *, migrate: bool = True) -> Store:
    """Connect, check the database is what it claims to be, and upgrade it to head."""
    engine = create_store_engine(database_url)
    reader = create_store_engine(database_url, autocommit=True)
    where = _describe(engine.url)
    try:
        # The look costs no lock: many processes starting at once each read here side by side (ERR-3).
        with reader.connect() as connection:
            current = _current_revision(connection)
            if engine.dialect.name == "sqlite":
                # Reading the schema forces SQLite to parse the file header: a
                # corrupt or foreign file fails here, before anything is written.
                connection.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar()
                _refuse_views_of_tables(connection, where)
        head = head_revision()
        if head is None:
            # A build that lost migrations/versions must stop here, not fail later with "no such table".
            raise StoreOpenError(f"no schema migrations found in {MIGRATIONS_DIR}; this installation is incomplete")
        if current != head:
            _check_upgradable(current, head, where=where, migrate=migrate)
            with engine.begin() as connection:  # on SQLite, BEGIN IMMEDIATE: the write lock, held to the end
                if engine.dialect.name == "postgresql":
                    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_MIGRATION_LOCK})
                # ERR-3: the process that held the lock before us may have upgraded it already.
                current = _current_revision(connection)
                if current != head:
                    _check_upgradable(current, head, where=where, migrate=migrate)
                    from alembic import command

                    command.upgrade(_alembic_config(connection), "head")
    except StoreOpenError:
        engine.dispose()
        reader.dispose()
        raise
    except SQLAlchemyError as exc:
        engine.dispose()
        reader.dispose()
        if _server_full(exc):
            raise StoreOpenError(database_failure(exc, database_url)) from exc
        raise StoreOpenError(f"cannot open {where}: {_first_line(exc)}") from exc
    return Store(engine, reader)


def _refuse_views_of_tables(connection: Connection, where: str) -> None:
    """A crafted file whose table is a view (issue 29: an endless recursive ``threads``) is not ours: one line,
    before any read of it can keep a core busy."""
    from xworkmate.store.tables import Base

    names = sorted(Base.metadata.tables)
    marks = ", ".join("?" for _ in names)
    found = connection.exec_driver_sql(
        f"SELECT name FROM sqlite_master WHERE type <> 'table' AND name IN ({marks})", tuple(names)
    ).first()
    if found is not None:
        raise StoreOpenError(f"{where} is not an XWorkmate database: its {found[0]!r} is not a table")


def _check_upgradable(current: str | None, head: str, *, where: str, migrate: bool) -> None:
    if current is not None and not _known_revision(current):
        raise StoreOpenError(
            f"{where} has schema revision {current}, which this version of XWorkmate does not know;"
            " it may have been written by a newer version"
        )
    if not migrate:
        raise StoreOpenError(f"{where} is at schema revision {current}, expected {head}")
