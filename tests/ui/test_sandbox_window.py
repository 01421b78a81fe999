"""SBX-1 in the window: the network switch beside the permission level, and the card of a
command that would run without a sandbox."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.support.openai_server import OpenAIServer, TextReply, ToolCallReply
from tests.support.sandboxing import path_without_bwrap
from xworkmate.controllers import SessionController
from xworkmate.domain.threads import NetworkAccess
from xworkmate.ui import MainWindow

from .support import click_line, finished, send, settled
from .support_runs import call, run, tool_rows, wait_until


def test_the_network_switch_sets_the_current_lines_setting(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    line = sqlite_controller.create_line("net")
    click_line(qtbot, window, line.thread_id)
    toggle = window.message_pane.network_toggle
    assert toggle.objectName() == "networkToggle" and not toggle.isChecked() and toggle.text() == "Network off"
    qtbot.mouseClick(toggle, Qt.MouseButton.LeftButton)
    settled(qtbot, window)
    assert sqlite_controller.get_thread(line.thread_id).context_state.network is NetworkAccess.ON
    assert toggle.text() == "Network on"
    click_line(qtbot, window, "main")  # the switch follows the current line
    assert not toggle.isChecked()
    click_line(qtbot, window, line.thread_id)
    assert toggle.isChecked()


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
    line = agent_controller.create_line("bare")
    agent_controller.set_permission(line.thread_id, "full")
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
