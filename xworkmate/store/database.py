"""Opening the database: engine, pragmas, migrations, clear failures (SPEC §7).

Alembic is the only way the schema is created or upgraded. A database that
cannot be reached, or a file that is not a SQLite database, gives one clear
line (``StoreOpenError``) and is never overwritten.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


class StoreOpenError(RuntimeError):
    """The database could not be opened; the message is one line a person can act on."""


def _alembic_config(connection: Any | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str | None:
    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


def _known_revision(revision: str) -> bool:
    try:
        return ScriptDirectory.from_config(_alembic_config()).get_revision(revision) is not None
    except CommandError:
        return False


def _describe(url: URL) -> str:
    if url.get_backend_name() == "sqlite":
        return f"SQLite database {url.database or ':memory:'}"
    return url.render_as_string(hide_password=True)


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


def create_store_engine(database_url: str) -> Engine:
    try:
        url = make_url(database_url)
    except ArgumentError as exc:
        raise StoreOpenError(f"XWORKMATE_DATABASE_URL is not a valid database URL: {database_url!r}") from exc
    backend = url.get_backend_name()
    kwargs: dict[str, Any] = {}
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

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
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
    def description(self) -> str:
        return _describe(self.engine.url)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions() as session, session.begin():
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self._sessions() as session:
            yield session

    def close(self) -> None:
        self.engine.dispose()


def open_store(database_url: str, *, migrate: bool = True) -> Store:
    """Connect, check the database is what it claims to be, and upgrade it to head."""
    engine = create_store_engine(database_url)
    where = _describe(engine.url)
    try:
        with engine.connect() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
            if engine.dialect.name == "sqlite":
                # Reading the schema forces SQLite to parse the file header: a
                # corrupt or foreign file fails here, before anything is written.
                connection.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar()
            connection.commit()
        head = head_revision()
        if current != head:
            if current is not None and not _known_revision(current):
                raise StoreOpenError(
                    f"{where} has schema revision {current}, which this version of XWorkmate does not know;"
                    " it may have been written by a newer version"
                )
            if not migrate:
                raise StoreOpenError(f"{where} is at schema revision {current}, expected {head}")
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
    return Store(engine)
