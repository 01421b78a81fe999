"""ERR-3 in the store: migrations that race, writers that meet, a line made twice, a full server.

The 50-process test is in ``tests/cli/test_concurrent_start.py``; these pin each mechanism down on
its own, deterministically, with real databases and (for the full server) real connections.
"""

from __future__ import annotations

import select as io_select
import socket
import sqlite3
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import OperationalError

from xworkmate.domain.threads import TaskThread, WorkspaceBinding
from xworkmate.settings import Settings
from xworkmate.store import Store, StoreOpenError, open_store
from xworkmate.store import database as store_database
from xworkmate.store.database import head_revision
from xworkmate.store.tables import ThreadRow, ThreadSessionRow


def run_at_once(*jobs: Callable[[], Any]) -> list[Any]:
    """Run the jobs in threads started together; their results, or the exception each raised."""
    results: list[Any] = [None] * len(jobs)

    def run(index: int) -> None:
        try:
            results[index] = jobs[index]()
        except Exception as exc:
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_two_migrations_racing_on_a_fresh_database_both_succeed(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ERR-3: both openers see an empty database, then both upgrade it; neither fails, the schema is made once.

    The barrier holds each opener after its first look at the revision until the other has looked
    too, so both really do decide to migrate: the race happens every time, not now and then.
    """
    looked = threading.Barrier(2, timeout=20)
    first_look: set[int] = set()
    real_current_revision = store_database._current_revision

    def current_revision_then_wait(connection: Any) -> str | None:
        revision = real_current_revision(connection)
        if threading.get_ident() not in first_look:
            first_look.add(threading.get_ident())
            looked.wait()
        return revision

    monkeypatch.setattr(store_database, "_current_revision", current_revision_then_wait)
    stores = run_at_once(lambda: open_store(database_url), lambda: open_store(database_url))
    try:
        assert [type(s) for s in stores] == [Store, Store], stores
        with stores[0].connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [head_revision()]
        stores[0].threads.insert(_line("draft:01J0000000000000000000000A"))  # the schema works, from both
        assert stores[1].threads.exists("draft:01J0000000000000000000000A")
    finally:
        for store in stores:
            if isinstance(store, Store):
                store.close()


def _line(key: str) -> TaskThread:
    now = datetime.now(UTC)
    return TaskThread(
        thread_id=key, title="line", workspace_binding=WorkspaceBinding(path="/tmp"), created_at=now, updated_at=now
    )


def test_a_line_inserted_if_absent_twice_is_stored_once_with_one_generation(store: Store) -> None:
    """ERR-3: ``main`` is an upsert; only the call that stored the row starts its first generation."""
    assert store.threads.insert_if_absent(_line("main")) is True
    assert store.threads.insert_if_absent(_line("main")) is False
    with store.read() as session:
        assert session.scalar(select(func.count()).select_from(ThreadRow)) == 1
        assert session.scalar(select(func.count()).select_from(ThreadSessionRow)) == 1
    assert store.threads.current_session("main").generation == 1


def test_a_sqlite_write_transaction_holds_the_write_lock_from_its_start(settings: Settings) -> None:
    """ERR-3: a SQLite write transaction begins IMMEDIATE: what it read still holds when it writes, and a
    writer in another connection (another process) waits under the busy timeout until it commits.

    pysqlite's own deferred BEGIN came only before the first INSERT: the read ran outside the
    transaction, and the other writer committed in between.
    """
    url = settings.effective_database_url
    mine, theirs = open_store(url), open_store(url)
    try:
        theirs_done = threading.Event()

        def their_write() -> None:
            theirs.threads.insert(_line("draft:01J0000000000000000000000B"))
            theirs_done.set()

        writer = threading.Thread(target=their_write)
        with mine.session() as session:
            assert session.scalar(select(func.count()).select_from(ThreadRow)) == 0  # read first
            writer.start()
            assert not theirs_done.wait(timeout=1.0)  # they wait for our lock…
            session.add(ThreadRow(**_row("draft:01J0000000000000000000000C")))
            session.flush()
            assert session.scalar(select(func.count()).select_from(ThreadRow)) == 1  # …so our read still holds
        writer.join(timeout=30)
        assert theirs_done.is_set()  # and once we commit they go on, without an error
        assert mine.threads.count() == 2
    finally:
        mine.close()
        theirs.close()


def test_a_sqlite_writer_that_outwaits_the_busy_timeout_tries_again(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ERR-3: a write lock held longer than the busy timeout is waited for again, within a bound; past
    the bound the writer fails with SQLite's own "database is locked", and its store still works."""
    monkeypatch.setattr(store_database, "SQLITE_BUSY_TIMEOUT_S", 0.2)
    store = open_store(settings.effective_database_url)
    other = sqlite3.connect(settings.sqlite_path, isolation_level=None, check_same_thread=False)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process writing, for 0.5 s: longer than one wait
        threading.Timer(0.5, other.execute, args=("COMMIT",)).start()
        store.app_state.set("probe", "after one wait ran out")
        assert store.app_state.get("probe") == "after one wait ran out"

        other.execute("BEGIN IMMEDIATE")  # and now for longer than every try together
        with pytest.raises(OperationalError, match="database is locked"):
            store.app_state.set("probe", "never")
        other.execute("COMMIT")
        store.app_state.set("probe", "again")
        assert store.app_state.get("probe") == "again"
    finally:
        other.close()
        store.close()


def _row(key: str) -> dict[str, Any]:
    now = datetime.now(UTC)
    return {"thread_id": key, "title": "line", "workspace_path": "/tmp", "created_at": now, "updated_at": now}


# -- a PostgreSQL server with no free connection slot ---------------------------------------------

_SSL_OR_GSS_REQUEST = {80877103, 80877104}


def _refuse_as_full(client: socket.socket) -> None:
    """Answer a client's start-up the way a full server does: FATAL 53300, then hang up."""
    while True:
        length, code = struct.unpack("!II", _read(client, 8))
        rest = _read(client, length - 8)
        if code in _SSL_OR_GSS_REQUEST and not rest:
            client.sendall(b"N")  # no encryption here; the client goes on in plain text
            continue
        break
    fields = b"".join(
        tag + value.encode() + b"\0"
        for tag, value in ((b"S", "FATAL"), (b"V", "FATAL"), (b"C", "53300"), (b"M", "sorry, too many clients already"))
    )
    client.sendall(b"E" + struct.pack("!I", len(fields) + 5) + fields + b"\0")


def _read(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("client went away")
        data += chunk
    return data


def _relay(client: socket.socket, server: socket.socket) -> None:
    """Pass bytes both ways until either side hangs up, then close both."""
    with client, server:
        pair = {client: server, server: client}
        while True:
            ready, _, _ = io_select.select(list(pair), [], [], 30)
            try:
                chunks = [(sock, sock.recv(65536)) for sock in ready]
                if not ready or any(not chunk for _, chunk in chunks):
                    return
                for sock, chunk in chunks:
                    pair[sock].sendall(chunk)
            except OSError:
                return


@contextmanager
def full_server(upstream: tuple[str, int], refusals: int | None) -> Iterator[tuple[int, list[str]]]:
    """A loopback port in front of the real server that says "too many clients" to the first
    ``refusals`` connections (to all of them when None) and relays the rest. Yields (port, log)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    port = listener.getsockname()[1]
    log: list[str] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue  # look at ``stop`` again
            except OSError:
                return
            client.settimeout(None)
            if refusals is None or log.count("refused") < refusals:
                log.append("refused")
                with suppress(OSError):
                    _refuse_as_full(client)
                client.close()
                continue
            log.append("relayed")
            threading.Thread(target=_relay, args=(client, socket.create_connection(upstream)), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield port, log
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


def _through(url: str, port: int) -> str:
    return url.replace("127.0.0.1:5432", f"127.0.0.1:{port}")


@pytest.mark.postgres
def test_a_full_postgresql_server_is_asked_again_at_connect(pg_database_url: str) -> None:
    """ERR-3: "too many clients already" at connect is retried for a few seconds; the store then opens."""
    with full_server(("127.0.0.1", 5432), refusals=3) as (port, log):
        store = open_store(_through(pg_database_url, port))
        try:
            assert store.threads.count() == 0
        finally:
            store.close()
    assert log[:4] == ["refused", "refused", "refused", "relayed"]


@pytest.mark.postgres
def test_a_postgresql_server_that_stays_full_is_one_clear_line(
    pg_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ERR-3: when no slot frees up in time, opening fails with one line that says the server is full."""
    monkeypatch.setattr(store_database, "PG_FULL_RETRY_S", 1.0)
    with full_server(("127.0.0.1", 5432), refusals=None) as (port, log):
        started = time.monotonic()
        with pytest.raises(StoreOpenError) as raised:
            open_store(_through(pg_database_url, port))
        waited = time.monotonic() - started
    message = str(raised.value)
    assert "\n" not in message
    assert "has no free connections" in message and "too many clients already" in message
    assert len(log) > 1 and 0.9 < waited < 5  # asked again for the time allowed, and no longer
