"""Turns in the window against the real scripted OpenAI-compatible server (SPEC §5, §6).

Streaming into a transient row that the stored message replaces, Stop, approval
cards, tool cards, and several lines running at once without freezing the window.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt, QTimer
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageState
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import PermissionLevel
from xworkmate.testing.openai_server import HangReply, OpenAIServer, TextReply, ToolCallReply
from xworkmate.ui import MainWindow
from xworkmate.ui.agent.live_runs import LiveRow
from xworkmate.ui.conversation import LIVE_ROLE, MESSAGE_ID_ROLE, MessageListModel

from .conftest import open_window
from .support import (
    click_line,
    finished,
    label_text,
    message_headers,
    message_texts,
    open_new_line,
    send,
    settled,
)
from .support_runs import call, live_text, run, send_and_finish, tool_rows, wait_until, write_request


def test_streamed_text_grows_in_a_transient_row_then_the_stored_message_replaces_it(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    line = open_new_line(qtbot, window, "Streaming")
    chunks = ["Hello ", "from ", "the ", "**streaming** ", "agent", "."]
    final = "".join(chunks)
    openai_server.script(TextReply(chunks, delay=0.08))

    send(qtbot, window, "say hello slowly")

    assert window.stop_button.isEnabled() and not window.send_button.isEnabled()
    assert label_text(window, "lineStatusLabel").startswith("Running")
    run(loop, wait_until(lambda: (live_text(window) or "").startswith("Hello from"), what="partial text"))
    partial = live_text(window)
    assert partial is not None and partial != final and final.startswith(partial)  # an intermediate state
    model = window.message_model
    last = model.index(model.rowCount() - 1, 0)
    assert last.data(LIVE_ROLE) == "stream" and last.data(MESSAGE_ID_ROLE) is None
    shown = window.message_list.message_delegate.body_for(last).plain_text()
    assert shown.startswith("Hello from")  # what the delegate paints for the row
    assert message_texts(window)[:1] == ["say hello slowly"]

    run(loop, wait_until(finished(agent_controller, line.thread_id), what="the turn to finish"))

    assert model.live_rows == []
    assert message_texts(window) == ["say hello slowly", final]
    stored = model.index(1, 0)
    assert stored.data(LIVE_ROLE) is None and stored.data(MESSAGE_ID_ROLE) > 0
    rendered = window.message_list.message_delegate.body_for(stored).plain_text()
    assert "streaming" in rendered and "**" not in rendered  # Markdown rendered
    assert not window.stop_button.isEnabled()
    assert label_text(window, "lineStatusLabel").startswith("Runnable")
    qtbot.keyClicks(window.composer, "again")
    assert window.send_button.isEnabled()


def test_stop_mid_stream_keeps_the_partial_answer_interrupted_and_the_line_runs_again(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    line = open_new_line(qtbot, window, "Stopped")
    openai_server.script(HangReply(chunks=["partial ", "answer"]), TextReply(["second turn"]))
    send(qtbot, window, "tell me a long story")
    run(loop, wait_until(lambda: live_text(window) == "partial answer", what="the streamed text"))
    qtbot.keyClicks(window.composer, "not yet")
    assert window.send_button.isEnabled()  # issue 31: Send while a turn runs would queue it (not pressed here)

    qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(agent_controller, line.thread_id), what="the stop"))

    assert message_texts(window) == [
        "tell me a long story",
        "partial answer",
        "Stopped. What streamed so far is kept above.",
    ]
    assert message_headers(window)[1].endswith("interrupted")
    assert window.message_model.live_rows == []
    assert openai_server.wait_for_disconnect(timeout=3)
    assert not window.stop_button.isEnabled()
    assert label_text(window, "lineStatusLabel").startswith("Runnable")
    assert window.send_button.isEnabled()  # the text typed meanwhile can go now

    qtbot.mouseClick(window.send_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(lambda: message_texts(window)[-1] == "second turn", what="the next turn"))


def test_escape_stops_the_running_line(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    openai_server.script(HangReply(chunks=["still going"]))
    send(qtbot, window, "go on")
    run(loop, wait_until(lambda: live_text(window) == "still going", what="the streamed text"))
    qtbot.keyClick(window.composer, Qt.Key.Key_Escape)
    run(loop, wait_until(finished(agent_controller, "main"), what="the stop"))
    assert message_texts(window)[-1].startswith("Stopped.")
    stored = agent_controller.lines.messages("main")
    assert [m.state for m in stored if m.role is MessageRole.ASSISTANT] == [MessageState.INTERRUPTED]


@pytest.mark.parametrize("decision", ["allow", "reject", "always"])
def test_an_approval_card_lets_the_write_through_or_refuses_it(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    decision: str,
) -> None:
    """WR-1 with permission ``ask``: the write waits for the person; the quote is the person's own words."""
    window = agent_window
    line = open_new_line(qtbot, window, "Approvals")
    target = Path(line.workspace_binding.path or "", "hello.txt")
    assert window.permission_picker.currentData() == PermissionLevel.ASK.value
    write_request(openai_server)
    send(qtbot, window, "Please create hello.txt containing a friendly greeting")
    area = window.message_pane.approval_area
    run(loop, wait_until(lambda: len(area.cards) == 1 and area.isVisible(), what="the approval card"))
    card = area.cards[0]
    assert card.summary_label.text() == "The agent asks to write hello.txt"
    assert '"path": "hello.txt"' in card.arguments_view.toPlainText()  # behind "Details"
    assert "auto-edit" in card.always_button.toolTip()

    click_line(qtbot, window, "main")  # another line: its pane has no card
    assert area.cards == [] and not area.isVisible()
    click_line(qtbot, window, line.thread_id)  # back: the card is still waiting
    assert [c.approval_id for c in area.cards] == agent_controller.approvals.pending_approvals(line.thread_id)
    button = {"allow": "approve_button", "reject": "reject_button", "always": "always_button"}[decision]
    qtbot.mouseClick(getattr(area.cards[0], button), Qt.MouseButton.LeftButton)

    run(loop, wait_until(finished(agent_controller, line.thread_id), what="the turn to finish"))
    assert area.cards == [] and not area.isVisible()
    [row] = tool_rows(window)
    card_text = str(window.message_model.index(row, 0).data())
    if decision == "reject":
        assert not target.exists()
        assert card_text == "write hello.txt — you rejected this"  # worded once (issue 30 item 3)
    else:
        assert target.read_text() == "hi!\n"
        assert card_text.startswith("Wrote hello.txt")
        assert "diff +1 −0 — click to show" in card_text
    level = agent_controller.get_thread(line.thread_id).context_state.permission_level
    assert level is (PermissionLevel.AUTO_EDIT if decision == "always" else PermissionLevel.ASK)
    assert window.permission_picker.currentData() == level.value


def test_a_refused_write_shows_the_refusal_reason(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """WR-1: a quote the person never wrote is refused; the card says why, in error style."""
    window = agent_window
    line = open_new_line(qtbot, window, "Refused")
    window.permission_picker.setCurrentIndex(window.permission_picker.findData(PermissionLevel.FULL.value))
    settled(qtbot, window)
    assert agent_controller.get_thread(line.thread_id).context_state.permission_level is PermissionLevel.FULL
    openai_server.script(
        ToolCallReply([call("write_file", path="evil.txt", content="x", quote="the user asked me to")]),
        TextReply(["Sorry."]),
    )
    send_and_finish(qtbot, loop, window, "tidy up the readme a little")
    assert not Path(line.workspace_binding.path or "", "evil.txt").exists()
    [row] = tool_rows(window)
    index = window.message_model.index(row, 0)
    card = window.message_model.card_at(row)
    assert card is not None and not card.ok
    assert str(index.data()).startswith("write evil.txt — the write was refused")
    assert "quote" in str(index.data())  # the gate's reason, in the card


def test_a_command_card_shows_the_command_and_its_output_folded_then_unfolded(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    line = open_new_line(qtbot, window, "Commands", permission="full")
    command = "sleep 0.3; seq 1 20"
    openai_server.script(ToolCallReply([call("run_command", command=command)]), TextReply(["Counted."]))
    send(qtbot, window, "count to twenty")

    def running_row() -> str | None:
        rows = [r for r in window.message_model.live_rows if r.kind == "tool"]
        return rows[0].text if rows else None

    run(loop, wait_until(lambda: running_row() is not None, what="the running tool line"))
    assert running_row() == f"run `{command}`"
    last = window.message_model.index(window.message_model.rowCount() - 1, 0)
    assert str(last.data()).startswith(f"running run `{command}`")
    run(loop, wait_until(finished(agent_controller, line.thread_id)))

    [row] = tool_rows(window)
    index = window.message_model.index(row, 0)
    folded = str(index.data())
    assert folded.startswith(f"$ {command} — exit 0")
    assert "\n1\n" in folded and "\n20" not in folded
    assert "14 more lines — click to expand" in folded
    view = window.message_list
    view.scrollTo(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())
    unfolded = str(window.message_model.index(row, 0).data())
    assert unfolded.splitlines()[-2:] == ["20", "click to collapse"]
    assert message_texts(window)[-1] == "Counted."


def test_two_lines_run_at_once_and_the_window_keeps_ticking(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    bare_controller: SessionController,
    openai_server_factory: Callable[[], OpenAIServer],
) -> None:
    """SPEC §5: many lines run at once without freezing the window; each streams into its own pane."""
    controller = bare_controller
    server_a, server_b = openai_server_factory(), openai_server_factory()
    controller.providers.add_provider(ProviderRecord(name="a", base_url=server_a.base_url, model="test-model"))
    controller.providers.add_provider(ProviderRecord(name="b", base_url=server_b.base_url, model="test-model"))
    window = open_window(qtbot, controller)
    line_a, line_b = controller.lines.create_line("A"), controller.lines.create_line("B")
    # Long enough (about 3 s each) that both are still streaming when the test looks, even on a busy machine.
    server_a.script(TextReply([f"a{i} " for i in range(150)], delay=0.02))
    server_b.script(TextReply([f"b{i} " for i in range(150)], delay=0.02))

    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()

    click_line(qtbot, window, line_a.thread_id)
    window.provider_picker.setCurrentIndex(window.provider_picker.findData("a"))
    send(qtbot, window, "count with a")
    click_line(qtbot, window, line_b.thread_id)
    window.provider_picker.setCurrentIndex(window.provider_picker.findData("b"))
    send(qtbot, window, "count with b")  # another line may be sent to while A runs
    assert controller.turns.is_running(line_a.thread_id) and controller.turns.is_running(line_b.thread_id)

    run(
        loop,
        wait_until(
            lambda: (
                (live_text(window) or "").startswith("b0 b1")
                and window.live.streamed_text(line_a.thread_id).startswith("a0 a1")
            ),  # A, in the background
            what="B shown streaming and A streaming in the background",
        ),
    )
    assert "a0" not in (live_text(window) or "")  # B's pane shows B only
    click_line(qtbot, window, line_a.thread_id)  # switching shows A's streamed-so-far text
    assert (live_text(window) or "").startswith("a0 a1")
    qtbot.keyClicks(window.composer, "more")
    assert window.send_button.isEnabled() and window.stop_button.isEnabled()  # Send would queue it (issue 31)
    window.composer.clear()

    ticks.clear()  # from here on the loop runs without the test in between: only the window's own stalls
    run(
        loop,
        wait_until(
            lambda: finished(controller, line_a.thread_id)() and finished(controller, line_b.thread_id)(),
            what="both turns",
        ),
    )
    timer.stop()
    gaps = [later - earlier for earlier, later in itertools.pairwise(ticks)]
    print(f"\n10 ms timer during two streaming lines: {len(ticks)} ticks, max gap {max(gaps) * 1000:.1f} ms")
    assert len(ticks) >= 10

    assert [m.content for m in controller.lines.messages(line_a.thread_id)] == [
        "count with a",
        "".join(f"a{i} " for i in range(150)),
    ]
    assert [m.content for m in controller.lines.messages(line_b.thread_id)] == [
        "count with b",
        "".join(f"b{i} " for i in range(150)),
    ]
    assert len(server_a.chat_requests) == 1 and len(server_b.chat_requests) == 1  # the picked providers
    assert message_texts(window) == ["count with a", "".join(f"a{i} " for i in range(150))]
    assert window.message_model.live_rows == []


def test_message_model_with_live_rows_passes_qt_model_tester(
    qtmodeltester: ModelTester, sqlite_controller: SessionController
) -> None:
    """STYLE lesson 3: the transient rows keep the model consistent as they come and go."""
    sqlite_controller.send("main", "hello")
    model = MessageListModel(sqlite_controller)
    model.set_key("main", newest=sqlite_controller.lines.newest_messages("main", limit=16))  # read ahead: LOOP-4
    model.set_live([LiveRow("stream", "Hel", 1)])
    qtmodeltester.check(model)
    model.set_live([LiveRow("stream", "Hello", 2), LiveRow("tool", "read file a.txt", 3)])
    qtmodeltester.check(model)
    assert model.rowCount() == 4 and model.index(3, 0).data(LIVE_ROLE) == "tool"
    model.set_live([])
    assert model.rowCount() == 2
    assert model.index(2, 0).data() is None and not model.index(0, 0).parent().isValid()
    assert model.data(QModelIndex()) is None


def test_a_failed_turn_shows_why_and_leaves_the_line_runnable(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    from xworkmate.testing.openai_server import ErrorReply

    window = agent_window
    openai_server.script(ErrorReply(401, {"error": {"message": "bad key"}}))
    send_and_finish(qtbot, loop, window, "hello?", what="the failure")
    texts = message_texts(window)
    assert texts[0] == "hello?" and texts[-1].startswith("The run failed:") and "local" in texts[-1]
    assert window.message_model.live_rows == []
    assert label_text(window, "lineStatusLabel").startswith("Runnable") and not window.stop_button.isEnabled()
