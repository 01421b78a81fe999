"""One line for a failure nobody planned for (ERR-1): the CLI, the window and background turns alike.

The database's own words become what happened and what to do
(``store.database_failure``); an operating-system error keeps its reason and
the file; anything else is a bug of ours, said in one line, with the traceback
left to the log file.
"""

from __future__ import annotations

from typing import Literal

from sqlalchemy.exc import SQLAlchemyError

from xworkmate.store import StoreOpenError, database_failure

__all__ = ["FailureKind", "describe_failure", "failure_kind", "is_database_failure"]

FailureKind = Literal["database", "system"]
"""What failed under a turn (ERR-1): the database (its server, or the disk its file is on), or the system."""


def describe_failure(exc: BaseException, database_url: str) -> str:
    if isinstance(exc, StoreOpenError):
        return str(exc)  # already one line that names the database
    if isinstance(exc, SQLAlchemyError):
        return database_failure(exc, database_url)
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else "")
    first = str(exc).strip().splitlines()
    return f"unexpected error: {first[0] if first else type(exc).__name__} (details in the log file)"


def is_database_failure(exc: BaseException) -> bool:
    """The database failed (ERR-1 gives it its own exit code): it could not be opened, or a statement failed."""
    return isinstance(exc, (SQLAlchemyError, StoreOpenError))


def failure_kind(exc: BaseException) -> FailureKind | None:
    """The kind of an unplanned failure, for its exit code (ERR-1: 3 the database, 4 the system); else ``None``."""
    if is_database_failure(exc):
        return "database"
    return "system" if isinstance(exc, OSError) else None
