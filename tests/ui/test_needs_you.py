"""Issue 17 in the window (LOOP-2): which line needs you — badges, the "Needs you" list, Ctrl+J,
the count in the title, approvals by keyboard, titles from the first message and drafts that
survive a restart. Turns run against the scripted OpenAI-compatible server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.attention import Attention
from xworkmate.domain.providers import ProviderRecord
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.testing.openai_server import ErrorReply, OpenAIServer, TextReply
from xworkmate.ui import MainWindow
from xworkmate.ui.lines.task_lines import ATTENTION_BADGE_ROLE, BADGE_ROLE, KEY_ROLE
from xworkmate.ui.start import APP_DISPLAY_NAME

from .conftest import open_window
from .support import click_line, finished, open_new_line, proxy_index, send, settled
from .support_runs import fast_router, run, send_and_finish, turn_on, wait_until, write_request


def activate(qtbot: QtBot, window: QWidget) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)


def shown_rows(window: MainWindow) -> list[str]:
    proxy = window.task_proxy
    return [str(proxy.index(row, 0).data(KEY_ROLE)) for row in range(proxy.rowCount())]


def test_badges_the_needs_you_list_oldest_first_the_title_count_and_ctrl_j(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    tmp_path: Path,
) -> None:
    window, controller = agent_window, agent_controller
    activate(qtbot, window)
    finished = controller.lines.create_line("Finished one")
    failed = controller.lines.create_line("Failing one")
    asking = controller.lines.create_line("Asking one")
    keys = finished.thread_id, failed.thread_id, asking.thread_id

    turn_on(loop, openai_server, controller, finished.thread_id, "summarise", TextReply(["All done."]))
    turn_on(
        loop, openai_server, controller, failed.thread_id, "hello?", ErrorReply(401, {"error": {"message": "bad key"}})
    )
    write_request(openai_server)
    turn = controller.turns.start_turn(asking.thread_id, "Please create hello.txt containing a greeting")
    run(loop, wait_until(lambda: controller.attention.state(asking.thread_id) is Attention.NEEDS_APPROVAL))

    badges = [proxy_index(window, k).data(ATTENTION_BADGE_ROLE) for k in keys]
    assert badges == ["new", "failed", "needs approval"]
    # The asking line runs, but its row says it waits for you, not "● running".
    assert proxy_index(window, asking.thread_id).data(BADGE_ROLE) == "needs approval"
    assert window.windowTitle() == "(3) Main — XWorkmate"
    # Qt appends the display name to a title that does not end with it ("Main — XWorkmate (1) — XWorkmate").
    assert window.windowTitle().endswith(APP_DISPLAY_NAME)
    window.grab().save(str(tmp_path / "needs-you.png"))

    button = window.task_pane.needs_you_button
    assert button.objectName() == "needsYouFilter" and button.text() == "Needs you (3)"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    # The one waiting longest first; main needs nothing but is the line shown, so it stays (issue 30).
    assert shown_rows(window) == ["main", *keys]
    window.grab().save(str(tmp_path / "needs-you-filter.png"))

    qtbot.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    settled(qtbot, window)  # the switch is an operation on the store worker (issue 19)
    assert window.shown_key == finished.thread_id
    # Shown in the active window: seen, so the count follows; issue 30: it stays in the list, selected, while
    # it is shown (it vanished, leaving nothing selected), and leaves once another line is shown.
    assert controller.attention.state(finished.thread_id) is Attention.NONE
    assert shown_rows(window) == [finished.thread_id, failed.thread_id, asking.thread_id]
    assert window.task_line_list.currentIndex().data(KEY_ROLE) == finished.thread_id
    assert window.windowTitle() == "(2) Finished one — XWorkmate"

    qtbot.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    settled(qtbot, window)  # the switch is an operation on the store worker (issue 19)
    assert window.shown_key == failed.thread_id
    assert finished.thread_id not in shown_rows(window)
    assert window.task_line_list.currentIndex().data(KEY_ROLE) == failed.thread_id
    qtbot.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    settled(qtbot, window)  # the switch is an operation on the store worker (issue 19)
    assert window.shown_key == asking.thread_id
    area = window.message_pane.approval_area
    run(loop, wait_until(lambda: len(area.cards) == 1, what="the approval card"))
    qtbot.keyClick(area.cards[0], Qt.Key.Key_Y)  # the card took the keyboard when it appeared
    run(loop, turn)
    assert Path(asking.workspace_binding.path or "", "hello.txt").read_text() == "hi!\n"
    assert controller.attention.count() == 0 and shown_rows(window) == [asking.thread_id]  # the one shown
    assert window.windowTitle() == "Asking one — XWorkmate" and button.text() == "Needs you"
    qtbot.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)  # nothing needs you: stays put
    settled(qtbot, window)
    assert window.shown_key == asking.thread_id

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert len(shown_rows(window)) == 4  # the whole list again, in tree order


@pytest.mark.parametrize(
    ("key", "written", "level"), [("Y", True, "ask"), ("N", False, "ask"), ("A", True, "auto-edit")]
)
def test_the_focused_approval_card_answers_y_n_and_a(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    key: str,
    written: bool,
    level: str,
) -> None:
    window = agent_window
    activate(qtbot, window)
    line = open_new_line(qtbot, window, "Keys")
    write_request(openai_server)
    send(qtbot, window, "Please create hello.txt containing a greeting")
    area = window.message_pane.approval_area
    run(loop, wait_until(lambda: len(area.cards) == 1, what="the approval card"))
    card = area.cards[0]
    assert (card.approve_button.text(), card.reject_button.text(), card.always_button.text()) == (
        "Allow once (Y)",
        "Reject (N)",
        "Always for this line (A)",
    )
    assert card.hasFocus()
    qtbot.keyClick(card, Qt.Key.Key_X)  # other keys do nothing
    assert agent_controller.approvals.pending_approvals(line.thread_id) == [card.approval_id]
    qtbot.keyClick(card.arguments_view, getattr(Qt.Key, f"Key_{key}"))  # from inside the card too
    run(loop, wait_until(finished(agent_controller, line.thread_id), what="the turn to end"))
    assert Path(line.workspace_binding.path or "", "hello.txt").exists() is written
    assert agent_controller.get_thread(line.thread_id).context_state.permission_level.value == level


def test_a_card_without_always_ignores_a(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController
) -> None:
    """Where "always" is not offered (a command that would run unsandboxed), A does nothing."""
    from xworkmate.controllers import ApprovalRequested
    from xworkmate.ui.agent.approvals import ApprovalArea

    area = ApprovalArea()
    qtbot.addWidget(area)
    decided: list[tuple[int, str]] = []
    area.decided.connect(lambda i, d: decided.append((i, d)))
    area.show()
    request = ApprovalRequested(
        key="main", approval_id=7, tool="run_command", summary="run ls", arguments="{}", unsandboxed="no bwrap"
    )
    area.show_approvals([request])
    card = area.cards[0]
    card.setFocus()
    qtbot.keyClick(card, Qt.Key.Key_A)
    assert decided == [] and not card.always_button.isEnabled()
    qtbot.keyClick(card, Qt.Key.Key_N)
    assert decided == [(7, "reject")]


def test_a_new_lines_title_comes_from_its_first_message_and_can_be_renamed(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    qtbot.mouseClick(window.task_pane.new_line_button, Qt.MouseButton.LeftButton)
    settled(qtbot, window)
    key = window.shown_key
    assert key is not None and str(proxy_index(window, key).data()).startswith("Task line ")
    openai_server.script(TextReply(["Sure."]))
    send_and_finish(qtbot, loop, window, "Plan the garden layout for spring")
    assert proxy_index(window, key).data() == "Plan the garden layout for spring"
    assert window.windowTitle().startswith("Plan the garden layout for spring — XWorkmate")
    window.task_list.ask_title = lambda _parent, _current: "Garden"
    window.task_list.rename_line(key)
    settled(qtbot, window)
    assert proxy_index(window, key).data() == "Garden"


def test_drafts_survive_switching_lines_and_a_restart(
    qtbot: QtBot, sqlite_controller: SessionController, settings: Settings
) -> None:
    controller = sqlite_controller
    other = controller.lines.create_line("Other")
    window = open_window(qtbot, controller)
    qtbot.keyClicks(window.composer, "draft for main")
    click_line(qtbot, window, other.thread_id)
    assert window.composer.toPlainText() == ""
    qtbot.keyClicks(window.composer, "draft for other")
    click_line(qtbot, window, "main")
    assert window.composer.toPlainText() == "draft for main"
    qtbot.waitUntil(lambda: controller.attention.draft(other.thread_id) == "draft for other", timeout=3000)
    qtbot.keyClicks(window.composer, " and more")  # typed just before closing: written on close
    window.close()
    controller.close()

    store = open_store(settings.effective_database_url)
    try:
        again = SessionController(store, settings)
        reopened = open_window(qtbot, again)
        assert reopened.shown_key == "main"
        assert reopened.composer.toPlainText() == "draft for main and more"
        click_line(qtbot, reopened, other.thread_id)
        assert reopened.composer.toPlainText() == "draft for other"
        reopened.close()
    finally:
        store.close()


def test_unread_and_failed_badges_survive_a_restart(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    bare_controller: SessionController,
    openai_server: OpenAIServer,
    settings: Settings,
) -> None:
    controller = bare_controller
    controller.providers.add_provider(
        ProviderRecord(name="local", base_url=openai_server.base_url, model="test-model", is_default=True)
    )
    line = controller.lines.create_line("Background")
    window = open_window(qtbot, controller)
    turn_on(loop, openai_server, controller, line.thread_id, "work", TextReply(["Finished while you were away."]))
    assert proxy_index(window, line.thread_id).data(ATTENTION_BADGE_ROLE) == "new"
    window.close()
    controller.close()

    store = open_store(settings.effective_database_url)
    try:
        again = SessionController(store, settings, router_factory=fast_router)
        reopened = open_window(qtbot, again)
        assert proxy_index(reopened, line.thread_id).data(ATTENTION_BADGE_ROLE) == "new"
        assert reopened.windowTitle() == "(1) Main — XWorkmate"
        reopened.close()
    finally:
        store.close()


def test_a_line_waiting_for_sign_in_shows_needs_sign_in_not_running(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Issue 15's leftover: the list says the line waits for the person, and Ctrl+J finds it."""
    from PySide6.QtWidgets import QPushButton

    from tests.acp.test_sign_in import TWO
    from xworkmate.testing.acp_scripts import scripted_agent
    from xworkmate.ui.agent.sign_in import SignInCard

    controller = sqlite_controller
    scripted_agent(controller, tmp_path, auth_methods=TWO, require_auth=True, turn=[{"say": "signed in!"}])
    line = controller.lines.create_line("agent")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    window = open_window(qtbot, controller)
    activate(qtbot, window)
    controller.turns.start_turn(line.thread_id, "hello agent")
    run(loop, wait_until(lambda: controller.attention.state(line.thread_id) is Attention.NEEDS_SIGN_IN))
    index = proxy_index(window, line.thread_id)
    assert index.data(BADGE_ROLE) == "needs sign-in" and index.data(ATTENTION_BADGE_ROLE) == "needs sign-in"
    assert "needs you: needs sign-in" in str(index.data(Qt.ItemDataRole.ToolTipRole))
    assert window.windowTitle() == "(1) Main — XWorkmate"

    qtbot.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    settled(qtbot, window)  # the switch is an operation on the store worker (issue 19)
    assert window.shown_key == line.thread_id
    run(loop, wait_until(lambda: window.findChild(SignInCard, "signInCard") is not None, what="the sign-in card"))
    card = window.findChild(SignInCard, "signInCard")
    assert card is not None
    [api_key] = [b for b in card.findChildren(QPushButton, "signInMethodButton") if b.property("methodId") == "api-key"]
    qtbot.mouseClick(api_key, Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn to finish"))
    assert controller.attention.state(line.thread_id) is Attention.NONE  # shown and active: seen
    assert proxy_index(window, line.thread_id).data(BADGE_ROLE) == ""


def _opened_state(window: MainWindow) -> tuple[object, ...]:
    """What a person sees of the line opened: the key shown, the row selected, the centre's title and key,
    the folder, the conversation and the window title (its "(n) " count aside: seeing a line changes it)."""
    title = window.windowTitle()
    return (
        window.shown_key,
        window.task_line_list.currentIndex().data(KEY_ROLE),
        window.message_pane.title_label.text(),
        window.message_pane.session_key_label.text(),
        window.workspace_pane.path_label.text(),
        [window.message_model.index(r, 0).data() for r in range(window.message_model.rowCount())],
        title.split(") ", 1)[1] if title.startswith("(") else title,
    )


@pytest.mark.qt_log_ignore(r"This plugin does not support raise\(\)")  # a notification's click raises the window
def test_ctrl_j_a_notification_click_and_a_list_click_open_a_line_the_same_way(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """Issue 33 item 3 (ISO-5, LOOP-2): Ctrl+J and a notification's click called ``switch_session`` directly,
    a second way to switch lines beside the list's; now all three go through ``MainWindow.open_line`` and
    leave the same selection, panes and title."""
    window, controller = agent_window, agent_controller
    activate(qtbot, window)
    line = controller.lines.create_line("Finished one")
    turn_on(loop, openai_server, controller, line.thread_id, "summarise", TextReply(["All done."]))
    settled(qtbot, window)
    assert controller.attention.state(line.thread_id) is Attention.FINISHED_UNREAD

    qtbot.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    settled(qtbot, window)
    by_shortcut = _opened_state(window)
    assert by_shortcut[0] == by_shortcut[1] == line.thread_id

    click_line(qtbot, window, "main")
    settled(qtbot, window)
    assert window.shown_key == "main"
    window.needs_you.notifier.line_requested.emit(line.thread_id)  # the notification's click
    settled(qtbot, window)
    by_notification = _opened_state(window)

    click_line(qtbot, window, "main")
    settled(qtbot, window)
    click_line(qtbot, window, line.thread_id)
    settled(qtbot, window)
    by_click = _opened_state(window)

    assert by_shortcut == by_notification == by_click
    assert "All done." in str(by_click[5])


def test_needs_you_does_not_import_the_window() -> None:
    """Issue 33 item 3: ``ui/lines/needs_you`` reaches the window through ``NeedsYouWindow``, so the one import cycle
    (needs_you → main_window → needs_you) is gone."""
    import ast

    import xworkmate.ui.lines.needs_you as needs_you

    tree = ast.parse(Path(needs_you.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "xworkmate.ui.window.main_window" not in imported
