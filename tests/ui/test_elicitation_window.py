"""Issue 32 item 3: an ACP agent's form (``elicitation/create``) is a card in the window with one typed input per
field; Submit sends ``accept`` with the values (validated against the official schema by the autouse traffic
check), Decline sends ``decline``; the conversation keeps what was asked and answered."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLabel, QLineEdit, QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from tests.acp.test_elicitation import ELICIT
from xworkmate.controllers import SessionController
from xworkmate.controllers.changes import ApprovalRequested
from xworkmate.domain.elicitation import form_from_schema
from xworkmate.presentation.files import LONG_LINE_CHARS
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.ui import MainWindow
from xworkmate.ui.agent.elicitation import ElicitationCard

from .conftest import open_window
from .support import click_line, finished, message_texts, send
from .support_runs import run, wait_until


def _card(loop: asyncio.AbstractEventLoop, window: MainWindow) -> ElicitationCard:
    run(loop, wait_until(lambda: window.findChild(ElicitationCard, "elicitationCard") is not None, what="the form"))
    card = window.findChild(ElicitationCard, "elicitationCard")
    assert card is not None and card.isVisible()
    return card


def _fields(card: ElicitationCard) -> dict[str, QWidget]:
    return {w.property("fieldName"): w for w in card.findChildren(QWidget, "elicitationField")}


def _start(qtbot: QtBot, controller: SessionController, tmp_path: Path) -> tuple[MainWindow, str, Path]:
    report = scripted_agent(controller, tmp_path, turn=[ELICIT])
    line = controller.lines.create_line("agent")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    window: MainWindow = open_window(qtbot, controller)
    click_line(qtbot, window, line.thread_id)
    send(qtbot, window, "set the project up")
    return window, line.thread_id, report


def test_the_form_card_has_typed_fields_and_submit_sends_accept_with_the_values(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    window, key, report = _start(qtbot, sqlite_controller, tmp_path)
    card = _card(loop, window)
    fields = _fields(card)
    assert isinstance(fields["name"], QLineEdit)
    assert isinstance(fields["workers"], QSpinBox)
    assert (fields["workers"].minimum(), fields["workers"].maximum()) == (1, 8)
    assert isinstance(fields["ratio"], QDoubleSpinBox)
    assert isinstance(fields["tests"], QCheckBox) and fields["tests"].isChecked()  # its default
    assert isinstance(fields["db"], QComboBox)
    submit = card.submit_button
    assert submit.objectName() == "elicitationSubmitButton"
    assert not submit.isEnabled()  # the required name is empty
    assert card.hasFocus() or fields["name"].hasFocus() or card.focusProxy() is fields["name"]
    window.grab().save(str(tmp_path / "elicitation.png"))

    name = fields["name"]
    assert isinstance(name, QLineEdit)
    name.setFocus()
    qtbot.keyClicks(name, "demo")
    assert submit.isEnabled()
    workers = fields["workers"]
    assert isinstance(workers, QSpinBox)
    workers.setValue(3)
    tests = fields["tests"]
    assert isinstance(tests, QCheckBox)
    tests.setChecked(False)
    db = fields["db"]
    assert isinstance(db, QComboBox)
    db.setCurrentIndex(db.findData("postgres"))
    qtbot.keyClick(name, Qt.Key.Key_Return)  # Enter in a text field submits

    run(loop, wait_until(finished(sqlite_controller, key), what="the turn to finish"))
    (answer,) = report_events(report, "elicitation")
    assert answer["action"] == "accept"
    # The optional ratio was left at "(none)": it is not sent.
    assert answer["content"] == {"name": "demo", "workers": 3, "tests": False, "db": "postgres"}
    assert window.findChild(ElicitationCard, "elicitationCard") is None
    texts = " ".join(message_texts(window))
    assert "Set up the project" in texts and "name='demo'" in texts


def test_decline_sends_decline(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    window, key, report = _start(qtbot, sqlite_controller, tmp_path)
    card = _card(loop, window)
    assert card.decline_button.objectName() == "elicitationDeclineButton"
    qtbot.mouseClick(card.decline_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(sqlite_controller, key), what="the turn to finish"))
    assert [e["action"] for e in report_events(report, "elicitation")] == ["decline"]
    assert any("declined" in text for text in message_texts(window))


def test_a_question_sent_as_a_permission_request_shows_as_a_form_card_with_the_agents_options(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Issue 32 item 5 in the window: a ``think`` permission request is a question, not an Approve/Reject card;
    its options are the agent's own, and the pick goes back as that option."""
    from PySide6.QtWidgets import QLabel, QPushButton

    from xworkmate.ui.agent.approvals import ApprovalCard

    question = {"id": "q", "title": "Which database should I use?", "kind": "think", "options": "once"}
    report = scripted_agent(sqlite_controller, tmp_path, turn=[{"permission": question}])
    line = sqlite_controller.lines.create_line("agent")
    sqlite_controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    window: MainWindow = open_window(qtbot, sqlite_controller)
    click_line(qtbot, window, line.thread_id)
    send(qtbot, window, "pick one")
    card = _card(loop, window)
    assert window.findChild(ApprovalCard, "approvalCard") is None
    shown = " ".join(label.text() for label in card.findChildren(QLabel))
    assert "Which database should I use?" in shown
    options = {b.property("optionId"): b for b in card.findChildren(QPushButton, "elicitationOptionButton")}
    assert {k: b.text() for k, b in options.items()} == {"allow-once": "Allow", "reject-once": "Reject"}
    options["reject-once"].setFocus()
    qtbot.keyClick(options["reject-once"], Qt.Key.Key_Space)  # keyboard: Tab to an option, Space picks it
    run(loop, wait_until(finished(sqlite_controller, line.thread_id), what="the turn to finish"))
    assert [(e["id"], e["outcome"]) for e in report_events(report, "permission")] == [("q", "reject-once")]


def test_a_url_request_shows_its_address_and_done_answers_accept(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    from PySide6.QtWidgets import QLabel, QPushButton

    step = {"elicit_url": {"message": "Sign the licence", "url": "https://example.com/licence", "id": "lic"}}
    report = scripted_agent(sqlite_controller, tmp_path, turn=[step, {"say": "thanks"}])
    line = sqlite_controller.lines.create_line("agent")
    sqlite_controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    window: MainWindow = open_window(qtbot, sqlite_controller)
    click_line(qtbot, window, line.thread_id)
    send(qtbot, window, "go on")
    card = _card(loop, window)
    address = card.findChild(QLabel, "elicitationUrl")
    assert address is not None and address.text() == "https://example.com/licence"
    assert card.findChild(QPushButton, "elicitationOpenButton") is not None
    assert card.submit_button.text() == "Done" and card.submit_button.isEnabled()
    qtbot.mouseClick(card.submit_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(sqlite_controller, line.thread_id), what="the turn to finish"))
    # The agent then sent elicitation/complete, which the client takes quietly (the schema check saw both).
    assert [e["action"] for e in report_events(report, "elicitation")] == ["accept"]
    assert any("thanks" in text for text in message_texts(window))


def test_an_agents_question_of_megabytes_is_a_card_of_cut_lines(qtbot: QtBot) -> None:
    """Issue 34 (LOOP-1): a label lays its text out whole on the GUI thread (300,000 characters: seconds,
    the window frozen). The agent's message, a field's title and a form's address show each line cut at
    ``LONG_LINE_CHARS``, saying how much more it has."""
    message = "Which one? " + "m" * 300_000
    form = form_from_schema(
        message, {"type": "object", "properties": {"name": {"type": "string", "title": "t" * 5_000}}}
    )
    card = ElicitationCard(
        ApprovalRequested(key="main", approval_id=3, tool="elicitation", summary="", arguments="{}", form=form)
    )
    qtbot.addWidget(card)
    card.show()
    heading = card.findChild(QLabel, "elicitationMessage")
    assert heading is not None and heading.text().startswith("The agent asks: Which one? mmm")
    assert heading.text().endswith(f" … {len(message) - LONG_LINE_CHARS} more characters on this line, not shown")
    assert max(len(label.text()) for label in card.findChildren(QLabel)) < LONG_LINE_CHARS + 100
