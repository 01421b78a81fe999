"""Issue 32 item 4 (``auth.terminal``): an ACP agent's terminal sign-in method is its own login program. In the
window, picking it opens a sign-in terminal: the program runs on a pty in the agent's sandbox, its output shows as
plain text, a typed line goes to it, and on status 0 the turn goes on signed in; any other status ends the turn
in one line and the line stays usable."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QPlainTextEdit, QPushButton
from pytestqt.qtbot import QtBot

from tests.support.sandboxing import needs_bwrap
from xworkmate.agents.acp.login_terminal import TEXT_KEPT, LoginTerminal
from xworkmate.controllers import SessionController
from xworkmate.testing.acp_scripts import agent_folder, report_events, scripted_agent
from xworkmate.ui import MainWindow
from xworkmate.ui.agent.sign_in import SignInCard
from xworkmate.ui.agent.sign_in_terminal import TERMINAL_LINE_CHARS, TERMINAL_LINES, SignInTerminal

from .conftest import open_window
from .support import click_line, finished, label_text, message_texts, send
from .support_runs import run, wait_until

METHODS = [
    {"id": "oauth", "name": "Browser sign-in", "description": "opens a browser"},
    {"id": "tui", "name": "Log in", "type": "terminal", "args": ["--login"], "env": {"LOGIN_MODE": "tui"}},
]


def _start(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, controller: SessionController, tmp_path: Path
) -> tuple[MainWindow, str, Path, SignInTerminal]:
    """A line whose agent needs sign-in; the person picks its terminal method; the sign-in terminal opens."""
    login_file = agent_folder(tmp_path) / "login"
    (tmp_path / "outside").mkdir()
    report = scripted_agent(
        controller,
        tmp_path,
        auth_methods=METHODS,
        require_auth=True,
        login={"file": str(login_file), "token": "t0k", "outside": str(tmp_path / "outside" / "pwned.txt")},
        turn=[{"say": "signed in!"}],
    )
    line = controller.lines.create_line("agent")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    window: MainWindow = open_window(qtbot, controller)
    click_line(qtbot, window, line.thread_id)
    send(qtbot, window, "hello agent")
    run(loop, wait_until(lambda: window.findChild(SignInCard, "signInCard") is not None, what="the sign-in card"))
    card = window.findChild(SignInCard, "signInCard")
    assert card is not None
    shown = " ".join(label.text() for label in card.findChildren(QLabel))
    assert "Opens a sign-in terminal running:" in shown and "--login" in shown
    buttons = {b.property("methodId"): b for b in card.findChildren(QPushButton, "signInMethodButton")}
    qtbot.mouseClick(buttons["tui"], Qt.MouseButton.LeftButton)
    run(loop, wait_until(lambda: window.findChild(SignInTerminal, "signInTerminal") is not None, what="the terminal"))
    terminal = window.findChild(SignInTerminal, "signInTerminal")
    assert terminal is not None and terminal.isVisible()
    output = terminal.findChild(QPlainTextEdit, "signInTerminalOutput")
    assert output is not None
    run(loop, wait_until(lambda: "token:" in output.toPlainText(), what="the login program's prompt"))
    assert "\x1b" not in output.toPlainText()  # its colours are stripped: plain text
    return window, line.thread_id, report, terminal


def _type(qtbot: QtBot, terminal: SignInTerminal, text: str) -> None:
    field = terminal.findChild(QLineEdit, "signInTerminalInput")
    assert field is not None
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def _status(terminal: SignInTerminal) -> str:
    label = terminal.findChild(QLabel, "signInTerminalStatus")
    assert label is not None
    return label.text()


@needs_bwrap
def test_a_terminal_sign_in_runs_the_login_program_on_a_tty_and_the_turn_goes_on(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    window, key, report, terminal = _start(qtbot, loop, controller, tmp_path)
    window.grab().save(str(tmp_path / "sign-in-terminal.png"))
    _type(qtbot, terminal, "t0k")

    run(loop, wait_until(finished(controller, key), what="the turn to finish"))
    assert any("signed in!" in text for text in message_texts(window)), (
        [m.content for m in controller.lines.messages(key)],
        report.read_text(),
        terminal.output.toPlainText(),
    )
    # On a TTY, with the method's env, in the agent's sandbox: its state folder writable (the login file), the
    # rest of the disk not (SBX-1).
    logins = report_events(report, "login")
    assert [(e["tty"], e["ok"], e["env"], e["wrote_outside"]) for e in logins] == [(True, True, "tui", False)]
    assert not (tmp_path / "outside" / "pwned.txt").exists()
    assert report_events(report, "authenticate") == []  # a terminal method is never sent as authenticate
    # auth.terminal is advertised to a window turn (the autouse check validates the traffic against v1).
    assert [e["auth_terminal"] for e in report_events(report, "initialize")] == [True]
    assert "login: signed in" in terminal.output.toPlainText()
    assert _status(terminal) == "The sign-in program finished. The turn goes on."
    assert label_text(window, "lineStatusLabel").startswith("Runnable")


def test_a_failing_terminal_sign_in_ends_the_turn_in_one_line_naming_its_status(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    window, key, report, terminal = _start(qtbot, loop, controller, tmp_path)
    _type(qtbot, terminal, "wrong")

    run(loop, wait_until(finished(controller, key), what="the turn to end"))
    assert _status(terminal) == "The sign-in program exited with status 2."
    errors = [m.content for m in controller.lines.messages(key) if "exited with status 2" in m.content]
    assert len(errors) == 1, "the turn ends saying why"
    assert "\n" not in errors[0].strip() and "--login" in errors[0]  # ERR-1: one line, naming the program
    assert [e["ok"] for e in report_events(report, "login")] == [False]
    assert label_text(window, "lineStatusLabel").startswith("Runnable")  # the line stays usable


def test_stopping_the_turn_during_a_terminal_sign_in_ends_the_login_program_and_says_so(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """SBX-1: no login program outlives its turn; the sign-in terminal says it was stopped."""
    controller = sqlite_controller
    _window, key, report, terminal = _start(qtbot, loop, controller, tmp_path)
    assert controller.turns.stop(key)

    run(loop, wait_until(finished(controller, key), what="the turn to stop"))
    assert _status(terminal) == "The sign-in program was stopped (signal 15)."
    field = terminal.findChild(QLineEdit, "signInTerminalInput")
    assert field is not None and not field.isEnabled()
    assert report_events(report, "login") == []  # it never got a token


_FLOOD = """
import sys
for n in range(6_000):
    sys.stdout.write(f"line {n}\\n")
sys.stdout.write("x" * 1_000_000 + "\\n")
sys.stdout.write("open https://example.com/login?state=" + "s" * 3_000 + "\\n")
sys.stdout.write("token: ")
sys.stdout.flush()
"""


def test_a_login_programs_megabyte_line_is_cut_its_address_kept_whole_and_its_flood_of_lines_bounded(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    """An agent's login program decides what it prints (it is the agent's): a megabyte on one line was laid out
    whole in the terminal at each piece read, and every line was kept. A real program on a real pty."""
    program = LoginTerminal([sys.executable, "--login"], "Log in")
    run(loop, program.start([sys.executable, "-c", _FLOOD], tmp_path, dict(os.environ), None))
    terminal = SignInTerminal("scripted", program)
    qtbot.addWidget(terminal)
    run(loop, wait_until(lambda: terminal.output.toPlainText().endswith("token: "), what="the whole output"))

    lines = terminal.output.toPlainText().split("\n")
    assert len(lines) == TERMINAL_LINES and lines[0] == "line 1003"  # the last lines, in order
    cut = " … the rest of this line (longer than 10000 characters) is not shown"
    assert lines[-3] == "x" * TERMINAL_LINE_CHARS + cut
    assert lines[-2] == "open https://example.com/login?state=" + "s" * 3_000  # an address is whole, to copy
    assert "x" * 1_000_000 in program.text and len(program.text) <= 2 * TEXT_KEPT  # kept for a late window, bounded
    terminal.close()
