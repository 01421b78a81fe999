"""The window's first task list, read from a SQLite database without SQLAlchemy (issue 19, item 7).

``xworkmate gui`` paints its window before the stack loads; loading it (SQLAlchemy, pydantic, the
controllers, the window's code) takes most of a second, and the person's lines are what they look for.
So, right after that first paint, this module reads the lines with the standard library's ``sqlite3``,
read-only, and the window paints them (``ui/lines/first_list``) while the rest loads; the store then opens
as always and its own first read replaces these rows.

The rows are ``ThreadRepository.summaries(include_archived=True)``'s, in its order
(``tests/controllers/test_first_list.py`` compares the two over every kind of line). The same read
gives the window's remembered sizes (``app_state`` values under a prefix), so the window first shows at
the size and pane width the person left it, not at the default one. Nothing is read
unless the database is the current schema (``revisions.head_revision``); nothing is ever written.
A database this cannot read so (PostgreSQL, an in-memory or URI-form SQLite URL, a file that is
missing, locked, older or newer, or not a database) gives ``None``: the window then shows its list
once the store is open, as before. The read is bounded (``FIRST_LIST_SQL``, ``READ_BUDGET_S``): a
crafted file gives a short list or ``None``, never a window that grows or a core kept busy.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from xworkmate.domain.lines import ThreadKind
from xworkmate.domain.titles import TITLE_MAX_CHARS
from xworkmate.home import SQLITE_FILE
from xworkmate.store.revisions import StoreOpenError, head_revision

SQLITE_PREFIXES = ("sqlite:///", "sqlite+pysqlite:///")
BUSY_TIMEOUT_S = 0.25
"""How long the read waits for another process's write lock before it gives up (WAL readers rarely wait)."""

FIRST_LIST_ROWS = 500
"""The most lines the first list reads: screenfuls to read while the rest loads, not the whole list (issue 34
item 2: 5,000 rows cost its thread 13 ms at 20,000 lines, taken from the GUI thread's import of the stack); the
window's own list follows a moment later."""
READ_BUDGET_S = 2.0
"""The longest the whole read may take: past it SQLite interrupts the query and the read gives ``None``
(a crafted file, e.g. ``threads`` as an endless recursive view, cannot keep a core busy)."""
_PROGRESS_STEPS = 10_000
"""SQLite virtual-machine steps between two looks at the clock."""

FIRST_LIST_COLUMNS: tuple[tuple[str, type], ...] = (
    ("thread_id", str),
    ("title", str),
    ("kind", str),
    ("parent_key", str),
    ("category", str),
    ("archived", bool),
    ("workspace_path", str),
    ("workspace_pin", str),
)
"""The ``threads`` columns the first list reads, in ``FirstLine``'s order, with their Python types. The module
reads SQLite without SQLAlchemy (that is its point), so it cannot take them from ``store.tables``; a test
(``tests/store/test_first_list_schema.py``) pins them, their types and nullability to the table's metadata
(issue 33 item 3)."""
FIRST_LIST_ORDER = ("created_at", "thread_id")
"""``ThreadRepository.summaries``'s order."""

FIRST_LIST_SQL = (
    "SELECT "
    + ", ".join(f"substr(title, 1, {TITLE_MAX_CHARS})" if name == "title" else name for name, _ in FIRST_LIST_COLUMNS)
    + f" FROM threads ORDER BY {', '.join(FIRST_LIST_ORDER)} LIMIT {FIRST_LIST_ROWS}"
)
"""Bounded in what it reads: a title's first ``TITLE_MAX_CHARS`` characters, ``FIRST_LIST_ROWS`` lines."""

_KINDS: dict[object, ThreadKind] = {kind.value: kind for kind in ThreadKind}

APP_STATE_COLUMNS = ("name", "value")
VALUES_SQL = f"SELECT {', '.join(APP_STATE_COLUMNS)} FROM app_state WHERE substr(name, 1, ?) = ?"
"""``app_state`` values by a literal prefix (not ``LIKE``: ``_`` and ``%`` in names are letters here)."""
NAMED_VALUE_SQL = "SELECT value FROM app_state WHERE name = ?"


class FirstLine(NamedTuple):
    """A line as the first list shows it: ``ThreadSummary``'s fields but its time (``LineSummary``)."""

    thread_id: str
    title: str
    kind: ThreadKind
    parent_key: str | None
    category: str | None
    archived: bool
    workspace_path: str | None
    workspace_pin: str | None = None  # SBX-3: a swapped folder is ``needs_workspace`` here as in the store's list


def first_database_file(database_url: str | None, home: Path) -> Path | None:
    """The SQLite file the settings name (``database_url``, else the data folder's), or ``None`` when they
    name a database the first read does not try: another server, an in-memory database, a URL with
    options or escapes, which SQLAlchemy reads its own way."""
    if database_url is None:
        return home / SQLITE_FILE
    prefix = next((p for p in SQLITE_PREFIXES if database_url.startswith(p)), None)
    if prefix is None:
        return None
    database = database_url[len(prefix) :]
    if not database or database == ":memory:" or any(mark in database for mark in "?%#"):
        return None
    return Path(database)  # relative to the working folder, as SQLAlchemy opens it


class FirstRead(NamedTuple):
    """What one read-only look at the file gives: every line (archived too) in the list's order, the
    ``app_state`` values whose names start with the prefix asked (by their whole names), and those of the
    names asked one by one (a name with no value is left out)."""

    lines: list[FirstLine]
    values: dict[str, str]


def read_first(path: Path, value_prefix: str, names: tuple[str, ...] = ()) -> FirstRead | None:
    """The lines, the values under ``value_prefix`` and those of ``names``, read-only; ``None`` when the file
    cannot be read so."""
    import sqlite3  # here: the reading thread loads it, not the GUI thread before the first paint
    import time

    try:
        head = head_revision()
        if head is None or not path.is_file():
            return None
        uri = f"{path.resolve().as_uri()}?mode=ro"
        connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    except (OSError, ValueError, sqlite3.Error, StoreOpenError):
        return None
    deadline = time.monotonic() + READ_BUDGET_S
    connection.set_progress_handler(lambda: time.monotonic() > deadline, _PROGRESS_STEPS)  # non-zero: interrupt
    try:
        connection.execute("PRAGMA query_only = ON")
        revision = connection.execute("SELECT version_num FROM alembic_version").fetchall()
        if revision != [(head,)]:
            return None
        kinds = _KINDS
        line = FirstLine  # positional, in FIRST_LIST_COLUMNS' order: read while the stack loads
        lines = [
            line(
                str(key),
                str(title),
                kinds.get(kind) or ThreadKind(kind),  # an unknown kind raises ValueError: no first list
                parent_key,
                category,
                bool(archived),
                workspace_path,
                workspace_pin,
            )
            for key, title, kind, parent_key, category, archived, workspace_path, workspace_pin in connection.execute(
                FIRST_LIST_SQL
            )
        ]
        values = connection.execute(VALUES_SQL, (len(value_prefix), value_prefix)).fetchall()
        for name in names:
            values += [(name, value) for (value,) in connection.execute(NAMED_VALUE_SQL, (name,)).fetchall()[:1]]
        return FirstRead(lines, {str(name): str(value) for name, value in values})
    except (sqlite3.Error, ValueError):  # locked, not a database, no such table, an unknown kind
        return None
    finally:
        connection.close()
