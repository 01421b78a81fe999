"""What a repository needs of the store: its four ways to reach the database (issue 19).

``store.database.Store`` has them; the repositories take this protocol instead of the class, so
the module that opens the database can build them without the two importing each other.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from sqlalchemy import Connection
from sqlalchemy.orm import Session


class Sessions(Protocol):
    """A store's sessions and connections (``Store`` documents each)."""

    def session(self) -> AbstractContextManager[Session]: ...

    def read(self) -> AbstractContextManager[Session]: ...

    def connect(self, *, unpinged: bool = False) -> AbstractContextManager[Connection]: ...

    def begin(self) -> AbstractContextManager[Connection]: ...
