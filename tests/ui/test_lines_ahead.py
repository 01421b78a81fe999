"""Issue 34 item 1: the lines the list shows are read ahead of a click (``ui/window/lines_ahead``).

A switch to a line never shown used to read it on the store worker first and show nothing until the read came
(behind whatever the worker had queued: twenty lines' sends). Once the window is usable, the lines in the list's
view that the window has no read of are read on the worker, one a job, and remembered as a switch remembers
them: the first click on one paints its conversation at once and reads it again after the paint. A read ahead
never takes the place of a line the person has shown, and one whose messages changed while it was on its way is
not remembered without them. The first lines read ahead have their rows built, rendered and measured ahead
too, and follow their records: the first click on one renders none. Counts and orders, never wall-clock times.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.store import Store
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation.view import MessageDelegate
from xworkmate.ui.rendering import StreamingBody, build_body
from xworkmate.ui.window import lines_ahead as lines_ahead_module
from xworkmate.ui.window import shown as shown_module

from .conftest import open_window
from .support import click_line, settled


def _until(loop: asyncio.AbstractEventLoop, condition: Callable[[], bool]) -> None:
    """Run the window's loop until ``condition()`` holds (a poll of it, not a fixed wait; 5 s at most)."""

    async def polled() -> None:
        while not condition():
            await asyncio.sleep(0.005)

    loop.run_until_complete(asyncio.wait_for(polled(), timeout=5))


def _lines(store: Store, controller: SessionController, count: int, messages: int = 3) -> list[str]:
    keys = []
    for n in range(count):
        key = controller.lines.create_line(f"Line {n}").thread_id
        for m in range(messages):
            store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=f"{n}: message {m}")
        keys.append(key)
    return keys


def _window(qtbot: QtBot, controller: SessionController, height: int = 800) -> MainWindow:
    window = open_window(qtbot, controller)
    window.resize(1200, height)
    settled(qtbot, window)
    return window


def _window_showing(qtbot: QtBot, controller: SessionController, key: str) -> MainWindow:
    """The window opened on ``key`` (a line with messages: the conversation is on screen, so rows are built
    ahead at its width)."""
    controller.lines.switch_session(key)
    window = _window(qtbot, controller)
    assert window.shown.shown_key == key
    return window


def _built_ahead(qtbot: QtBot, loop: asyncio.AbstractEventLoop, window: MainWindow, keys: list[str]) -> None:
    """Wait until ``keys`` are read ahead and every row queued to be built ahead is built."""
    _until(loop, lambda: all(window.shown.remembers(key) for key in keys) and not window.shown.rows_ahead.pending)
    settled(qtbot, window)


def _select(window: MainWindow, key: str) -> None:
    """Select ``key`` in the list as a click does; returns before any answer of the store worker is applied."""
    window.task_pane.list_view.setCurrentIndex(window.task_list.proxy_index_of(key))


def test_a_first_click_on_a_line_in_view_shows_its_messages_at_once_and_reads_it_again_after_the_paint(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_store: Store, sqlite_controller: SessionController
) -> None:
    keys = _lines(sqlite_store, sqlite_controller, 3)
    window = _window(qtbot, sqlite_controller)
    in_view = window.task_list.lines_ahead.keys_in_view()
    assert set(keys) <= set(in_view)

    _until(loop, lambda: all(window.shown.remembers(key) for key in keys))
    settled(qtbot, window)
    reads = window.task_list.lines_ahead.reads
    assert reads == 3  # the three lines, one a job; the shown one is not read ahead

    for key in keys:
        stored = sqlite_controller.lines.message_ids(key, limit=100)
        _select(window, key)
        # Shown at the click from the read made ahead: no answer of the worker was needed for it.
        assert window.shown.shown_key == key and window.message_model.key == key
        assert window.message_model.loaded_ids == stored
        assert window.shown.deferred.pending  # the fresh read waits for the conversation's paint
        settled(qtbot, window)
        assert window.message_model.loaded_ids == stored
    assert window.task_list.lines_ahead.reads == reads  # the switches did not read ahead again


def test_lines_out_of_view_are_read_ahead_only_once_the_list_is_scrolled_to_them(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_store: Store, sqlite_controller: SessionController
) -> None:
    keys = _lines(sqlite_store, sqlite_controller, 40, messages=1)
    window = _window(qtbot, sqlite_controller, height=500)
    lines_ahead = window.task_list.lines_ahead
    in_view = lines_ahead.keys_in_view()
    out_of_view = [key for key in keys if key not in in_view]
    assert in_view and len(out_of_view) >= 10

    _until(loop, lambda: all(window.shown.remembers(key) for key in in_view))
    settled(qtbot, window)
    assert not any(window.shown.remembers(key) for key in out_of_view)

    bar = window.task_line_list.verticalScrollBar()
    bar.setValue(bar.maximum())
    now_in_view = lines_ahead.keys_in_view()
    assert set(now_in_view) & set(out_of_view)
    _until(loop, lambda: all(window.shown.remembers(key) for key in now_in_view))


def test_a_read_ahead_never_takes_the_place_of_a_line_the_person_has_shown(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    sqlite_store: Store,
    sqlite_controller: SessionController,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shown_module, "SEEN_LINES", 3)
    keys = _lines(sqlite_store, sqlite_controller, 6, messages=1)
    window = _window(qtbot, sqlite_controller)
    shown = [keys[0], keys[1], keys[2]]
    for key in shown:
        click_line(qtbot, window, key)
    lines_ahead = window.task_list.lines_ahead
    lines_ahead.read_now()
    _until(loop, lambda: not lines_ahead.waiting)
    settled(qtbot, window)

    # The three lines shown lately stay remembered; every other line in view is read ahead beside them.
    assert list(window.shown.seen) == shown
    others = [key for key in lines_ahead.keys_in_view() if key not in shown]
    assert len(others) == 4  # the three other lines and the main line
    assert set(window.shown.ahead) == set(others)
    reads = lines_ahead.reads
    click_line(qtbot, window, others[0])  # shown now: its read moves to the lines shown lately
    assert others[0] in window.shown.seen and others[0] not in window.shown.ahead
    assert list(window.shown.seen) == [*shown[1:], others[0]]
    lines_ahead.read_now()
    _until(loop, lambda: not lines_ahead.waiting)
    assert lines_ahead.reads == reads + 1  # the line the click pushed out of the three is read ahead again


def test_a_line_whose_messages_change_while_it_is_read_ahead_is_not_remembered_without_them(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_store: Store, sqlite_controller: SessionController
) -> None:
    (changed,) = _lines(sqlite_store, sqlite_controller, 1, messages=1)
    window = _window(qtbot, sqlite_controller)
    lines_ahead = window.task_list.lines_ahead
    _until(loop, lambda: window.shown.remembers(changed) and not lines_ahead.waiting)  # after the start
    settled(qtbot, window)
    del window.shown.ahead[changed]  # forgotten: the next look reads it again

    # The store worker is held while the read ahead queues behind it, and a message is stored on one line
    # meanwhile (a Send with no provider keeps the message and says so): the record reaches the window first.
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        held.set()
        release.wait(5)

    before = lines_ahead.reads
    lines_ahead.read_now()  # on the worker first: it reads the line before the message is stored
    window.operations.run(hold, failed=lambda error: None)
    assert held.wait(5)  # the GUI thread waits here: the read's answer is not applied yet
    sqlite_controller.send(changed, "stored while the line was read ahead")  # its record: applied at once
    release.set()
    settled(qtbot, window)

    # The answer came after the record: the changed line was read again, with the message.
    stored = sqlite_controller.lines.message_ids(changed, limit=100)
    assert len(stored) >= 2
    assert window.shown.remembers(changed)
    assert [message.id for message in window.shown.ahead[changed].newest] == stored
    assert lines_ahead.reads == before + 2


def test_a_first_click_on_a_line_whose_rows_were_built_ahead_builds_and_renders_none(
    monkeypatch: pytest.MonkeyPatch,
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    sqlite_store: Store,
    sqlite_controller: SessionController,
) -> None:
    monkeypatch.setattr(lines_ahead_module, "ROWS_AHEAD_LINES", 2)
    first, *keys = _lines(sqlite_store, sqlite_controller, 4)
    window = _window_showing(qtbot, sqlite_controller, first)
    model, delegate = window.message_model, window.message_list.message_delegate
    read_order = [key for key in window.task_list.lines_ahead.keys_in_view() if key != first]
    built_ahead = read_order[:2]  # the lines are read ahead top to bottom; the first two have their rows built
    assert set(keys) <= set(read_order)
    _built_ahead(qtbot, loop, window, keys)
    count = {key: len(sqlite_controller.lines.message_ids(key, limit=100)) for key in read_order}
    assert model.rows_built_ahead == sum(count[key] for key in built_ahead)

    # A message stored on one of them afterwards (a Send with no provider keeps it): its row is built ahead too.
    followed = next(key for key in built_ahead if key in keys)
    sqlite_controller.send(followed, "stored after the read ahead")
    _built_ahead(qtbot, loop, window, [followed])
    count[followed] = len(sqlite_controller.lines.message_ids(followed, limit=100))
    assert count[followed] > 3
    assert model.rows_built_ahead == sum(count[key] for key in built_ahead)

    for key in keys:
        rows, bodies, measured = model.rows_built, delegate.bodies_built, delegate.rows_measured
        _select(window, key)  # painted within the click, from the read ahead
        assert window.message_model.loaded_ids == sqlite_controller.lines.message_ids(key, limit=100)
        done = (model.rows_built - rows, delegate.bodies_built - bodies, delegate.rows_measured - measured)
        # Before: every row built, rendered and measured here, at the click, before the first paint.
        assert done == ((0, 0, 0) if key in built_ahead else (count[key],) * 3), key
        settled(qtbot, window)


def test_a_long_answer_is_rendered_ahead_in_parts_and_shows_as_rendered_whole(
    monkeypatch: pytest.MonkeyPatch,
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    sqlite_store: Store,
    sqlite_controller: SessionController,
) -> None:
    """A long answer is rendered ahead a part a tick (``MessageDelegate.PREPARE_CHARS``), never in one go that
    would hold the GUI thread; the first click shows what rendering it whole would."""
    monkeypatch.setattr(MessageDelegate, "PREPARE_CHARS", 300)
    first, key = _lines(sqlite_store, sqlite_controller, 2, messages=1)
    answer = "\n\n".join(f"Paragraph {i} of a long answer, with **bold** words and `code` in it." for i in range(40))
    sqlite_store.messages.append(key, role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content=answer)
    window = _window_showing(qtbot, sqlite_controller, first)
    delegate = window.message_list.message_delegate
    _built_ahead(qtbot, loop, window, [key])
    assert window.message_model.rows_built_ahead == 2

    bodies = delegate.bodies_built
    _select(window, key)
    assert delegate.bodies_built == bodies  # nothing rendered at the click
    index = window.message_model.index(1, 0)
    body = delegate.body_for(index)
    assert isinstance(body, StreamingBody) and len(body.parts) > len(answer) // 300 // 2  # rendered in parts
    whole = build_body(answer, "markdown", window.message_list.font(), delegate.text_width())
    assert body.plain_text().split() == whole.plain_text().split()  # every word, in order (parts join with a gap)
