"""A switch's fresh read in one round trip (issue 19, item 1 benchmark; ISO-5, CAT-4, PROV-3, Q-1).

``read_line_panes`` reads through ``store/repositories/line_panes``: the statements go out in one
psycopg pipeline on PostgreSQL and one after another on SQLite. What it answers must be what the
separate controller reads answered before (``_separate_reads``, the old body of ``read_line_panes``),
visibility included. Round trips are counted at the wire, not timed: a proxy counts how often the
client sends again after an answer came back (``LatencyProxy.turns``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from sqlalchemy import event, text

from xworkmate.controllers import SessionController, UnknownSessionKeyError
from xworkmate.controllers.views import LinePanes, read_line_panes
from xworkmate.domain.agent_session import LineUsage
from xworkmate.domain.messages import Message, MessageRole, MessageSource
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import ThreadKind, ThreadSummary
from xworkmate.settings import Settings
from xworkmate.store import Store, database, open_store
from xworkmate.store.repositories.line_panes import line_panes_read
from xworkmate.testing.latency_proxy import LatencyProxy


def _separate_reads(controller: SessionController, key: str, *, first_page: int, with_usage: bool) -> LinePanes:
    """What ``read_line_panes`` was before issue 19's one-round-trip read: one controller call per pane."""
    view = controller.lines.line_view(key)
    newest = tuple(controller.lines.newest_messages(view.key, limit=max(1, first_page)))
    usage = controller.agents.line_usage(view.key) if with_usage else None
    sources: tuple[Message, ...] | None = None
    dispatcher: ThreadSummary | None = None
    if view.thread.kind is ThreadKind.TASK:
        sources = tuple(controller.tasks.task_sources(view.key))
        parent = view.thread.parent_key
        dispatcher = controller.lines.line_summary(parent) if parent else None
    return LinePanes(
        view=view, newest=newest, first_page=first_page, usage=usage, sources=sources, dispatcher=dispatcher
    )


def _human(store: Store, key: str, *texts: str) -> list[Message]:
    return [
        store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=text) for text in texts
    ]


def _assert_same(controller: SessionController, key: str) -> list[LinePanes]:
    """The one read equals the separate reads, for a short and a long first page, with and without usage."""
    read = []
    for first_page in (1, 3, 50):
        for with_usage in (False, True):
            old = _separate_reads(controller, key, first_page=first_page, with_usage=with_usage)
            new = read_line_panes(controller, key, first_page=first_page, with_usage=with_usage)
            assert new == old
            with controller.operation():  # as the window's operation reads it
                assert read_line_panes(controller, key, first_page=first_page, with_usage=with_usage) == old
            read.append(new)
    return read


def test_a_native_line_reads_as_before(controller: SessionController, store: Store) -> None:
    key = controller.lines.create_line("Native").thread_id
    _human(store, key, *(f"message {n}" for n in range(5)))
    store.messages.append(key, role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content="an answer")
    store.agent_state.set_usage(
        key, LineUsage(context_used=1200, context_size=8000, tokens_in=40, tokens_out=7, cost=0.125, currency="USD")
    )
    panes = _assert_same(controller, key)
    assert [m.content for m in panes[2].newest] == ["message 3", "message 4", "an answer"]
    assert panes[-1].usage is not None and panes[-1].usage.cost == 0.125
    assert panes[-1].sources is None and panes[-1].dispatcher is None


def test_a_line_without_messages_or_usage_reads_as_before(controller: SessionController) -> None:
    panes = _assert_same(controller, controller.lines.create_line("Empty").thread_id)
    assert panes[-1].newest == () and panes[-1].usage == LineUsage()


def test_a_task_with_its_sources_and_dispatcher_reads_as_before(controller: SessionController, store: Store) -> None:
    dispatcher = controller.lines.create_line("Dispatcher").thread_id
    _human(store, dispatcher, "the first words", "the second words")
    task = controller.tasks.start_task(dispatcher, "a goal", context="some context").key
    _human(store, task, "a follow-up of the person's")
    panes = _assert_same(controller, task)
    assert panes[-1].sources is not None and [m.content for m in panes[-1].sources][:2] == [
        "the first words",
        "the second words",
    ]
    assert panes[-1].dispatcher is not None and panes[-1].dispatcher.thread_id == dispatcher


def test_an_archived_line_reads_as_before(controller: SessionController, store: Store) -> None:
    key = controller.lines.create_line("To archive").thread_id
    _human(store, key, "kept")
    controller.lines.archive_line(key)
    panes = _assert_same(controller, key)
    assert panes[-1].view.thread.archived


def test_quarantined_messages_read_as_before(controller: SessionController, store: Store) -> None:
    """Q-1: the person sees a quarantined row whole and marked, in the one read as in the separate ones."""
    key = controller.lines.create_line("Quarantine").thread_id
    _human(store, key, "a question")
    hidden = store.messages.append_quarantined(key, content="untrusted tool output")
    agent = store.messages.append(key, role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content="said")
    controller.lines.quarantine_message(agent.id)
    panes = _assert_same(controller, key)
    shown = {m.id: m for m in panes[-1].newest}
    assert shown[hidden.id].quarantined and shown[hidden.id].content == "untrusted tool output"
    assert shown[agent.id].quarantined


def test_category_lines_and_their_tasks_read_as_before(controller: SessionController, store: Store) -> None:
    """CAT-4, CAT-8, PROV-3: a category line's own messages show to the person; a normal task under it is
    dispatched on nothing it may read; a task of the category reads its sources."""
    # No turn runs here: the providers are only what starting a task of each kind asks for (CAT-6).
    controller.providers.add_provider(
        ProviderRecord(name="plain", base_url="http://127.0.0.1:9/v1", model="m", is_default=True)
    )
    controller.providers.add_provider(
        ProviderRecord(name="med", base_url="http://127.0.0.1:9/v1", model="m", tags=("medical",))
    )
    line = controller.lines.create_line("Medical").thread_id
    controller.tasks.set_category(line, "medical")
    _human(store, line, "my blood pressure is 150/95")
    normal = controller.tasks.start_task(line, "make a colour scheme").key
    category = controller.tasks.start_task(line, "summarise the readings", category="medical").key

    assert [m.content for m in _assert_same(controller, line)[-1].newest] == ["my blood pressure is 150/95"]
    normal_panes = _assert_same(controller, normal)[-1]
    assert normal_panes.sources == () and normal_panes.dispatcher is not None
    category_panes = _assert_same(controller, category)[-1]
    assert category_panes.sources is not None
    assert [m.content for m in category_panes.sources] == ["my blood pressure is 150/95"]


def test_an_unknown_line_is_refused_as_before(controller: SessionController) -> None:
    for key in ("nope:unknown", "not a key at all!"):
        with pytest.raises(UnknownSessionKeyError):
            _separate_reads(controller, key, first_page=3, with_usage=False)
        with pytest.raises(UnknownSessionKeyError):
            read_line_panes(controller, key, first_page=3, with_usage=False)


# -- what it costs ------------------------------------------------------------------------------


@dataclass
class _Lines:
    native: str
    task: str


def _seed(controller: SessionController) -> _Lines:
    store = controller._store
    native = controller.lines.create_line("Native").thread_id
    _human(store, native, *(f"message {n}" for n in range(30)))
    task = controller.tasks.start_task(native, "a goal").key
    return _Lines(native=native, task=task)


@contextmanager
def _counted_store(
    pg_database_url: str, settings: Settings
) -> Iterator[tuple[LatencyProxy, SessionController, _Lines]]:
    seeded = open_store(pg_database_url)  # migrated and seeded directly, then opened through the counter
    try:
        lines = _seed(SessionController(seeded, settings))
    finally:
        seeded.close()
    with LatencyProxy(5432, delay_s=0.05) as counter:  # answers come after the pipelined statements went
        store = open_store(pg_database_url.replace("127.0.0.1:5432", f"127.0.0.1:{counter.port}"))
        controller = SessionController(store, settings)
        try:
            yield counter, controller, lines
        finally:
            controller.close()


@pytest.mark.postgres
def test_a_switch_fresh_read_is_one_round_trip_on_postgresql(
    pg_database_url: str, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window's fresh read (``ShownLine.switch_to``: ``read_line_panes`` in one operation) sends all
    its statements before it waits: one turn for a native line and a task, with or without the usage,
    however long the connection was idle (it is not pinged first), also past psycopg's prepare threshold
    (a statement prepared outside a pipeline costs a turn of its own)."""
    monkeypatch.setattr(database, "PG_PING_IDLE_S", 0.0)  # every other checkout pings, as after a second idle
    with _counted_store(pg_database_url, settings) as (counter, controller, lines):

        def turns(read: Any) -> int:
            counter.reset_turns()
            with controller.operation():
                read()
            return counter.turns

        # The counter counts: the separate reads ping at checkout, then wait for each answer in turn.
        assert turns(lambda: _separate_reads(controller, lines.native, first_page=20, with_usage=False)) >= 3
        for key in (lines.native, lines.task):
            for with_usage in (False, True):
                for _ in range(7):  # past psycopg's prepare_threshold (5)
                    assert (
                        turns(lambda k=key, u=with_usage: read_line_panes(controller, k, first_page=20, with_usage=u))
                        == 1
                    )


def test_a_switch_fresh_read_statements_on_sqlite(sqlite_controller: SessionController) -> None:
    """On SQLite a statement costs no trip; still, one per pane and no repeated read of the line's row."""
    controller = sqlite_controller
    lines = _seed(controller)
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    engines = controller._store.engines
    for engine in engines:
        event.listen(engine, "before_cursor_execute", count)
    try:
        expected = {(lines.native, False): 2, (lines.native, True): 3, (lines.task, False): 3, (lines.task, True): 4}
        for (key, with_usage), number in expected.items():
            statements.clear()
            with controller.operation():
                read_line_panes(controller, key, first_page=20, with_usage=with_usage)
            assert len(statements) == number, statements
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", count)


@pytest.mark.postgres
def test_a_connection_the_server_dropped_is_replaced_and_the_read_made_again(
    pg_database_url: str, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fresh read's connection is not pinged (a round trip of its own): when the server dropped it,
    the read is made once more on a new connection, inside an operation's scope and outside one."""
    monkeypatch.setattr(database, "PG_PING_IDLE_S", 3600.0)  # nothing else would notice the dropped connection
    store = open_store(pg_database_url)
    try:
        controller = SessionController(store, settings)
        key = controller.lines.create_line("Line").thread_id
        for scoped in (False, True):
            with store.connect() as connection:
                pid = connection.execute(text("SELECT pg_backend_pid()")).scalar()
            with psycopg.connect(pg_database_url.replace("+psycopg", ""), autocommit=True) as admin:
                assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
            with store.operation() if scoped else contextlib.nullcontext():
                rows = line_panes_read(store, key, limit=5, with_usage=True)
                assert rows is not None and rows.thread.thread_id == key
                with store.connect() as connection:  # the scope's (or the pool's) connection is the new one
                    assert connection.execute(text("SELECT pg_backend_pid()")).scalar() != pid
    finally:
        store.close()
