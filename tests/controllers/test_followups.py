"""Issue 14: a follow-up to a task re-captures its sources on every path and always reaches the model (PROV-4).

Real stores (SQLite and PostgreSQL), a real OpenAI-compatible server that records what the model received,
and for ACP a real scripted agent process.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from xworkmate.controllers import Change, RunFinished, SessionController, ToolRunning
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply


def say(controller: SessionController, key: str, text: str) -> int:
    """The person's words on a conversation line, as the window's Send stores them."""
    return controller._store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=text).id


def user_turns(request_messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in request_messages if m["role"] == "user"]


async def until(condition: Any, what: str, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def settle(controller: SessionController) -> None:
    """Wait for every turn the controller started in the background (follow-ups may start more)."""
    while controller._turn_tasks:
        await asyncio.gather(*controller._turn_tasks.values(), return_exceptions=True)


def run(coro: Awaitable[None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 30))  # type: ignore[arg-type]


def test_a_follow_up_during_a_streamed_answer_is_answered_in_the_next_step(
    agent: SessionController, openai_server: OpenAIServer
) -> None:
    """A text-only step has no tool round: the follow-up is read when the step ends and the next step answers it."""
    controller = agent
    line = controller.lines.create_line("A")
    task = controller.tasks.start_task(line.thread_id, "summarise the folder")
    openai_server.script(
        TextReply(["The folder ", "holds ", "three ", "files."], delay=0.15), TextReply(["README.md stays."])
    )

    async def scenario() -> None:
        turn = controller.turns.start_turn(task.key, None)
        await until(lambda: openai_server.chat_requests, "the task's first step")
        controller.followups.follow_up(task.key, "and leave README.md alone")
        outcome = await turn
        assert outcome.status == "finished" and outcome.text == "README.md stays."

    run(scenario())
    first, second = openai_server.chat_requests
    sent = second.body["messages"]
    assert sent[-2] == {"role": "assistant", "content": "The folder holds three files."}
    assert sent[-1] == {"role": "user", "content": "and leave README.md alone"}
    assert "and leave README.md alone" not in user_turns(first.body["messages"])
    replies = [m.content for m in controller.lines.messages(task.key) if m.role is MessageRole.ASSISTANT]
    assert replies == ["The folder holds three files.", "README.md stays."]


def test_send_on_a_task_during_a_tool_step_is_a_follow_up_the_next_step_answers(
    agent: SessionController, openai_server: OpenAIServer
) -> None:
    """The controller's ``send`` on a running task line is the follow-up policy (not a refusal): queued
    (issue 31), and "Send now" steers it into the running turn's next step, with PROV-4."""
    controller = agent
    line = controller.lines.create_line("A")
    say(controller, line.thread_id, "tidy the folder")
    task = controller.tasks.start_task(line.thread_id, "tidy the folder")
    controller.line_settings.set_permission(task.key, "full")
    later = say(controller, line.thread_id, "you may also delete *.tmp")
    slow = ScriptedToolCall("c1", "run_command", json.dumps({"command": "sleep 0.6"}))
    openai_server.script(ToolCallReply([slow]), TextReply(["Deleting the .tmp files too."]))

    running: list[ToolRunning] = []
    controller.subscribe(lambda change: running.append(change) if isinstance(change, ToolRunning) else None)

    async def scenario() -> None:
        turn = controller.turns.start_turn(task.key, None)
        await until(lambda: running, "the command is running")
        sent = controller.send(task.key, "delete the .tmp files as well")
        assert not sent.ran and sent.queued == 1 and sent.key == task.key
        assert later not in controller.tasks.dispatch.source_ids(task.key)  # PROV-4: not captured while queued
        assert controller.queue.send_now(task.key, 1).ran
        await turn

    run(scenario())
    second = openai_server.chat_requests[1].body["messages"]
    assert second[-2]["role"] == "tool"
    assert second[-1] == {"role": "user", "content": "delete the .tmp files as well"}
    assert later in controller.tasks.dispatch.source_ids(task.key)  # PROV-4: re-captured with the follow-up


def test_an_agents_follow_up_to_a_finished_task_starts_its_next_turn(
    agent: SessionController, openai_server: OpenAIServer
) -> None:
    """The dispatcher's ``task_send`` to a task whose turn has ended starts a new turn on it (auto_run_tasks)."""
    controller = agent
    controller.followups.auto_run_tasks = True  # as the window sets it
    line = controller.lines.create_line("A")
    task = controller.tasks.start_task(line.thread_id, "count the files")
    openai_server.script(TextReply(["There are 3 files."]))
    first = asyncio.run(controller.turns.run_turn(task.key, None))
    assert first.status == "finished" and not controller.turns.is_running(task.key)

    send = ScriptedToolCall("s1", "task_send", json.dumps({"task": task.key, "text": "count hidden files too"}))
    finished: list[Change] = []
    controller.subscribe(lambda c: finished.append(c) if isinstance(c, RunFinished) else None)

    async def scenario() -> None:
        # The dispatcher's turn, then the task's new turn; they share one server, so script by who asks.
        openai_server.script(ToolCallReply([send]), TextReply(["Asked it."]), TextReply(["Plus 2 hidden files."]))
        await controller.turns.run_turn(line.thread_id, "ask the counting task about hidden files too")
        await settle(controller)

    run(scenario())
    task_requests = [r for r in openai_server.chat_requests[1:] if "count the files" in json.dumps(r.body)]
    [again] = task_requests
    assert user_turns(again.body["messages"])[-1].endswith("\ncount hidden files too")  # labelled, not the person's
    assert any(c.key == task.key for c in finished if isinstance(c, RunFinished))
    task_replies = [m.content for m in controller.lines.messages(task.key) if m.role is MessageRole.ASSISTANT]
    assert len(task_replies) == 2


def test_headless_follow_up_to_an_idle_task_is_kept_for_its_next_run(
    agent: SessionController, openai_server: OpenAIServer
) -> None:
    """Without ``auto_run_tasks`` (the command line) an idle task's follow-up is stored, re-captured, and the
    task's next run answers it."""
    controller = agent
    line = controller.lines.create_line("A")
    task = controller.tasks.start_task(line.thread_id, "count the files")
    later = say(controller, line.thread_id, "hidden ones count too")
    followed = controller.followups.follow_up(task.key, "include hidden files")
    assert followed.delivery == "stored" and later in followed.source_ids
    assert openai_server.chat_requests == [] and not controller.turns.is_running(task.key)
    openai_server.script(TextReply(["5 files."]))
    asyncio.run(controller.turns.run_turn(task.key, None))
    [request] = openai_server.chat_requests
    assert user_turns(request.body["messages"])[-1] == "include hidden files"


def test_run_turn_with_a_prompt_on_a_task_re_captures_its_sources(
    agent: SessionController, openai_server: OpenAIServer
) -> None:
    """PROV-4 on the synchronous path: ``run_turn(task, prompt)`` stores the words as a follow-up."""
    controller = agent
    line = controller.lines.create_line("A")
    say(controller, line.thread_id, "only read the config")
    task = controller.tasks.start_task(line.thread_id, "analyse the config")
    controller.tasks.compact(line.thread_id)
    later = say(controller, line.thread_id, "you may rewrite the config")
    openai_server.script(TextReply(["Rewriting."]))
    asyncio.run(controller.turns.run_turn(task.key, "go ahead now"))
    assert [m.content for m in controller.tasks.task_sources(task.key)] == ["you may rewrite the config"]
    assert controller.tasks.dispatch.source_ids(task.key) == [later]
    humans = [m.content for m in controller.lines.messages(task.key) if m.source is MessageSource.HUMAN]
    assert humans == ["go ahead now"]


def test_an_acp_task_gets_a_follow_up_as_its_next_prompt(sqlite_controller: SessionController, tmp_path: Path) -> None:
    """An ACP agent cannot take words mid-prompt: what the person sent while it worked is its next prompt."""
    controller = sqlite_controller
    report = scripted_agent(
        controller, tmp_path, session_id="s-1", load_session=True, turn=[{"sleep": 0.8}, {"echo_prompt": True}]
    )
    line = controller.lines.create_line("A")
    task = controller.tasks.start_task(line.thread_id, "draft the release notes", mode="acp", model="scripted")

    async def scenario() -> None:
        turn = controller.turns.start_turn(task.key, None)
        await until(lambda: report_events(report, "prompt"), "the agent's first prompt")
        controller.followups.follow_up(task.key, "mention the new CLI flags")
        outcome = await turn
        assert outcome.status == "finished", outcome.error

    run(scenario())
    prompts = [str(e.get("text", e)) for e in report_events(report, "prompt")]
    assert len(prompts) == 2, prompts
    assert "draft the release notes" in prompts[0] and "mention the new CLI flags" not in prompts[0]
    assert prompts[1].strip() == "mention the new CLI flags"
    replies = [m.content for m in controller.lines.messages(task.key) if m.role is MessageRole.ASSISTANT]
    assert replies[-1].strip().endswith("mention the new CLI flags")
