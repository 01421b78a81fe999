"""The window's first task list, before the store opens and before the stack loads (issue 19, item 7).

The window asks here as it starts, with nothing loaded but PySide6: ``first_opening`` reads the lines
of the database the settings name, and what the window remembers of itself (``ui_state``: its size, its
panes' widths), without SQLAlchemy or pydantic (``store/first_list``, SQLite only). So the window shows
at the size the person left it, and their lines while the rest of the window loads. The store then opens
as always and its own first read replaces these.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from xworkmate.domain.lines import LineSummary, ThreadStatus, line_status, restored_current_key
from xworkmate.home import blank_is_unset
from xworkmate.store.first_list import FIRST_LIST_ROWS, FirstLine, first_database_file, read_first

__all__ = [
    "CURRENT_KEY_STATE",
    "UI_STATE_PREFIX",
    "FirstLine",
    "FirstOpening",
    "first_opening",
    "first_status",
    "ui_states_named",
]

UI_STATE_PREFIX = "ui."
"""How a ``ui_state`` name is kept in ``app_state`` (``LineController.ui_state``)."""
CURRENT_KEY_STATE = "current_session_key"
"""The ``app_state`` name of the line the window was on (``controllers/lines`` keeps it under this name)."""


def ui_states_named(values: Mapping[str, str]) -> dict[str, str]:
    """``app_state`` values under ``UI_STATE_PREFIX``, by their ``ui_state`` names."""
    return {name.removeprefix(UI_STATE_PREFIX): value for name, value in values.items()}


class FirstOpening(NamedTuple):
    """What the window shows before its store is open: the lines, its ``ui_state`` values by name, and the key
    of the line it opens on (``restored_current_key``, as ``LineController`` restores it), or ``None`` when this
    read cannot tell (the line it was on is past the rows read)."""

    lines: list[FirstLine]
    ui_states: dict[str, str]
    current_key: str | None = None


def first_opening(home: Path, database_url: str | None) -> FirstOpening | None:
    """Every line of the database the settings name (``database_url``, else the one in ``home``; archived
    lines too, in the list's order) and every ``ui_state`` value, as ``LineController.ui_states`` gives
    them; or ``None`` when it is not one the first read can read (PostgreSQL, a missing, busy or older
    file): then both come with the store. Reads a file: call it off the GUI thread."""
    path = first_database_file(blank_is_unset(database_url), home)
    read = read_first(path, UI_STATE_PREFIX, (CURRENT_KEY_STATE,)) if path is not None else None
    if read is None:
        return None
    saved = read.values.pop(CURRENT_KEY_STATE, None)
    archived = next((line.archived for line in read.lines if line.thread_id == saved), None)
    if saved and archived is None and len(read.lines) >= FIRST_LIST_ROWS:
        return FirstOpening(read.lines, ui_states_named(read.values), None)  # it may be past the rows read
    return FirstOpening(read.lines, ui_states_named(read.values), restored_current_key(saved, archived))


def first_status(line: LineSummary) -> ThreadStatus:
    """A line's status in the first list (ISO-4): as ``LineController.summary_status``, but no turn is
    known to run yet (this process has started none; another's shows once the store is open)."""
    return line_status(line, running=False)
