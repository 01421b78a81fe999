"""Issue 34 item 1: what a turn asks of the controller's store thread, counted (never timed).

Twenty lines streaming at once share one store thread, which competes with the GUI thread for the
interpreter. A tool's running card stores nothing, so it makes no trip there; a safe point with nothing new
but the turn's own rows reads no rows; a finished turn's next step (its folder checked, its follow-ups or the
queue's next item) is one trip. What each trip stores and its order are unchanged: a thought streamed before
a tool card is stored before the card's record goes out.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from xworkmate.controllers import Change, MessagesAppended, SessionController, ToolRunning
from xworkmate.domain.messages import MessageRole
from xworkmate.store import Store
from xworkmate.testing.acp_scripts import scripted_agent
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply


def list_dir(call_id: str) -> ToolCallReply:
    return ToolCallReply([ScriptedToolCall(id=call_id, name="list_dir", arguments=json.dumps({"path": "."}))])


def count_model_view_reads(store: Store) -> list[tuple[int, ...]]:
    """The ids of every ``model_view_of`` read from now on (the inbox's and the tool result's reads of rows)."""
    reads: list[tuple[int, ...]] = []
    original = store.messages.model_view_of

    def counted(ids: Any, **kwargs: Any) -> Any:
        reads.append(tuple(ids))
        return original(ids, **kwargs)

    store.messages.model_view_of = counted  # type: ignore[method-assign]
    return reads


def test_each_tool_step_of_a_native_turn_is_four_store_trips_and_its_safe_points_read_no_rows_of_its_own(
    agent: SessionController, store: Store, openai_server: OpenAIServer
) -> None:
    """A tool step stores the call and the result and reads the result as the model sees it and the inbox: four
    trips (the running card makes none); the safe point after it reads ids only, as nothing but the turn's own
    rows came."""

    def trips_for(steps: int) -> tuple[int, list[tuple[int, ...]], list[Change]]:
        line = agent.lines.create_line()
        openai_server.script(*[list_dir(f"c{i}") for i in range(steps)], TextReply(["Done."]))
        trips = agent._ctx.store_thread.calls
        reads = count_model_view_reads(store)
        records: list[Change] = []
        unsubscribe = agent.subscribe(records.append)
        try:
            outcome = asyncio.run(agent.turns.run_turn(line.thread_id, "look around"))
        finally:
            unsubscribe()
            del store.messages.model_view_of  # type: ignore[method-assign]
        assert outcome.status == "finished", outcome.error
        return agent._ctx.store_thread.calls - trips, reads, records

    one, one_reads, records = trips_for(1)
    three, three_reads, _ = trips_for(3)
    assert three - one == 2 * 4
    # Only the tool results were read back (Q-1: as the model may see them), one each; never the inbox's own rows.
    assert [len(ids) for ids in one_reads] == [1] and [len(ids) for ids in three_reads] == [1, 1, 1]
    # The running card still goes out between the call's message and its result's.
    kinds = [type(c).__name__ for c in records if isinstance(c, MessagesAppended | ToolRunning)]
    assert kinds == ["MessagesAppended", "MessagesAppended", "ToolRunning", "MessagesAppended", "MessagesAppended"]


def test_a_follow_up_stored_during_a_tool_step_is_read_at_the_safe_point_after_it(
    agent: SessionController, store: Store, openai_server: OpenAIServer
) -> None:
    """The inbox leaves out only the turn's own rows: the person's follow-up, stored meanwhile, is read and
    answered in the same turn (issue 14)."""
    line = agent.lines.create_line()
    key = line.thread_id
    openai_server.script(list_dir("c1"), TextReply(["Answered both."]))
    follow_up: list[int] = []

    def on_change(change: Change) -> None:
        if isinstance(change, ToolRunning) and not follow_up:  # the tool runs: the person writes again
            follow_up.append(agent.turns.store_person_message(key, "and the hidden files too"))

    agent.subscribe(on_change)
    outcome = asyncio.run(agent.turns.run_turn(key, "look around"))
    assert outcome.status == "finished", outcome.error
    assert len(openai_server.chat_requests) == 2
    sent = openai_server.chat_requests[1].body["messages"]
    assert sent[-1] == {"role": "user", "content": "and the hidden files too"}
    assert agent.lines.messages(key)[-1].content == "Answered both."


def test_a_thought_streamed_before_a_tool_card_is_stored_before_the_cards_record(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    card = {"id": "t1", "title": "Read notes", "kind": "read", "status": "completed", "text": "ok"}
    scripted_agent(controller, tmp_path, turn=[{"think": "which file first"}, {"tool": card}, {"say": "Read it."}])
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    records: list[Change] = []
    controller.subscribe(records.append)
    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "read the notes"))
    assert outcome.status == "finished", outcome.error
    stored = {m.id: m for m in controller.lines.messages(line.thread_id)}
    order: list[str] = []
    for change in records:
        if isinstance(change, ToolRunning):
            order.append("card")
        elif isinstance(change, MessagesAppended):
            for message_id in change.message_ids:
                message = stored[message_id]
                if (message.payload or {}).get("thought"):
                    order.append("thought")
                elif message.role is MessageRole.TOOL:
                    order.append("tool result")
                elif message.role is MessageRole.ASSISTANT:
                    order.append("answer")
    assert order == ["thought", "card", "tool result", "answer"]


def test_what_an_acp_agent_streamed_before_a_tool_card_stays_in_the_turns_lease(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Issue 31 item 4: an ACP answer goes on after a tool card and is stored whole at the turn's end, so the
    lease keeps all of it meanwhile (a kill -9 keeps what streamed before the card too)."""
    from xworkmate.store import turn_owners

    controller = sqlite_controller
    card = {"id": "t1", "title": "Read notes", "kind": "read", "status": "completed", "text": "ok"}
    turn = [{"say": "Before the card. "}, {"tool": card}, {"say": "After it."}, {"hang": True}]
    scripted_agent(controller, tmp_path, turn=turn)
    key = controller.lines.create_line("A").thread_id
    controller.line_settings.set_execution(key, "acp", "scripted")

    def kept() -> set[str]:
        return {o.partial_text for o in turn_owners.owners(controller._store) if o.key == key}

    async def scenario() -> set[str]:
        task = controller.turns.start_turn(key, "read the notes")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 15
        try:
            while "Before the card. After it." not in kept() and loop.time() < deadline:
                await asyncio.sleep(0.05)
            return kept()
        finally:
            controller.turns.stop(key)
            await asyncio.gather(task, return_exceptions=True)

    assert asyncio.run(scenario()) == {"Before the card. After it."}
