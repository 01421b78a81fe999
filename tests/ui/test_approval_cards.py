"""Approval cards show what will happen (issue 30 item 3): a write's path and diff, a new file's content,
a command with its folder and network setting; the raw call only behind "Details"; a rejection worded."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit, QTextEdit, QWidget
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.threads import NetworkAccess
from xworkmate.preferences import Language
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply
from xworkmate.ui import MainWindow
from xworkmate.ui.agent.approvals import ApprovalCard
from xworkmate.ui.i18n import install_translations, remove_translations

from .support import finished, open_new_line, send
from .support_runs import call, run, tool_rows, wait_until


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    assert install_translations(qapp, Language.CHINESE) is Language.CHINESE, "run `make translations`"
    yield
    remove_translations(qapp)


def visible_text(card: QWidget) -> str:
    """Every text a person sees on the card: labels and text views that are shown."""
    parts: list[str] = []
    for child in card.findChildren(QWidget):
        if not child.isVisibleTo(card):
            continue
        if isinstance(child, QLabel):
            parts.append(child.text())
        elif isinstance(child, (QPlainTextEdit, QTextEdit)):
            parts.append(child.toPlainText())
    return "\n".join(parts)


def wait_for_card(loop: asyncio.AbstractEventLoop, window: MainWindow) -> ApprovalCard:
    area = window.message_pane.approval_area
    run(loop, wait_until(lambda: len(area.cards) == 1 and area.isVisible(), what="the approval card"))
    return area.cards[0]


def test_a_write_on_an_existing_file_shows_its_path_and_the_diff_and_json_only_under_details(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, agent_window: MainWindow, openai_server: OpenAIServer
) -> None:
    window = agent_window
    line = open_new_line(qtbot, window, "Diff card")
    notes = Path(line.workspace_binding.path or "", "notes.md")
    notes.write_text("# Notes\n\nfirst\nsecond\nthird\n")
    openai_server.script(
        ToolCallReply(
            [call("write_file", path="notes.md", content="# Notes\n\nfirst\nSECOND\nthird\n", quote="update notes.md")]
        ),
        TextReply(["Done."]),
    )
    send(qtbot, window, "Please update notes.md with a louder second line")
    card = wait_for_card(loop, window)

    shown = visible_text(card)
    assert "notes.md — +1 −1" in shown
    diff = card.findChild(QPlainTextEdit, "approvalDiff")
    assert diff is not None and diff.isVisibleTo(card)
    assert [ln for ln in diff.toPlainText().splitlines() if ln[:1] in "+-"] == ["-second", "+SECOND"]
    assert " first" in diff.toPlainText()  # context around the change
    assert "\\n" not in shown and "{" not in shown  # no JSON dump until Details
    assert not card.arguments_view.isVisibleTo(card)

    qtbot.mouseClick(card.details_button, Qt.MouseButton.LeftButton)
    assert card.arguments_view.isVisibleTo(card)
    assert '"content": "# Notes\\n' in visible_text(card)
    assert notes.read_text().endswith("second\nthird\n")  # nothing written before the answer

    qtbot.keyClick(card, Qt.Key.Key_Y)  # the keys still answer
    run(loop, wait_until(finished(window.controller, line.thread_id), what="the turn"))
    assert "SECOND" in notes.read_text()


def test_a_new_file_shows_its_content(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, agent_window: MainWindow, openai_server: OpenAIServer
) -> None:
    window = agent_window
    open_new_line(qtbot, window, "New file card")
    openai_server.script(
        ToolCallReply([call("write_file", path="tool.py", content="def greet():\n    return 'hi'\n", quote="create")]),
        TextReply(["Done."]),
    )
    send(qtbot, window, "Please create tool.py with a greet function")
    card = wait_for_card(loop, window)
    content = card.findChild(QTextEdit, "approvalContent")
    assert content is not None and content.isVisibleTo(card)
    assert content.toPlainText() == "def greet():\n    return 'hi'"
    assert "tool.py — new file" in visible_text(card)
    assert "{" not in visible_text(card)
    qtbot.keyClick(card, Qt.Key.Key_N)


def test_a_command_shows_the_command_its_folder_and_the_lines_network(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    line = open_new_line(qtbot, window, "Command card")
    agent_controller.line_settings.set_network(line.thread_id, NetworkAccess.ON)
    openai_server.script(ToolCallReply([call("run_command", command="ls -la src")]), TextReply(["Done."]))
    send(qtbot, window, "list the sources")
    card = wait_for_card(loop, window)
    command = card.findChild(QPlainTextEdit, "approvalCommand")
    assert command is not None and command.toPlainText() == "ls -la src"
    shown = visible_text(card)
    assert card.summary_label.text() == "The agent asks to run this command"  # the block says which, once
    assert f"in {line.workspace_binding.path}" in shown
    assert "Network: on" in shown
    assert "{" not in shown
    qtbot.mouseClick(card.reject_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(window.controller, line.thread_id), what="the turn"))


def _rejected_card_text(qtbot: QtBot, loop: asyncio.AbstractEventLoop, window: MainWindow, server: OpenAIServer) -> str:
    line = open_new_line(qtbot, window, "Rejected")
    server.script(
        ToolCallReply([call("write_file", path="hello.txt", content="hi!\n", quote="create hello.txt")]),
        TextReply(["Understood."]),
    )
    send(qtbot, window, "Please create hello.txt")
    card = wait_for_card(loop, window)
    qtbot.keyClick(card, Qt.Key.Key_N)
    run(loop, wait_until(finished(window.controller, line.thread_id), what="the turn"))
    [row] = tool_rows(window)
    return str(window.message_model.index(row, 0).data())


def test_a_rejected_calls_card_says_you_rejected_this(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, agent_window: MainWindow, openai_server: OpenAIServer
) -> None:
    text = _rejected_card_text(qtbot, loop, agent_window, openai_server)
    assert text == "write hello.txt — you rejected this"


def test_a_rejected_calls_card_says_so_in_chinese(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    chinese: None,
    agent_window: MainWindow,
    openai_server: OpenAIServer,
) -> None:
    text = _rejected_card_text(qtbot, loop, agent_window, openai_server)
    assert "你拒绝了此操作" in text
    assert "not_approved" not in text and "rejected" not in text
