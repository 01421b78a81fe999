"""Tasks dispatched by the native agent, through the controller, with a real router and server (SPEC §3, §4)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from xworkmate.controllers import Change, LineCreated, SessionController, ToolRunning
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import ThreadKind
from xworkmate.llm import ModelRouter, ProviderConfig, RetryPolicy
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply


def fast_router(providers: list[ProviderConfig]) -> ModelRouter:
    return ModelRouter(providers, retry=RetryPolicy(max_retries=0, base_delay=0.01, max_delay=0.01))


@pytest.fixture
def two_providers(
    store: Store, settings: Settings, openai_server_factory: object
) -> tuple[SessionController, OpenAIServer, OpenAIServer]:
    """One untagged provider (the default) and one tagged `medical`, each on its own real server."""
    assert callable(openai_server_factory)
    plain: OpenAIServer = openai_server_factory()
    medical: OpenAIServer = openai_server_factory()
    controller = SessionController(store, settings, router_factory=fast_router)
    controller.providers.add_provider(
        ProviderRecord(name="plain", base_url=plain.base_url, model="test-model", is_default=True)
    )
    controller.providers.add_provider(
        ProviderRecord(name="med", base_url=medical.base_url, model="test-model", tags=("medical",))
    )
    return controller, plain, medical


def task_start(call_id: str = "t1", **arguments: object) -> ToolCallReply:
    return ToolCallReply([ScriptedToolCall(call_id, "task_start", json.dumps(arguments))])


def tool_results(controller: SessionController, key: str) -> list[str]:
    return [m.content for m in controller.lines.messages(key) if m.role is MessageRole.TOOL]


def test_agent_starts_a_normal_task_nested_under_its_line(
    two_providers: tuple[SessionController, OpenAIServer, OpenAIServer],
) -> None:
    """CAT-5: task_start without category makes a normal task; the window hears of the new line."""
    controller, plain, _medical = two_providers
    line = controller.lines.create_line("A")
    plain.script(task_start(goal="write a small CLI tool for unit conversion"), TextReply(["Started."]))
    created: list[Change] = []
    controller.subscribe(lambda c: created.append(c) if isinstance(c, LineCreated) else None)
    asyncio.run(controller.turns.run_turn(line.thread_id, "please build a unit converter in the background"))
    [task] = [s for s in controller.lines.list_lines() if s.parent_key == line.thread_id]
    assert task.kind is ThreadKind.TASK and task.category is None
    assert created == [LineCreated(key=task.thread_id)]
    assert "Reminder" not in tool_results(controller, line.thread_id)[0]  # CAT-9: not from a normal conversation
    assert plain.chat_requests[0].body["tools"][-2]["function"]["name"] == "task_start"


def test_category_conversation_gets_the_reminder_only_for_a_normal_task(
    two_providers: tuple[SessionController, OpenAIServer, OpenAIServer],
) -> None:
    """CAT-9, and CAT-2: the category conversation's own turns only reach the tagged provider."""
    controller, plain, medical = two_providers
    line = controller.lines.create_line("A")
    controller.tasks.set_category(line.thread_id, "medical")
    medical.script(
        task_start("t1", goal="design a colour scheme for the app"),
        task_start("t2", goal="summarise the lab results", category="medical"),
        TextReply(["Two tasks started."]),
    )
    asyncio.run(controller.turns.run_turn(line.thread_id, "the lab results are attached; also pick colours"))
    assert plain.chat_requests == []  # CAT-2: zero requests to the untagged provider
    first, second = tool_results(controller, line.thread_id)
    assert "Reminder: this is a normal task" in first
    assert "Reminder" not in second
    tasks = {s.title: s for s in controller.lines.list_lines() if s.parent_key == line.thread_id}
    categories = sorted((t.category or "normal") for t in tasks.values())
    assert categories == ["medical", "normal"]


def test_normal_task_cannot_read_category_dispatcher_while_category_task_can(
    two_providers: tuple[SessionController, OpenAIServer, OpenAIServer],
) -> None:
    """CAT-8 and PROV-3: the same dispatch references resolve to nothing for a normal task."""
    controller, _plain, _medical = two_providers
    line = controller.lines.create_line("A")
    controller.tasks.set_category(line.thread_id, "medical")
    controller._store.messages.append(
        line.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content="my blood pressure is 150/95"
    )
    normal = controller.tasks.start_task(line.thread_id, "make a colour scheme")
    category = controller.tasks.start_task(line.thread_id, "summarise the readings", category="medical")
    assert normal.reminder and not category.reminder
    assert controller.tasks.task_sources(normal.key) == []
    assert [m.content for m in controller.tasks.task_sources(category.key)] == ["my blood pressure is 150/95"]
    assert controller.tasks.messages_as(line.thread_id, normal.key) == []
    assert len(controller.tasks.messages_as(line.thread_id, category.key)) == 1


def test_a_task_turn_sees_its_goal_as_the_dispatchers_words_and_writes_on_the_snapshot(
    two_providers: tuple[SessionController, OpenAIServer, OpenAIServer],
) -> None:
    """PROV-1, WR-1: a task may quote the person's words it was dispatched on, never its own goal."""
    controller, plain, _medical = two_providers
    line = controller.lines.create_line("A")
    controller._store.messages.append(
        line.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content="please create notes.md with a title"
    )
    task = controller.tasks.start_task(line.thread_id, "create notes.md with a title")
    controller.line_settings.set_permission(task.key, "full")
    write_from_goal = ScriptedToolCall(
        "w1", "write_file", json.dumps({"path": "goal.md", "content": "x", "quote": "[From the agent that"})
    )
    write_from_human = ScriptedToolCall(
        "w2",
        "write_file",
        json.dumps({"path": "notes.md", "content": "# Notes\n", "quote": "create notes.md with a title"}),
    )
    plain.script(ToolCallReply([write_from_goal, write_from_human]), TextReply(["Done."]))
    outcome = asyncio.run(controller.turns.run_turn(task.key, None))
    assert outcome.status == "finished"
    sent = plain.chat_requests[0].body["messages"]
    assert sent[-1]["role"] == "user" and sent[-1]["content"].startswith("[From the agent that dispatched")
    folder = Path(task.task.workspace_binding.path or "")
    assert (folder / "notes.md").read_text() == "# Notes\n"
    assert not (folder / "goal.md").exists()
    # Running a task adds no human message: its goal stays the dispatcher's words.
    assert [m.source for m in controller.lines.messages(task.key) if m.role is MessageRole.USER] == [
        MessageSource.COMPONENT_INPUT
    ]


def test_later_chat_in_the_parent_is_not_evidence_but_a_follow_up_is(
    two_providers: tuple[SessionController, OpenAIServer, OpenAIServer],
) -> None:
    """PROV-2, PROV-4: the snapshot does not drift with the parent's chat; an explicit follow-up replaces it."""
    controller, _plain, _medical = two_providers
    line = controller.lines.create_line("A")
    append = controller._store.messages.append
    append(line.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content="only read the config")
    task = controller.tasks.start_task(line.thread_id, "analyse the config")
    append(line.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content="you may rewrite the config")
    assert [m.content for m in controller.tasks.task_sources(task.key)] == ["only read the config"]
    controller.tasks.send_followup(task.key, "go ahead and fix it")
    contents = [m.content for m in controller.tasks.task_sources(task.key)]
    assert contents == ["only read the config", "you may rewrite the config"]
    evidence = [m.content for m in controller.tasks.dispatch.evidence_for(task.key)]
    assert "go ahead and fix it" in evidence


def test_window_runs_dispatched_tasks_in_the_background(
    two_providers: tuple[SessionController, OpenAIServer, OpenAIServer],
) -> None:
    controller, plain, _medical = two_providers
    controller.followups.auto_run_tasks = True
    line = controller.lines.create_line("A")
    plain.script(task_start(goal="count the files"), TextReply(["Dispatched."]), TextReply(["There are 0 files."]))

    async def scenario() -> None:
        await controller.turns.run_turn(line.thread_id, "count files in the background")
        while controller._turn_tasks:
            await asyncio.gather(*controller._turn_tasks.values(), return_exceptions=True)

    asyncio.run(scenario())
    [task] = [s for s in controller.lines.list_lines() if s.parent_key == line.thread_id]

    def replies(key: str) -> list[str]:
        return [m.content for m in controller.lines.messages(key) if m.role is MessageRole.ASSISTANT and m.content]

    # The task's turn and the dispatcher's second step ask the one server at the same time, so
    # which scripted reply each gets is a race; each gets exactly one.
    assert len(replies(task.thread_id)) == 1
    assert sorted(replies(task.thread_id) + replies(line.thread_id)) == ["Dispatched.", "There are 0 files."]


def test_follow_up_to_a_running_task_arrives_at_the_next_safe_point(
    two_providers: tuple[SessionController, OpenAIServer, OpenAIServer],
) -> None:
    """PROV-4: a running native task hears a follow-up between steps, and it becomes evidence at once.
    Since issue 31 a follow-up to a running task is queued; "Send now" steers it to the next safe point."""
    controller, plain, _medical = two_providers
    line = controller.lines.create_line("A")
    task = controller.tasks.start_task(line.thread_id, "tidy the folder")
    controller.line_settings.set_permission(task.key, "full")
    slow = ScriptedToolCall("c1", "run_command", json.dumps({"command": "sleep 0.6"}))
    plain.script(ToolCallReply([slow]), TextReply(["Will also keep README.md."]))

    running: list[ToolRunning] = []
    controller.subscribe(lambda change: running.append(change) if isinstance(change, ToolRunning) else None)

    async def scenario() -> None:
        turn = controller.turns.start_turn(task.key, None)
        while not running:  # the command is running now
            await asyncio.sleep(0.01)
        assert controller.followups.follow_up(task.key, "please keep README.md untouched").delivery == "queued"
        controller.queue.send_now(task.key, 1)
        await turn

    asyncio.run(asyncio.wait_for(scenario(), 20))
    second = plain.chat_requests[1].body["messages"]
    assert second[-1] == {"role": "user", "content": "please keep README.md untouched"}
    assert second[-2]["role"] == "tool"
    assert "please keep README.md untouched" in [m.content for m in controller.tasks.dispatch.evidence_for(task.key)]
