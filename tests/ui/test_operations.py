"""Issue 19, item 1 (LOOP-4): what the window starts runs as an operation on the store worker.

The database is a real PostgreSQL behind the benchmarks' ``LatencyProxy`` (20 ms each way), so every
store call takes real time; the window runs on a qasync loop, as ``run_gui`` runs it. Nothing here
asserts a duration: only the order in which the window shows things, and on which thread SQL runs.
"""

from __future__ import annotations

import asyncio
import threading
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot
from sqlalchemy import event

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.threads import ExecutionMode, PermissionLevel
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.testing.latency_proxy import LatencyProxy
from xworkmate.testing.openai_server import HangReply, OpenAIServer, Reply, TextReply, ToolCallReply
from xworkmate.ui import MainWindow
from xworkmate.ui.agent.approvals import ApprovalCard
from xworkmate.ui.background import jobs_waiting
from xworkmate.ui.conversation import MESSAGE_ID_ROLE

from .conftest import open_window
from .support import click_line, finished, message_texts, send, settled
from .support_runs import call, live_text, run, wait_until

DELAY_S = 0.020

pytestmark = pytest.mark.postgres


@dataclass
class SlowDatabase:
    """A window over PostgreSQL 20 ms away each way; ``sql_threads`` names the thread of every statement."""

    window: MainWindow
    controller: SessionController
    direct: SessionController  # another desktop on the same database, not behind the proxy
    sql_threads: list[str]


@pytest.fixture
def slow(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, pg_database_url: str, settings: Settings
) -> Iterator[SlowDatabase]:
    direct_store = open_store(pg_database_url)  # migrated here: through the proxy it would take long
    direct = SessionController(direct_store, settings)
    with LatencyProxy(5432, delay_s=DELAY_S) as proxy:
        slow_url = pg_database_url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
        store: Store = open_store(slow_url)
        threads: list[str] = []

        def record(*_args: object) -> None:
            thread = threading.current_thread()
            if thread is threading.main_thread():  # say which window code read, should the test fail
                frames = [f for f in traceback.extract_stack() if "/xworkmate/ui/" in f.filename]
                threads.append(f"{thread.name} in {' < '.join(f'{f.name}:{f.lineno}' for f in frames[::-1][:4])}")
            else:
                threads.append(thread.name)

        for engine in store.engines:
            event.listen(engine, "before_cursor_execute", record)
        controller = SessionController(store, settings)
        window = open_window(qtbot, controller)
        window.persist_ui_state = False
        try:
            yield SlowDatabase(window, controller, direct, threads)
        finally:  # the answers still on their way, before the proxy goes
            qtbot.waitUntil(lambda: jobs_waiting() == 0 and window.operations.running == 0, timeout=10_000)
            if shiboken6.isValid(window):
                window.close()
            controller.close()
            direct.close()


def show_lines(slow: SlowDatabase) -> None:
    """The task list shows the lines the other desktop made, read by the test and handed to the model (LOOP-4,
    issue 33 item 2: the model reads nothing itself)."""
    slow.window.task_model.reload(slow.direct.lines.list_lines(include_archived=True))


def title(window: MainWindow) -> str:
    return window.message_pane.title_label.text()


def test_a_switch_shows_the_cached_view_first_then_the_fresh_read(qtbot: QtBot, slow: SlowDatabase) -> None:
    window = slow.window
    line_a, line_b = slow.direct.lines.create_line("A as first seen"), slow.direct.lines.create_line("B")
    show_lines(slow)
    click_line(qtbot, window, line_a.thread_id)
    assert window.shown_key == line_a.thread_id
    click_line(qtbot, window, line_b.thread_id)
    slow.direct.lines.rename_line(line_a.thread_id, "A renamed by another desktop")

    click_line_without_waiting(qtbot, window, line_a.thread_id)

    # At once, before the worker's read came back (issue 34 item 1: before it is even asked for; it is read
    # once the conversation is painted): the last view the window had of A.
    assert window.operations.running > 0 or window.shown.deferred.pending > 0
    assert window.shown_key == line_a.thread_id
    assert title(window) == "A as first seen"
    settled(qtbot, window)
    assert title(window) == "A renamed by another desktop"  # then the fresh read, applied
    assert slow.controller.lines.current_key == line_a.thread_id


def test_a_stale_answer_for_a_line_no_longer_wanted_is_dropped(qtbot: QtBot, slow: SlowDatabase) -> None:
    window = slow.window
    line_a, line_b = slow.direct.lines.create_line("A"), slow.direct.lines.create_line("B")
    show_lines(slow)
    shown: list[str | None] = []
    window.message_model.modelReset.connect(lambda: shown.append(window.message_model.key))

    click_line_without_waiting(qtbot, window, line_a.thread_id)
    click_line_without_waiting(qtbot, window, line_b.thread_id)  # before A's read came back
    assert window.operations.running > 0
    settled(qtbot, window)

    assert window.shown_key == line_b.thread_id
    assert shown == [line_b.thread_id]  # A's answer arrived first and was not shown
    assert slow.controller.lines.current_key == line_b.thread_id


def test_the_gui_thread_is_never_inside_a_store_call_during_window_actions(
    qtbot: QtBot, slow: SlowDatabase, tmp_path: Path
) -> None:
    window = slow.window
    other = slow.direct.lines.create_line("Other")
    show_lines(slow)
    folder = tmp_path / "chosen"
    folder.mkdir()
    window.workspace.choose_folder = lambda *_: str(folder)
    window.task_list.ask_category = lambda *_: "research"
    slow.sql_threads.clear()

    click_line(qtbot, window, other.thread_id)  # switch
    window.chrome.new_line_action.trigger()  # create (then switch to it)
    settled(qtbot, window)
    created = window.shown_key
    assert created not in (None, other.thread_id)
    window.composer.setPlainText("kept, as no provider is configured")
    window.send_button.click()  # send
    settled(qtbot, window)
    window.workspace.on_change_folder_requested()  # bind
    settled(qtbot, window)
    assert created is not None
    window.task_list.set_line_category(created)  # category
    settled(qtbot, window)
    window.task_list.set_archived(created, True)  # archive (the window goes back to the main line)
    settled(qtbot, window)

    assert slow.sql_threads, "the actions ran no SQL at all"
    on_gui = [t for t in slow.sql_threads if t.startswith(threading.main_thread().name)]
    assert on_gui == [], "\n".join(on_gui)
    stored = slow.direct.get_thread(created)
    assert stored.archived and stored.category == "research"
    assert stored.workspace_binding.path == str(folder)
    assert "kept, as no provider is configured" in [m.content for m in slow.direct.lines.messages(created)]


def test_the_gui_thread_stays_out_of_the_store_for_renames_pickers_folders_and_older_pages(
    qtbot: QtBot, slow: SlowDatabase
) -> None:
    window = slow.window
    line = slow.direct.lines.create_line("Long history")
    for number in range(40):  # no provider: each message is only kept
        slow.direct.send(line.thread_id, f"note {number}")
    slow.direct.providers.add_provider(
        ProviderRecord(name="agent", kind=ProviderKind.ACP, acp_command=("agent", "--acp"))
    )
    agent_line = slow.direct.lines.create_line("Run by an agent")
    slow.direct.line_settings.set_execution(agent_line.thread_id, ExecutionMode.ACP, "agent")
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    show_lines(slow)
    window.task_list.ask_title = lambda *_: "Renamed here"
    click_line(qtbot, window, line.thread_id)
    model = window.message_model
    loaded, stored_count = model.stored_count, len(slow.direct.lines.messages(line.thread_id))
    assert 0 < loaded < stored_count <= 200  # one older page holds the rest
    slow.sql_threads.clear()

    window.task_list.rename_line(line.thread_id)  # rename
    settled(qtbot, window)
    click_line(qtbot, window, agent_line.thread_id)  # a switch to a line an ACP agent runs, and back
    click_line(qtbot, window, line.thread_id)
    picker = window.permission_picker  # permission
    picker.setCurrentIndex(picker.findData("full"))
    settled(qtbot, window)
    window.message_pane.network_picker.setCurrentIndex(2)  # network
    settled(qtbot, window)
    folder = Path(slow.direct.get_thread(line.thread_id).workspace_binding.path or "")
    folder.rmdir()  # the folder vanished: recreate it
    window.workspace.on_recreate_folder_requested()
    settled(qtbot, window)
    loaded = model.stored_count  # the first page as the switch back read it
    model.request_older()  # the reader scrolled to the top: an older page
    assert model.stored_count == loaded  # not yet: it is read on the worker
    settled(qtbot, window)
    window.message_list.grab()  # the rows of the page paint from what was read with it

    assert model.stored_count == stored_count
    on_gui = [t for t in slow.sql_threads if t.startswith(threading.main_thread().name)]
    assert slow.sql_threads and on_gui == [], "\n".join(on_gui)
    stored = slow.direct.get_thread(line.thread_id)
    assert stored.title == "Renamed here" == title(window)
    assert stored.context_state.permission_level.value == "full"
    assert stored.context_state.network.value == "on"
    assert folder.is_dir()


def agent_line_shown(qtbot: QtBot, slow: SlowDatabase, openai_server: OpenAIServer, title: str) -> str:
    """A line made by another desktop, run by the scripted OpenAI-compatible agent, shown in the window."""
    slow.controller.providers.add_provider(
        ProviderRecord(name="local", base_url=openai_server.base_url, model="test-model", is_default=True)
    )
    slow.window.line_settings.refresh_providers()
    settled(qtbot, slow.window)  # the providers are read on the store worker (issue 33 item 2)
    key = slow.direct.lines.create_line(title).thread_id
    show_lines(slow)
    click_line(qtbot, slow.window, key)
    return key


def test_a_turns_stored_messages_are_shown_without_reading_them_back(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, slow: SlowDatabase, openai_server: OpenAIServer
) -> None:
    """The turn's recorder hands the window the messages it wrote (``MessagesAppended.messages``): their rows
    paint, and the streamed text gives way to the stored answer, with no read of them on the GUI thread.
    The turn's own reads and writes (its history, its messages, its inbox, the marks at its end) run on
    the controller's store thread, never on the GUI thread."""
    window = slow.window
    slow.controller.providers.add_provider(
        ProviderRecord(name="local", base_url=openai_server.base_url, model="test-model", is_default=True)
    )
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    line = slow.direct.lines.create_line("A turn")
    slow.direct.line_settings.set_permission(line.thread_id, "full")
    show_lines(slow)
    click_line(qtbot, window, line.thread_id)
    openai_server.script(ToolCallReply([call("run_command", command="echo hi")]), TextReply(["Done ", "here."]))
    slow.sql_threads.clear()

    send(qtbot, window, "go")
    run(loop, wait_until(finished(slow.controller, line.thread_id), what="the turn"), timeout=60)
    window.message_list.grab()

    assert message_texts(window)[-1] == "Done here."
    reads = ("_stores_answer", "_load_around", "message_at", "refresh_messages")
    on_gui = [t for t in slow.sql_threads if t.startswith(threading.main_thread().name)]
    back = [t for t in on_gui if any(r in t for r in reads)]
    assert back == [], "\n".join(back)
    # Nor anything else: the turn's own work (no window code on the stack) and the window's reads alike.
    assert on_gui == [], "\n".join(on_gui)
    assert any(t.startswith("xworkmate-turn-store") for t in slow.sql_threads)


def test_a_turns_start_and_end_are_shown_from_reads_on_the_worker(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, slow: SlowDatabase, openai_server: OpenAIServer
) -> None:
    """The line's row and view after a turn's records (``LineUpdated`` at its start and end, emitted on the GUI
    loop) are read on the store worker, then applied: "Running", then "Runnable" again, with no such read on
    the GUI thread (nor any of the turn's own store work, which runs on the controller's store thread)."""
    window = slow.window
    key = agent_line_shown(qtbot, slow, openai_server, "A turn")
    openai_server.script(ToolCallReply([call("list_dir", path=".")]), TextReply(["Done ", "here."]))
    slow.sql_threads.clear()

    send(qtbot, window, "go")
    assert window.message_pane.status_label.text().startswith("Running")
    run(loop, wait_until(lambda: not slow.controller.turns.is_running(key), what="the turn"), timeout=60)
    assert window.operations.running > 0  # its end is being read: not `finished`, which waits for that too
    settled(qtbot, window)

    assert window.message_pane.status_label.text().startswith("Runnable")
    assert window.task_model.summary(key) == slow.direct.lines.line_summary(key)
    on_gui = [t for t in slow.sql_threads if t.startswith(threading.main_thread().name)]
    applying = [t for t in on_gui if "on_controller_changed" in t]  # the window reading for a record
    assert applying == [], "\n".join(applying)
    assert on_gui == [], "\n".join(on_gui)


def test_a_task_an_agent_dispatches_starts_with_its_gate_read_off_the_gui_thread(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, slow: SlowDatabase, openai_server: OpenAIServer
) -> None:
    """The window runs the tasks its agents dispatch (``auto_run_tasks``): the gate of the task's turn (its
    line, the providers) and a refusal's notice are store work on the controller's store thread, so neither
    the dispatching turn nor the task's own turn runs a statement on the GUI thread."""
    window = slow.window
    key = agent_line_shown(qtbot, slow, openai_server, "Dispatcher")
    openai_server.script(
        ToolCallReply([call("task_start", goal="count the files")]),
        TextReply(["Done."]),
        TextReply(["Done."]),  # the dispatcher's next step and the task's turn race for these two
    )
    slow.sql_threads.clear()

    send(qtbot, window, "count them in the background")
    tasks = lambda: [s.thread_id for s in slow.direct.lines.list_lines() if s.parent_key == key]  # noqa: E731
    run(loop, wait_until(lambda: len(tasks()) == 1, what="the task"), timeout=60)
    task = tasks()[0]
    answered = lambda: any(m.role is MessageRole.ASSISTANT for m in slow.direct.lines.messages(task))  # noqa: E731
    ran = lambda: answered() and not slow.controller.turns.is_running(task)  # noqa: E731
    run(loop, wait_until(ran, what="the task's turn"), timeout=60)
    run(loop, wait_until(finished(slow.controller, key), what="the dispatcher's turn"), timeout=60)
    settled(qtbot, window)

    on_gui = [t for t in slow.sql_threads if t.startswith(threading.main_thread().name)]
    assert on_gui == [], "\n".join(on_gui)


def test_a_failed_operation_says_so_in_one_line(qtbot: QtBot, slow: SlowDatabase) -> None:
    window = slow.window
    line = slow.direct.lines.create_line("Gone soon")
    show_lines(slow)
    slow.direct.lines.archive_line(line.thread_id)  # another desktop archived it: binding a folder is refused
    window.workspace.choose_folder = lambda *_: "relative/not/absolute"
    click_line(qtbot, window, line.thread_id)
    window.workspace.on_change_folder_requested()
    settled(qtbot, window)
    status = window.message_pane.status_label.text()
    assert status.startswith("Folder not changed — ")
    assert "\n" not in status


def test_what_a_failed_operation_changed_is_shown_from_reads_on_the_worker(qtbot: QtBot, slow: SlowDatabase) -> None:
    """Issue 33 item 2 (LOOP-4): a line an operation made before it failed still gets its row, read ahead on the
    worker with the failure, not by the task model on the GUI thread."""
    window = slow.window
    made: list[str] = []
    failures: list[BaseException] = []

    def make_then_fail() -> None:
        made.append(slow.controller.lines.create_line("Made before the failure").thread_id)
        raise RuntimeError("the call failed after making the line")

    slow.sql_threads.clear()
    window.operations.run(make_then_fail, failed=failures.append)
    qtbot.waitUntil(lambda: bool(failures), timeout=10_000)
    summary = window.task_model.summary(made[0])
    assert summary is not None and summary.title == "Made before the failure"
    on_gui = [t for t in slow.sql_threads if t.startswith(threading.main_thread().name)]
    assert slow.sql_threads and on_gui == [], "\n".join(on_gui)


def test_a_search_hit_far_back_is_paged_in_on_the_worker_then_selected(qtbot: QtBot, slow: SlowDatabase) -> None:
    window = slow.window
    store = slow.direct._store  # test seeding only; the window never touches the store
    line, other = slow.direct.lines.create_line("Long history"), slow.direct.lines.create_line("Other")

    def say(key: str, text: str) -> int:
        return store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=text).id

    elsewhere = say(other.thread_id, "on another line")
    target = say(line.thread_id, "the needle")
    for number in range(450):  # more than two older pages
        say(line.thread_id, f"filler {number}")
    show_lines(slow)
    slow.sql_threads.clear()

    window.search_export.on_search_hit_chosen(line.thread_id, target)  # what the palette's Enter on the hit does
    settled(qtbot, window)  # the switch, then the pages down to the hit
    window.message_list.grab()  # the rows around it paint from what was read with the pages

    on_gui = [t for t in slow.sql_threads if t.startswith(threading.main_thread().name)]
    assert slow.sql_threads and on_gui == [], "\n".join(on_gui)
    model, current = window.message_model, window.message_list.currentIndex()
    assert model.stored_count == 451 and not model.has_older
    assert current.isValid() and current.data(MESSAGE_ID_ROLE) == target
    assert window.message_list.selectionModel().isSelected(current)
    assert current.data() == "the needle"

    window.search_export.on_search_hit_chosen(line.thread_id, elsewhere)  # a hit the line does not hold (any more)
    settled(qtbot, window)
    assert window.message_pane.status_label.text() == f"Message #{elsewhere} is no longer in this line"
    assert window.message_list.currentIndex().data(MESSAGE_ID_ROLE) == target


# A popup menu on the offscreen platform: it cannot raise it or grab the keyboard, and says so.
@pytest.mark.qt_log_ignore(r"This plugin does not support (raise\(\)|grabbing the keyboard|propagateSizeHints\(\))")
def test_the_menu_of_a_message_not_read_yet_opens_once_the_worker_read_it(qtbot: QtBot, slow: SlowDatabase) -> None:
    window = slow.window
    line = slow.direct.lines.create_line("Menus")
    show_lines(slow)
    click_line(qtbot, window, line.thread_id)
    window.external_watch.stop()  # else it hears of the message below, and painting its row reads it
    store = slow.direct._store  # test seeding only: an agent's message the window has not read
    answer = store.messages.append(line.thread_id, role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content="hi")
    assert window.message_model.cached_message(answer.id) is None
    slow.sql_threads.clear()

    window.conversation.open_message_menu(answer.id, window.message_list.viewport().mapToGlobal(QPoint(10, 10)))

    assert QApplication.activePopupWidget() is None  # not yet: the row is read on the worker
    settled(qtbot, window)
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu) and menu.objectName() == "messageMenu"
    hide = menu.findChild(QAction, "hideFromModelAction")
    assert hide is not None and hide.isEnabled()  # an agent's message can be hidden: the menu knows the row
    on_gui = [t for t in slow.sql_threads if t.startswith(threading.main_thread().name)]
    assert slow.sql_threads and on_gui == [], "\n".join(on_gui)
    assert window.message_model.cached_message(answer.id) == answer
    hide.trigger()
    menu.close()
    settled(qtbot, window)
    assert slow.direct.lines.messages_by_id([answer.id])[answer.id].quarantined
    qtbot.waitUntil(lambda: not shiboken6.isValid(menu))  # a closed menu goes


def approval_card_waiting(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, slow: SlowDatabase, openai_server: OpenAIServer, then: Reply
) -> tuple[str, ApprovalCard]:
    """A native line at ``ask`` whose agent asks to write hello.txt, then replies ``then``; its card shown,
    waiting for the person."""
    window = slow.window
    key = agent_line_shown(qtbot, slow, openai_server, "Always")
    write = call("write_file", path="hello.txt", content="hi!\n", quote="create hello.txt containing")
    openai_server.script(ToolCallReply([write]), then)
    send(qtbot, window, "Please create hello.txt containing a friendly greeting")
    area = window.message_pane.approval_area
    run(loop, wait_until(lambda: len(area.cards) == 1, what="the approval card"))
    return key, area.cards[0]


def freeze_permission_levels(database_url: str) -> None:
    """A trigger an administrator put on the database: every change of a line's permission level is refused."""
    import psycopg

    with psycopg.connect(database_url.replace("+psycopg", ""), autocommit=True) as admin:
        admin.execute(
            "CREATE FUNCTION refuse_permission() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'permission levels are frozen here'; END $$"
        )
        admin.execute(
            "CREATE TRIGGER frozen_permission BEFORE UPDATE OF permission_level ON threads "
            "FOR EACH ROW EXECUTE FUNCTION refuse_permission()"
        )


def test_always_for_this_line_answers_the_turn_at_once_and_raises_the_level_on_the_worker(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, slow: SlowDatabase, openai_server: OpenAIServer
) -> None:
    window = slow.window
    key, card = approval_card_waiting(qtbot, loop, slow, openai_server, TextReply(["Done."]))
    slow.sql_threads.clear()

    qtbot.mouseClick(card.always_button, Qt.MouseButton.LeftButton)

    assert window.operations.running > 0  # the click is over; the raise is still on its way to the store
    run(loop, wait_until(finished(slow.controller, key), what="the turn"), timeout=60)
    settled(qtbot, window)

    on_gui = [t for t in slow.sql_threads if t.startswith(threading.main_thread().name)]
    answering = [t for t in on_gui if "on_approval_decided" in t]  # the turn's own writes still run on the GUI loop
    assert answering == [], "\n".join(answering)
    assert Path(slow.direct.get_thread(key).workspace_binding.path or "", "hello.txt").read_text() == "hi!\n"
    assert slow.direct.get_thread(key).context_state.permission_level is PermissionLevel.AUTO_EDIT
    assert window.permission_picker.currentData() == PermissionLevel.AUTO_EDIT.value


def test_a_refused_always_raise_says_why_in_one_line_and_the_answer_stands(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    slow: SlowDatabase,
    openai_server: OpenAIServer,
    pg_database_url: str,
) -> None:
    """ERR-1: the database refuses the raise (here a trigger an administrator put on it); the person's
    answer was already given, so the write still happens and the line stays at the level stored."""
    window = slow.window
    key, card = approval_card_waiting(qtbot, loop, slow, openai_server, HangReply(chunks=["Writing it"]))
    freeze_permission_levels(pg_database_url)

    qtbot.mouseClick(card.always_button, Qt.MouseButton.LeftButton)
    # The turn went on with the answer: the file is written and the agent's next reply streams (then hangs,
    # so the line's status does not take the place of the failure before it is read here).
    run(loop, wait_until(lambda: live_text(window) == "Writing it", what="the reply after the write"), timeout=60)
    settled(qtbot, window)

    status = window.message_pane.status_label.text()
    assert status.startswith("That did not work — ") and "permission levels are frozen here" in status
    assert "\n" not in status
    assert Path(slow.direct.get_thread(key).workspace_binding.path or "", "hello.txt").read_text() == "hi!\n"
    assert slow.direct.get_thread(key).context_state.permission_level is PermissionLevel.ASK
    assert window.permission_picker.currentData() == PermissionLevel.ASK.value
    window.stop_button.click()
    run(loop, wait_until(finished(slow.controller, key), what="the stop"), timeout=60)


def test_a_refused_always_raise_is_still_said_after_the_turn_has_ended(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    slow: SlowDatabase,
    openai_server: OpenAIServer,
    pg_database_url: str,
) -> None:
    """The turn the person answered ends a moment after the raise failed; its end draws the line again
    ("Runnable"), which must not take the failure's place before the person has read it (a click does)."""
    window = slow.window
    key, card = approval_card_waiting(qtbot, loop, slow, openai_server, TextReply(["Done."]))
    freeze_permission_levels(pg_database_url)

    qtbot.mouseClick(card.always_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(finished(slow.controller, key), what="the turn"), timeout=60)
    settled(qtbot, window)
    assert not window.stop_button.isEnabled()  # the turn's end was drawn

    status = window.message_pane.status_label.text()
    assert status.startswith("That did not work — ") and "permission levels are frozen here" in status
    qtbot.mouseClick(window.message_pane.status_label, Qt.MouseButton.LeftButton)
    assert window.message_pane.status_label.text().startswith("Runnable")


def click_line_without_waiting(qtbot: QtBot, window: MainWindow, key: str) -> None:
    """A click in the list, as ``click_line`` makes it, without waiting for its operation."""
    from .support import proxy_index

    index = proxy_index(window, key)
    view = window.task_line_list
    view.scrollTo(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())


def test_another_desktops_lines_and_messages_are_read_on_the_worker(qtbot: QtBot, slow: SlowDatabase) -> None:
    """Issue 19, item 6 with item 1: what another desktop wrote (a message on the shown line, a new line) is
    read on the store worker before the window applies it; the GUI thread runs no statement for it."""
    window = slow.window
    qtbot.waitUntil(lambda: window.external_watch.listening, timeout=10_000)
    line = slow.direct.lines.create_line("Shared")
    qtbot.waitUntil(lambda: window.task_model.summary(line.thread_id) is not None, timeout=10_000)
    click_line(qtbot, window, line.thread_id)
    slow.sql_threads.clear()

    slow.direct.send(line.thread_id, "written on another desktop")  # no provider there: kept, with a notice
    other = slow.direct.lines.create_line("Made elsewhere")
    qtbot.waitUntil(
        lambda: (
            "written on another desktop" in message_texts(window)
            and window.task_model.summary(other.thread_id) is not None
        ),
        timeout=15_000,
    )
    settled(qtbot, window)
    window.message_list.grab()

    assert window.task_model.summary(other.thread_id) == slow.direct.lines.line_summary(other.thread_id)
    on_gui = [t for t in slow.sql_threads if t.startswith(threading.main_thread().name)]
    assert on_gui == [], "\n".join(on_gui)


def test_a_window_closed_with_operations_queued_counts_none_still_running(qtbot: QtBot, slow: SlowDatabase) -> None:
    """Closing drops the operations not started yet (issue 33 item 2): their answers never come, so they stop
    counting. A closed window that still counted them would hold every ``settled``/``finished`` wait of a
    later window (they wait for all windows' operations) until it times out."""
    window = slow.window
    for _ in range(5):  # each a read on the worker, 20 ms away each way: most are still queued at the close
        window.line_settings.refresh_providers()
    assert window.operations.running >= 5
    window.close()
    qtbot.waitUntil(lambda: window.operations.running == 0, timeout=5000)
