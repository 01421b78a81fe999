"""Tasks and categories in the window: nested rows, badges, relabelling, forks, dispatch sources (SPEC §3, §4, §6)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.keys import MAIN_KEY
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import ThreadKind
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply
from xworkmate.ui import MainWindow
from xworkmate.ui.lines.task_lines import (
    CATEGORY_BADGE_ROLE,
    CATEGORY_ROLE,
    DEPTH_ROLE,
    KEY_ROLE,
    KIND_MARKER_ROLE,
    PARENT_KEY_ROLE,
    TaskLineModel,
)

from .support import click_line, finished, label_text, message_texts, proxy_index, selected_key, send, settled
from .support_runs import call, run, wait_until


def visible_keys(window: MainWindow) -> list[str]:
    proxy = window.task_proxy
    return [str(proxy.index(row, 0).data(KEY_ROLE)) for row in range(proxy.rowCount())]


def menu_action(window: MainWindow, key: str, text: str) -> None:
    menu = window.task_list.task_line_menu(key)
    [action] = [a for a in menu.actions() if a.text() == text]
    action.trigger()
    menu.deleteLater()


def test_a_task_the_agent_starts_appears_under_its_dispatcher_with_its_category_badge_without_a_reset(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    qtmodeltester: ModelTester,
) -> None:
    """CAT-5 and SPEC §6: the agent's task_start makes a task nested under its line, running in the background."""
    window, controller = agent_window, agent_controller
    assert controller.followups.auto_run_tasks  # the window runs dispatched tasks at once
    # CAT-2: a medical line's turns (and its medical task's) only reach a provider tagged medical.
    controller.providers.add_provider(
        ProviderRecord(name="med", base_url=openai_server.base_url, model="test-model", tags=("medical",))
    )
    clinic = controller.lines.create_line("Clinic")
    controller.tasks.set_category(clinic.thread_id, "medical")
    later = controller.lines.create_line("Later line")  # the task must go above it, under its dispatcher
    click_line(qtbot, window, clinic.thread_id)
    openai_server.script(
        ToolCallReply([call("task_start", goal="summarise the lab results", category="medical")]),
        TextReply(["Done."]),
        TextReply(["Done."]),  # the dispatcher's next step and the task's turn race for these two
    )
    qtmodeltester.check(window.task_model)
    inserted: list[tuple[int, int]] = []
    resets: list[str] = []
    window.task_model.rowsInserted.connect(lambda _parent, first, last: inserted.append((first, last)))
    window.task_model.modelReset.connect(lambda: resets.append("reset"))

    send(qtbot, window, "summarise my labs in the background")

    def task_keys() -> list[str]:
        return [s.thread_id for s in controller.lines.list_lines() if s.parent_key == clinic.thread_id]

    run(loop, wait_until(lambda: len(task_keys()) == 1, what="the dispatched task"))
    [task] = task_keys()
    run(
        loop,
        wait_until(
            lambda: finished(controller, clinic.thread_id)() and finished(controller, task)(),
            what="both turns",
        ),
    )

    model = window.task_model
    parent_row = model.row_of(clinic.thread_id)
    assert parent_row is not None and model.row_of(task) == parent_row + 1
    assert model.row_of(later.thread_id) == parent_row + 2
    assert inserted == [(parent_row + 1, parent_row + 1)] and resets == []
    index = proxy_index(window, task)
    assert index.data(DEPTH_ROLE) == 1 and index.data(PARENT_KEY_ROLE) == clinic.thread_id
    assert index.data(KIND_MARKER_ROLE) == "task"
    assert index.data(CATEGORY_BADGE_ROLE) == "● medical"
    assert "task of: Clinic" in index.data(Qt.ItemDataRole.ToolTipRole)
    assert visible_keys(window) == [MAIN_KEY, clinic.thread_id, task, later.thread_id]
    assert controller.lines.current_key == clinic.thread_id and selected_key(window) == clinic.thread_id
    # The task ran on its own line, in the background, on the tagged provider.
    assert [m.content for m in controller.lines.messages(task) if m.role is MessageRole.ASSISTANT] == ["Done."]
    assert {r.body["model"] for r in openai_server.chat_requests} == {"test-model"}
    # A fresh list reads the same tree.
    fresh = TaskLineModel(
        controller, lines=controller.lines.list_lines(include_archived=True), attention=controller.attention
    )
    assert fresh.line_keys() == model.line_keys()


def test_set_category_relabels_the_line_and_its_tasks_and_errors_are_shown(
    window: MainWindow, sqlite_controller: SessionController
) -> None:
    """CAT-10: relabelling is a human decision that moves the whole subtree, normal tasks included."""
    controller = sqlite_controller
    line = controller.lines.create_line("Case")
    task = controller.tasks.start_task(line.thread_id, "draft a letter")
    asked: list[str] = []
    answers = iter(["Legal", "other", "Not valid!", None, ""])

    def ask(_parent: object, current: str) -> str | None:
        asked.append(current)
        return next(answers)

    window.task_list.ask_category = ask
    changed: list[int] = []
    window.task_model.dataChanged.connect(lambda top, _bottom, _roles=(): changed.append(top.row()))

    menu_action(window, line.thread_id, "Set category…")
    assert [proxy_index(window, k).data(CATEGORY_BADGE_ROLE) for k in (line.thread_id, task.key)] == ["● legal"] * 2
    assert sorted(changed) == sorted([window.task_model.row_of(line.thread_id), window.task_model.row_of(task.key)])

    menu_action(window, task.key, "Set category…")  # a task inside a "legal" tree cannot carry another (CAT-7)
    status = label_text(window, "lineStatusLabel")
    assert status.startswith("Category not changed") and "legal" in status
    menu_action(window, line.thread_id, "Set category…")
    assert "invalid content category 'Not valid!'" in label_text(window, "lineStatusLabel")
    menu_action(window, line.thread_id, "Set category…")  # cancelled: nothing happens
    assert controller.lines.line_summary(line.thread_id).category == "legal"

    menu_action(window, line.thread_id, "Set category…")  # empty clears it, for the whole tree
    assert [proxy_index(window, k).data(CATEGORY_ROLE) for k in (line.thread_id, task.key)] == [None, None]
    assert proxy_index(window, task.key).data(CATEGORY_BADGE_ROLE) == ""
    assert asked == ["", "legal", "legal", "legal", "legal"]


def test_fork_appears_under_its_source_and_becomes_current(
    window: MainWindow, sqlite_controller: SessionController, qtmodeltester: ModelTester
) -> None:
    controller = sqlite_controller
    line = controller.lines.create_line("Essay")
    controller.lines.create_line("After")
    qtmodeltester.check(window.task_model)
    menu_action(window, line.thread_id, "Fork")

    fork = controller.lines.current_key
    summary = controller.lines.line_summary(fork)
    assert summary.kind is ThreadKind.FORK and summary.parent_key == line.thread_id
    assert window.task_model.row_of(fork) == window.task_model.row_of(line.thread_id) + 1
    index = proxy_index(window, fork)
    assert index.data(DEPTH_ROLE) == 1 and index.data(KIND_MARKER_ROLE) == "fork"
    assert selected_key(window) == fork and label_text(window, "sessionKeyLabel") == fork


def test_the_filter_keeps_a_dispatcher_in_view_when_one_of_its_tasks_matches(
    window: MainWindow, sqlite_controller: SessionController
) -> None:
    controller = sqlite_controller
    line = controller.lines.create_line("Holiday plans")
    task = controller.tasks.start_task(line.thread_id, "compare train fares")
    controller.lines.create_line("Unrelated")
    window.task_pane.filter_edit.setText("fares")
    assert visible_keys(window) == [line.thread_id, task.key]
    window.task_pane.filter_edit.setText("holiday")
    assert visible_keys(window) == [line.thread_id]
    window.task_pane.filter_edit.clear()
    assert len(visible_keys(window)) == 4


def test_a_tasks_workspace_pane_lists_what_it_was_dispatched_on_and_a_follow_up_recaptures_it(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """PROV-1, PROV-2, PROV-4: the frozen sources, not the dispatcher's later chat — until a follow-up."""
    controller = sqlite_controller
    line = controller.lines.create_line("Config")
    click_line(qtbot, window, line.thread_id)
    send(qtbot, window, "only read the config")  # no provider: stored, nothing runs
    task = controller.tasks.start_task(line.thread_id, "analyse the config")
    send(qtbot, window, "you may rewrite the config")  # later chat in the dispatcher
    pane = window.workspace_pane
    assert not pane.sources_box.isVisible()  # not a task: no section

    click_line(qtbot, window, task.key)
    assert pane.sources_box.isVisible()
    [source] = pane.dispatch_source_texts()
    assert source.endswith("· only read the config")
    assert "1 message of yours" in label_text(window, "dispatchSourcesNote")
    assert window.composer.placeholderText().startswith("Send this task a follow-up")

    send(qtbot, window, "go ahead and fix it")
    assert "no agent provider is configured" in label_text(window, "lineStatusLabel")
    assert message_texts(window)[-1] == "go ahead and fix it"
    assert [t.split(" · ", 1)[1] for t in pane.dispatch_source_texts()] == [
        "only read the config",
        "you may rewrite the config",
    ]
    [followup] = [m for m in controller.lines.messages(task.key) if m.content == "go ahead and fix it"]
    assert followup.source is MessageSource.HUMAN

    click_line(qtbot, window, line.thread_id)
    assert not pane.sources_box.isVisible()


def test_a_normal_task_of_a_category_line_says_it_cannot_read_its_dispatcher(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController, openai_server: OpenAIServer
) -> None:
    """CAT-8: the same references resolve to nothing for a normal task; a category task reads them."""
    controller = sqlite_controller
    line = controller.lines.create_line("Clinic")
    controller.tasks.set_category(line.thread_id, "medical")
    click_line(qtbot, window, line.thread_id)
    send(qtbot, window, "my blood pressure is 150/95")  # no provider yet: stored, nothing runs
    # CAT-6: a category task needs a provider tagged with its category.
    controller.providers.add_provider(
        ProviderRecord(name="med", base_url=openai_server.base_url, model="test-model", tags=("medical",))
    )
    normal = controller.tasks.start_task(line.thread_id, "make a colour scheme")
    medical = controller.tasks.start_task(line.thread_id, "summarise the readings", category="medical")
    pane = window.workspace_pane

    click_line(qtbot, window, normal.key)
    assert pane.sources_box.isVisible() and pane.dispatch_source_texts() == []
    assert not pane.sources_list.isVisible()
    note = label_text(window, "dispatchSourcesNote")
    assert "normal task" in note and "“medical”" in note and "cannot read" in note and "CAT-8" not in note
    assert proxy_index(window, normal.key).data(CATEGORY_BADGE_ROLE) == ""

    click_line(qtbot, window, medical.key)
    [source] = pane.dispatch_source_texts()
    assert source.endswith("· my blood pressure is 150/95")
    assert "CAT-8" not in label_text(window, "dispatchSourcesNote")
    assert proxy_index(window, medical.key).data(CATEGORY_BADGE_ROLE) == "● medical"


def test_send_on_a_task_is_a_follow_up_that_starts_its_turn(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """PROV-4 and SPEC §6: the composer of a task sends a follow-up, then the task runs on it."""
    window, controller = agent_window, agent_controller
    line = controller.lines.create_line("Parent")
    task = controller.tasks.start_task(line.thread_id, "count the files")
    click_line(qtbot, window, task.key)
    openai_server.script(TextReply(["There are none."]))

    send(qtbot, window, "count hidden files too")
    run(loop, wait_until(finished(controller, task.key), what="the task's turn"))

    assert message_texts(window)[-2:] == ["count hidden files too", "There are none."]
    [request] = openai_server.chat_requests
    sent = [m.get("content") for m in request.body["messages"] if m["role"] == "user"]
    assert "count hidden files too" in sent
    human = [
        m for m in controller.lines.messages(task.key) if m.role is MessageRole.USER and m.source is MessageSource.HUMAN
    ]
    assert [m.content for m in human] == ["count hidden files too"]
    assert label_text(window, "lineStatusLabel").startswith("Runnable")
    assert Path(task.task.workspace_binding.path or "").is_dir()


def test_send_on_a_running_task_delivers_a_follow_up_at_its_next_safe_point(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """PROV-4: a running task takes a follow-up from the window; its agent reads it between steps.
    Since issue 31, Send on a running task queues it, and the strip's "Send now" steers it into the turn."""
    window, controller = agent_window, agent_controller
    line = controller.lines.create_line("A")
    task = controller.tasks.start_task(line.thread_id, "tidy the folder")
    controller.line_settings.set_permission(task.key, "full")
    openai_server.script(ToolCallReply([call("run_command", command="sleep 1.5")]), TextReply(["Keeping it."]))
    click_line(qtbot, window, task.key)  # before the turn: a click processes Qt events outside the asyncio loop
    turn = controller.turns.start_turn(task.key, None)
    run(loop, wait_until(lambda: len(openai_server.chat_requests) == 1, what="the task's first step"))
    send(qtbot, window, "keep README.md")  # Send stays enabled on a running task
    assert window.followup_queue.texts() == ["keep README.md"]
    send_now = window.followup_queue.rows[0].send_now_button
    qtbot.mouseClick(send_now, Qt.MouseButton.LeftButton)
    settled(qtbot, window)
    run(loop, turn)
    assert len(openai_server.chat_requests) == 2  # steered into the same turn, not a turn of its own
    second = openai_server.chat_requests[1].body["messages"]
    assert second[-1] == {"role": "user", "content": "keep README.md"}
    assert "keep README.md" in message_texts(window)
