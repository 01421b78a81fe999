"""Issue 15, item 3 in the window: Settings → MCP servers adds and removes servers (references only,
SEC-1), and the line's MCP picker (acpMcpPicker) gives them to the line's agent, which gets them on
session/new (a real scripted agent process)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QLineEdit, QMenu, QPushButton
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.ui import MainWindow

from .conftest import open_window
from .support import click_line, finished, idle, send
from .support_runs import run, wait_until

POPUP_NOISE = pytest.mark.qt_log_ignore(
    r"This plugin does not support (raise\(\)|grabbing the keyboard|propagateSizeHints\(\))"
)


def _type(qtbot: QtBot, dialog: object, name: str, text: str) -> None:
    edit = dialog.findChild(QLineEdit, name)  # type: ignore[attr-defined]
    assert edit is not None
    edit.clear()
    qtbot.keyClicks(edit, text)


@POPUP_NOISE
def test_settings_add_remove_and_the_line_picker_gives_a_server_to_the_agent(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, turn=[{"say": "ok"}])
    line = controller.lines.create_line("agent")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    window: MainWindow = open_window(qtbot, controller)
    click_line(qtbot, window, line.thread_id)

    dialog = window.agent.on_mcp_settings_requested()
    idle(dialog)  # the servers are read on the store worker (issue 33 item 2)
    _type(qtbot, dialog, "mcpNameEdit", "files")
    _type(qtbot, dialog, "mcpCommandEdit", f"{sys.executable} -m mcp_files")
    _type(qtbot, dialog, "mcpEnvEdit", "TOKEN=sk-pasted-value")
    add = dialog.findChild(QPushButton, "mcpAddButton")
    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    idle(dialog)
    error = dialog.findChild(QLabel, "mcpErrorLabel").text()
    assert "NAME=env:VAR" in error and "sk-pasted-value" not in error
    assert dialog.server_names() == []
    _type(qtbot, dialog, "mcpEnvEdit", "TOKEN=env:FILES_TOKEN")
    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert dialog.server_names() == ["files"]
    _type(qtbot, dialog, "mcpNameEdit", "spare")
    _type(qtbot, dialog, "mcpUrlEdit", "https://example.org/mcp")
    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert dialog.server_names() == ["files", "spare"]
    # Issue 32, item 6: a URL server over sse, its references sent as headers.
    _type(qtbot, dialog, "mcpNameEdit", "events")
    _type(qtbot, dialog, "mcpUrlEdit", "https://example.org/sse")
    transport = dialog.findChild(QComboBox, "mcpTransportPicker")
    transport.setCurrentIndex(transport.findData("sse"))
    _type(qtbot, dialog, "mcpEnvEdit", "Authorization=env:EVENTS_TOKEN")
    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert dialog.server_names() == ["events", "files", "spare"]
    events = next(s for s in controller.agents.mcp_servers() if s.name == "events")
    assert (events.transport, events.header_refs, events.env_refs) == (
        "sse",
        (("Authorization", "env:EVENTS_TOKEN"),),
        (),
    )
    dialog.table.selectRow(0)
    qtbot.mouseClick(dialog.findChild(QPushButton, "mcpRemoveButton"), Qt.MouseButton.LeftButton)
    idle(dialog)
    dialog.table.selectRow(1)
    qtbot.mouseClick(dialog.findChild(QPushButton, "mcpRemoveButton"), Qt.MouseButton.LeftButton)
    idle(dialog)
    assert dialog.server_names() == ["files"]
    dialog.close()
    qtbot.waitUntil(lambda: window.agent_bar.mcp_picker.actions_by_name().keys() == {"files"})

    picker = window.agent_bar.mcp_picker
    assert picker.text() == "MCP (0)"

    def choose() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu), "the MCP menu did not open"
        action = picker.actions_by_name()["files"]
        qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())

    QTimer.singleShot(300, choose)
    qtbot.mouseClick(picker, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: [s.name for s in controller.agents.line_mcp_servers(line.thread_id)] == ["files"])
    qtbot.waitUntil(lambda: window.agent_bar.mcp_picker.text() == "MCP (1)")

    send(qtbot, window, "hello")
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn"))
    (new,) = report_events(report, "new_session")
    assert "mcp" not in new  # FILES_TOKEN is not set: left out, in one line
    texts = [m.content for m in controller.lines.messages(line.thread_id)]
    assert any("MCP server 'files' was not started: TOKEN comes from $FILES_TOKEN" in t for t in texts), texts


def test_settings_providers_shows_what_the_agent_reported(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Item 8: once the agent ran, Settings → Providers shows the name and version from its agentInfo."""
    controller = sqlite_controller
    scripted_agent(
        controller, tmp_path, agent_info={"name": "scripted-agent", "version": "4.2.1"}, turn=[{"say": "ok"}]
    )
    window: MainWindow = open_window(qtbot, controller)
    dialog = window.line_settings.on_provider_settings_requested()
    idle(dialog)  # the providers and what each agent reported are read on the store worker
    row = next(r for r in range(dialog.table.rowCount()) if dialog.table.item(r, 0).text() == "scripted")
    assert dialog.table.item(row, 1).text() == "(ACP agent)"
    dialog.close()
    line = controller.lines.create_line("agent")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    assert run(loop, controller.turns.run_turn(line.thread_id, "hi", headless=True)).status == "finished"
    dialog = window.line_settings.on_provider_settings_requested()
    idle(dialog)
    assert dialog.table.item(row, 1).text() == "scripted-agent 4.2.1 (ACP agent)"
