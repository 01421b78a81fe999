"""Issue 31 in the window: a turn a crash interrupted shows as interrupted, and Resume finishes it.

A real ``xworkmate run`` process streams from the scripted server and gets SIGKILL mid-reply; the window
then opens on the same SQLite file (as after a restart), offscreen, and the person presses Resume.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from tests.cli.test_cli_turn_endings import _start_run, _wait_until
from xworkmate.controllers import SessionController
from xworkmate.controllers.turns import RESUMED_NOTICE
from xworkmate.domain.messages import MessageState
from xworkmate.domain.threads import ThreadStatus
from xworkmate.settings import Settings
from xworkmate.store import open_store, turn_owners
from xworkmate.testing.openai_server import HangReply, OpenAIServer, TextReply

from .conftest import open_window
from .support import click_line, finished, settled
from .support_runs import fast_router, run, wait_until


def test_the_window_shows_a_crashed_turn_as_interrupted_and_its_resume_button_finishes_it(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    settings: Settings,
    home: Path,
) -> None:
    key = agent_controller.lines.create_line("crash").thread_id
    other = agent_controller.lines.create_line("calm").thread_id
    openai_server.script(HangReply(chunks=["Half an ", "answer"]))
    proc = _start_run(home, settings.effective_database_url, key, "write the report")
    try:
        _wait_until(
            lambda: any(o.partial_text == "Half an answer" for o in turn_owners.owners(agent_controller._store)),
            "the streamed reply to be kept",
        )
        proc.kill()  # SIGKILL: no handler runs, nothing is tidied up
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()

    store = open_store(settings.effective_database_url)  # the restart
    try:
        controller = SessionController(store, settings, router_factory=fast_router)
        assert controller.recovered == [key]
        window = open_window(qtbot, controller)
        click_line(qtbot, window, key)
        bar = window.message_pane.interrupted_bar
        qtbot.waitUntil(bar.isVisible, timeout=5000)
        assert "interrupted by a crash" in bar.label.text()
        # ISO-5: the bar is the shown line's: another line has none, and coming back shows it again.
        click_line(qtbot, window, other)
        settled(qtbot, window)
        assert not bar.isVisible()
        click_line(qtbot, window, key)
        qtbot.waitUntil(bar.isVisible, timeout=5000)
        assert controller.lines.line_view(key).status is ThreadStatus.RUNNABLE
        [button] = [b for b in window.findChildren(QPushButton, "resumeTurnButton") if b.isVisible()]
        assert button.isEnabled()
        states = [m.state for m in controller.lines.messages(key)]
        assert states[1:] == [MessageState.INTERRUPTED, MessageState.INTERRUPTED]  # the partial reply, the notice
        assert len(openai_server.chat_requests) == 1  # nothing ran again on its own

        openai_server.script(TextReply(["The whole ", "report."]))
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        run(loop, wait_until(lambda: len(openai_server.chat_requests) == 2, what="the resumed turn to start"))
        run(loop, wait_until(finished(controller, key), what="the resumed turn to finish"))
        settled(qtbot, window)
        contents = [m.content for m in controller.lines.messages(key)]
        assert contents[-2:] == [RESUMED_NOTICE, "The whole report."]
        assert not bar.isVisible()
        window.close()
        controller.close()
    finally:
        store.close()


def test_an_open_window_shows_a_cli_turn_killed_meanwhile_as_interrupted_not_running(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    settings: Settings,
    home: Path,
) -> None:
    """The window is open while ``xworkmate run`` streams on a line, then that process gets SIGKILL: the
    window's look for dead turns (its ``deadTurnTimer``) shows the line interrupted, no longer running."""
    controller = agent_controller
    window = open_window(qtbot, controller)
    qtbot.waitUntil(lambda: window.external_watch.listening, timeout=10_000)
    key = controller.lines.create_line("terminal").thread_id
    click_line(qtbot, window, key)
    openai_server.script(HangReply(chunks=["Half an ", "answer"]))
    proc = _start_run(home, settings.effective_database_url, key, "write the report")
    try:
        qtbot.waitUntil(lambda: controller.external.running_elsewhere(key), timeout=30_000)
        window.cards.check_dead_turns()  # a live turn elsewhere: nothing is recorded
        settled(qtbot, window)
        assert controller.turns.interruption(key) is None and controller.external.running_elsewhere(key)
        _wait_until(
            lambda: any(o.partial_text == "Half an answer" for o in turn_owners.owners(controller._store)),
            "the streamed reply to be kept",
        )
        proc.kill()
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert window.cards.dead_turn_timer.isActive()
    window.cards.check_dead_turns()  # what the timer does every DEAD_TURN_CHECK_MS
    settled(qtbot, window)
    bar = window.message_pane.interrupted_bar
    qtbot.waitUntil(bar.isVisible, timeout=5000)
    assert not controller.external.running_elsewhere(key)
    assert controller.lines.summary_status(controller.lines.line_summary(key)) is ThreadStatus.RUNNABLE
    assert any(m.content == "Half an answer" for m in controller.lines.messages(key))
    window.close()
