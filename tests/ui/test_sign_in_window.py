"""Issue 15: an ACP agent offering several sign-in methods shows a card in the window; the line says it
waits for the person, not that it runs; picking a method signs in and the turn goes on."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton
from pytestqt.qtbot import QtBot

from tests.acp.test_sign_in import TWO
from xworkmate.controllers import SessionController
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.ui import MainWindow
from xworkmate.ui.agent.sign_in import SignInCard

from .conftest import open_window
from .support import click_line, finished, label_text, message_texts, send
from .support_runs import run, wait_until


def test_the_sign_in_card_lists_the_methods_and_picking_one_goes_on(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, auth_methods=TWO, require_auth=True, turn=[{"say": "signed in!"}])
    line = controller.lines.create_line("agent")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    window: MainWindow = open_window(qtbot, controller)
    click_line(qtbot, window, line.thread_id)
    send(qtbot, window, "hello agent")

    run(loop, wait_until(lambda: window.findChild(SignInCard, "signInCard") is not None, what="the sign-in card"))
    card = window.findChild(SignInCard, "signInCard")
    assert card is not None and card.isVisible()
    shown = " ".join(label.text() for label in card.findChildren(QLabel))
    assert "Browser sign-in" in shown and "opens a browser" in shown
    assert "First run in a terminal:" in shown and "login" in shown  # a terminal method shows its command
    buttons = {b.property("methodId"): b for b in card.findChildren(QPushButton, "signInMethodButton")}
    assert set(buttons) == {"oauth", "api-key"}
    # The card comes with the change itself; the status line is redrawn once the line is read on the store
    # worker (LOOP-4), a moment later.
    run(
        loop,
        wait_until(
            lambda: label_text(window, "lineStatusLabel").startswith("Waiting for you — its agent needs sign-in"),
            what="the line to say it waits for a sign-in",
        ),
    )
    window.grab().save(str(tmp_path / "sign-in.png"))

    qtbot.mouseClick(buttons["api-key"], Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn to finish"))
    assert [e["method_id"] for e in report_events(report, "authenticate")] == ["api-key"]
    assert window.findChild(SignInCard, "signInCard") is None
    assert any("signed in!" in text for text in message_texts(window))
    assert label_text(window, "lineStatusLabel").startswith("Runnable")
