"""Opening the database: engine, pragmas, migrations, clear failures (SPEC §7).

Alembic is the only way the schema is created or upgraded. A database that
cannot be reached, or a file that is not a SQLite database, gives one clear
line (``StoreOpenError``) and is never overwritten.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect, make_url, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


class StoreOpenError(RuntimeError):
    """The database could not be opened; the message is one line a person can act on."""


if TYPE_CHECKING:
    from alembic.config import Config

_REVISION_RE = re.compile(r"^revision\s*=\s*[\"'](\w+)[\"']", re.MULTILINE)
_DOWN_RE = re.compile(r"^down_revision\s*=\s*(?:None|[\"'](\w+)[\"'])", re.MULTILINE)


def _alembic_config(connection: Any | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@cache
def _revisions() -> dict[str, str | None]:
    """revision → down_revision, read from the migration scripts without importing Alembic.

    Opening an up-to-date database is on the start-up path; Alembic itself is
    imported only when there is something to upgrade.
    """
    graph: dict[str, str | None] = {}
    for script in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        source = script.read_text(encoding="utf-8")
        revision, down = _REVISION_RE.search(source), _DOWN_RE.search(source)
        if revision is None or down is None:
            raise StoreOpenError(f"migration script {script.name} has no revision/down_revision line")
        graph[revision.group(1)] = down.group(1)
    return graph


def head_revision() -> str | None:
    graph = _revisions()
    heads = set(graph) - {down for down in graph.values() if down is not None}
    if len(heads) > 1:
        raise StoreOpenError(f"the migrations have several heads: {', '.join(sorted(heads))}")
    return next(iter(heads), None)


def _known_revision(revision: str) -> bool:
    return revision in _revisions()


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


def _set_sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=5000")
    finally:
        cursor.close()


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
        kwargs["connect_args"] = {"connect_timeout": 5}
        kwargs["pool_pre_ping"] = True
    elif backend == "sqlite":
        if url.database and url.database != ":memory:":
            db_path = Path(url.database)
            if db_path.is_dir():
                raise StoreOpenError(f"{_describe(url)} is a folder, not a database file")
            db_path.parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"check_same_thread": False}
        kwargs["poolclass"] = NullPool if url.database in (None, "", ":memory:") else None
        if kwargs["poolclass"] is None:
            del kwargs["poolclass"]
    try:
        engine = create_engine(url, **kwargs)
    except (NoSuchModuleError, ArgumentError, ImportError) as exc:
        raise StoreOpenError(f"cannot use database URL {_describe(url)}: {_first_line(exc)}") from exc
    if backend == "sqlite":
        event.listen(engine, "connect", _set_sqlite_pragmas)
    return engine


class Store:
    """One database. Every operation opens its own short ``Session`` (STYLE 5)."""

    def __init__(self, engine: Engine, reader: Engine | None = None) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        # Reads are single statements: on an autocommit pool of their own they need no BEGIN and
        # ROLLBACK round trips (on PostgreSQL, half of what a read cost; issue 7, evidence figure).
        self._reader = reader if reader is not None else engine.execution_options(isolation_level="AUTOCOMMIT")
        self._read_sessions = sessionmaker(self._reader, expire_on_commit=False)
        from xworkmate.store.repositories import (
            AppStateRepository,
            MessageRepository,
            ProviderRepository,
            ThreadRepository,
        )

        self.threads = ThreadRepository(self)
        self.providers = ProviderRepository(self)
        self.messages = MessageRepository(self)
        self.app_state = AppStateRepository(self)

    @property
    def engines(self) -> tuple[Engine, Engine]:
        """The writers' engine and the readers' autocommit engine (one database, two pools)."""
        return self.engine, self._reader.engine

    @property
    def description(self) -> str:
        return _describe(self.engine.url)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions() as session, session.begin():
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading: autocommit, each statement sees the latest committed data."""
        with self._read_sessions() as session:
            yield session

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        """A Core connection for reading, from the autocommit pool (no ORM unit of work, no transaction)."""
        with self._reader.connect() as connection:
            yield connection

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """A Core connection in a transaction, committed on leaving."""
        with self.engine.begin() as connection:
            yield connection

    def close(self) -> None:
        self.engine.dispose()
        self._reader.engine.dispose()


def open_store(database_url: str, *, migrate: bool = True) -> Store:
    """Connect, check the database is what it claims to be, and upgrade it to head."""
    engine = create_store_engine(database_url)
    where = _describe(engine.url)
    try:
        with engine.connect() as connection:
            current = _current_revision(connection)
            if engine.dialect.name == "sqlite":
                # Reading the schema forces SQLite to parse the file header: a
                # corrupt or foreign file fails here, before anything is written.
                connection.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar()
            connection.commit()
        head = head_revision()
        if head is None:
            # A build that lost migrations/versions must stop here, not fail later with "no such table".
            raise StoreOpenError(f"no schema migrations found in {MIGRATIONS_DIR}; this installation is incomplete")
        if current != head:
            if current is not None and not _known_revision(current):
                raise StoreOpenError(
                    f"{where} has schema revision {current}, which this version of XWorkmate does not know;"
                    " it may have been written by a newer version"
                )
            if not migrate:
                raise StoreOpenError(f"{where} is at schema revision {current}, expected {head}")
            from alembic import command

            with engine.begin() as connection:
                command.upgrade(_alembic_config(connection), "head")
    except StoreOpenError:
        engine.dispose()
        raise
    except DBAPIError as exc:
        engine.dispose()
        raise StoreOpenError(f"cannot open {where}: {_first_line(exc)}") from exc
    except SQLAlchemyError as exc:
        engine.dispose()
        raise StoreOpenError(f"cannot open {where}: {_first_line(exc)}") from exc
    return Store(engine, create_store_engine(database_url, autocommit=True))
