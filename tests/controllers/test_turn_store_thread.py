"""Issue 19, item 1 (LOOP-4, ERR-1): a turn's store work runs on the controller's store thread.

The turn itself runs on the event loop; what it stores and reads (its history, the messages it
writes, its inbox at each safe point, the tool result as the model may see it, the marks at its end)
runs on ``xworkmate-turn-store``, in the order the agent's events came, and its change records are
delivered on the loop. A write the database refuses fails the turn in one line.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import closing

import pytest
from sqlalchemy import event, text

from xworkmate.controllers import Change, MessagesAppended, RunFinished, SessionController
from xworkmate.controllers.store_thread import STORE_THREAD
from xworkmate.domain.messages import MessageRole
from xworkmate.domain.viewers import DESKTOP
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply

from .conftest import scripted_controller


def call(name: str, **arguments: object) -> ScriptedToolCall:
    return ScriptedToolCall(id="c1", name=name, arguments=json.dumps(arguments))


def statements_by_thread(store: Store) -> list[str]:
    """The name of the thread of every statement ``store`` runs from now on."""
    threads: list[str] = []

    def record(*_args: object) -> None:
        threads.append(threading.current_thread().name)

    for engine in store.engines:
        event.listen(engine, "before_cursor_execute", record)
    return threads


def test_a_turns_reads_and_writes_run_on_the_store_thread_and_its_records_arrive_in_order(
    agent: SessionController, store: Store, openai_server: OpenAIServer
) -> None:
    """Its gate and the person's message too (issue 33 item 2, LOOP-4): not one statement on the loop."""
    line = agent.lines.create_line()
    agent.line_settings.set_permission(line.thread_id, "full")
    openai_server.script(ToolCallReply([call("run_command", command="echo hi")]), TextReply(["Done."]))
    during: list[str] = []
    threads = statements_by_thread(store)
    records: list[tuple[str, str]] = []  # (the record, the thread it reached the listener on)

    def heard(change: Change) -> None:
        # Every statement from the call on: the gate and the person's message run on the store thread too
        # (LOOP-4, issue 33 item 2: ``run_turn`` begins there), not on the caller's loop.
        if isinstance(change, RunFinished):
            during.extend(threads)
        records.append((type(change).__name__, threading.current_thread().name))

    agent.subscribe(heard)

    async def turn() -> str:
        outcome = await agent.turns.run_turn(line.thread_id, "say hi")
        return outcome.status

    assert asyncio.run(turn()) == "finished"

    assert during, "the turn ran no SQL at all"
    loop_thread = threading.current_thread().name
    assert loop_thread not in during, during  # the checkpoints' git work runs on asyncio's own threads
    assert STORE_THREAD + "_0" in during
    assert {thread for _, thread in records} == {loop_thread}  # delivered on the loop
    assert [name for name, _ in records][:1] == ["MessagesAppended"]  # the person's words, then RunStarted
    assert "RunStarted" in [name for name, _ in records]
    kinds = [name for name, _ in records if name in {"MessagesAppended", "ToolRunning", "RunFinished"}]
    # The person's words, the answer that called the tool, the running card, its result, the answer.
    assert kinds == [
        *("MessagesAppended", "MessagesAppended", "ToolRunning"),
        *("MessagesAppended", "MessagesAppended", "RunFinished"),
    ]
    stored = agent.lines.messages(line.thread_id)
    assert [m.role.value for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[-1].content == "Done."


def test_the_model_sees_the_tool_result_as_stored_because_the_read_follows_the_write(
    agent: SessionController, openai_server: OpenAIServer
) -> None:
    line = agent.lines.create_line()
    agent.line_settings.set_permission(line.thread_id, "full")
    openai_server.script(ToolCallReply([call("run_command", command="echo from-the-tool")]), TextReply(["Done."]))

    asyncio.run(agent.turns.run_turn(line.thread_id, "run it"))

    second = openai_server.chat_requests[-1].body["messages"]
    [tool] = [m for m in second if m["role"] == "tool"]
    assert "from-the-tool" in tool["content"]


@pytest.fixture
def refusing_tool_results(pg_database_url: str) -> Iterator[str]:
    """PostgreSQL that refuses to store a tool's result (a trigger), as a full or broken server would."""
    store = open_store(pg_database_url)
    with store.engine.begin() as connection:
        connection.execute(
            text(
                "CREATE FUNCTION refuse_tool_rows() RETURNS trigger AS $$ BEGIN"
                " IF NEW.role = 'tool' THEN RAISE EXCEPTION 'no room for tool results'; END IF;"
                " RETURN NEW; END $$ LANGUAGE plpgsql"
            )
        )
        connection.execute(
            text(
                "CREATE TRIGGER refuse_tool_rows BEFORE INSERT ON messages"
                " FOR EACH ROW EXECUTE FUNCTION refuse_tool_rows()"
            )
        )
    store.close()
    yield pg_database_url


def test_a_turn_stopped_while_it_begins_on_the_store_thread_keeps_the_message_and_ends_stopped(
    agent: SessionController, openai_server: OpenAIServer
) -> None:
    """Issue 33 item 2 (LOOP-4): ``run_turn`` begins on the store thread (the gate, the person's message, the line
    running). A Stop while it is there ends the turn it began once it has begun; the line is not left running
    and the model is never asked."""
    line = agent.lines.create_line()
    openai_server.script(TextReply(["never asked"]))
    finished: list[RunFinished] = []
    agent.subscribe(lambda change: finished.append(change) if isinstance(change, RunFinished) else None)

    async def stop_at_once() -> None:
        turn = asyncio.ensure_future(agent.turns.run_turn(line.thread_id, "hello"))
        await asyncio.sleep(0)  # it waits for the store thread now
        turn.cancel()
        with pytest.raises(asyncio.CancelledError):
            await turn
        while not finished:
            await asyncio.sleep(0.01)

    asyncio.run(asyncio.wait_for(stop_at_once(), 10))

    assert [f.status for f in finished] == ["stopped"]
    assert not agent.turns.is_running(line.thread_id)
    assert [m.content for m in agent.lines.messages(line.thread_id)] == ["hello"]
    assert openai_server.chat_requests == []


@pytest.mark.postgres
def test_a_write_the_database_refuses_fails_the_turn_in_one_line_and_nothing_after_it_runs(
    refusing_tool_results: str,
    settings: Settings,
    openai_server: OpenAIServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = open_store(refusing_tool_results)
    agent = scripted_controller(store, settings, openai_server)
    try:
        line = agent.lines.create_line()
        agent.line_settings.set_permission(line.thread_id, "full")
        openai_server.script(ToolCallReply([call("run_command", command="echo hi")]), TextReply(["never asked"]))
        finished: list[RunFinished] = []
        agent.subscribe(lambda change: finished.append(change) if isinstance(change, RunFinished) else None)

        outcome = asyncio.run(agent.turns.run_turn(line.thread_id, "say hi"))

        assert outcome.status == "failed"
        assert outcome.error is not None and "no room for tool results" in outcome.error
        assert "\n" not in outcome.error
        assert [f.status for f in finished] == ["failed"]
        assert not agent.turns.is_running(line.thread_id)
        assert len(openai_server.chat_requests) == 1  # the model was not asked again on a result never stored
        stored = agent.lines.messages(line.thread_id)
        assert [m.role for m in stored][:2] == [MessageRole.USER, MessageRole.ASSISTANT]
        assert stored[-1].content.startswith("The run failed: ")  # the notice is still tried, and here it lands
        assert "Traceback" not in capsys.readouterr().err
    finally:
        agent.close()


def test_closing_the_controller_waits_for_a_turns_last_writes(
    store: Store, settings: Settings, openai_server: OpenAIServer, database_url: str
) -> None:
    agent = scripted_controller(store, settings, openai_server)
    assert agent.attention.count() == 0  # the window's tracker, which marks how each turn ended
    line = agent.lines.create_line()
    openai_server.script(TextReply(["Done."]))
    appended: list[MessagesAppended] = []
    agent.subscribe(lambda change: appended.append(change) if isinstance(change, MessagesAppended) else None)

    asyncio.run(agent.turns.run_turn(line.thread_id, "go"))
    agent.close()

    with closing(open_store(database_url)) as reopened:
        ids = [m.id for m in reopened.messages.newest(line.thread_id, limit=10, viewer=DESKTOP)]
        assert ids == [i for change in appended for i in change.message_ids]
        assert reopened.line_marks.get(line.thread_id).last_outcome == "finished"
