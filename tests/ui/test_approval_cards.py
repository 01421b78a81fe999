"""Approval cards show what will happen (issue 30 item 3): a write's path and diff, a new file's content,
a command with its folder and network setting; the raw call only behind "Details"; a rejection worded."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit, QTextEdit, QWidget
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.controllers.changes import ApprovalRequested
from xworkmate.domain.threads import NetworkAccess
from xworkmate.preferences import Language
from xworkmate.presentation.files import FOLD_MARK, LONG_LINE_CHARS
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


def test_an_agents_command_and_title_of_megabytes_make_a_card_of_short_lines_showing_all_of_the_command(
    qtbot: QtBot,
) -> None:
    """Issue 34 (LOOP-1): an ACP agent's title is often its whole command; a 300,000-character title took
    2.4 s to lay out in the heading, a 500,000-character command 11.7 s in the card and 6.3 s more for
    Details, the window frozen. The command is shown whole, folded; the title is cut and says so."""
    command = "cat > out.b64 <<'EOF'\n" + "QUJD" * 125_000 + "\nEOF"
    arguments = json.dumps({"title": f"Run {command}", "input": {"command": command}})
    request = ApprovalRequested(
        key="main", approval_id=7, tool="execute", summary=f"Run {command}", arguments=arguments, folder="/tmp"
    )
    card = ApprovalCard(request)
    qtbot.addWidget(card)
    card.show()
    card.details_button.click()
    shown = card.findChild(QPlainTextEdit, "approvalCommand")
    fold = "\n" + FOLD_MARK.replace("\u00a0", " ")  # Qt's plain text gives a no-break space back as a space
    assert shown is not None and shown.toPlainText().replace(fold, "") == command
    for view in (shown, card.arguments_view):
        blocks = view.toPlainText().split("\n")
        assert max(map(len, blocks)) <= LONG_LINE_CHARS + len(FOLD_MARK)
    assert json.loads(card.arguments_view.toPlainText().replace(fold, "")) == json.loads(arguments)
    note = card.findChild(QLabel, "approvalNote")
    assert note is not None and "folded" in note.text()
    assert card.summary_label.text() == "The agent asks to run this command"  # the block shows it

    title = "fetch " + "https://example.com/?q=" + "z" * 300_000
    other = ApprovalCard(
        ApprovalRequested(key="main", approval_id=8, tool="fetch", summary=title, arguments="{}", folder="/tmp")
    )
    qtbot.addWidget(other)
    other.show()
    heading = other.summary_label.text()
    assert heading.startswith("The agent asks to fetch https://example.com/?q=zzz") and len(heading) < 1_100
    assert heading.endswith(f" … {len(title) - LONG_LINE_CHARS} more characters on this line, not shown")
