"""Issue 31 item 3: the follow-up queue (PROV-4, ERR-1).

While a turn runs, Send queues; the queue is stored (it survives a restart), the person edits,
reorders and removes items, and it drains one turn an item, in order, after the running turn ends.
Each item becomes the person's message only when it is delivered, so a task's dispatch snapshot
is re-captured then (PROV-4). Real stores (SQLite and PostgreSQL) and the scripted
OpenAI-compatible server, which holds a turn open by streaming slowly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.controllers.conftest import no_retry_router, scripted_controller
from xworkmate.controllers import RunDelta, SessionController
from xworkmate.domain.followup_queue import QueueItemError
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.testing.openai_server import OpenAIServer, TextReply


def say(controller: SessionController, key: str, text: str) -> int:
    """The person's words on a conversation line, as the window's Send stores them."""
    return controller._store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=text).id


def last_user(request_index: int, server: OpenAIServer) -> Any:
    users = [m for m in server.chat_requests[request_index].body["messages"] if m["role"] == "user"]
    return users[-1]["content"]


async def until(condition: Callable[[], object], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


def run(coro: Awaitable[None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 30))


def texts(controller: SessionController, key: str) -> list[str]:
    return [item.text for item in controller.queue.items(key)]


def test_send_on_a_running_line_queues_and_the_queue_drains_one_turn_an_item_in_order(
    agent: SessionController, openai_server: OpenAIServer
) -> None:
    controller = agent
    line = controller.lines.create_line("A")
    openai_server.script(
        TextReply(["Reading ", "the ", "folder."], delay=0.2),
        TextReply(["Tests first."]),
        TextReply(["Then the docs."]),
    )

    async def scenario() -> None:
        turn = controller.turns.start_turn(line.thread_id, "look at the folder")
        await until(lambda: openai_server.chat_requests)
        first = controller.send(line.thread_id, "then the docs")
        second = controller.send(line.thread_id, "tests first")
        assert (first.ran, first.queued, first.message_ids) == (False, 1, ())
        assert second.queued == 2
        controller.queue.edit(line.thread_id, 1, "then the docs, briefly")
        controller.queue.move(line.thread_id, 2, 1)  # the person reorders before delivery
        assert texts(controller, line.thread_id) == ["tests first", "then the docs, briefly"]
        outcome = await turn
        assert outcome.status == "finished" and outcome.text == "Then the docs."

    run(scenario())
    assert len(openai_server.chat_requests) == 3  # one turn each, no item merged into another's turn
    assert last_user(0, openai_server) == "look at the folder"
    assert last_user(1, openai_server) == "tests first"
    assert last_user(2, openai_server) == "then the docs, briefly"
    assert "tests first" not in str(openai_server.chat_requests[0].body)  # not steered into the running turn
    assert controller.queue.items(line.thread_id) == []
    users = [m.content for m in controller.lines.messages(line.thread_id) if m.role is MessageRole.USER]
    assert users == ["look at the folder", "tests first", "then the docs, briefly"]
    assert not controller.turns.is_running(line.thread_id)


def test_a_queued_task_follow_up_survives_a_restart_and_each_delivery_re_captures_the_sources(
    store: Store, database_url: str, settings: Settings, openai_server: OpenAIServer
) -> None:
    """PROV-4 at delivery, not at queueing: a dispatcher message written after an item was queued (and
    after a restart) is in the snapshot its delivery captures; one written during the first delivered
    turn is in the second delivery's snapshot only."""
    controller = scripted_controller(store, settings, openai_server)
    line = controller.lines.create_line("A")
    say(controller, line.thread_id, "tidy the folder")
    task = controller.tasks.start_task(line.thread_id, "tidy the folder")
    openai_server.script(TextReply(["Tidying ", "slowly ", "..."], delay=0.3))

    streamed: list[str] = []
    controller.subscribe(lambda c: streamed.append(c.text) if isinstance(c, RunDelta) and c.key == task.key else None)

    async def before_restart() -> None:
        turn = controller.turns.start_turn(task.key, None)
        await until(lambda: openai_server.chat_requests)
        assert controller.send(task.key, "keep README.md").queued == 1
        followed = controller.followups.follow_up(task.key, "and the LICENSE")  # `xworkmate task send`'s path
        assert (followed.delivery, followed.queued, followed.message_id) == ("queued", 2, None)
        # Stopped while its reply streams: once the reply is stored, the turn ends and the queue's first item would
        # be delivered (the race this wait avoids).
        await until(lambda: "Tidying" in "".join(streamed))
        controller.turns.stop(task.key)  # a stopped turn leaves the queue for the person
        await asyncio.gather(turn, return_exceptions=True)

    run(before_restart())
    snapshot_when_queued = controller.tasks.dispatch.source_ids(task.key)
    controller.close()

    reopened = open_store(database_url)
    try:
        again = SessionController(reopened, settings, router_factory=no_retry_router)  # its provider is stored
        assert texts(again, task.key) == ["keep README.md", "and the LICENSE"]
        again.queue.edit(task.key, 2, "and the LICENSE file")
        after_queueing = say(again, line.thread_id, "also the CHANGELOG")
        openai_server.script(TextReply(["Kept ", "README."], delay=0.3), TextReply(["Kept the LICENSE."]))
        during_first: list[int] = []
        seen: dict[int, list[int]] = {}

        async def after_restart() -> None:
            sent = again.queue.send_now(task.key, 1)  # idle after the restart: an ordinary Send
            assert sent.ran
            await until(lambda: len(openai_server.chat_requests) >= 2)
            seen[1] = again.tasks.dispatch.source_ids(task.key)
            during_first.append(say(again, line.thread_id, "and not the .git folder"))
            await until(lambda: len(openai_server.chat_requests) >= 3)
            seen[2] = again.tasks.dispatch.source_ids(task.key)
            await until(lambda: not again.turns.is_running(task.key))

        run(after_restart())
        assert last_user(1, openai_server).endswith("keep README.md")
        assert last_user(2, openai_server).endswith("and the LICENSE file")
        assert after_queueing not in snapshot_when_queued
        assert after_queueing in seen[1] and during_first[0] not in seen[1]
        assert during_first[0] in seen[2]
        assert again.queue.items(task.key) == []
        users = [m.content for m in again.lines.messages(task.key) if m.role is MessageRole.USER]
        assert users[-2:] == ["keep README.md", "and the LICENSE file"]
    finally:
        reopened.close()


def test_remove_and_reorder_renumber_the_queue_and_bad_positions_are_one_line_errors(
    agent: SessionController,
) -> None:
    controller = agent
    key = controller.lines.create_line("A").thread_id
    for text in ("one", "two", "three", "four"):
        controller.queue.queue(key, text)
    controller.queue.move(key, 4, 1)
    assert texts(controller, key) == ["four", "one", "two", "three"]
    removed = controller.queue.remove(key, 2)
    assert removed.text == "one"
    assert [(i.position, i.text) for i in controller.queue.items(key)] == [(1, "four"), (2, "two"), (3, "three")]
    with pytest.raises(QueueItemError, match=rf"^line {key} has no queued item 7; its queue holds 1 to 3$"):
        controller.queue.remove(key, 7)
    with pytest.raises(QueueItemError, match="has no queued position 0"):
        controller.queue.move(key, 1, 0)
    with pytest.raises(QueueItemError, match="the follow-up is empty"):
        controller.queue.edit(key, 1, "   ")
    assert texts(controller, key) == ["four", "two", "three"]  # refusals change nothing


def test_an_item_named_as_shown_is_changed_where_it_is_now_and_never_the_one_that_took_its_number(
    agent: SessionController, store: Store
) -> None:
    """The window names the row the person clicked (the item, by its id): between the showing and the
    click the running turn takes the first item (``take_first``, as a turn's end does), so every
    position moves up one. By position, Remove on "two" would take "three"."""
    controller = agent
    key = controller.lines.create_line("A").thread_id
    for text in ("one", "two", "three", "four"):
        controller.queue.queue(key, text)
    one, two, three, four = controller.queue.items(key)  # as the strip shows them
    taken = store.followup_queue.take_first(key)
    assert taken is not None and taken.text == "one"

    removed = controller.queue.remove(key, two)
    assert (removed.text, removed.position) == ("two", 1)
    assert texts(controller, key) == ["three", "four"]
    edited = controller.queue.edit(key, four, "four, edited")
    assert (edited.text, edited.position) == ("four, edited", 2)
    assert [i.text for i in controller.queue.shift(key, four, -1)] == ["four, edited", "three"]  # ↑ from where it is
    with pytest.raises(QueueItemError, match=r"^follow-up 2 of line .* is no longer queued: it was sent or removed"):
        controller.queue.edit(key, two, "two, edited")
    with pytest.raises(QueueItemError, match="no longer queued"):
        controller.queue.send_now(key, one)
    with pytest.raises(QueueItemError, match=r"is already first$"):
        controller.queue.shift(key, four, -1)
    with pytest.raises(QueueItemError, match=r"is already last$"):
        controller.queue.shift(key, three, 1)
    assert texts(controller, key) == ["four, edited", "three"]  # refusals change nothing
    assert [m.content for m in controller.lines.messages(key)] == []  # and send nothing


def test_send_now_steers_the_running_native_turn_at_its_next_safe_point(
    agent: SessionController, openai_server: OpenAIServer
) -> None:
    """Send now takes the item out of the queue and into the running turn: the turn's next step answers
    it (the issue 14 safe point), ahead of the items still queued."""
    controller = agent
    line = controller.lines.create_line("A")
    openai_server.script(
        TextReply(["Listing ", "the ", "files."], delay=0.2),
        TextReply(["Skipping build/."]),
        TextReply(["Now the queued one."]),
    )

    async def scenario() -> None:
        turn = controller.turns.start_turn(line.thread_id, "list the files")
        await until(lambda: openai_server.chat_requests)
        controller.send(line.thread_id, "later: count them")
        controller.send(line.thread_id, "skip build/")
        steered = controller.queue.send_now(line.thread_id, 2)
        assert steered.ran and len(steered.message_ids) == 1
        assert texts(controller, line.thread_id) == ["later: count them"]
        await turn

    run(scenario())
    second = openai_server.chat_requests[1].body["messages"]
    assert second[-2] == {"role": "assistant", "content": "Listing the files."}
    assert second[-1] == {"role": "user", "content": "skip build/"}  # the same turn's next step
    assert last_user(2, openai_server) == "later: count them"  # then the queue, its own turn
    assert controller.queue.items(line.thread_id) == []


def test_send_now_on_an_acp_line_is_its_next_prompt_ahead_of_the_queue(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """An ACP agent cannot take words mid-prompt, and Send now does not cancel its work: the item is stored
    at once and is the agent's very next prompt; the queue follows, one prompt each, in order."""
    controller = sqlite_controller
    report = scripted_agent(
        controller, tmp_path, session_id="s-1", load_session=True, turn=[{"sleep": 0.8}, {"echo_prompt": True}]
    )
    line = controller.lines.create_line("A")
    task = controller.tasks.start_task(line.thread_id, "draft the release notes", mode="acp", model="scripted")

    async def scenario() -> None:
        turn = controller.turns.start_turn(task.key, None)
        await until(lambda: report_events(report, "prompt"))
        assert controller.followups.follow_up(task.key, "then proofread it").delivery == "queued"
        assert controller.followups.follow_up(task.key, "mention the new CLI flags").queued == 2
        controller.queue.send_now(task.key, 2)
        outcome = await turn
        assert outcome.status == "finished", outcome.error

    run(scenario())
    prompts = [str(e.get("text", e)) for e in report_events(report, "prompt")]
    assert len(prompts) == 3, prompts
    assert "draft the release notes" in prompts[0]
    assert prompts[1].strip() == "mention the new CLI flags"
    assert prompts[2].strip() == "then proofread it"
    assert controller.queue.items(task.key) == []
