"""``ChangeWatcher`` (issue 18, item 6): what another connection wrote, cheaply, on both databases.

A second ``Store`` on the same URL stands for the CLI (its own engine and
connections); the window-level test drives a real ``xworkmate`` process.
"""

from __future__ import annotations

import queue
import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from xworkmate.domain.keys import allocate_draft_key
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import TaskThread, WorkspaceBinding
from xworkmate.store import Store, open_store
from xworkmate.store.external_changes import ORIGIN, ChangeWatcher, ExternalChange, RunMark, mark_run, run_statuses


def test_the_watcher_sees_each_outside_write_once_and_nothing_when_idle(store: Store, database_url: str) -> None:
    watcher = ChangeWatcher(store)
    other = open_store(database_url)
    try:
        assert not watcher.poll().any
        other.providers.add(ProviderRecord(name="cli", base_url="http://127.0.0.1:9/v1", model="m"))
        change = watcher.poll()
        assert change.providers and not change.threads
        assert not watcher.poll().any
        now = datetime.now(UTC)
        other.threads.insert(
            TaskThread(
                thread_id=allocate_draft_key(),
                title="From the CLI",
                workspace_binding=WorkspaceBinding(),
                created_at=now,
                updated_at=now,
            )
        )
        change = watcher.poll()
        assert change.threads and not change.providers
        other.app_state.set("some.ui.state", "x")  # a write to neither table: nothing to refresh
        assert not watcher.poll().any
    finally:
        other.close()
        watcher.close()


def _line(store: Store, title: str) -> str:
    now = datetime.now(UTC)
    key = allocate_draft_key()
    store.threads.insert(
        TaskThread(thread_id=key, title=title, workspace_binding=WorkspaceBinding(), created_at=now, updated_at=now)
    )
    return key


def test_the_watcher_names_the_lines_messages_and_run_statuses_that_changed(store: Store, database_url: str) -> None:
    """Issue 19: which line, which message, which status — and a new message is not a changed line."""
    key = _line(store, "Shown")
    watcher = ChangeWatcher(store)
    other = open_store(database_url)
    try:
        message = other.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content="hi")
        change = watcher.poll()
        assert change.messages == ((key, message.id),)
        assert change.updated == () and change.created == ()  # only updated_at moved with the message
        other.threads.set_title(key, "Renamed")
        assert watcher.poll().updated == (key,)
        mark_run(other, key, "running", origin="another desktop")
        change = watcher.poll()
        assert change.runs == (RunMark(key, "running"),)
        mark_run(other, key, "finished")  # this process's own origin: not news to it
        assert watcher.poll().runs == ()
        assert run_statuses(store)[key] == RunMark(key, "finished")
        assert key not in run_statuses(store, besides=ORIGIN)
    finally:
        other.close()
        watcher.close()


def test_the_listener_reports_other_processes_writes_on_its_own_thread_and_stops_on_close(
    store: Store, database_url: str
) -> None:
    """PostgreSQL: NOTIFY from the triggers, this store's own notices dropped by backend pid; SQLite: the
    slow ``data_version`` check. Either way ``deliver`` runs off the caller's thread, and ``close`` ends it."""
    watcher = ChangeWatcher(store)
    arrived: queue.SimpleQueue[tuple[ExternalChange, threading.Thread]] = queue.SimpleQueue()
    watcher.listen(lambda change: arrived.put((change, threading.current_thread())))
    other = open_store(database_url)
    try:
        while not watcher.listening:
            threading.Event().wait(0.01)
        key = _line(other, "From elsewhere")
        seen: list[ExternalChange] = []
        while not any(key in c.created for c in seen):
            change, thread = arrived.get(timeout=10)
            assert thread is not threading.current_thread()
            seen.append(change)
        if store.engine.dialect.name == "postgresql":
            _line(store, "Written here")  # this process's own: not reported
            message = other.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content="x")
            change, _ = arrived.get(timeout=10)
            assert change.created == () and change.messages == ((key, message.id),)
        listener = watcher._listener
        assert listener is not None
    finally:
        other.close()
        watcher.close()
    assert not listener._thread.is_alive()


@pytest.mark.postgres
def test_the_listener_comes_back_after_losing_its_connection(pg_database_url: str) -> None:
    """The server drops the LISTEN connection: the listener reconnects, says ``everything`` (notices sent
    while it was away are lost), and hears the next write."""
    store = open_store(pg_database_url)
    watcher = ChangeWatcher(store)
    arrived: queue.SimpleQueue[ExternalChange] = queue.SimpleQueue()
    watcher.listen(arrived.put)
    other = open_store(pg_database_url)
    try:
        while not watcher.listening:
            threading.Event().wait(0.01)
        with other.connect() as connection:
            dropped = connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE application_name = 'xworkmate-listener' AND datname = current_database()"
                )
            ).scalar()
        assert dropped is True
        assert arrived.get(timeout=30).everything
        key = _line(other, "After the drop")
        assert key in arrived.get(timeout=10).created
    finally:
        other.close()
        watcher.close()
        store.close()
