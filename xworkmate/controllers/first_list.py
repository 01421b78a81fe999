"""The window's first task list, before the store opens and before the stack loads (issue 19, item 7).

The window asks here, right after its first paint, with nothing loaded but PySide6: ``first_lines``
reads the lines of the database the settings name (``store/first_list``, SQLite only) without
SQLAlchemy or pydantic, so the person sees their lines while the rest of the window loads. The store
then opens as always and its first read (``FirstRead``) replaces these rows.
"""

from __future__ import annotations

from pathlib import Path

from xworkmate.domain.lines import LineSummary, ThreadStatus, thread_status
from xworkmate.home import blank_is_unset
from xworkmate.store.first_list import FirstLine, first_database_file, read_first_lines

__all__ = ["FirstLine", "first_lines", "first_status"]


def first_lines(home: Path, database_url: str | None) -> list[FirstLine] | None:
    """Every line of the database the settings name (``database_url``, else the one in ``home``; archived
    lines too, in the list's order), or ``None`` when it is not one the first read can read (PostgreSQL, a
    missing, busy or older file): then the list shows once the store is open. Reads a file: call it off
    the GUI thread."""
    path = first_database_file(blank_is_unset(database_url), home)
    return read_first_lines(path) if path is not None else None


def first_status(line: LineSummary) -> ThreadStatus:
    """A line's status in the first list (ISO-4): as ``LineController.summary_status``, but no turn is
    known to run yet (this process has started none; another's shows once the store is open)."""
    return thread_status(
        key=line.thread_id,
        exists=True,
        archived=line.archived,
        workspace_path=line.workspace_path,
        running=False,
    )
