"""Issue 15, items 4-6 in the window: the ACP agent's mode, model and config-option pickers
(acpModePicker, acpModelPicker, acpConfigOptions), the slash completer (slashCompleter) and the
usage meter (usageMeter), driven with real clicks against a real scripted agent process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QAbstractItemView, QApplication, QCheckBox, QComboBox
from pytestqt.qtbot import QtBot

from tests.acp.test_session_offers import CONFIG, MODEL_OPTION, MODES
from xworkmate.controllers import SessionController
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.ui import MainWindow
from xworkmate.ui.agent.agent_session import SessionDeleteDialog

from .conftest import open_window
from .support import click_line, finished, send, settled
from .support_runs import run, wait_until

# Opening a popup offscreen: the platform says it cannot raise it or grab the keyboard.
POPUP_NOISE = pytest.mark.qt_log_ignore(
    r"This plugin does not support (raise\(\)|grabbing the keyboard|propagateSizeHints\(\))"
)

COMMANDS = [
    {"name": "review", "description": "review the current diff"},
    {"name": "init", "description": "write an AGENTS.md", "hint": "what to focus on"},
]


def _pick(qtbot: QtBot, picker: QComboBox, text: str) -> None:
    """Open the combo box's list with a click and click the entry, as a person does."""
    qtbot.mouseClick(picker, Qt.MouseButton.LeftButton)
    view = picker.view()
    qtbot.waitUntil(view.isVisible)
    row = picker.findText(text)
    assert row >= 0, f"{text!r} not offered: {[picker.itemText(i) for i in range(picker.count())]}"
    rect = view.visualRect(picker.model().index(row, 0))
    qtbot.wait(QApplication.doubleClickInterval() + 50)  # Qt ignores a release that soon after opening
    # Inside the viewport: offscreen, the popup may be narrower than the row's rectangle.
    where = QPoint(min(rect.center().x(), view.viewport().width() // 2), rect.center().y())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    qtbot.waitUntil(lambda: not view.isVisible())


def _click_row(qtbot: QtBot, view: QAbstractItemView, text: str) -> None:
    model = view.model()
    rows = [model.index(r, 0) for r in range(model.rowCount())]
    index = next(i for i in rows if i.data() == text)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())


@POPUP_NOISE
def test_pickers_show_the_offers_and_a_click_switches_on_the_next_turn(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(
        controller,
        tmp_path,
        session_id="s-1",
        load_session=True,
        modes=MODES,
        config_options=[MODEL_OPTION, *CONFIG],
        commands=COMMANDS,
        prompt_usage={"inputTokens": 1200, "outputTokens": 300, "totalTokens": 1500},
        turn=[{"usage": {"used": 5400, "size": 128000, "cost": {"amount": 0.0125, "currency": "USD"}}}, {"say": "ok"}],
    )
    line = controller.lines.create_line("agent")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    window: MainWindow = open_window(qtbot, controller)
    click_line(qtbot, window, line.thread_id)
    bar = window.agent_bar
    assert bar.isVisible() and not window.findChild(QComboBox, "acpModePicker").isVisible()  # nothing offered yet
    assert not window.usage_meter.isVisible()

    send(qtbot, window, "hello")
    run(loop, wait_until(finished(controller, line.thread_id), what="the first turn"))
    qtbot.waitUntil(bar.isVisible)
    mode_picker = window.findChild(QComboBox, "acpModePicker")
    model_picker = window.findChild(QComboBox, "acpModelPicker")
    assert mode_picker is not None and model_picker is not None
    assert [mode_picker.itemText(i) for i in range(mode_picker.count())] == ["Ask", "Code", "Plan"]
    assert mode_picker.currentText() == "Ask"
    assert mode_picker.itemData(1, Qt.ItemDataRole.ToolTipRole) == "edits freely"
    assert model_picker.currentText() == "Small"
    effort = bar.config_widget("effort")
    web = bar.config_widget("web")
    assert isinstance(effort, QComboBox) and effort.currentText() == "Low"
    assert isinstance(web, QCheckBox) and not web.isChecked()
    assert bar.config_widget("model") is None  # the model option is the model picker, not shown twice
    assert window.usage_meter.text() == "5.4k/128k"  # compact; the tooltip has the rest (issue 30 item 2)
    assert "Cost: 0.0125 USD" in window.usage_meter.toolTip()
    window.grab().save(str(tmp_path / "agent-session.png"))

    _pick(qtbot, mode_picker, "Code")
    _pick(qtbot, model_picker, "Large")
    _pick(qtbot, effort, "High")
    qtbot.mouseClick(web, Qt.MouseButton.LeftButton)
    settled(qtbot, window)  # the picks are stored by operations, in order
    state = controller.agents.agent_session(line.thread_id)
    assert (state.wanted_mode, state.wanted_model, state.wanted_config) == (
        "code",
        "large",
        {"effort": "high", "web": True},
    )
    assert mode_picker.currentText() == "Code"  # the pick is shown while it waits for the next turn

    send(qtbot, window, "again")
    run(loop, wait_until(finished(controller, line.thread_id), what="the second turn"))
    assert [(e["what"], e["value"]) for e in report_events(report, "set")] == [
        ("mode", "code"),
        ("config", "large"),  # the model is a config option (issue 32, item 1)
        ("config", "high"),
        ("config", True),
    ]
    qtbot.waitUntil(lambda: controller.agents.agent_session(line.thread_id).wanted_mode is None)
    assert window.findChild(QComboBox, "acpModePicker").currentText() == "Code"
    assert window.usage_meter.text() == "5.4k/128k"
    assert "Tokens in: 2,400, out: 600" in window.usage_meter.toolTip()


@POPUP_NOISE
def test_slash_opens_the_agents_commands_and_a_click_fills_the_composer(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    scripted_agent(controller, tmp_path, commands=COMMANDS, turn=[{"say": "ok"}])
    line = controller.lines.create_line("agent")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    window: MainWindow = open_window(qtbot, controller)
    click_line(qtbot, window, line.thread_id)
    send(qtbot, window, "hello")
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn"))

    completer = window.slash_completer
    assert completer.objectName() == "slashCompleter"
    qtbot.waitUntil(lambda: len(completer.commands()) == 2)
    qtbot.keyClicks(window.composer, "/")
    popup = completer.popup()
    qtbot.waitUntil(popup.isVisible)
    model = popup.model()
    shown = [(model.index(r, 0).data(), model.index(r, 1).data()) for r in range(model.rowCount())]
    assert shown == [("/review", "review the current diff"), ("/init", "write an AGENTS.md — what to focus on")]
    window.grab().save(str(tmp_path / "slash.png"))
    qtbot.keyClicks(window.composer, "i")
    qtbot.waitUntil(lambda: completer.completionCount() == 1)
    _click_row(qtbot, popup, "/init")
    qtbot.waitUntil(lambda: window.composer.toPlainText() == "/init ")
    assert not popup.isVisible()
    window.composer.clear()
    qtbot.keyClicks(window.composer, "plain text")
    assert not popup.isVisible()  # only a leading slash opens it


def test_a_native_line_shows_no_agent_pickers(window: MainWindow) -> None:
    assert not window.agent_bar.isVisible()
    assert window.slash_completer.commands() == ()


@POPUP_NOISE
def test_binding_a_new_line_offers_the_agents_existing_sessions(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Item 7: choosing ACP mode asks the agent for its sessions (session/list, where advertised)."""
    controller = sqlite_controller
    report = scripted_agent(
        controller, tmp_path, session_id="s-old", load_session=True, list_sessions=True, turn=[{"say": "ok"}]
    )
    first = controller.lines.create_line("first")
    controller.line_settings.set_execution(first.thread_id, "acp", "scripted")
    assert run(loop, controller.turns.run_turn(first.thread_id, "remember 42", headless=True)).status == "finished"

    window: MainWindow = open_window(qtbot, controller)
    second = controller.lines.create_line("second")
    click_line(qtbot, window, second.thread_id)
    picker = window.mode_picker
    picker.setCurrentIndex(picker.findText("scripted (ACP)"))
    sessions = window.findChild(QComboBox, "acpSessionPicker")
    assert sessions is not None
    run(loop, wait_until(sessions.isVisible, what="the agent's sessions"))
    assert [sessions.itemText(i) for i in range(sessions.count())] == [
        "New session",
        "ok (s-old)",
    ]  # its title, then its id
    _pick(qtbot, sessions, "ok (s-old)")
    run(loop, wait_until(lambda: controller.get_thread(second.thread_id).execution_binding.acp_session_id == "s-old"))
    assert len(report_events(report, "list_sessions")) == 1  # the pick used the listing it had
    send(qtbot, window, "what was it?")
    run(loop, wait_until(finished(controller, second.thread_id), what="the turn"))
    assert [e["session_id"] for e in report_events(report, "load_session")] == ["s-old"]


@POPUP_NOISE
def test_the_windows_session_picker_deletes_a_session_the_agent_offers_to_delete(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    sqlite_controller: SessionController,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 32 item 6, as the window wires it (``window.agent.session_deleter``): Delete… beside the picker
    sends session/delete for the session chosen, once confirmed."""
    controller = sqlite_controller
    report = scripted_agent(
        controller,
        tmp_path,
        session_id="s-old",
        load_session=True,
        list_sessions=True,
        delete_sessions=True,
        turn=[{"say": "ok"}],
    )
    first = controller.lines.create_line("first")
    controller.line_settings.set_execution(first.thread_id, "acp", "scripted")
    assert run(loop, controller.turns.run_turn(first.thread_id, "remember 42", headless=True)).status == "finished"
    window: MainWindow = open_window(qtbot, controller)
    second = controller.lines.create_line("second")
    click_line(qtbot, window, second.thread_id)
    window.mode_picker.setCurrentIndex(window.mode_picker.findText("scripted (ACP)"))
    run(loop, wait_until(lambda: bool(window.agent_bar.delete_actions()), what="the sessions offered for deletion"))
    monkeypatch.setattr(SessionDeleteDialog, "ask", staticmethod(lambda _parent, _label: True))
    [delete] = [a for a in window.agent_bar.delete_actions() if "s-old" in a.text()]
    delete.trigger()
    pending = window.agent.session_deleter.pending
    assert pending is not None
    run(loop, wait_until(pending.done, what="the deletion"))
    assert [e["session_id"] for e in report_events(report, "delete_session")] == ["s-old"]
