"""Issue 17 through the controller, on SQLite and PostgreSQL, with real turns (LOOP-2).

What the person has seen, how the last turn ended, the mute and the draft are
stored (migration 0013) and read back by a new controller on the same database;
a new line takes its title from its first message.
"""

from __future__ import annotations

import asyncio
from contextlib import closing

from xworkmate.controllers import AttentionChanged, Change, SessionController
from xworkmate.domain.attention import Attention
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.testing.openai_server import ErrorReply, OpenAIServer, TextReply

from .conftest import scripted_controller


def test_a_finished_turn_on_an_unwatched_line_is_new_until_seen_and_that_survives_a_restart(
    store: Store, settings: Settings, openai_server: OpenAIServer, database_url: str
) -> None:
    controller = scripted_controller(store, settings, openai_server)
    tracker = controller.attention
    changes: list[Change] = []
    controller.subscribe(changes.append)
    line = controller.lines.create_line()
    failing = controller.lines.create_line()
    openai_server.script(TextReply(["Done."]))
    asyncio.run(controller.turns.run_turn(line.thread_id, "write the report"))
    assert tracker.state(line.thread_id) is Attention.FINISHED_UNREAD
    seen = [(c.before, c.after) for c in changes if isinstance(c, AttentionChanged) and c.key == line.thread_id]
    assert seen == [("none", "running"), ("running", "finished_unread")]

    openai_server.script(ErrorReply(401, {"error": {"message": "bad key"}}))
    asyncio.run(controller.turns.run_turn(failing.thread_id, "hello?"))
    assert tracker.state(failing.thread_id) is Attention.FAILED
    assert tracker.inbox() == [line.thread_id, failing.thread_id]  # the one waiting longest first
    assert tracker.count() == 2

    tracker.set_muted(failing.thread_id, True)
    tracker.save_draft(line.thread_id, "half a thought")
    tracker.watch(failing.thread_id)  # the person looks at it: seen
    assert tracker.state(failing.thread_id) is Attention.NONE and tracker.inbox() == [line.thread_id]
    controller.close()  # the window closes: the marks, stored off the loop, have landed

    with closing(open_store(database_url)) as reopened:
        again = SessionController(reopened, settings).attention
        assert again.state(line.thread_id) is Attention.FINISHED_UNREAD
        assert again.state(failing.thread_id) is Attention.NONE
        assert again.muted(failing.thread_id) and not again.muted(line.thread_id)
        assert again.draft(line.thread_id) == "half a thought" and again.draft(failing.thread_id) == ""


def test_messages_on_the_watched_line_are_seen_as_they_arrive(
    store: Store, settings: Settings, openai_server: OpenAIServer, database_url: str
) -> None:
    controller = scripted_controller(store, settings, openai_server)
    line = controller.lines.create_line()
    controller.attention.watch(line.thread_id)
    openai_server.script(TextReply(["Done."]))
    asyncio.run(controller.turns.run_turn(line.thread_id, "go"))
    assert controller.attention.state(line.thread_id) is Attention.NONE
    newest = controller.lines.message_ids(line.thread_id)[-1]
    controller.close()  # the marks are stored off the loop, in order; closing waits for them
    with closing(open_store(database_url)) as reopened:
        assert reopened.line_marks.get(line.thread_id).last_seen_message_id == newest


def test_a_new_line_takes_its_title_from_its_first_message_only_while_untitled(
    store: Store, settings: Settings, openai_server: OpenAIServer
) -> None:
    controller = scripted_controller(store, settings, openai_server)
    line = controller.lines.create_line()
    assert line.title.startswith("Task line ")
    openai_server.script(TextReply(["ok"]), TextReply(["ok"]))
    long_first = "   Refactor the billing module so that invoices are generated per customer and per month  \nmore"
    asyncio.run(controller.turns.run_turn(line.thread_id, "\n" + long_first))
    title = controller.get_thread(line.thread_id).title
    assert title.startswith("Refactor the billing module") and title.endswith("…") and len(title) <= 60
    asyncio.run(controller.turns.run_turn(line.thread_id, "a second message"))
    assert controller.get_thread(line.thread_id).title == title  # only the first message names it

    named = controller.lines.create_line("My own name")
    renamed = controller.lines.create_line()
    controller.lines.rename_line(renamed.thread_id, "Chosen")
    openai_server.script(TextReply(["ok"]), TextReply(["ok"]))
    asyncio.run(controller.turns.run_turn(named.thread_id, "hello"))
    asyncio.run(controller.turns.run_turn(renamed.thread_id, "hello"))
    assert controller.get_thread(named.thread_id).title == "My own name"
    assert controller.get_thread(renamed.thread_id).title == "Chosen"
    assert controller.get_thread("main").title == "Main"
