"""SBX-4 on the tool card (issue 29): a host the line's proxy refused during a command shows on that
command's card, with "Allow this host for this line"; after a restart too. Real bwrap, the real proxy,
the scripted model server, the real window offscreen."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from tests.support.sandboxing import PG_PROXIED_PROBE, needs_bwrap
from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation import CARD_ROLE

from .conftest import open_window
from .support import click_line, finished, send, settled
from .support_runs import call, fast_router, run, tool_rows, wait_until

REFUSED = "Network refused: 127.0.0.1:5432 — not on this line's allow-list"


def _card_buttons(window: MainWindow) -> list[QPushButton]:
    return window.message_list.viewport().findChildren(QPushButton, "cardAllowHostButton")


def _card_texts(window: MainWindow) -> list[str]:
    model = window.message_model
    return [model.index(row, 0).data(CARD_ROLE).plain_text() for row in tool_rows(window)]


@needs_bwrap
def test_a_refused_host_shows_on_its_commands_card_and_its_button_allows_it_for_the_line(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    settings: Settings,
    tmp_path: Path,
) -> None:
    window, controller = agent_window, agent_controller
    line = controller.lines.create_line("listed")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_network(line.thread_id, "allow-list")
    click_line(qtbot, window, line.thread_id)
    openai_server.script(
        ToolCallReply([call("run_command", "quiet", command="echo no network")]),
        ToolCallReply([call("run_command", "probe", command=PG_PROXIED_PROBE)]),
        TextReply(["Done."]),
    )
    send(qtbot, window, "reach the database")
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn to finish"))

    # The refusal is on the card of the command that made it, not on the other one.
    quiet, probe = _card_texts(window)
    assert REFUSED in probe and "Network refused" not in quiet
    run(loop, wait_until(lambda: len(_card_buttons(window)) == 1, what="the card's allow button"))
    [button] = _card_buttons(window)
    assert button.text() == "Allow this host for this line" and button.isVisible() and button.isEnabled()
    # The button sits on the probe's card (inside its row), under the card's text.
    probe_rect = window.message_list.visualRect(window.message_model.index(tool_rows(window)[1], 0))
    row = button.parentWidget()
    assert row is not None and row.objectName() == "cardNetworkActions" and probe_rect.contains(row.geometry())
    # The line's status and its bar say it as before.
    assert "127.0.0.1:5432 was refused" in window.message_pane.status_label.text()
    window.grab().save(str(tmp_path / "refused-on-card.png"))

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    settled(qtbot, window)
    assert controller.get_thread(line.thread_id).context_state.allowed_hosts == ("127.0.0.1:5432",)
    qtbot.waitUntil(lambda: not button.isEnabled(), timeout=3000)  # allowed now: nothing left to press
    assert not window.message_pane.network_bar.isVisible()  # the one code path: the bar goes too
    window.close()
    controller.close()

    # A new controller on the same database: the card is rebuilt from its stored message.
    store = open_store(settings.effective_database_url)
    try:
        again = SessionController(store, settings, router_factory=fast_router)
        assert again.get_thread(line.thread_id).context_state.allowed_hosts == ("127.0.0.1:5432",)
        reopened = open_window(qtbot, again)
        click_line(qtbot, reopened, line.thread_id)
        quiet, probe = _card_texts(reopened)
        assert REFUSED in probe and "Network refused" not in quiet
        qtbot.waitUntil(lambda: len(_card_buttons(reopened)) == 1, timeout=5000)
        [button] = _card_buttons(reopened)
        assert button.property("destination") == "127.0.0.1:5432" and not button.isEnabled()
        reopened.close()
        again.close()
    finally:
        store.close()


@needs_bwrap
def test_a_connection_made_while_no_command_runs_stays_a_notice_and_a_card_has_no_button(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    tmp_path: Path,
) -> None:
    """The scripted ACP agent reaches 5432 with its own shell and no tool call of its running: the bar and
    the status say so, no card lists it, and no card offers a button."""
    from xworkmate.testing.acp_scripts import scripted_agent

    window, controller = agent_window, agent_controller
    scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"tool": {"id": "t1", "title": "look around", "kind": "read", "status": "completed", "text": "ok"}},
            {"shell": PG_PROXIED_PROBE},
            {"say": "done"},
        ],
    )
    line = controller.lines.create_line("acp")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    controller.line_settings.set_network(line.thread_id, "allow-list")
    click_line(qtbot, window, line.thread_id)
    send(qtbot, window, "try")
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn to finish"))
    bar = window.message_pane.network_bar
    run(loop, wait_until(lambda: bar.isVisible(), what="the refused host's bar"))
    assert bar.destination == "127.0.0.1:5432"
    assert "127.0.0.1:5432 was refused" in window.message_pane.status_label.text()
    [card] = _card_texts(window)
    assert "Network refused" not in card
    settled(qtbot, window)
    assert _card_buttons(window) == []
