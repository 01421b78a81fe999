"""Issue 32 item 6 in the agent bar: deleting one of the ACP agent's sessions from the session picker
(``acpSessionDelete``), only where the agent advertises ``sessionCapabilities.delete``, after the person confirms;
``session/delete`` goes to a real scripted agent process, the picker shows what is left, and the lines bound to the
deleted session start a new one on their next turn. The bar and ``AgentSessionDeleter`` are wired here as the
window wires them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.ui.agent.agent_session import AgentSessionBar, AgentSessionDeleter, SessionDeleteDialog

from .support_runs import run, wait_until


def _acp_line(controller: SessionController, title: str, provider: str = "scripted") -> str:
    line = controller.lines.create_line(title)
    controller.line_settings.set_execution(line.thread_id, "acp", provider)
    return line.thread_id


Wired = tuple[AgentSessionBar, AgentSessionDeleter, list[str]]


def _bar(qtbot: QtBot, controller: SessionController, key: str) -> Wired:
    bar = AgentSessionBar()
    qtbot.addWidget(bar)
    errors: list[str] = []
    deleter = AgentSessionDeleter(bar, controller.agents, lambda: key, errors.append)
    bar.show()
    return bar, deleter, errors


def test_a_confirmed_delete_sends_session_delete_shows_what_is_left_and_bound_lines_start_anew(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    sqlite_controller: SessionController,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    controller = sqlite_controller
    report = scripted_agent(
        controller, tmp_path, session_id="s-old", load_session=True, list_sessions=True, delete_sessions=True,
        turn=[{"say": "ok"}],
    )  # fmt: skip
    first = _acp_line(controller, "first")
    assert run(loop, controller.turns.run_turn(first, "remember 42", headless=True)).status == "finished"
    assert controller.get_thread(first).execution_binding.acp_session_id == "s-old"
    second = _acp_line(controller, "second")
    bar, deleter, errors = _bar(qtbot, controller, second)

    bar.show_agent_sessions(run(loop, controller.agents.agent_sessions(second)))
    assert bar.session_picker.isVisible() and bar.session_delete.isVisible()
    assert [a.text() for a in bar.delete_actions()] == ["ok (s-old)"]

    asked: list[str] = []

    def cancel(cls: type, parent: object, label: str) -> bool:
        asked.append(label)
        return False

    monkeypatch.setattr(SessionDeleteDialog, "ask", classmethod(cancel))
    bar.delete_actions()[0].trigger()  # the person says Cancel: nothing is sent
    assert asked == ["ok (s-old)"] and deleter.pending is None
    assert report_events(report, "delete_session") == []

    monkeypatch.setattr(SessionDeleteDialog, "ask", classmethod(lambda cls, parent, label: True))
    bar.delete_actions()[0].trigger()
    pending = deleter.pending
    assert pending is not None
    run(loop, wait_until(pending.done, what="the deletion"))
    assert errors == []
    assert [e["session_id"] for e in report_events(report, "delete_session")] == ["s-old"]
    assert not bar.session_picker.isVisible() and not bar.session_delete.isVisible()  # nothing left to offer
    assert bar.session_delete.isEnabled()
    # The other line was bound to it: its next turn starts a new session instead of loading a deleted one.
    assert controller.get_thread(first).execution_binding.acp_session_id is None
    assert run(loop, controller.turns.run_turn(first, "again", headless=True)).status == "finished"
    assert report_events(report, "load_session") == [] and len(report_events(report, "new_session")) == 2


def test_an_agent_that_does_not_advertise_delete_is_offered_no_delete(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(
        controller, tmp_path, session_id="s-old", load_session=True, list_sessions=True, turn=[{"say": "ok"}]
    )
    first = _acp_line(controller, "first")
    assert run(loop, controller.turns.run_turn(first, "remember 42", headless=True)).status == "finished"
    bar, _deleter, _errors = _bar(qtbot, controller, _acp_line(controller, "second"))
    found = run(loop, controller.agents.agent_sessions(first))
    assert not found.deletes
    bar.show_agent_sessions(found)
    assert bar.session_picker.isVisible() and not bar.session_delete.isVisible()
    assert bar.delete_actions() == []
    assert report_events(report, "delete_session") == []


def test_a_refused_delete_is_one_line_and_the_picker_keeps_its_sessions(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    sqlite_controller: SessionController,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The agent no longer has the session (another client deleted it): it answers session/delete with an error;
    the person reads one line and the picker still offers what it showed."""
    controller = sqlite_controller
    report = scripted_agent(
        controller, tmp_path, session_id="s-old", load_session=True, list_sessions=True, delete_sessions=True,
        turn=[{"say": "ok"}],
    )  # fmt: skip
    first = _acp_line(controller, "first")
    assert run(loop, controller.turns.run_turn(first, "remember 42", headless=True)).status == "finished"
    second = _acp_line(controller, "second")
    bar, deleter, errors = _bar(qtbot, controller, second)
    bar.show_agent_sessions(run(loop, controller.agents.agent_sessions(second)))
    run(loop, controller.agents.agent_sessions(second, delete="s-old"))  # gone behind the picker's back
    monkeypatch.setattr(SessionDeleteDialog, "ask", classmethod(lambda cls, parent, label: True))

    bar.delete_actions()[0].trigger()
    pending = deleter.pending
    assert pending is not None
    run(loop, wait_until(pending.done, what="the refusal"))
    assert len(errors) == 1 and "\n" not in errors[0], errors
    assert errors[0].startswith("Agent session not deleted — ") and "s-old" in errors[0], errors
    assert [e["session_id"] for e in report_events(report, "delete_session")] == ["s-old", "s-old"]
    assert bar.session_delete.isVisible() and bar.session_delete.isEnabled()
