"""The window's first task list: the person's lines painted on the opening page, read without the stack,
before the rest of the window loads (issue 19, item 7; ISO-9). Real SQLite files, real widgets."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, QSize
from PySide6.QtWidgets import QListView, QWidget
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.controllers.first_list import FirstLine, FirstOpening, first_opening
from xworkmate.domain.lines import ThreadKind
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.ui.lines.task_lines import ROW_ROLE, LineRowView
from xworkmate.ui.shell import (
    DEFAULT_SIZE,
    DEFAULT_SPLITTER_SIZES,
    GEOMETRY_STATE,
    SPLITTER_STATE,
    FirstListRead,
    WindowShell,
)
from xworkmate.ui.start import FIRST_LIST_WAIT_MS, FirstScreen, _show_painted
from xworkmate.ui.window.main_window import MainWindow


def _line(key: str, title: str, **fields: object) -> FirstLine:
    values: dict[str, object] = {
        "kind": ThreadKind.CONVERSATION,
        "parent_key": None,
        "category": None,
        "archived": False,
        "workspace_path": None,
    }
    values.update(fields)
    return FirstLine(thread_id=key, title=title, **values)  # type: ignore[arg-type]


def _shown_shell(qtbot: QtBot, first: FirstListRead | None) -> tuple[WindowShell, FirstScreen, list[str]]:
    shell = WindowShell()
    qtbot.addWidget(shell)
    ended: list[str] = []
    screen = FirstScreen(shell, first, lambda: ended.append("shown"))
    shell.show()
    return shell, screen, ended


def _rows(shell: QWidget) -> list[LineRowView]:
    view = shell.findChild(QListView, "firstTaskLineList")
    assert view is not None
    model = view.model()
    return [model.index(row, 0).data(ROW_ROLE) for row in range(model.rowCount())]


def test_the_first_list_shows_the_lines_in_tree_order_as_the_window_list_does(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store, settings: Settings
) -> None:
    plain = sqlite_controller.lines.create_line("Plain").thread_id
    task = sqlite_controller.tasks.start_task(plain, "a goal").key
    other = sqlite_controller.lines.create_line("Medical notes").thread_id
    sqlite_controller.tasks.set_category(other, "medical")
    archived = sqlite_controller.lines.create_line("Old").thread_id
    sqlite_controller.lines.archive_line(archived)
    first = FirstListRead(lambda: first_opening(settings.home, None))
    shell, screen, ended = _shown_shell(qtbot, first)
    first.setParent(shell)
    qtbot.waitUntil(lambda: ended == ["shown"], timeout=10_000)
    assert screen.shown
    rows = _rows(shell)
    assert [(r.title, r.depth, r.category_badge, r.kind_marker) for r in rows] == [
        ("Main", 0, "", ""),
        ("Plain", 0, "", ""),
        (f"Task: {sqlite_controller.lines.line_summary(task).title.removeprefix('Task: ')}", 1, "", "task"),
        ("Medical notes", 0, "● medical", ""),
    ]  # the archived line is hidden, as the window's list hides it until "Show archived"
    # What the window will show over the store is the same list, in the same order.
    window = MainWindow(sqlite_controller)
    qtbot.addWidget(window)
    model = window.task_proxy
    assert [model.index(row, 0).data(ROW_ROLE).title for row in range(model.rowCount())] == [r.title for r in rows]


def test_the_first_list_has_nothing_to_press_but_a_line_to_select_and_is_named_apart_from_the_windows(
    qtbot: QtBot, tmp_path: Path
) -> None:
    lines = [_line("main", "Main"), _line("draft:a", "A line")]
    first = FirstListRead(lambda: FirstOpening(lines, {}))
    shell, _screen, ended = _shown_shell(qtbot, first)
    first.setParent(shell)
    qtbot.waitUntil(lambda: ended == ["shown"], timeout=10_000)
    assert shell.findChild(QObject, "taskLineList") is None  # only the window's own list has its names
    for name in ("firstNewTaskLineButton", "firstArchiveTaskLineButton", "firstTaskLineFilter"):
        widget = shell.findChild(QWidget, name)
        assert widget is not None and not widget.isEnabled(), name
    view = shell.findChild(QListView, "firstTaskLineList")
    assert view is not None and view.isVisible()
    assert view.selectionMode() is QListView.SelectionMode.SingleSelection  # the window opens it (issue 34 item 4)
    shot = tmp_path / "first-list.png"
    assert shell.grab().save(str(shot)) and shot.stat().st_size > 0  # what a person sees while it loads


def test_a_read_that_comes_late_does_not_hold_the_window_and_still_shows(qtbot: QtBot) -> None:
    release = threading.Event()

    def slow() -> FirstOpening:
        release.wait(30)
        return FirstOpening([_line("main", "Main")], {})

    first = FirstListRead(slow)
    shell, screen, ended = _shown_shell(qtbot, first)
    first.setParent(shell)
    qtbot.waitUntil(lambda: ended == ["shown"], timeout=FIRST_LIST_WAIT_MS + 10_000)
    assert not screen.shown and shell.findChild(QObject, "firstTaskLineList") is None
    release.set()
    qtbot.waitUntil(lambda: shell.findChild(QObject, "firstTaskLineList") is not None, timeout=10_000)
    assert [r.title for r in _rows(shell)] == ["Main"]
    assert ended == ["shown"]


def test_nothing_to_read_shows_no_list(qtbot: QtBot, tmp_path: Path) -> None:
    first = FirstListRead(lambda: first_opening(tmp_path, None))  # no database yet
    shell, screen, ended = _shown_shell(qtbot, first)
    first.setParent(shell)
    qtbot.waitUntil(lambda: ended == ["shown"], timeout=10_000)
    assert not screen.shown and first.settled and first.opening is None
    assert shell.findChild(QObject, "firstTaskLineList") is None


def test_a_read_that_fails_shows_no_list(qtbot: QtBot) -> None:
    def broken() -> FirstOpening:
        raise OSError("the disk went away")

    first = FirstListRead(broken)
    shell, screen, ended = _shown_shell(qtbot, first)
    first.setParent(shell)
    qtbot.waitUntil(lambda: ended == ["shown"], timeout=10_000)
    assert not screen.shown and shell.findChild(QObject, "firstTaskLineList") is None


def test_a_store_that_does_not_open_hides_the_first_list(qtbot: QtBot) -> None:
    first = FirstListRead(lambda: FirstOpening([_line("main", "Main")], {}))
    shell, _screen, ended = _shown_shell(qtbot, first)
    first.setParent(shell)
    qtbot.waitUntil(lambda: ended == ["shown"], timeout=10_000)
    page = shell.opening_page
    assert page is not None and page.first_list is not None and page.first_list.isVisible()
    page.show_failure("the database is read-only", "SQLite database /somewhere")
    assert not page.first_list.isVisible()


def test_the_window_over_the_store_replaces_the_first_list(
    qtbot: QtBot, sqlite_controller: SessionController, settings: Settings
) -> None:
    first = FirstListRead(lambda: first_opening(settings.home, None))
    shell, _screen, ended = _shown_shell(qtbot, first)
    first.setParent(shell)
    qtbot.waitUntil(lambda: ended == ["shown"], timeout=10_000)
    window = MainWindow.take_over(shell)
    window.attach(sqlite_controller)
    assert window.opening_page is None
    lists = [w for w in window.findChildren(QListView) if w.objectName() == "taskLineList"]
    assert len(lists) == 1
    qtbot.waitUntil(lists[0].isVisible, timeout=10_000)
    qtbot.waitUntil(lambda: window.findChild(QObject, "firstTaskLineList") is None, timeout=10_000)


def test_a_read_that_answered_before_anyone_listened_still_arrives_to_a_slot_connected_after(qtbot: QtBot) -> None:
    """``FirstScreen`` connects after the read has started; the answer must not slip past it."""
    opening = FirstOpening([_line("main", "Main")], {})
    first = FirstListRead(lambda: opening)
    first.join(10)  # the thread has answered; the GUI thread has not been back to its loop
    got: list[object] = []
    first.arrived.connect(got.append)
    qtbot.waitUntil(lambda: got == [opening], timeout=10_000)
    assert first.settled and first.opening == opening


def test_the_window_first_shows_at_the_size_and_list_width_the_person_left_it(
    qtbot: QtBot, sqlite_controller: SessionController, settings: Settings
) -> None:
    """Saved by a window over the store; shown by the next start before its store opens, so nothing jumps."""
    before = MainWindow(sqlite_controller)
    qtbot.addWidget(before)
    before.show()
    before.resize(760, 520)  # inside the offscreen screen (800 x 600), which a restored geometry fits into
    before.splitter.setSizes([330, 300, 120])
    qtbot.waitUntil(lambda: before.splitter.sizes()[0] == 330, timeout=10_000)
    before.save_ui_state()
    saved_size = before.size()
    before.close()

    shell = WindowShell()
    qtbot.addWidget(shell)
    first = FirstListRead(lambda: first_opening(settings.home, None), shell)
    _show_painted(shell, first)
    assert shell.size() == saved_size != QSize(*DEFAULT_SIZE)
    page = shell.opening_page
    assert page is not None and page.first_list is not None
    assert page.first_list.width() == 330


def test_a_read_slower_than_the_size_wait_does_not_hold_the_first_show(qtbot: QtBot) -> None:
    release = threading.Event()

    def slow() -> FirstOpening:
        release.wait(30)
        return FirstOpening([_line("main", "Main")], {GEOMETRY_STATE: "not base64 of a geometry ✗"})

    shell = WindowShell()
    qtbot.addWidget(shell)
    first = FirstListRead(slow, shell)
    _show_painted(shell, first)  # returns: FIRST_SIZE_WAIT_MS, then the first paint and FIRST_LIST_WAIT_MS
    assert shell.isVisible() and shell.size() == shell.fitted_size(*DEFAULT_SIZE) and not first.settled
    release.set()
    qtbot.waitUntil(lambda: shell.findChild(QObject, "firstTaskLineList") is not None, timeout=10_000)
    assert shell.size() == shell.fitted_size(*DEFAULT_SIZE)  # a late answer does not move a shown window


def test_saved_sizes_the_window_cannot_use_leave_the_defaults(qtbot: QtBot) -> None:
    shell = WindowShell()
    qtbot.addWidget(shell)
    for geometry, sizes in [("", "[1, 2]"), ("%%%", "not json"), ("✗", "[0, 0, 0]"), ("AAAA", "[-5, 10, 10]")]:
        shell.restore_saved({GEOMETRY_STATE: geometry, SPLITTER_STATE: sizes})
        assert shell.size() == shell.fitted_size(*DEFAULT_SIZE), geometry
        assert shell.opening_page is not None and shell.opening_page.list_width == DEFAULT_SPLITTER_SIZES[0], sizes
