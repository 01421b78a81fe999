"""The centre pane: sending, refusals that lose nothing, and a message list that pages (SPEC §2, §6)."""

from __future__ import annotations

import asyncio
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.controllers.session import NO_PROVIDER_NOTICE
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.runs import NotRunnable
from xworkmate.store import Store
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation import (
    CONTENT_ROLE,
    FIRST_PAGE_SIZE,
    HIDDEN_ROLE,
    MIN_FIRST_PAGE,
    PAGE_SIZE,
    STATE_ROLE,
    MessageListModel,
)
from xworkmate.ui.conversation.model import PENDING_MESSAGE_TEXT
from xworkmate.ui.lines.task_lines import BADGE_ROLE, TaskLineModel

from .support import click_line, label_text, message_headers, message_texts, proxy_index
from .support_runs import run, wait_until


def add_messages(store: Store, key: str, count: int) -> None:
    for n in range(count):
        store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=f"message {n}")


def test_ctrl_return_on_a_runnable_line_stores_the_message_and_shows_the_no_provider_notice(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """ISO-4/ISO-6: a runnable line takes the message; with no provider nothing runs, and it says so."""
    line = sqlite_controller.lines.create_line("Runnable")
    click_line(qtbot, window, line.thread_id)
    assert "Runnable" in label_text(window, "lineStatusLabel")
    assert not window.send_button.isEnabled()  # empty composer

    qtbot.keyClicks(window.composer, "summarise the README")
    assert window.send_button.isEnabled()
    qtbot.keyClick(window.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    stored = sqlite_controller.lines.messages(line.thread_id)
    assert (stored[0].role, stored[0].source, stored[0].content) == (
        MessageRole.USER,
        MessageSource.HUMAN,
        "summarise the README",
    )
    texts = message_texts(window)
    assert texts[0] == "summarise the README"
    assert any("No agent provider is configured" in text for text in texts)
    assert texts[-1] == NO_PROVIDER_NOTICE
    notice = window.message_model.index(window.message_model.rowCount() - 1, 0)
    assert notice.data(STATE_ROLE) == MessageState.ERROR.value
    assert notice.data(Qt.ItemDataRole.BackgroundRole) is not None  # visibly styled
    assert message_headers(window)[0].startswith("You · ") and "human" not in message_headers(window)[0]
    assert window.composer.toPlainText() == ""
    assert not window.send_button.isEnabled()
    assert window.message_pane.stack.currentWidget() is window.message_list


def test_ctrl_enter_on_the_keypad_sends_too(qtbot: QtBot, window: MainWindow) -> None:
    """Keyboard: Ctrl+Enter and Ctrl+Return both send."""
    qtbot.keyClicks(window.composer, "via enter")
    qtbot.keyClick(
        window.composer,
        Qt.Key.Key_Enter,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.KeypadModifier,
    )
    assert message_texts(window)[0] == "via enter"
    assert window.composer.toPlainText() == ""


def test_plain_return_in_the_composer_is_a_new_line_not_a_send(qtbot: QtBot, window: MainWindow) -> None:
    window.keyboard.enter_sends_action.setChecked(False)  # Settings: Ctrl+Enter sends (issue 18)
    qtbot.keyClicks(window.composer, "first")
    qtbot.keyClick(window.composer, Qt.Key.Key_Return)
    qtbot.keyClicks(window.composer, "second")
    assert window.composer.toPlainText() == "first\nsecond"
    assert message_texts(window) == []


def test_a_line_whose_folder_was_deleted_is_not_runnable_until_its_folder_is_recreated(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """ISO-4, ISO-7: the line is blocked (never run in main), Send is disabled, and Recreate fixes it."""
    line = sqlite_controller.lines.create_line("Folder goes away")
    folder = Path(line.workspace_binding.path or "")
    shutil.rmtree(folder)
    click_line(qtbot, window, line.thread_id)

    status = label_text(window, "lineStatusLabel")
    assert status.startswith("Not runnable")
    assert "folder is missing" in status and "Change folder…" in status
    qtbot.keyClicks(window.composer, "please run")
    assert not window.send_button.isEnabled()
    assert not window.workspace_pane.recreate_folder_button.isHidden()
    assert window.workspace_pane.stack.currentWidget() is window.workspace_pane.empty_label
    assert str(folder) in label_text(window, "workspaceEmptyLabel")
    assert proxy_index(window, line.thread_id).data(BADGE_ROLE) == "⚠ needs folder"
    with pytest.raises(NotRunnable):
        sqlite_controller.send(line.thread_id, "please run")
    assert sqlite_controller.lines.messages(line.thread_id) == []
    assert sqlite_controller.lines.messages("main") == []  # ISO-7: nothing fell back to main

    qtbot.mouseClick(window.workspace_pane.recreate_folder_button, Qt.MouseButton.LeftButton)

    assert folder.is_dir()
    assert label_text(window, "lineStatusLabel").startswith("Runnable")
    assert window.send_button.isEnabled()  # the typed text survived
    assert window.workspace_pane.recreate_folder_button.isHidden()
    assert window.workspace_pane.root == str(folder)
    assert proxy_index(window, line.thread_id).data(BADGE_ROLE) == ""


def test_sending_after_the_folder_vanished_keeps_the_text_and_explains(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """ISO-4: a refusal loses nothing; the composer keeps the text and the line shows why."""
    line = sqlite_controller.lines.create_line("Shown runnable")
    click_line(qtbot, window, line.thread_id)
    qtbot.keyClicks(window.composer, "do the thing")
    shutil.rmtree(line.workspace_binding.path or "")

    qtbot.keyClick(window.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    assert window.composer.toPlainText() == "do the thing"
    status = label_text(window, "lineStatusLabel")
    assert status.startswith("Not sent") and "folder is missing" in status
    assert not window.send_button.isEnabled()
    assert sqlite_controller.lines.messages(line.thread_id) == []


def test_the_watched_folder_disappearing_blocks_the_line(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """ISO-4: the window notices a folder deleted behind its back (file system watcher)."""
    line = sqlite_controller.lines.create_line("Watched")
    click_line(qtbot, window, line.thread_id)
    shutil.rmtree(line.workspace_binding.path or "")
    qtbot.waitUntil(lambda: label_text(window, "lineStatusLabel").startswith("Not runnable"), timeout=5000)
    assert not window.workspace_pane.recreate_folder_button.isHidden()


def test_each_line_keeps_its_own_draft(qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController) -> None:
    """ISO-5: text typed for one line is never sent on another."""
    line_a = sqlite_controller.lines.create_line("A")
    line_b = sqlite_controller.lines.create_line("B")
    click_line(qtbot, window, line_a.thread_id)
    qtbot.keyClicks(window.composer, "for A only")
    click_line(qtbot, window, line_b.thread_id)
    assert window.composer.toPlainText() == ""
    click_line(qtbot, window, line_a.thread_id)
    assert window.composer.toPlainText() == "for A only"


def test_messages_appended_on_another_line_do_not_enter_this_pane(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """ISO-5: the message pane shows the current key only."""
    line = sqlite_controller.lines.create_line("Elsewhere")
    sqlite_controller.send(line.thread_id, "not for main")
    assert window.message_model.key == "main"
    assert message_texts(window) == []


def test_task_line_model_passes_qt_model_tester(
    qtmodeltester: ModelTester, sqlite_controller: SessionController
) -> None:
    """STYLE lesson 3: every custom model passes pytest-qt's model tester. LOOP-4 (issue 33 item 2): the model
    reads nothing itself; it is handed its lines, each row's summary and the attention tracker, as the window
    hands it what its operations read on the store worker (here the test reads them)."""
    lines = sqlite_controller.lines
    for title in ("one", "two"):
        lines.create_line(title)
    model = TaskLineModel(
        sqlite_controller, lines=lines.list_lines(include_archived=True), attention=sqlite_controller.attention
    )
    qtmodeltester.check(model)
    line = lines.create_line("three")
    model.add_line(line.thread_id, lines.line_summary(line.thread_id))
    lines.rename_line(line.thread_id, "three again")
    model.refresh_line(line.thread_id, lines.line_summary(line.thread_id))
    qtmodeltester.check(model)
    row = model.row_of(line.thread_id)
    assert row is not None and model.index(row, 0).data() == "three again"


def test_message_list_model_passes_qt_model_tester(
    qtmodeltester: ModelTester, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """STYLE lesson 3, with older pages left to fetch. The first page is handed to it (LOOP-4: the window's is read
    on the store worker); the older ones its reader reads, at once here (no qasync loop)."""
    add_messages(sqlite_store, "main", 30)
    model = MessageListModel(sqlite_controller, page_size=10)
    model.set_key("main", first_page=10, newest=sqlite_controller.lines.newest_messages("main", limit=10))
    qtmodeltester.check(model)
    assert model.rowCount() == 30  # the tester fetched every older page


def test_message_list_model_reads_its_first_page_and_older_pages_off_the_gui_thread(
    loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """STYLE lesson 3 and LOOP-4 (issue 33 item 2): a line shown with no first page read for it reads the newest
    page in one read off the GUI thread (the line is empty until it comes); older pages come whole via fetchMore,
    on the same reader, so painting them reads nothing more. The guard fails the test on a read on the GUI
    thread."""
    add_messages(sqlite_store, "main", 1000)
    reads: list[tuple[int, bool]] = []
    real_messages_by_id = sqlite_controller.lines.messages_by_id

    def counting(ids: list[int]) -> dict[int, Message]:
        reads.append((len(ids), threading.current_thread() is threading.main_thread()))
        return real_messages_by_id(ids)

    sqlite_controller.lines.messages_by_id = counting  # type: ignore[method-assign]
    model = MessageListModel(sqlite_controller)
    model.set_key("main")
    assert model.rowCount() == 0 and not model.canFetchMore(QModelIndex())  # on its way
    run(loop, wait_until(lambda: model.rowCount() > 0))

    assert model.rowCount() == FIRST_PAGE_SIZE  # just enough for the first screen
    assert model.index(FIRST_PAGE_SIZE - 1, 0).data() == "message 999"
    assert model.index(0, 0).data() == f"message {1000 - FIRST_PAGE_SIZE}"
    assert reads == []  # the first page came whole with its ids: painting it reads nothing more
    assert model.canFetchMore(QModelIndex())

    model.fetchMore(QModelIndex())
    assert model.rowCount() == FIRST_PAGE_SIZE  # on its way
    run(loop, wait_until(lambda: model.rowCount() > FIRST_PAGE_SIZE))
    assert model.rowCount() == FIRST_PAGE_SIZE + PAGE_SIZE
    assert model.index(0, 0).data() == f"message {1000 - FIRST_PAGE_SIZE - PAGE_SIZE}"
    assert reads == [(PAGE_SIZE, False)]  # the page with its messages, in one read, off the GUI thread
    while model.canFetchMore(QModelIndex()):
        rows = model.rowCount()
        model.fetchMore(QModelIndex())
        run(loop, wait_until(lambda rows=rows: model.rowCount() > rows or not model.has_older))  # type: ignore[misc]
    assert model.rowCount() == 1000
    assert model.index(0, 0).data() == "message 0"
    assert model.loaded_ids == sorted(model.loaded_ids)


def test_a_row_painted_before_its_message_is_read_shows_a_placeholder_until_it_comes(
    loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """LOOP-4 (issue 33 item 2): a row whose message the model does not hold (changed with no read ahead, appended
    by another process, dropped past the cap) is never read on the GUI thread: it paints a placeholder, the rows
    around it are read in one read by the model's reader, and they are repainted (``dataChanged``) with their
    messages, or say that they are gone."""
    human, agent = (MessageRole.USER, MessageSource.HUMAN), (MessageRole.ASSISTANT, MessageSource.AGENT)
    for n in range(5):
        role, source = agent if n == 3 else human  # only an agent's message can be hidden from the model
        sqlite_store.messages.append("main", role=role, source=source, content=f"message {n}")
    newest = sqlite_controller.lines.newest_messages("main", limit=5)
    model = MessageListModel(sqlite_controller)
    model.set_key("main", first_page=8, newest=newest)
    changed: list[int] = []
    model.dataChanged.connect(lambda top, bottom, _roles=(): changed.extend(range(top.row(), bottom.row() + 1)))

    sqlite_store.messages.quarantine(newest[3].id)
    model.refresh_messages([newest[3].id], {})  # hidden from the model, its read ahead lost: read when painted
    model.append_ids([newest[-1].id + 1000])  # no such message (yet)
    assert model.index(3, 0).data() == PENDING_MESSAGE_TEXT and model.is_pending(3)
    assert model.index(5, 0).data() == PENDING_MESSAGE_TEXT and model.is_pending(5)
    changed.clear()
    run(loop, wait_until(lambda: not model.is_pending(3) and not model.is_pending(5)))
    assert model.index(3, 0).data(HIDDEN_ROLE) is True  # read as it is now, off the GUI thread
    assert model.index(5, 0).data() == "(this message is no longer available)"
    assert {3, 5} <= set(changed)
    assert [model.index(row, 0).data(CONTENT_ROLE) for row in range(5)] == [f"message {n}" for n in range(5)]


def test_scrolling_to_the_top_of_the_message_list_pages_in_older_history(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """SPEC §6: the view opens at the newest message and fetches older pages only at the top."""
    from .conftest import open_window

    add_messages(sqlite_store, "main", 450)
    window = open_window(qtbot, sqlite_controller)
    view = window.message_list
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum(), timeout=3000)
    # The first page is what fills the view (it scrolls: bar.maximum() > 0), and at the bottom
    # nothing older is fetched.
    first = window.message_model.rowCount()
    assert MIN_FIRST_PAGE <= first < 450

    bar.setValue(bar.minimum())
    assert window.message_model.rowCount() == first + PAGE_SIZE
    assert bar.value() > bar.minimum()  # the row that was on top stays in view
    bar.setValue(bar.minimum())
    assert window.message_model.rowCount() == first + 2 * PAGE_SIZE
    bar.setValue(bar.minimum())
    assert window.message_model.rowCount() == 450
    assert not window.message_model.has_older


def test_an_older_page_read_elsewhere_is_applied_only_for_the_line_and_page_it_was_asked_for(
    sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """Issue 19: the window reads older pages on the store worker. An answer (or a failure) for a line no
    longer shown is dropped and does not cancel the page asked for since. LOOP-4: the first pages are handed
    to the model, and the reader's read runs off the GUI thread (here a worker of the test's)."""
    other = sqlite_controller.lines.create_line("Other")
    add_messages(sqlite_store, "main", 40)
    add_messages(sqlite_store, other.thread_id, 40)
    asked: list[tuple[Callable[[], Any], Callable[[Any], None]]] = []
    model = MessageListModel(sqlite_controller, page_size=10)
    model.set_older_reader(lambda read, done: asked.append((read, done)))
    prepended: list[int] = []
    model.olderPrepended.connect(prepended.append)
    newest = sqlite_controller.lines.newest_messages

    model.set_key("main", first_page=8, newest=newest("main", limit=8))
    model.request_older()
    model.request_older()  # one page at a time
    assert len(asked) == 1 and model.rowCount() == 8
    model.set_key(other.thread_id, first_page=8, newest=newest(other.thread_id, limit=8))
    model.request_older()
    (_read_main, done_main), (read_other, done_other) = asked
    done_main(None)  # the first line's read failed, late: nothing changes for the line shown now
    with ThreadPoolExecutor(1) as worker:
        page = worker.submit(read_other).result()
    done_other(page)
    assert model.rowCount() == 18 and prepended == [10]
    assert model.index(0, 0).data() == "message 22"  # 40 messages, the newest 8, then the 10 before them


def test_scrolling_a_long_line_to_its_start_keeps_at_most_the_cap_of_messages_read(
    loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """Issue 34 item 2 (STYLE lesson 3): every row of a line longer than the cap is painted, newest to
    oldest, and the model never holds more than ``CACHE_CAP`` messages; a row dropped is read again, off the
    GUI thread (LOOP-4: it paints a placeholder until its read comes)."""
    from xworkmate.ui.conversation.model import CACHE_CAP

    total = CACHE_CAP * 3
    add_messages(sqlite_store, "main", total)
    model = MessageListModel(sqlite_controller, page_size=500)
    model.set_key("main")
    run(loop, wait_until(lambda: model.rowCount() > 0))
    while model.canFetchMore(QModelIndex()):
        rows = model.rowCount()
        model.fetchMore(QModelIndex())
        run(loop, wait_until(lambda rows=rows: model.rowCount() > rows))  # type: ignore[misc]
        assert model.cached_count <= CACHE_CAP  # whole pages come in, the farthest rows go
    assert model.rowCount() == total
    most = 0
    for row in reversed(range(total)):
        if model.index(row, 0).data() == PENDING_MESSAGE_TEXT:
            run(loop, wait_until(lambda row=row: not model.is_pending(row)))  # type: ignore[misc]
        assert model.index(row, 0).data() == f"message {row}"
        most = max(most, model.cached_count)
    assert CACHE_CAP <= most <= CACHE_CAP + 64  # one read window past the cap at most, before it is trimmed
    assert model.index(total - 1, 0).data() == PENDING_MESSAGE_TEXT  # dropped: read again
    run(loop, wait_until(lambda: not model.is_pending(total - 1)))
    assert model.index(total - 1, 0).data() == f"message {total - 1}"
