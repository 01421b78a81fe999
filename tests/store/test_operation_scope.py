"""``Store.operation()``: one store scope per window operation (issue 19, item 1; LOOP-4).

Round trips are counted, not timed: statements the driver executes (``before_cursor_execute``) and
connections checked out of either pool (``checkout``; on PostgreSQL a checkout also pings a connection
idle for ``PG_PING_IDLE_S`` or more).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from sqlalchemy import event, text

from xworkmate.controllers import SessionController
from xworkmate.controllers.views import read_line_panes
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.viewers import DESKTOP
from xworkmate.store import Store, database
from xworkmate.store.database import open_store


@dataclass
class Counts:
    statements: int = 0
    checkouts: int = 0


@contextmanager
def counted(store: Store) -> Iterator[Counts]:
    counts = Counts()

    def statement(*_args: Any) -> None:
        counts.statements += 1

    def checkout(*_args: Any) -> None:
        counts.checkouts += 1

    for engine in store.engines:
        event.listen(engine, "before_cursor_execute", statement)
        event.listen(engine.pool, "checkout", checkout)
    try:
        yield counts
    finally:
        for engine in store.engines:
            event.remove(engine, "before_cursor_execute", statement)
            event.remove(engine.pool, "checkout", checkout)


def _line(controller: SessionController, store: Store, messages: int) -> str:
    key = controller.lines.create_line(f"{messages} messages").thread_id
    for n in range(messages):
        store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=f"message {n}")
    return key


def _reads(controller: SessionController, key: str) -> None:
    """Several repository calls, as an operation's work and read-ahead make them."""
    view = controller.lines.line_view(key)
    controller.lines.newest_messages(view.key, limit=20)
    controller.agents.line_usage(view.key)


def _counted(controller: SessionController, key: str, *, scoped: bool) -> Counts:
    store = controller._store
    with counted(store) as counts:
        if scoped:
            with controller.operation():
                _reads(controller, key)
        else:
            _reads(controller, key)
    return counts


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_the_reads_of_one_operation_check_out_once_on_postgresql(controller: SessionController, store: Store) -> None:
    small, large = _line(controller, store, 3), _line(controller, store, 60)
    for key in (small, large):
        _counted(controller, key, scoped=True)  # warm: the ORM's statement caches, the pool's connections

    scoped_small = _counted(controller, small, scoped=True)
    scoped_large = _counted(controller, large, scoped=True)
    unscoped = _counted(controller, large, scoped=False)

    assert scoped_small.checkouts == scoped_large.checkouts == 1  # one checkout (one ping at most) per scope
    assert scoped_small.statements == scoped_large.statements == 4  # O(1) in the line's length, not O(messages)
    # Outside a scope every repository call checks out (and pings) on its own.
    assert unscoped.statements == scoped_large.statements and unscoped.checkouts == unscoped.statements
    assert all(engine.pool.checkedout() == 0 for engine in store.engines)  # type: ignore[attr-defined]

    # The window's fresh read of a switch is one repository call (its statements pipelined, so the
    # execute listener sees none of them; tests/controllers/test_line_panes counts its round trips).
    with counted(store) as fresh, controller.operation():
        read_line_panes(controller, large, first_page=20, with_usage=True)
    assert fresh.checkouts == 1


def test_writes_in_a_scope_commit_at_the_end_of_their_block_and_reads_see_them(
    controller: SessionController, store: Store
) -> None:
    key = controller.lines.create_line("Scoped").thread_id
    with counted(store) as counts, store.operation():
        first = store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content="one")
        with store.operation():  # nested: the same scope
            store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content="two")
        seen = [m.id for m in store.messages.newest(key, limit=5, viewer=DESKTOP)]
        # Committed already: another thread (outside the scope, its own connections) sees both.
        elsewhere: list[int] = []
        reader = threading.Thread(target=lambda: elsewhere.append(store.messages.count(key, viewer=DESKTOP)))
        reader.start()
        reader.join()
    assert first.id in seen and len(seen) == 2 and elsewhere == [2]
    assert counts.checkouts == 3  # the scope's writer, the scope's reader, the other thread's reader
    assert all(engine.pool.checkedout() == 0 for engine in store.engines)  # type: ignore[attr-defined]


def test_a_failure_in_a_scope_rolls_back_its_open_write_and_returns_the_connections(
    controller: SessionController, store: Store
) -> None:
    key = controller.lines.create_line("Before").thread_id
    with pytest.raises(RuntimeError, match="stop"), store.operation():
        store.threads.set_title(key, "Kept")  # its own block: committed
        with store.begin() as connection:
            connection.execute(text("UPDATE threads SET title = 'Lost' WHERE thread_id = :key"), {"key": key})
            raise RuntimeError("stop")
    thread = store.threads.get(key)
    assert thread is not None and thread.title == "Kept"
    assert all(engine.pool.checkedout() == 0 for engine in store.engines)  # type: ignore[attr-defined]
    with store.operation():  # the store works on after the failure
        assert store.threads.set_title(key, "Again").title == "Again"


@pytest.mark.postgres
def test_a_pooled_connection_the_server_dropped_is_replaced_at_checkout(
    pg_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pinged when idle (``PG_PING_IDLE_S``, here 0): a connection the server closed meanwhile is replaced,
    and the read works, as with the pool's own pre-ping."""
    store = open_store(pg_database_url)
    try:
        with store.connect() as connection:
            pid = connection.execute(text("SELECT pg_backend_pid()")).scalar()
        with psycopg.connect(pg_database_url.replace("+psycopg", ""), autocommit=True) as admin:
            assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        monkeypatch.setattr(database, "PG_PING_IDLE_S", 0.0)
        with store.operation(), store.connect() as connection:
            assert connection.execute(text("SELECT pg_backend_pid()")).scalar() != pid
    finally:
        store.close()


@pytest.mark.parametrize(
    "database_url", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
def test_a_search_reads_the_provider_keys_the_hits_and_their_lines_on_one_connection(
    controller: SessionController, store: Store
) -> None:
    """Issue 34 item 2: the redactor's read of the provider keys (SEC-1), the hits and their lines share one
    checkout (before: two, and on PostgreSQL a ping each when idle)."""
    key = _line(controller, store, 3)
    store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content="the blue canary sings")
    controller.search("canary")  # warm
    with counted(store) as counts:
        results = controller.search("canary")
    assert [line.line_key for line in results.lines] == [key]
    assert counts.checkouts == 1
    assert all(engine.pool.checkedout() == 0 for engine in store.engines)  # type: ignore[attr-defined]
