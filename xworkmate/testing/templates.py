"""Migrated store templates: the schema is built once per test session, then copied per test (issue 33 item 5).

Migrating a new store costs 90–350 ms on SQLite and 1.3–2 s on PostgreSQL; copying a migrated one costs a
file copy (SQLite) or ``CREATE DATABASE … TEMPLATE`` (PostgreSQL). A copy is the database a first start
leaves behind, so ``open_store`` on it finds the head revision and migrates nothing. Tests of migrating
itself ask for an empty database (``pg_database_url``, a URL with no file yet) and still get one.

Imported inside fixtures only: the ``xworkmate`` pytest plugin stays importable with pytest alone.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import psycopg

TEMPLATE_PREFIX = "xwm_tpl_"


def migrated_sqlite(path: Path) -> Path:
    """A SQLite file at ``path`` upgraded to head and closed (its WAL checkpointed into the file)."""
    from xworkmate.store import open_store

    open_store(f"sqlite:///{path}").close()
    for suffix in ("-wal", "-shm"):
        leftover = path.with_name(path.name + suffix)
        if leftover.exists() and leftover.stat().st_size:
            raise RuntimeError(f"the SQLite template left an unmerged {leftover.name}")
        leftover.unlink(missing_ok=True)
    return path


def copy_sqlite(template: Path, target: Path) -> None:
    """The template's copy at ``target`` unless a file is there already (a test that made its own)."""
    if target.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, target)


def sqlite_path_of(url: str) -> Path | None:
    """The file of a ``sqlite:///`` URL, or ``None`` for any other URL."""
    prefix = "sqlite:///"
    return Path(url[len(prefix) :]) if url.startswith(prefix) else None


class PostgresTemplate:
    """One migrated template database on a server, named uniquely for this session and dropped by ``drop``.

    ``server_url`` is a SQLAlchemy URL (``postgresql+psycopg://…/db``) of a database we may connect to.
    """

    def __init__(self, server_url: str) -> None:
        self._server_url = server_url
        self._admin = server_url.replace("+psycopg", "", 1)
        self._base = server_url.rpartition("/")[0]
        self.name = f"{TEMPLATE_PREFIX}{uuid.uuid4().hex[:16]}"
        self._ready = False

    def url_of(self, database: str) -> str:
        return f"{self._base}/{database}"

    def _build(self) -> None:
        from xworkmate.store import open_store

        with psycopg.connect(self._admin, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')
        open_store(self.url_of(self.name)).close()  # pools disposed: no session stays on the template
        self._ready = True

    def create(self, database: str) -> str:
        """A new database ``database`` copied from the template (built on first use); its URL."""
        if not self._ready:
            self._build()
        with psycopg.connect(self._admin, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'CREATE DATABASE "{database}" TEMPLATE "{self.name}"')
        return self.url_of(database)

    def drop(self) -> None:
        if not self._ready:
            return
        with psycopg.connect(self._admin, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        self._ready = False
