"""SBX-1 in the window: the network switch beside the permission level, and the card of a
command that would run without a sandbox."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.support.sandboxing import needs_bwrap, path_without_bwrap
from xworkmate.controllers import SessionController
from xworkmate.domain.threads import NetworkAccess
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply
from xworkmate.ui import MainWindow

from .support import click_line, finished, send, settled
from .support_runs import call, run, tool_rows, wait_until


def test_the_network_picker_offers_three_choices_and_sets_the_current_lines_setting(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """SBX-4: off, allow-list or on, beside the permission level; it follows the current line."""
    line = sqlite_controller.lines.create_line("net")
    click_line(qtbot, window, line.thread_id)
    picker = window.message_pane.network_picker
    assert picker.objectName() == "networkPicker"
    assert [picker.itemData(i) for i in range(picker.count())] == ["off", "allow-list", "on"]
    assert picker.currentData() == "off" and picker.currentText() == "Network off"
    picker.setCurrentIndex(picker.findData("allow-list"))
    settled(qtbot, window)
    assert sqlite_controller.get_thread(line.thread_id).context_state.network is NetworkAccess.ALLOW_LIST
    picker.setCurrentIndex(picker.findData("on"))
    settled(qtbot, window)
    assert sqlite_controller.get_thread(line.thread_id).context_state.network is NetworkAccess.ON
    click_line(qtbot, window, "main")  # the picker follows the current line
    assert picker.currentData() == "off"
    click_line(qtbot, window, line.thread_id)
    assert picker.currentData() == "on"


@needs_bwrap
def test_a_refused_host_shows_on_the_line_with_allow_this_host(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """SBX-4: a command on an allow-list line asks the proxy for 127.0.0.1:5432; the window says it was
    refused, and "Allow this host for this line" puts it on the line's list."""
    window = agent_window
    line = agent_controller.lines.create_line("listed")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    agent_controller.line_settings.set_network(line.thread_id, "allow-list")
    click_line(qtbot, window, line.thread_id)
    probe = """curl -s -o /dev/null --noproxy '' -x "$HTTPS_PROXY" http://127.0.0.1:5432/"""
    openai_server.script(ToolCallReply([call("run_command", command=probe)]), TextReply(["Done."]))
    send(qtbot, window, "reach the database")
    run(loop, wait_until(finished(agent_controller, line.thread_id), what="the turn to finish"))
    bar = window.message_pane.network_bar
    run(loop, wait_until(lambda: bar.isVisible(), what="the refused host's bar"))
    assert bar.destination == "127.0.0.1:5432" and "127.0.0.1:5432" in bar.label.text()
    assert "127.0.0.1:5432 was refused" in window.message_pane.status_label.text()
    qtbot.mouseClick(bar.allow_button, Qt.MouseButton.LeftButton)
    settled(qtbot, window)
    assert agent_controller.get_thread(line.thread_id).context_state.allowed_hosts == ("127.0.0.1:5432",)
    assert not bar.isVisible()


def test_a_command_without_a_sandbox_asks_on_a_full_line_and_the_card_says_why(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window = agent_window
    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path))
    line = agent_controller.lines.create_line("bare")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    marker = tmp_path / "ran"
    click_line(qtbot, window, line.thread_id)
    openai_server.script(ToolCallReply([call("run_command", command=f"touch {marker}")]), TextReply(["Done."]))
    send(qtbot, window, "touch the marker")
    area = window.message_pane.approval_area
    run(loop, wait_until(lambda: len(area.cards) == 1 and area.isVisible(), what="the approval card"))
    card = area.cards[0]
    assert card.warning_label is not None and card.warning_label.objectName() == "approvalWarning"
    assert "without a sandbox" in card.warning_label.text() and "install bubblewrap" in card.warning_label.text()
    assert not card.always_button.isEnabled()  # "always" would not stop the asking
    assert not marker.exists()
    window.grab().save(str(tmp_path / "unsandboxed-card.png"))
    qtbot.mouseClick(card.reject_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(agent_controller, line.thread_id), what="the turn to finish"))
    assert not marker.exists()
    assert len(tool_rows(window)) == 1
