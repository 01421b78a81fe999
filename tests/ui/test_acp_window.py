"""ACP agents through the window, against real scripted agent processes (SPEC §5 ACP mode, §6, CAT-3).

The mode picker chooses the agent; Send streams its text into the pane; its
thoughts, plan and tool calls render like the native agent's; permission
requests become approval cards; Stop, crashes and resumed sessions behave.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageState
from xworkmate.domain.threads import ExecutionMode, TaskThread
from xworkmate.testing.acp_scripts import agent_folder, report_events, scripted_agent
from xworkmate.ui import MainWindow
from xworkmate.ui.agent.execution import NO_AGENTS_LABEL
from xworkmate.ui.conversation import CARD_ROLE, FORMAT_ROLE, HEADER_ROLE

from .conftest import open_window
from .support import click_line, finished, label_text, message_texts, offered_mode, send, settled
from .support_runs import live_text, run, tool_rows, wait_until


@pytest.fixture
def acp_window(qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController) -> MainWindow:
    """A window with no OpenAI-compatible provider: only the scripted agent can run anything."""
    return open_window(qtbot, bare_controller)


def choose_mode(qtbot: QtBot, window: MainWindow, label: str) -> None:
    """Pick an entry of the mode picker as a person would (only enabled entries can be picked)."""
    picker = window.mode_picker
    index = offered_mode(qtbot, window, label)
    assert picker.is_enabled_at(index), f"{label!r} is disabled"
    picker.setCurrentIndex(index)
    settled(qtbot, window)


def acp_line(qtbot: QtBot, window: MainWindow, controller: SessionController, title: str = "Agent line") -> TaskThread:
    line = controller.lines.create_line(title)
    click_line(qtbot, window, line.thread_id)
    choose_mode(qtbot, window, "scripted (ACP)")
    return controller.get_thread(line.thread_id)


def test_the_agent_chosen_in_the_mode_picker_streams_then_its_answer_is_stored_with_thoughts_plan_and_diff(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    acp_window: MainWindow,
    bare_controller: SessionController,
    tmp_path: Path,
) -> None:
    window, controller = acp_window, bare_controller
    assert [label for label, _choice, _on in window.mode_picker.choices()] == ["Built-in agent", NO_AGENTS_LABEL]
    report = scripted_agent(
        controller,
        tmp_path,
        session_id="s-1",
        turn=[
            {"think": "The notes say a; "},
            {"think": "they should say b."},
            {"plan": [["Read the notes", "completed"], ["Fix the notes", "in_progress"], ["Report", "pending"]]},
            {"say": "Fixing "},
            {
                "tool": {
                    "id": "t1",
                    "title": "Edit notes.md",
                    "kind": "edit",
                    "status": "completed",
                    "diff": {"path": "notes.md", "old": "a\n", "new": "b\n"},
                }
            },
            {"sleep": 0.5},
            {"say": "the **notes**."},
        ],
    )
    window.line_settings.refresh_providers()  # Settings → Providers does this when an agent is added
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    assert window.mode_picker.choices() == [
        ("Built-in agent", "native", True),
        ("scripted (ACP)", "acp:scripted", True),
    ]

    line = acp_line(qtbot, window, controller)
    binding = line.execution_binding
    assert (binding.mode, binding.provider) == (ExecutionMode.ACP, "scripted")
    assert not window.provider_picker.isEnabled()  # the agent runs, not a provider
    assert not window.message_pane.provider_banner.isVisible()

    send(qtbot, window, "fix my notes")
    # Text streamed before the tool call keeps streaming below the tool's card until the answer is stored.
    run(loop, wait_until(lambda: live_text(window) == "Fixing " and bool(tool_rows(window)), what="text and tool"))
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn"))

    texts = message_texts(window)
    assert texts[0] == "fix my notes" and texts[-1] == "Fixing the **notes**."
    assert window.message_model.live_rows == []
    model = window.message_model
    formats = [model.index(row, 0).data(FORMAT_ROLE) for row in range(model.rowCount())]
    assert formats == ["plain", "thought", "plan", "tool", "markdown"]
    [stored] = [
        m
        for m in controller.lines.messages(line.thread_id)
        if m.role is MessageRole.ASSISTANT and m.content.startswith("Fixing")
    ]
    assert stored.payload is not None and stored.payload["mode"] == "acp"

    # The thought: folded to one dimmed line; a click shows the reasoning.
    thought = model.index(1, 0)
    assert str(thought.data(HEADER_ROLE)).startswith("Agent (thinking)")
    assert thought.data() == "Thinking… (8 words — click to show)"
    assert model.toggle_expanded(1)
    assert model.index(1, 0).data() == "The notes say a; they should say b."
    # The plan: a checklist.
    plan = model.index(2, 0)
    assert plan.data() == "☑ Read the notes\n◐ Fix the notes\n☐ Report"
    assert "Fix the notes" in window.message_list.message_delegate.body_for(plan).plain_text()
    # The tool call: a card with its diff, folded until clicked.
    card = model.index(3, 0).data(CARD_ROLE)
    assert card.title == "Edit notes.md" and card.body_kind == "diff" and card.ok
    assert "+b" in card.body and "diff +1 −1" in card.plain_text()
    # The answer: Markdown rendered.
    rendered = window.message_list.message_delegate.body_for(model.index(4, 0)).plain_text()
    assert "notes" in rendered and "**" not in rendered

    folder = str(Path(line.workspace_binding.path or "").resolve())
    [new] = report_events(report, "new_session")
    assert new["cwd"] == folder  # ISO-6: the agent runs in the line's own folder
    assert controller.get_thread(line.thread_id).execution_binding.acp_session_id == "s-1"
    assert label_text(window, "lineStatusLabel").startswith("Runnable")


def test_a_second_turn_resumes_the_agents_stored_session(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    acp_window: MainWindow,
    bare_controller: SessionController,
    tmp_path: Path,
) -> None:
    window, controller = acp_window, bare_controller
    report = scripted_agent(controller, tmp_path, session_id="s-9", load_session=True, turn=[{"echo_prompt": True}])
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    line = acp_line(qtbot, window, controller)

    send(qtbot, window, "first")
    run(loop, wait_until(finished(controller, line.thread_id), what="the first turn"))
    send(qtbot, window, "second")
    run(loop, wait_until(finished(controller, line.thread_id), what="the second turn"))

    assert message_texts(window) == ["first", "first", "second", "second"]  # the replay is not shown twice
    assert [e["session_id"] for e in report_events(report, "load_session")] == ["s-9"]
    assert len(report_events(report, "new_session")) == 1


@pytest.mark.parametrize("decision", ["allow", "reject"])
def test_a_permission_request_is_an_approval_card_and_only_allow_lets_the_write_land(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    acp_window: MainWindow,
    bare_controller: SessionController,
    tmp_path: Path,
    decision: str,
) -> None:
    window, controller = acp_window, bare_controller
    report = scripted_agent(
        controller,
        tmp_path,
        gated=True,
        turn=[
            {
                "ask_then": {
                    "permission": {"id": "w1", "title": "Write notes.md", "kind": "edit", "locations": ["notes.md"]},
                    "then": [{"write": {"path": "notes.md", "content": "from the agent\n"}}],
                }
            },
            {"say": " done"},
        ],
    )
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    line = acp_line(qtbot, window, controller)
    send(qtbot, window, "write my notes")

    area = window.message_pane.approval_area
    run(loop, wait_until(lambda: len(area.cards) == 1 and area.isVisible(), what="the approval card"))
    [card] = area.cards
    assert card.summary_label.text() == "The agent asks to Write notes.md"
    assert [c.approval_id for c in area.cards] == controller.approvals.pending_approvals(line.thread_id)
    button = card.approve_button if decision == "allow" else card.reject_button
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn"))

    assert not area.isVisible()
    notes = Path(line.workspace_binding.path or "") / "notes.md"
    [answer] = report_events(report, "permission")
    if decision == "allow":
        assert answer["outcome"] == "allow-once"
        assert notes.read_text() == "from the agent\n"
        assert report_events(report, "write")[0]["ok"]
        assert message_texts(window)[-1] == "[permission w1: allow-once][wrote notes.md] done"
    else:
        assert answer["outcome"] == "reject-once"
        assert not notes.exists()
        assert report_events(report, "write") == []
        refused = [t for t in message_texts(window) if t.startswith("Write notes.md — you rejected this")]
        assert refused, message_texts(window)


def test_an_agents_edit_permission_shows_the_diff_it_sent(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    acp_window: MainWindow,
    bare_controller: SessionController,
    tmp_path: Path,
) -> None:
    """Issue 30 item 3: the card of an ACP agent's edit shows the diff in its permission request, not JSON."""
    window, controller = acp_window, bare_controller
    edit = {"path": "notes.md", "old": "one\ntwo\nthree\n", "new": "one\nTWO\nthree\n"}
    scripted_agent(
        controller,
        tmp_path,
        gated=True,
        turn=[
            {
                "permission": {
                    "id": "w1",
                    "title": "Edit notes.md",
                    "kind": "edit",
                    "locations": ["notes.md"],
                    "diff": edit,
                }
            },
            {"say": " done"},
        ],
    )
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    line = acp_line(qtbot, window, controller)
    send(qtbot, window, "edit my notes")
    area = window.message_pane.approval_area
    run(loop, wait_until(lambda: len(area.cards) == 1 and area.isVisible(), what="the approval card"))
    [card] = area.cards
    diff = card.findChild(QPlainTextEdit, "approvalDiff")
    assert diff is not None and diff.isVisibleTo(card)
    assert [ln for ln in diff.toPlainText().splitlines() if ln[:1] in "+-"] == ["-two", "+TWO"]
    assert not card.arguments_view.isVisibleTo(card)  # the raw call only under Details
    qtbot.mouseClick(card.reject_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn"))


def test_stop_cancels_a_hanging_agent_turn_and_the_line_runs_again(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    acp_window: MainWindow,
    bare_controller: SessionController,
    tmp_path: Path,
) -> None:
    window, controller = acp_window, bare_controller
    report = scripted_agent(controller, tmp_path, turn=[{"say": "working…"}, {"hang": True}])
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    line = acp_line(qtbot, window, controller)
    send(qtbot, window, "long job")
    run(loop, wait_until(lambda: live_text(window) == "working…", what="the streamed text"))
    assert window.stop_button.isEnabled() and not window.mode_picker.isEnabled()

    qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(controller, line.thread_id), what="the stop"))

    assert report_events(report, "cancel")
    assert message_texts(window) == ["long job", "working…", "Stopped. What streamed so far is kept above."]
    states = [m.state for m in controller.lines.messages(line.thread_id)]
    assert states[1] is MessageState.INTERRUPTED
    assert label_text(window, "lineStatusLabel").startswith("Runnable")
    assert not window.stop_button.isEnabled() and window.mode_picker.isEnabled()
    qtbot.keyClicks(window.composer, "again")
    assert window.send_button.isEnabled()


def test_an_agent_that_exits_mid_turn_says_the_run_failed_and_the_line_stays_runnable(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    acp_window: MainWindow,
    bare_controller: SessionController,
    tmp_path: Path,
) -> None:
    window, controller = acp_window, bare_controller
    scripted_agent(controller, tmp_path, turn=[{"say": "partial"}, {"exit": 7}])
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    line = acp_line(qtbot, window, controller)
    send(qtbot, window, "go")
    run(loop, wait_until(finished(controller, line.thread_id), what="the failure"))

    texts = message_texts(window)
    assert texts[0] == "go" and texts[1] == "partial"
    assert texts[-1].startswith("The run failed:") and "7" in texts[-1]
    assert label_text(window, "lineStatusLabel").startswith("Runnable")
    qtbot.keyClicks(window.composer, "try again")
    assert window.send_button.isEnabled()


def test_a_write_outside_the_folder_is_refused_and_nothing_is_created_outside(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    acp_window: MainWindow,
    bare_controller: SessionController,
    tmp_path: Path,
) -> None:
    window, controller = acp_window, bare_controller
    report = scripted_agent(
        controller, tmp_path, turn=[{"write": {"path": "../escape.txt", "content": "x"}}, {"say": " done"}]
    )
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    line = acp_line(qtbot, window, controller)
    send(qtbot, window, "try to escape")
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn"))

    [write] = report_events(report, "write")
    assert not write["ok"] and "outside the working directory" in str(write["error"])
    folder = Path(line.workspace_binding.path or "")
    assert not (folder.parent / "escape.txt").exists()
    assert not (folder / "escape.txt").exists()
    assert message_texts(window)[-1] == "[write ../escape.txt refused] done"


def test_a_category_line_cannot_choose_an_acp_agent(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    acp_window: MainWindow,
    bare_controller: SessionController,
    tmp_path: Path,
) -> None:
    """CAT-3: category content is never handed to an agent CLI; the picker says why."""
    window, controller = acp_window, bare_controller
    scripted_agent(controller, tmp_path)
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    line = controller.lines.create_line("Clinic")
    controller.tasks.set_category(line.thread_id, "medical")
    click_line(qtbot, window, line.thread_id)

    picker = window.mode_picker
    assert picker.choices() == [("Built-in agent", "native", True), ("scripted (ACP)", "acp:scripted", False)]
    index = picker.findText("scripted (ACP)")
    tooltip = picker.itemData(index, Qt.ItemDataRole.ToolTipRole)
    assert "medical" in tooltip and "category router" in tooltip and "CAT-3" not in tooltip

    picker.setCurrentIndex(index)  # forced past the disabled entry: the controller refuses, the window says so
    settled(qtbot, window)
    status = label_text(window, "lineStatusLabel")
    assert status.startswith("Execution mode not changed") and "category 'medical'" in status
    assert picker.chosen() == "native"
    with pytest.raises(ValueError, match="category 'medical'"):
        controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    assert controller.get_thread(line.thread_id).execution_binding.mode is ExecutionMode.NATIVE
    assert not (agent_folder(tmp_path) / "scripted.pid").exists()  # no agent process ever started

    other = controller.lines.create_line("Normal")
    click_line(qtbot, window, other.thread_id)
    assert picker.choices()[1] == ("scripted (ACP)", "acp:scripted", True)
