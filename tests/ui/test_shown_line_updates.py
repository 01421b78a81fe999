"""Issue 34 item 1: the shown line's panes are shown again for a change of its view, not for every ``LineUpdated``.

A message stored on a line moves its ``updated_at`` (the list's order) and nothing the panes show; neither does a
turn's own write that the watcher of other processes' changes reports back. Such a record leaves the panes as
they are (counted with ``ShownLine.panes_shown``, never timed); a rename shows them again. The follow-up queue,
which used to be refreshed by every re-show, has its own record (``QueueChanged``): the strip follows the window's
own queue changes without the panes being shown again.
"""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.controllers.views import read_line_panes

from .conftest import open_window
from .support import click_line, message_texts, send, settled


def test_a_line_updated_that_changes_only_when_the_line_changed_does_not_show_the_panes_again(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController
) -> None:
    controller = bare_controller
    window = open_window(qtbot, controller)
    line = controller.lines.create_line("Echoes")
    key = line.thread_id
    click_line(qtbot, window, key)
    before = window.shown.panes_shown
    shown_view = window.shown.view
    assert shown_view is not None

    # No provider: Send keeps the message, stores a notice and reports LineUpdated; the line's view changed only
    # in when it was last changed.
    send(qtbot, window, "keep this for later")
    assert message_texts(window)[0] == "keep this for later"
    assert window.shown.panes_shown == before
    fresh = window.shown.view
    assert fresh is not None and fresh.thread.updated_at > shown_view.thread.updated_at  # the view kept is the new one
    assert read_line_panes(controller, key, first_page=1).view == fresh

    # A change the panes show: shown again.
    errors: list[BaseException] = []
    window.operations.run(lambda: controller.lines.rename_line(key, "Renamed"), failed=errors.append)
    settled(qtbot, window)
    assert errors == []
    assert window.shown.panes_shown == before + 1
    title = window.findChild(QLabel, "lineTitleLabel")
    assert title is not None and title.text() == "Renamed"


def test_the_queue_strip_follows_the_windows_own_queue_changes_without_showing_the_panes_again(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController
) -> None:
    controller = bare_controller
    window = open_window(qtbot, controller)
    key = controller.lines.create_line("Queue").thread_id
    click_line(qtbot, window, key)
    before = window.shown.panes_shown
    strip = window.followup_queue

    errors: list[BaseException] = []
    window.operations.run(lambda: controller.queue.queue(key, "first"), failed=errors.append)
    window.operations.run(lambda: controller.queue.queue(key, "second"), failed=errors.append)
    settled(qtbot, window)
    qtbot.waitUntil(lambda: strip.texts() == ["first", "second"], timeout=5000)
    window.operations.run(lambda: controller.queue.remove(key, 1), failed=errors.append)
    settled(qtbot, window)
    qtbot.waitUntil(lambda: strip.texts() == ["second"], timeout=5000)
    assert errors == [] and window.shown.panes_shown == before
