"""The task list has one order, whichever read gives it and whatever the database's collation (issue 34,
leftover of item 2; ISO-9, LOOP-4).

The list is read whole (``summaries``, ``summaries_for``) and, first, in part (``first_summaries``: reads
merged and sorted in Python); the window builds itself from the part and takes the rest in between
(``TaskLineModel.complete``), which keeps every row in place only if the part's lines come in the whole
list's order. Lines made at the same instant are ordered by their key: compared byte by byte in every read
(``COLLATE "C"`` on PostgreSQL, SQLite's own ``BINARY``) and by the key function beside it
(``list_place``; both in ``store.repositories.records``).

These run on SQLite, on a PostgreSQL database made as the tests make theirs (this server's default, ``C.UTF-8``)
and on one whose default collation is a person's language (ICU ``en-US``): a PostgreSQL a person installs
takes the locale of their system (``en_US.UTF-8`` and the like), where ``:``, ``-``, ``.`` and ``_`` weigh
less than letters and digits and ``a`` comes before ``Z``; its SQL order of two keys then differs from the byte
order Python sorts in. This machine has no ``en_US`` locale of the C library (``locale -a``), so the database
is made with ICU's (``TEMPLATE template0 LOCALE_PROVIDER icu``), a language's collation too: it differs from
byte order on these keys as the C library's does (not necessarily key for key the same). Before, on
that database, the first read gave the lines made at one instant in another order than the whole read, and
the window read the whole list again (the person's place in it lost).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from sqlalchemy import insert

from xworkmate.domain.lines import LineSummary
from xworkmate.domain.viewers import Viewer, ViewerRole
from xworkmate.presentation.tree import tree_order
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.store.repositories.threads import FIRST_ROWS
from xworkmate.store.tables import ThreadRow
from xworkmate.testing import templates

START = datetime(2026, 1, 1, tzinfo=UTC)
EN_US = "TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"
"""A database ordering text as a person's language does (see the module's text)."""


def _admin(url: str) -> str:
    return url.replace("+psycopg", "", 1)


@pytest.fixture(scope="module")
def en_us_template(pg_admin_url: str) -> Iterator[str]:
    """A migrated database whose default collation is ICU ``en-US``, made once for the module: a template a
    test's database is copied from (a copy keeps its collation)."""
    name = f"xwm_tpl_en_us_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_admin(pg_admin_url), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" {EN_US}')
    try:
        open_store(f"{pg_admin_url.rpartition('/')[0]}/{name}").close()
        yield name
    finally:
        with psycopg.connect(_admin(pg_admin_url), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgresql", marks=pytest.mark.postgres),
        pytest.param("postgresql-en-US", marks=pytest.mark.postgres),
    ]
)
def ordered_store(request: pytest.FixtureRequest, settings: Settings) -> Iterator[Store]:
    """A store on SQLite, on PostgreSQL as the tests make it (``C.UTF-8``) and on PostgreSQL in ``en-US``."""
    if request.param == "sqlite":
        url = settings.effective_database_url
        path = templates.sqlite_path_of(url)
        assert path is not None
        templates.copy_sqlite(request.getfixturevalue("sqlite_template"), path)
        store = open_store(url)
        try:
            yield store
        finally:
            store.close()
        return
    admin_url: str = request.getfixturevalue("pg_admin_url")
    name = f"xw_test_{uuid.uuid4().hex[:16]}"
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_template").create(name)
    else:
        with psycopg.connect(_admin(admin_url), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{request.getfixturevalue("en_us_template")}"')
        url = f"{admin_url.rpartition('/')[0]}/{name}"
    store = open_store(url)
    try:
        yield store
    finally:
        store.close()
        with psycopg.connect(_admin(admin_url), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _keys(instant: int) -> list[str]:
    """Keys of lines made at one instant whose byte order differs from a language's: ``:``, ``-``, ``.`` and
    ``_`` (agent ids may hold the last three), letters of both cases, digits, a letter past ASCII. The store
    keeps any key it is given; the window's own are ASCII (``domain.keys``)."""
    n = f"{instant:04d}"
    return [
        f"agent:a-{n}:main",
        f"agent:a.{n}:main",
        f"agent:a_{n}:main",
        f"agent:a{n}:main",
        f"agent:a:{n}",
        f"draft-{n}",
        f"draft:{n}",
        f"line-{n}Z",
        f"line-{n}a",
        f"line-{n}é",
        f"line-{n}z",
        f"main{n}",
    ]


def _seed(store: Store, instants: int) -> list[str]:
    """``instants`` times, a dozen lines made at each (``created_at`` set in the rows: the store stamps a line
    with the time it is written). Within an instant three lines are tasks of its first line (their order is the
    list's order), some lines archived; the first line of each instant dispatched the last one of the instant
    after."""
    rows: list[dict[str, Any]] = []
    for instant in range(instants):
        at = START + timedelta(seconds=instant)
        keys = _keys(instant)
        for n, key in enumerate(keys):
            parent = None
            if n in (3, 7, 9):
                parent = keys[0]
            elif n == len(keys) - 1 and instant:
                parent = _keys(instant - 1)[0]
            rows.append(
                {
                    "thread_id": key,
                    "title": key,
                    "kind": "task" if parent else "conversation",
                    "parent_key": parent,
                    "archived": n % 4 == 1,
                    "workspace_path": "/work/lines",
                    "created_at": at,
                    "updated_at": at,
                }
            )
    with store.begin() as connection:
        connection.execute(insert(ThreadRow), rows)
    return [row["thread_id"] for row in rows]


def _completes_in_place(part: Sequence[LineSummary], every: Sequence[LineSummary]) -> bool:
    """What ``TaskLineModel.complete`` asks before it inserts the rest between the rows it holds (else it reads
    the whole list again): in tree order the part's lines keep the order and depth they have among all."""
    whole, whole_depths = tree_order(list(every))
    mine, my_depths = tree_order(list(part))
    held = {line.thread_id for line in part}
    kept = [(line.thread_id, depth) for line, depth in zip(whole, whole_depths, strict=True) if line.thread_id in held]
    return kept == [(line.thread_id, depth) for line, depth in zip(mine, my_depths, strict=True)]


def test_lines_made_at_one_instant_come_in_byte_order_from_every_read(ordered_store: Store) -> None:
    """A short list (read whole by the first read too): the first read, the whole read, the whole read as a
    reader sees it and the lines not archived all come in one order, the keys of one instant by their bytes."""
    store = ordered_store
    keys = _seed(store, 3)
    every = store.threads.summaries(include_archived=True)
    first = store.threads.first_summaries()
    assert first.complete
    order = [line.thread_id for line in every]
    assert [line.thread_id for line in first.lines] == order
    seen = store.threads.summaries_for(Viewer(role=ViewerRole.DESKTOP), include_archived=True)
    assert [line.thread_id for line in seen] == order
    listed = store.threads.summaries()
    assert [line.thread_id for line in listed] == [line.thread_id for line in every if not line.archived]
    # Instant by instant, each one's keys by their UTF-8 bytes (what Python's ``sorted`` of the keys gives too).
    assert order == [key for n in range(3) for key in sorted(_keys(n), key=lambda k: k.encode())]
    assert sorted(order) == sorted(keys)
    # Each line's tasks by the same order.
    for key in order:
        under = [line.thread_id for line in every if line.parent_key == key]
        assert store.threads.children(key) == under


def test_the_first_read_of_a_long_list_completes_without_reading_the_list_again(ordered_store: Store) -> None:
    """A list past the first read's bound, every instant a dozen lines: the part the window is built with is
    the whole list's lines in its order, so ``complete`` inserts the rest and keeps every row held."""
    store = ordered_store
    keys = _seed(store, 2 * FIRST_ROWS // 12 + 20)
    wanted = [keys[len(keys) // 2], keys[len(keys) // 2 + 7]]
    first = store.threads.first_summaries(wanted)
    every = store.threads.summaries(include_archived=True)
    assert not first.complete
    order = [line.thread_id for line in every]
    held = {line.thread_id for line in first.lines}
    assert [line.thread_id for line in first.lines] == [key for key in order if key in held]
    # Both ends of the list as the whole read orders it, even where an end falls among lines of one instant.
    assert set(order[:FIRST_ROWS]) <= held and set(order[-FIRST_ROWS:]) <= held
    assert _completes_in_place(first.lines, every)
