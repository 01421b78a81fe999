"""LOOP-4, ERR-1: closing the store never waits for a read another thread is still making, and that read's
connection is closed when it comes back, not left open in a disposed pool until collected.

A window closes its operations worker without waiting (closing never waits for the database) and then the
store; a read started just before (the rest of the task list, read once the window is usable) gave its
connection back to a pool already disposed, and psycopg warned that it was "deleted while still open" (a CI
run's teardown error on PostgreSQL)."""

from __future__ import annotations

from sqlalchemy import text

from xworkmate.store.database import Store


def test_a_read_in_flight_when_the_store_closes_has_its_connection_closed_when_it_comes_back(store: Store) -> None:
    with store.read() as session:
        assert session.execute(text("SELECT 1")).scalar() == 1
        dbapi = session.connection().connection.dbapi_connection
        assert dbapi is not None
        store.close()  # another thread closes the window meanwhile
        assert session.execute(text("SELECT 2")).scalar() == 2  # the read goes on
    if hasattr(dbapi, "closed"):  # psycopg
        assert dbapi.closed
    else:  # sqlite3: a closed connection refuses to run
        try:
            dbapi.execute("SELECT 1")
        except Exception as exc:  # sqlite3.ProgrammingError
            assert "closed" in str(exc)
        else:
            raise AssertionError("the connection was left open")


def test_a_store_still_open_gives_its_connections_back_to_the_pool_open(store: Store) -> None:
    with store.read() as session:
        first = session.connection().connection.dbapi_connection
    with store.read() as session:
        again = session.connection().connection.dbapi_connection
    assert again is first  # reused, not closed at checkin
