"""The window's first task list, read without SQLAlchemy before the stack loads (issue 19, item 7; ISO-9).

``controllers.first_list.first_opening`` (``store/first_list``) must answer what the store's own list read
answers (``ThreadRepository.summaries(include_archived=True)``, which the window's list shows), in its
order, for every kind of line, and the window's saved ``ui_state`` values as the controller reads them;
it must never write, and must give ``None`` (the list then comes with the
store) for any database it cannot read so. Real SQLite files throughout; no Qt.
"""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.support.crafted_database import make_threads_an_endless_view
from tests.support.every_kind import lines_of_every_kind
from xworkmate.controllers import SessionController
from xworkmate.controllers.first_list import FirstLine, first_opening, first_status
from xworkmate.domain.lines import ThreadStatus
from xworkmate.domain.threads import ThreadSummary
from xworkmate.domain.titles import TITLE_MAX_CHARS
from xworkmate.home import SQLITE_FILE
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.store.first_list import FIRST_LIST_ROWS, READ_BUDGET_S, first_database_file, read_first
from xworkmate.store.revisions import revisions

FIELDS = FirstLine._fields


def first_lines(home: Path, database_url: str | None) -> list[FirstLine] | None:
    opening = first_opening(home, database_url)
    return None if opening is None else opening.lines


def test_a_first_line_has_every_field_of_the_stores_summary_but_its_time() -> None:
    """The first list's row and ``ThreadSummary`` are two spellings of one shape; this keeps them one."""
    assert tuple(name for name in ThreadSummary.model_fields if name != "updated_at") == FIELDS


def _as_listed(controller: SessionController) -> list[tuple[object, ...]]:
    return [tuple(getattr(line, f) for f in FIELDS) for line in controller.lines.list_lines(include_archived=True)]


def test_the_first_read_lists_what_the_stores_list_read_lists_in_its_order(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings, tmp_path: Path
) -> None:
    lines = lines_of_every_kind(sqlite_controller, tmp_path)
    read = first_lines(settings.home, None)
    assert read is not None
    assert [tuple(getattr(line, f) for f in FIELDS) for line in read] == _as_listed(sqlite_controller)
    by_key = {line.thread_id: line for line in read}
    assert by_key[lines["task"]].parent_key == lines["plain"]
    assert by_key[lines["medical"]].category == "medical"
    assert by_key[lines["archived"]].archived
    assert len(read) == len(lines) + 1  # and main


def test_a_line_reads_with_the_status_the_controller_gives_it_while_nothing_runs(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings, tmp_path: Path
) -> None:
    lines = lines_of_every_kind(sqlite_controller, tmp_path)
    read = first_lines(settings.home, None)
    assert read is not None
    summaries = {s.thread_id: s for s in sqlite_controller.lines.list_lines(include_archived=True)}
    assert {line.thread_id: first_status(line) for line in read} == {
        key: sqlite_controller.lines.summary_status(summary) for key, summary in summaries.items()
    }
    assert first_status(next(line for line in read if line.thread_id == lines["no folder"])) is (
        ThreadStatus.NEEDS_WORKSPACE
    )


def test_the_database_is_the_one_the_settings_name(settings: Settings, tmp_path: Path) -> None:
    home = settings.home
    assert first_database_file(None, home) == home / SQLITE_FILE == settings.sqlite_path
    assert first_database_file(f"sqlite:///{tmp_path / 'other.db'}", home) == tmp_path / "other.db"
    assert first_database_file("sqlite+pysqlite:///relative.db", home) == Path("relative.db")
    for not_read in (
        "postgresql+psycopg://root@127.0.0.1:5432/test",
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite:///file.db?mode=ro&uri=true",
        "sqlite:///with%20escape.db",
        "mysql://nowhere/db",
    ):
        assert first_database_file(not_read, home) is None, not_read


def test_a_postgresql_setting_reads_nothing_first(settings: Settings) -> None:
    assert first_lines(settings.home, "postgresql+psycopg://root@127.0.0.1:5432/test") is None


def test_no_database_yet_reads_nothing(tmp_path: Path) -> None:
    assert first_lines(tmp_path, None) is None
    assert first_lines(tmp_path, "   ") is None  # blank is unset, as the settings read it: the home's file


def test_a_file_that_is_not_a_database_reads_nothing(tmp_path: Path) -> None:
    path = tmp_path / SQLITE_FILE
    path.write_bytes(b"this is a text file, not a database\n" * 100)
    before = path.read_bytes()
    assert first_lines(tmp_path, None) is None
    assert path.read_bytes() == before


def test_an_older_or_unknown_schema_reads_nothing(sqlite_controller: SessionController, settings: Settings) -> None:
    """A database the store would migrate first (or one a newer XWorkmate wrote) is read only by the store."""
    assert first_lines(settings.home, None)  # current: read
    older = next(revision for revision, down in revisions().items() if down is None)
    for revision in (older, "ffffffffffff"):
        with sqlite3.connect(settings.sqlite_path) as connection:
            connection.execute("UPDATE alembic_version SET version_num = ?", (revision,))
        assert first_lines(settings.home, None) is None, revision


@pytest.mark.parametrize("kind", ["telepathy", "", 0, b"task", 1.5])
def test_a_line_of_a_kind_this_version_does_not_know_reads_nothing_first(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings, kind: object
) -> None:
    """Issue 34 item 2: the kinds are looked up in a table now, still never guessed: the store lists it then."""
    key = sqlite_controller.lines.create_line("Odd").thread_id
    assert first_lines(settings.home, None)
    with sqlite3.connect(settings.sqlite_path) as connection:
        connection.execute("UPDATE threads SET kind = ? WHERE thread_id = ?", (kind, key))
    assert first_lines(settings.home, None) is None


def test_the_first_read_never_writes(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings
) -> None:
    sqlite_controller.lines.create_line("Kept")
    sqlite_store.close()  # as a closed window leaves it: checkpointed, no WAL file
    path = settings.sqlite_path
    before = hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns
    assert first_lines(settings.home, None)
    assert (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns) == before
    # SQLite's read-only open of a WAL database makes its companion files (-wal, -shm), empty of changes;
    # the store's own open and close, which follow at once, remove them as they always do.
    open_store(settings.effective_database_url).close()
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name)) == [path.name]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before[0]


def test_a_database_another_process_holds_locked_reads_nothing_and_does_not_wait_long(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings
) -> None:
    """A writer holding the file exclusively (in another process): the list comes with the store's own read."""
    sqlite_store.close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            f"c = sqlite3.connect({str(settings.sqlite_path)!r}, isolation_level=None)\n"
            "c.execute('PRAGMA locking_mode=EXCLUSIVE'); c.execute('BEGIN EXCLUSIVE')\n"
            "c.execute(\"UPDATE threads SET title = 'held' WHERE thread_id = 'main'\")\n"
            "print('held', flush=True); sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert first_lines(settings.home, None) is None
    finally:
        holder.communicate("", timeout=30)
    assert [line.title for line in first_lines(settings.home, None) or []] == ["Main"]  # rolled back: read


@pytest.mark.parametrize("module", ["xworkmate.controllers.first_list", "xworkmate.store.first_list"])
def test_the_first_read_loads_neither_sqlalchemy_nor_pydantic(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        "heavy = [m for m in ('sqlalchemy', 'pydantic', 'xworkmate.store.database', 'xworkmate.controllers.session')"
        " if m in sys.modules]\nprint(heavy)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.strip() == "[]", proc.stderr


def test_reading_a_missing_file_first_is_none(tmp_path: Path) -> None:
    assert read_first(tmp_path / "nowhere" / SQLITE_FILE, "ui.") is None


def test_the_first_read_gives_the_saved_ui_states_as_the_controller_reads_them(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings
) -> None:
    sqlite_controller.lines.set_ui_states(
        {"main_window.geometry": "AdnQywAD", "main_window.splitter_sizes": "[300, 600, 300]"}
    )
    sqlite_controller.lines.set_ui_state("100%_odd name", "kept")
    sqlite_store.app_state.set("uiX.not_a_ui_state", "no")  # shares the prefix's letters, not the prefix
    sqlite_store.app_state.set("current_session_key", "main")
    opening = first_opening(settings.home, None)
    assert opening is not None
    assert opening.ui_states == sqlite_controller.lines.ui_states()
    assert opening.ui_states == {
        "main_window.geometry": "AdnQywAD",
        "main_window.splitter_sizes": "[300, 600, 300]",
        "100%_odd name": "kept",
    }


def test_a_prefix_is_literal_in_the_first_read(sqlite_store: Store, settings: Settings) -> None:
    """``_`` and ``%`` are letters in a prefix, not ``LIKE`` wildcards."""
    sqlite_store.app_state.set_many({"a_b.x": "1", "aXb.y": "2", "a%b.z": "3", "a_b": "4"})
    read = read_first(settings.sqlite_path, "a_b.")
    assert read is not None and read.values == {"a_b.x": "1"}
    read = read_first(settings.sqlite_path, "a%")
    assert read is not None and read.values == {"a%b.z": "3"}


def test_a_line_whose_folder_was_swapped_reads_as_the_store_lists_it_needs_workspace(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings, tmp_path: Path
) -> None:
    """Issue 29 row 5 (SBX-3): a folder replaced by a link, or by another directory, is ``needs_workspace`` in
    the first list as in the store's; the first read's rows carry the pin the store's summaries carry."""
    linked = sqlite_controller.lines.create_line("Linked")
    replaced = sqlite_controller.lines.create_line("Replaced")
    (tmp_path / "elsewhere").mkdir()
    linked_folder = Path(linked.workspace_binding.path or "")
    linked_folder.rmdir()
    linked_folder.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    replaced_folder = Path(replaced.workspace_binding.path or "")
    (tmp_path / "fresh").mkdir()
    replaced_folder.rmdir()
    (tmp_path / "fresh").rename(replaced_folder)
    read = first_lines(settings.home, None)
    assert read is not None
    summaries = {s.thread_id: s for s in sqlite_controller.lines.list_lines(include_archived=True)}
    statuses = {line.thread_id: first_status(line) for line in read}
    assert statuses == {key: sqlite_controller.lines.summary_status(summary) for key, summary in summaries.items()}
    assert statuses[linked.thread_id] is statuses[replaced.thread_id] is ThreadStatus.NEEDS_WORKSPACE


def test_a_threads_table_made_an_endless_view_reads_nothing_within_the_budget(
    sqlite_store: Store, settings: Settings
) -> None:
    """Issue 29: a crafted file cannot keep the first read (a core) busy: SQLite interrupts it past its budget."""
    sqlite_store.close()
    make_threads_an_endless_view(settings.sqlite_path)
    answers: list[object] = []
    reader = threading.Thread(target=lambda: answers.append(read_first(settings.sqlite_path, "ui.")), daemon=True)
    reader.start()
    reader.join(timeout=READ_BUDGET_S + 60)  # the budget, and a generous margin for a loaded machine
    assert not reader.is_alive(), "the first read is still running"
    assert answers == [None]


def test_the_first_read_takes_a_titles_prefix_and_a_bounded_number_of_lines(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings
) -> None:
    """Issue 29: a 1 MB title reads as its first ``TITLE_MAX_CHARS`` characters, in the first list and in the
    store's (so the two still agree); past ``FIRST_LIST_ROWS`` lines the first list stops (the store's has all)."""
    key = sqlite_controller.lines.create_line("long").thread_id
    title = "蓝" * (1 << 20)
    sqlite_store.threads.set_title(key, title)
    [first] = [line for line in first_lines(settings.home, None) or [] if line.thread_id == key]
    assert first.title == title[:TITLE_MAX_CHARS]
    assert {s.thread_id: s.title for s in sqlite_store.threads.summaries()}[key] == first.title
    assert sqlite_store.threads.get(key).title == first.title  # the shown line's read too
    sqlite_store.close()
    _add_lines_past_the_rows_read(settings)
    assert len(first_lines(settings.home, None) or []) == FIRST_LIST_ROWS


def test_the_first_read_names_the_line_the_window_opens_on_as_the_controller_restores_it(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings
) -> None:
    """Issue 34 item 4: the opening page selects the line the window will open (what is typed there goes to it):
    the one it was on, else the main line when that one is archived or gone; the controller's own rule
    (``domain.lines.restored_current_key``) decides both."""
    kept = sqlite_controller.lines.create_line("Kept").thread_id
    archived = sqlite_controller.lines.create_line("Archived").thread_id
    sqlite_controller.lines.archive_line(archived)
    for saved, expected in ((kept, kept), (archived, "main"), ("draft:gone", "main"), ("", "main")):
        sqlite_store.app_state.set("current_session_key", saved)
        opening = first_opening(settings.home, None)
        assert opening is not None
        restored = SessionController(sqlite_store, settings).lines.current_key
        assert (opening.current_key, restored) == (expected, expected), saved


def test_a_current_line_past_the_rows_read_first_is_not_guessed(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings
) -> None:
    """Past ``FIRST_LIST_ROWS`` lines the line the window was on may be one the first read did not read: the
    opening page then selects none (what is typed goes to the line the window opens, whichever it is)."""
    sqlite_store.app_state.set("current_session_key", "draft:made-after-the-rows-read")
    sqlite_store.close()
    _add_lines_past_the_rows_read(settings)
    opening = first_opening(settings.home, None)
    assert opening is not None and opening.current_key is None


def _add_lines_past_the_rows_read(settings: Settings) -> None:
    """``FIRST_LIST_ROWS`` more lines, copies of the main line, written straight into the file."""
    with sqlite3.connect(settings.sqlite_path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(threads)")]
        copied = ", ".join(
            {"thread_id": "'draft:' || i", "workspace_path": "workspace_path || i"}.get(c, c) for c in columns
        )
        db.execute(
            f"INSERT INTO threads ({', '.join(columns)}) WITH RECURSIVE n(i) AS"
            f" (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {FIRST_LIST_ROWS})"
            f" SELECT {copied} FROM threads, n WHERE thread_id = 'main'"
        )
