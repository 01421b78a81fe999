"""One line for a failure nobody planned for (ERR-1): the CLI, the window and background turns alike.

The database's own words become what happened and what to do
(``store.database_failure``); an operating-system error keeps its reason and
the file; anything else is a bug of ours, said in one line, with the traceback
left to the log file.
"""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError

from xworkmate.store import StoreOpenError, database_failure

__all__ = ["describe_failure", "is_database_failure"]


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
