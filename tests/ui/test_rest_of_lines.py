"""The task list built from a part of the lines, the rest added once the window can be used (issue 34 item 2:
start-up with 20,000 lines keeps its ratios).

The window's first read holds a bounded part of the list (``LineController.first_lines``), so what the GUI
thread builds and paints before the window can be used does not grow with the lines: at 3,000 lines the list
holds as many rows then as at 300 (it held every line before). The rest come in between the rows held
(``TaskLineModel.complete``): the list ends as a list built from every line, in the same order, the filter
showing what it shows over all of them, the selection and the row at the top of the list where they were.
Counted and compared, never timed; a real SQLite file, the real start (``StoreOpening``), real widgets.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from PySide6.QtCore import QPersistentModelIndex, QPoint
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot
from sqlalchemy import insert

from xworkmate.controllers import SessionController
from xworkmate.domain.attention import Attention
from xworkmate.domain.keys import allocate_draft_key
from xworkmate.domain.lines import ThreadKind, ThreadStatus
from xworkmate.domain.threads import ThreadSummary
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.store.tables import ThreadRow
from xworkmate.ui.lines.task_lines import KEY_ROLE, TaskLineFilterModel, TaskLineModel, TaskLinePane
from xworkmate.ui.window.main_window import MainWindow

from .support import selected_key, settled
from .support_opening import opening_for, shown_opening
from .support_runs import run, wait_until

START = datetime(2026, 1, 1, tzinfo=UTC)


class _Attention:
    def __init__(self, needing: set[str]) -> None:
        self.needing = needing

    def state(self, key: str) -> Attention:
        return Attention.FAILED if key in self.needing else Attention.NONE

    def since(self, key: str) -> datetime | None:
        return START if key in self.needing else None


class _Lines:
    def summary_status(self, summary: Any) -> ThreadStatus:
        return ThreadStatus.ARCHIVED if summary.archived else ThreadStatus.RUNNABLE


class _Controller:
    lines = _Lines()


def _line(n: int, parent: int | None = None, *, archived: bool = False) -> ThreadSummary:
    return ThreadSummary(
        thread_id=f"line-{n:05d}",
        title=f"Line {n}" + (" needle" if n % 13 == 0 else ""),
        kind=ThreadKind.TASK if parent is not None else ThreadKind.CONVERSATION,
        parent_key=f"line-{parent:05d}" if parent is not None else None,
        category=None,
        archived=archived,
        workspace_path="/tmp/lines",
        updated_at=START,
    )


def _every_line(count: int) -> list[ThreadSummary]:
    """In the order they were made: tasks under early lines made late, every ninth archived, chains."""
    lines = []
    for n in range(count):
        parent = None
        if n % 17 == 5:
            parent = n % 40  # an early line dispatched it later
        elif n % 23 == 1 and n > 1:
            parent = n - 1
        lines.append(_line(n, parent if parent != n else None, archived=n % 9 == 4))
    return lines


def _part(lines: list[ThreadSummary], wanted: set[str]) -> list[ThreadSummary]:
    """The lines ``wanted`` and every line above one of them, in the list's order (as ``first_lines``)."""
    by_key = {line.thread_id: line for line in lines}
    held: set[str] = set()
    for key in wanted:
        while key is not None and key not in held:
            held.add(key)
            key = by_key[key].parent_key  # type: ignore[assignment]
    return [line for line in lines if line.thread_id in held]


def _shown_keys(proxy: TaskLineFilterModel) -> list[str]:
    return [proxy.index(row, 0).data(KEY_ROLE) for row in range(proxy.rowCount())]


def test_the_rest_come_in_between_and_the_list_ends_as_one_built_from_every_line(qtbot: QtBot) -> None:
    lines = _every_line(600)
    attention = _Attention({f"line-{n:05d}" for n in range(0, 600, 37)})
    part = _part(lines, {line.thread_id for line in lines[:30] + lines[-30:]} | attention.needing | {"line-00300"})
    for needle, archived, needs_you in (("", False, False), ("needle", False, False), ("", True, True)):
        model = TaskLineModel(_Controller(), lines=part, attention=attention, partial=True)
        ModelTester(qtbot).check(model)
        proxy = TaskLineFilterModel()
        proxy.setSourceModel(model)
        ModelTester(qtbot).check(proxy)
        proxy.set_filter_text(needle)
        proxy.set_show_archived(archived)
        proxy.set_needs_you(needs_you)
        held = QPersistentModelIndex(proxy.index(proxy.rowCount() - 1, 0))
        held_key = held.data(KEY_ROLE)
        # While partial, a record about a line not held waits for the rest (which is read after it).
        model.add_line("line-00301", lines[301])
        model.refresh_line("line-00302", lines[302].model_copy(update={"title": "Renamed"}))
        assert model.row_of("line-00301") is None and model.row_of("line-00302") is None

        model.complete(lines)

        whole = TaskLineModel(_Controller(), lines=lines, attention=attention)
        fresh = TaskLineFilterModel()
        fresh.setSourceModel(whole)
        fresh.set_filter_text(needle)
        fresh.set_show_archived(archived)
        fresh.set_needs_you(needs_you)
        assert not model.partial
        assert model.line_keys() == whole.line_keys()
        assert list(model.depths()) == list(whole.depths())
        assert _shown_keys(proxy) == _shown_keys(fresh)
        assert held.isValid() and held.data(KEY_ROLE) == held_key  # no row held moved under its index
        assert [model.row_of(key) for key in whole.line_keys()] == list(range(len(lines)))


def test_the_row_at_the_top_of_the_list_stays_there_when_the_rest_come(qtbot: QtBot) -> None:
    lines = _every_line(600)
    attention = _Attention(set())
    part = _part(lines, {line.thread_id for line in lines[:40] + lines[-80:]})
    model = TaskLineModel(_Controller(), lines=part, attention=attention, partial=True)
    proxy = TaskLineFilterModel()
    proxy.setSourceModel(model)
    pane = TaskLinePane(proxy)
    qtbot.addWidget(pane)
    pane.resize(300, 400)
    pane.show()
    qtbot.waitExposed(pane)
    view = pane.list_view
    view.scrollToBottom()  # the newest lines, as when the current line is one of them
    top_before = view.indexAt(QPoint(0, 0)).data(KEY_ROLE)
    shown_before = [view.indexAt(QPoint(0, y)).data(KEY_ROLE) for y in range(0, view.viewport().height(), 10)]
    assert top_before is not None and proxy.rowCount() < 200

    view.keeping_top(lambda: model.complete(lines))

    assert proxy.rowCount() > 500
    assert view.indexAt(QPoint(0, 0)).data(KEY_ROLE) == top_before
    assert [view.indexAt(QPoint(0, y)).data(KEY_ROLE) for y in range(0, view.viewport().height(), 10)] == shown_before


def _seed_home(settings: Settings, count: int) -> tuple[list[str], str, int]:
    """``count`` lines in the settings' SQLite file (bulk, as the benchmark seeds them), after ``main``; the
    newest but two is the current line. Returns the keys in the list's order, the current one and how many are
    not archived."""
    store = open_store(settings.effective_database_url)
    try:
        controller = SessionController(store, settings)
        rows = [
            {
                "thread_id": allocate_draft_key(),
                "title": f"Line {n}",
                "workspace_path": str(settings.home),
                "archived": n % 11 == 3,
                "created_at": START + timedelta(days=365, seconds=n),
                "updated_at": START + timedelta(days=365, seconds=n),
            }
            for n in range(count)
        ]
        with store.begin() as connection:
            connection.execute(insert(ThreadRow), rows)
        current = rows[-3]["thread_id"]
        controller.lines.switch_session(current)
        listed = controller.lines.list_lines(include_archived=True)
        return [line.thread_id for line in listed], current, sum(1 for line in listed if not line.archived)
    finally:
        store.close()


def _start(qtbot: QtBot, loop: asyncio.AbstractEventLoop, settings: Settings, count: int) -> dict[str, Any]:
    """The real start over ``count`` lines: what the list holds when the window can be used, and once settled."""
    keys, current, unarchived = _seed_home(settings, count)
    failures: list[BaseException] = []
    attached: list[SessionController] = []
    seen: dict[str, Any] = {"keys": keys, "current": current, "unarchived": unarchived}

    def opened() -> SessionController:
        return SessionController(open_store(settings.effective_database_url), settings)

    windows: list[MainWindow] = []

    def at_usable() -> None:
        window = windows[0]
        seen["usable_rows"] = window.task_model.rowCount()
        seen["usable_selected"] = selected_key(window)
        seen["usable_top"] = window.task_pane.list_view.indexAt(QPoint(0, 0)).data(KEY_ROLE)

    def on_attached(controller: SessionController) -> None:  # right after the panes are built, before any paint
        attached.append(controller)
        windows[0].when_usable(at_usable)

    window, _opening = shown_opening(
        qtbot, opening_for(settings, opened, failures), attached=on_attached, failed=lambda _: None
    )
    windows.append(window)
    try:
        run(loop, wait_until(lambda: "usable_rows" in seen or bool(failures), timeout=20, what="a usable window"))
        assert failures == []
        settled(qtbot, window)
        seen["rows"] = window.task_model.line_keys()
        seen["selected"] = selected_key(window)
        seen["top"] = window.task_pane.list_view.indexAt(QPoint(0, 0)).data(KEY_ROLE)
        seen["shown"] = window.task_proxy.rowCount()
        return seen
    finally:
        window.close()
        for controller in attached:
            controller.close()


def test_the_list_built_before_the_window_is_usable_does_not_grow_with_the_lines(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, tmp_path_factory: Any
) -> None:
    """At 300 and at 3,000 lines: as many rows held when the window can be used (every line before), and once
    the rest have come, every line in the list's order, the current line selected, the top row where it was."""
    seen = []
    for count in (300, 3_000):
        home = tmp_path_factory.mktemp(f"home-{count}")
        settings = Settings(home=home, database_url=None, workspace_root=None)
        seen.append(_start(qtbot, loop, settings, count))
    small, big = seen
    assert small["usable_rows"] == big["usable_rows"] < 300, (small["usable_rows"], big["usable_rows"])
    for each in seen:
        assert each["rows"] == each["keys"]  # every line, in the order the store's list gives (tree order: flat)
        assert each["usable_selected"] == each["selected"] == each["current"]
        assert each["top"] == each["usable_top"] is not None
        assert each["shown"] == each["unarchived"]


def test_a_line_made_or_shown_before_the_rest_comes_is_in_the_list_and_selected_once_it_has(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, settings: Settings
) -> None:
    """Operations applied while the list holds a part: a line made (its record finds no place yet) and a switch
    to a line not held (nothing to select, no filter to clear). The rest, read after them, brings both."""
    keys, _current, _unarchived = _seed_home(settings, 1_000)
    old = keys[500]  # neither end of the list, never needed: not held at first
    failures: list[BaseException] = []
    attached: list[SessionController] = []
    windows: list[MainWindow] = []
    held = threading.Event()
    made: list[str] = []
    seen: dict[str, Any] = {}

    def opened() -> SessionController:
        return SessionController(open_store(settings.effective_database_url), settings)

    def at_usable() -> None:
        window = windows[0]
        seen["partial"] = window.task_model.partial
        seen["held_old"] = window.task_model.row_of(old) is not None
        held.set()  # the worker goes on: the line made, the switch, then the rest

    def on_attached(controller: SessionController) -> None:
        attached.append(controller)
        window = windows[0]
        window.task_pane.filter_edit.setText("Line")  # a filter the switch must not clear
        window.operations.query(lambda: held.wait(10), done=lambda _: None, failed=failures.append)
        window.operations.run(
            lambda: controller.lines.create_line("Made meanwhile"),
            done=lambda thread: made.append(thread.thread_id),
            failed=failures.append,
        )
        window.open_line(old)
        window.when_usable(at_usable)

    window, _opening = shown_opening(
        qtbot, opening_for(settings, opened, failures), attached=on_attached, failed=lambda _: None
    )
    windows.append(window)
    try:
        run(loop, wait_until(lambda: bool(made) or bool(failures), timeout=20, what="the line made"))
        settled(qtbot, window)
        assert failures == []
        assert seen == {"partial": True, "held_old": False}
        assert not window.task_model.partial
        store = open_store(settings.effective_database_url)
        try:
            every = [line.thread_id for line in store.threads.summaries(include_archived=True)]
        finally:
            store.close()
        assert window.task_model.line_keys() == every and made[0] in every and len(every) == len(keys) + 1
        assert window.shown_key == old == selected_key(window)
        assert window.task_pane.filter_edit.text() == "Line"
    finally:
        held.set()
        window.close()
        for controller in attached:
            controller.close()
