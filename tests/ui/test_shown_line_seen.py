"""Issue 34 item 1: a switch back to a line shows what is stored for it now, at once, and draws it once.

The window remembers the last read of each line shown lately (``ShownLine.seen``) and shows it at once on a
switch back, reading the line fresh after the paint. The remembered read follows the records the window gets
(messages a turn of this process stored, messages the worker read for the shown line), so the fresh read finds
nothing to draw again; a record naming messages the window does not have (another process's, on a line not
shown) makes the switch read first. Counts and orders, never wall-clock times.
"""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot

from xworkmate.controllers import MessagesAppended, SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer, TextReply
from xworkmate.ui import MainWindow

from .conftest import open_window
from .support import click_line, settled
from .support_runs import turn_on


def _window(qtbot: QtBot, controller: SessionController) -> MainWindow:
    window = open_window(qtbot, controller)
    window.resize(1200, 800)
    settled(qtbot, window)
    return window


def _stored(controller: SessionController, key: str) -> list[int]:
    """The ids of the line's messages as stored (read by the test, not by the window)."""
    return controller.lines.message_ids(key, limit=100)


def _turn(qtbot: QtBot, loop: asyncio.AbstractEventLoop, server: OpenAIServer, window: MainWindow, key: str) -> None:
    """A turn of this process on ``key`` (the window gets its records), to its end and applied."""
    turn_on(loop, server, window.controller, key, "a question", TextReply(["an answer"]))
    settled(qtbot, window)


def _away_after_a_turn(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, server: OpenAIServer, controller: SessionController
) -> tuple[MainWindow, str]:
    """A window that showed a line while a turn ran on it, and shows another line now; that line's key."""
    window = _window(qtbot, controller)
    line = controller.lines.create_line("Away").thread_id
    other = controller.lines.create_line("Other").thread_id
    click_line(qtbot, window, line)
    _turn(qtbot, loop, server, window, line)
    click_line(qtbot, window, other)
    return window, line


def _select(window: MainWindow, key: str) -> None:
    """Select ``key`` in the list as a click does; returns before the fresh read the switch leaves for after
    the conversation's paint (or, for a line whose last read is not shown, makes first)."""
    window.task_pane.list_view.setCurrentIndex(window.task_list.proxy_index_of(key))


def test_a_switch_back_shows_every_message_a_turn_stored_while_the_line_was_away_and_draws_it_once(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    controller = agent_controller
    # A turn while the line is shown, then one while another line is shown: the window gets both turns' records.
    window, away = _away_after_a_turn(qtbot, loop, openai_server, controller)
    _turn(qtbot, loop, openai_server, window, away)
    stored = _stored(controller, away)
    assert len(stored) == 4
    shown_before = window.shown.panes_shown

    _select(window, away)

    # The fresh read waits for the conversation's paint: what it shows is the remembered read.
    assert window.shown.shown_key == away and window.shown.deferred.pending
    assert window.message_model.key == away and window.message_model.loaded_ids == stored
    settled(qtbot, window)  # the fresh read came: the same, nothing drawn again
    assert window.message_model.loaded_ids == stored
    assert window.shown.panes_shown == shown_before + 1


def test_a_switch_back_shows_at_once_what_another_process_stored_on_the_line_while_it_was_shown(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """The store watcher's record carries no messages; on the shown line the window reads them on the worker,
    and the line's remembered read follows them too."""
    controller = sqlite_controller
    window = _window(qtbot, controller)
    line = controller.lines.create_line("Shared").thread_id
    other = controller.lines.create_line("Other").thread_id
    click_line(qtbot, window, line)
    written = sqlite_store.messages.append(
        line, role=MessageRole.USER, source=MessageSource.HUMAN, content="from the terminal"
    )
    window.router.route(MessagesAppended(key=line, message_ids=(written.id,)))  # as the store watcher says it
    settled(qtbot, window)
    assert window.message_model.loaded_ids == [written.id]
    click_line(qtbot, window, other)
    shown_before = window.shown.panes_shown

    _select(window, line)

    assert window.shown.shown_key == line and window.shown.deferred.pending
    assert window.message_model.loaded_ids == [written.id]
    settled(qtbot, window)
    assert window.message_model.loaded_ids == [written.id]
    assert window.shown.panes_shown == shown_before + 1


def test_a_line_another_process_wrote_to_while_away_is_shown_as_stored_once_read_never_with_a_gap(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_controller: SessionController,
    sqlite_store: Store,
    openai_server: OpenAIServer,
) -> None:
    """A message another process stored on a line not shown is not read on the GUI thread (LOOP-4): the window
    cannot follow it, so its remembered read is not shown; a turn of this process stores more after it."""
    controller = agent_controller
    window, line = _away_after_a_turn(qtbot, loop, openai_server, controller)
    written = sqlite_store.messages.append(
        line, role=MessageRole.USER, source=MessageSource.HUMAN, content="from the terminal"
    )
    window.router.route(MessagesAppended(key=line, message_ids=(written.id,)))  # as the store watcher says it
    settled(qtbot, window)
    _turn(qtbot, loop, openai_server, window, line)
    stored = _stored(controller, line)
    assert len(stored) == 5 and written.id in stored

    _select(window, line)

    shown = window.message_model.loaded_ids if window.message_model.key == line else []
    assert shown == stored[: len(shown)] or shown == stored[-len(shown) :]  # what it shows has no gap
    settled(qtbot, window)
    assert window.message_model.key == line and window.message_model.loaded_ids == stored


def test_a_switch_back_after_the_window_grew_shows_the_remembered_newest_messages_and_draws_them_once(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """The fresh read of a taller conversation reads a longer first page (``rows_to_fill``): the remembered newest
    messages are its newest too, and older ones page in as they do when the window grows on a line shown."""
    controller = sqlite_controller
    line = controller.lines.create_line("Long").thread_id
    for n in range(60):
        sqlite_store.messages.append(line, role=MessageRole.USER, source=MessageSource.HUMAN, content=f"note {n}")
    other = controller.lines.create_line("Other").thread_id
    window = _window(qtbot, controller)
    click_line(qtbot, window, line)
    remembered = [message.id for message in window.shown.seen[line].newest]
    click_line(qtbot, window, other)
    window.resize(1200, 1100)
    settled(qtbot, window)
    stored = _stored(controller, line)
    assert window.message_list.rows_to_fill() > len(remembered) and remembered == stored[-len(remembered) :]
    shown_before = window.shown.panes_shown

    _select(window, line)

    assert window.shown.shown_key == line and window.message_model.loaded_ids[-len(remembered) :] == remembered
    settled(qtbot, window)
    assert window.message_model.loaded_ids[-len(remembered) :] == remembered
    assert window.shown.panes_shown == shown_before + 1
