"""Issue 31 item 3 in the window: Enter while a turn runs queues the follow-up in the ``followUpQueue``
strip above the composer, whose buttons edit, reorder, remove and send now; the strip shows the shown
line's queue and follows every switch (ISO-5). Real SQLite, the real scripted OpenAI-compatible server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QPushButton
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole
from xworkmate.testing.openai_server import HangReply, OpenAIServer, TextReply
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation.followup_queue import QueueItemRow

from .support import click_line, finished, message_texts, open_new_line, send, settled
from .support_runs import live_text, run, wait_until


def press_enter(qtbot: QtBot, window: MainWindow, text: str) -> None:
    """Type into the composer and press Enter, as a person does."""
    qtbot.keyClicks(window.composer, text)
    qtbot.keyClick(window.composer, Qt.Key.Key_Return)
    settled(qtbot, window)


def row(window: MainWindow, position: int) -> QueueItemRow:
    return window.followup_queue.rows[position - 1]


def click(qtbot: QtBot, window: MainWindow, position: int, name: str) -> None:
    button = row(window, position).findChild(QPushButton, name)
    assert button is not None and button.isEnabled(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    settled(qtbot, window)


def test_enter_during_a_running_turn_queues_and_the_strip_edits_reorders_removes_and_follows_the_line(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    strip = window.followup_queue
    other = agent_controller.lines.create_line("Queue B")
    key = queued_running(qtbot, loop, window, openai_server)
    assert not strip.isVisible()

    press_enter(qtbot, window, "then run the tests")
    assert window.composer.toPlainText() == ""  # taken: it is in the queue
    assert strip.isVisible() and strip.texts() == ["then run the tests"]
    press_enter(qtbot, window, "then update the docs")
    press_enter(qtbot, window, "and a typo")
    assert strip.texts() == ["then run the tests", "then update the docs", "and a typo"]
    assert agent_controller.turns.is_running(key)
    assert "then run the tests" not in message_texts(window)  # queued, not a message yet

    click(qtbot, window, 2, "queueUpButton")
    assert strip.texts() == ["then update the docs", "then run the tests", "and a typo"]
    click(qtbot, window, 1, "queueDownButton")
    assert strip.texts() == ["then run the tests", "then update the docs", "and a typo"]
    assert not row(window, 1).up_button.isEnabled() and not row(window, 3).down_button.isEnabled()

    click(qtbot, window, 2, "queueEditButton")
    editor = row(window, 2).findChild(QLineEdit, "queueEditField")
    assert editor is not None and editor.isVisible() and editor.text() == "then update the docs"
    editor.setText("then update the README")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    settled(qtbot, window)
    assert strip.texts() == ["then run the tests", "then update the README", "and a typo"]

    click(qtbot, window, 3, "queueRemoveButton")
    assert strip.texts() == ["then run the tests", "then update the README"]
    assert [i.text for i in agent_controller.queue.items(key)] == strip.texts()  # stored

    click_line(qtbot, window, other.thread_id)  # ISO-5: B has no queue, so no strip
    assert strip.key == other.thread_id and not strip.isVisible() and strip.texts() == []
    click_line(qtbot, window, key)
    assert strip.isVisible() and strip.texts() == ["then run the tests", "then update the README"]

    qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)  # a stopped turn leaves the queue
    run(loop, wait_until(finished(agent_controller, key), what="the stop"))
    settled(qtbot, window)
    assert strip.texts() == ["then run the tests", "then update the README"]

    # Send now on an idle line is a Send; when its turn ends, the rest of the queue drains, one turn each.
    openai_server.script(TextReply(["README updated."]), TextReply(["Tests pass."]))
    click(qtbot, window, 2, "queueSendNowButton")
    run(loop, wait_until(finished(agent_controller, key), what="the queue to drain"))
    run(loop, wait_until(lambda: not strip.isVisible(), what="the strip to empty"))
    users = [m.content for m in agent_controller.lines.messages(key) if m.role is MessageRole.USER]
    assert users == ["start the long job", "then update the README", "then run the tests"]
    assert message_texts(window)[-2:] == ["then run the tests", "Tests pass."]


def test_the_queue_drains_after_the_running_turn_and_the_strip_empties(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    line = open_new_line(qtbot, window, "Drain")
    openai_server.script(TextReply(["One ", "moment ", "please ", "..."], delay=0.5), TextReply(["Done next."]))
    send(qtbot, window, "first thing")
    press_enter(qtbot, window, "next thing")
    assert window.followup_queue.texts() == ["next thing"]
    run(loop, wait_until(finished(agent_controller, line.thread_id), what="both turns"))
    run(loop, wait_until(lambda: not window.followup_queue.isVisible(), what="the strip to empty"))
    assert message_texts(window) == ["first thing", "One moment please ...", "next thing", "Done next."]
    assert len(openai_server.chat_requests) == 2


def start_editing(qtbot: QtBot, window: MainWindow, position: int, typed: str) -> QLineEdit:
    """Edit on row ``position``, the text replaced by ``typed`` (typed as keys), not saved."""
    click(qtbot, window, position, "queueEditButton")
    editor = row(window, position).editor
    assert editor.isVisible() and editor.hasSelectedText()  # Edit selects the text: typing replaces it
    qtbot.keyClicks(editor, typed)
    return editor


def queued_running(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, window: MainWindow, server: OpenAIServer, *texts: str
) -> str:
    """A new line whose turn hangs, with ``texts`` queued by Enter; its key."""
    line = open_new_line(qtbot, window, "Queue")
    server.script(HangReply(chunks=["working "]))
    send(qtbot, window, "start the long job")
    run(loop, wait_until(lambda: live_text(window) == "working ", what="the turn to be running"))
    for text in texts:
        press_enter(qtbot, window, text)
    assert window.followup_queue.texts() == list(texts)
    return line.thread_id


def change_elsewhere(qtbot: QtBot, window: MainWindow, work: Callable[[], object]) -> None:
    """A change to the queue made off the window's strip (as ``xworkmate queue`` or a turn's end makes one):
    through the controller on the store worker, its ``QueueChanged`` read back by the window."""
    errors: list[BaseException] = []
    window.operations.run(work, failed=errors.append)
    settled(qtbot, window)
    assert errors == []


def stop_turn(loop: asyncio.AbstractEventLoop, controller: SessionController, key: str) -> None:
    controller.turns.stop(key)
    run(loop, wait_until(finished(controller, key), what="the stop"))


def test_an_edit_in_progress_keeps_its_text_and_focus_while_the_queue_changes_and_saves_onto_its_own_item(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """The queue is read again at every change; the row in edit stays the same widget. Its Save names
    the item, not its old number: by number it would have changed "and a typo"."""
    window = agent_window
    queue = agent_controller.queue
    key = queued_running(qtbot, loop, window, openai_server, "then run the tests", "then update the docs", "and a typo")
    editor = start_editing(qtbot, window, 2, "then update the READ")

    change_elsewhere(qtbot, window, lambda: queue.remove(key, 1))  # the first item leaves: every number moves up
    change_elsewhere(qtbot, window, lambda: queue.queue(key, "and a changelog"))
    assert window.followup_queue.texts() == ["then update the docs", "and a typo", "and a changelog"]
    assert row(window, 1).editor is editor and editor.isVisible()
    assert editor.text() == "then update the READ" and QApplication.focusWidget() is editor
    assert row(window, 1).number.text() == "1." and not row(window, 1).up_button.isEnabled()

    qtbot.keyClicks(editor, "ME")  # the person goes on typing where they were
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    settled(qtbot, window)
    assert [i.text for i in queue.items(key)] == ["then update the README", "and a typo", "and a changelog"]
    assert window.followup_queue.texts() == ["then update the README", "and a typo", "and a changelog"]

    change_elsewhere(qtbot, window, lambda: queue.move(key, 3, 1))
    click(qtbot, window, 3, "queueUpButton")  # ↑ on "and a typo", shown third: one earlier than it is now
    assert window.followup_queue.texts() == ["and a changelog", "and a typo", "then update the README"]
    assert [i.text for i in queue.items(key)] == window.followup_queue.texts()
    stop_turn(loop, agent_controller, key)


def test_an_unsaved_edit_whose_item_leaves_the_queue_goes_into_the_composer_after_the_draft(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    queue = agent_controller.queue
    key = queued_running(qtbot, loop, window, openai_server, "then run the tests", "then update the docs")
    qtbot.keyClicks(window.composer, "a draft")
    start_editing(qtbot, window, 1, "then run the slow tests too")

    change_elsewhere(qtbot, window, lambda: queue.remove(key, 1))  # delivered, or removed by `xworkmate queue`
    assert window.followup_queue.texts() == ["then update the docs"]
    assert window.composer.toPlainText() == "a draft\nthen run the slow tests too"
    assert "your changed text is in the composer" in window.message_pane.status_label.text()
    assert QApplication.focusWidget() is window.composer  # their typing goes on there

    # Saved just after its item left, before the window heard of it (another process): refused, and kept.
    editor = start_editing(qtbot, window, 1, "then update the README")
    agent_controller._store.followup_queue.remove(key, 1)  # no QueueChanged in this process
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    settled(qtbot, window)
    assert window.composer.toPlainText() == "a draft\nthen run the slow tests too\nthen update the README"
    assert "your changed text is in the composer" in window.message_pane.status_label.text().lower()
    assert queue.items(key) == []
    stop_turn(loop, agent_controller, key)


def test_an_unsaved_edit_waits_on_its_line_while_another_line_is_shown(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    other = agent_controller.lines.create_line("Elsewhere")
    key = queued_running(qtbot, loop, window, openai_server, "then run the tests", "then update the docs")
    start_editing(qtbot, window, 2, "then update the changelog")

    click_line(qtbot, window, other.thread_id)
    assert window.followup_queue.texts() == [] and window.composer.toPlainText() == ""  # ISO-5
    click_line(qtbot, window, key)
    run(loop, wait_until(lambda: window.followup_queue.texts() != [], what="the queue read"))
    editor = row(window, 2).editor
    assert editor.isVisible() and editor.text() == "then update the changelog"
    assert [i.text for i in agent_controller.queue.items(key)] == ["then run the tests", "then update the docs"]
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    settled(qtbot, window)
    assert [i.text for i in agent_controller.queue.items(key)] == ["then run the tests", "then update the changelog"]
    stop_turn(loop, agent_controller, key)
