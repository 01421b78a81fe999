"""Noticing writes by another process (the CLI) to the same database (issue 18, item 6).

``ChangeWatcher.poll`` says which tables changed since the last poll. On
SQLite it first asks ``PRAGMA data_version`` on a connection of its own
(the number changes only when another connection committed): one cheap
statement when nothing happened. Then, and on PostgreSQL every time, it
compares two small signatures: every provider row, and the threads' count
and newest ``updated_at``. Safe to call from a worker thread.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from xworkmate.store.database import Store
from xworkmate.store.tables import ProviderRow, ThreadRow


@dataclass(frozen=True)
class ExternalChange:
    """What changed in the database since the last poll."""

    providers: bool = False
    threads: bool = False

    @property
    def any(self) -> bool:
        return self.providers or self.threads


NOTHING = ExternalChange()


class ChangeWatcher:
    """Polls one store for committed changes to providers and threads."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._sqlite = store.engine.dialect.name == "sqlite"
        self._raw: Any = None
        self._version: int | None = None
        self._signatures = self._read_signatures()
        self._version = self._data_version()

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

    def _read_signatures(self) -> tuple[int, tuple[Any, ...]]:
        with self._store.connect() as connection:
            providers = connection.execute(select(ProviderRow.__table__).order_by(ProviderRow.name)).all()
            threads = connection.execute(select(func.count(), func.max(ThreadRow.updated_at))).one()
        return hash(tuple(tuple(row) for row in providers)), tuple(threads)

    def poll(self) -> ExternalChange:
        """Which tables changed since the last poll (nothing, cheaply, when no one wrote)."""
        with self._lock:
            if self._sqlite:
                version = self._data_version()
                if version == self._version:
                    return NOTHING
                self._version = version
            signatures = self._read_signatures()
            before, self._signatures = self._signatures, signatures
        return ExternalChange(providers=signatures[0] != before[0], threads=signatures[1] != before[1])

    def close(self) -> None:
        with self._lock:
            if self._raw is not None:
                self._raw.close()
                self._raw = None
