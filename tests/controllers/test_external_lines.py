"""``ExternalLines`` (issue 19, item 6): a real turn's statuses are told to other processes, and what
another process wrote comes back as the controller's own change records — once, never this process's echo."""

from __future__ import annotations

import asyncio

from xworkmate.controllers import SessionController
from xworkmate.controllers.changes import (
    AttentionChanged,
    Change,
    LineCreated,
    LineUpdated,
    MessagesAppended,
    RunFinished,
)
from xworkmate.domain.attention import Attention
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.store.external_changes import RunMark, mark_run, run_statuses
from xworkmate.testing.openai_server import OpenAIServer, TextReply


def test_a_turn_records_its_status_for_others_and_its_own_echo_is_not_reported(
    agent: SessionController, openai_server: OpenAIServer, store: Store
) -> None:
    line = agent.lines.create_line("Here")
    agent.external.poll()  # the watcher's starting point
    openai_server.script(TextReply(["done"]))
    seen: list[Change] = []
    agent.subscribe(seen.append)
    asyncio.run(agent.turns.run_turn(line.thread_id, "go"))
    agent.external.flush()  # the statuses are written off the turn's thread
    assert run_statuses(store)[line.thread_id] == RunMark(line.thread_id, "finished")
    stored = [i for c in seen if isinstance(c, MessagesAppended) for i in c.message_ids]
    assert stored
    echo = agent.external.poll()
    if store.engine.dialect.name == "sqlite":  # the watcher knows its own writes (issue 34 item 1)
        assert not echo.any, echo
    else:  # PostgreSQL's poll reads the tables again: our messages come back, and the controller drops them
        assert {i for _, i in echo.messages} >= set(stored) and echo.runs == ()  # own status: not news
    assert agent.external.records(echo) == []  # our messages were reported when stored; not again


def test_another_process_writes_become_records_and_badges(
    controller: SessionController, database_url: str, settings: Settings
) -> None:
    shown = controller.lines.create_line("Shown")
    controller.attention.watch(None)  # the window is not active: new messages are unread
    controller.external.poll()
    other = open_store(database_url)
    seen: list[Change] = []
    controller.subscribe(seen.append)
    try:
        peer = SessionController(other, settings)
        made = peer.lines.create_line("Made elsewhere")
        message = other.messages.append(made.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content="x")
        mark_run(other, made.thread_id, "running", origin="another desktop")
        controller.external.apply(controller.external.poll())
        assert LineCreated(key=made.thread_id) in seen
        assert MessagesAppended(key=made.thread_id, message_ids=(message.id,)) in seen
        assert controller.external.running_elsewhere(made.thread_id)
        assert controller.attention.state(made.thread_id) is Attention.RUNNING
        assert controller.lines.summary_status(controller.lines.line_summary(made.thread_id)).value == "running"

        mark_run(other, made.thread_id, "needs_approval", origin="another desktop")
        controller.external.apply(controller.external.poll())
        assert controller.attention.state(made.thread_id) is Attention.NEEDS_APPROVAL

        seen.clear()
        mark_run(other, made.thread_id, "finished", origin="another desktop")
        controller.external.apply(controller.external.poll())
        assert [c for c in seen if isinstance(c, LineUpdated | RunFinished)] == [
            RunFinished(key=made.thread_id, status="finished"),
            LineUpdated(key=made.thread_id),
        ]
        # Straight from "needs approval" to "new": no flash of nothing between.
        assert [c.after for c in seen if isinstance(c, AttentionChanged)] == ["finished_unread"]
        assert not controller.external.running_elsewhere(made.thread_id)
        assert controller.attention.state(made.thread_id) is Attention.FINISHED_UNREAD
        assert controller.attention.state(shown.thread_id) is Attention.NONE
    finally:
        other.close()
