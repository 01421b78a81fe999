"""Issue 34 item 2 (LOOP-3, "scroll to its start"): a page of one line's messages reads that page's rows
and stops, wherever the line's messages lie among the others'.

On PostgreSQL, ``thread_id = :key ORDER BY id DESC LIMIT n`` let the planner walk the primary key and
filter by line when the line is a big share of the table; past the line's first message (or when others
wrote after it) that walk read every other message (2 s for the last page of a line at 1,000,000
messages). The plans are pinned by the rows they read, never by time.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from tests.support.plans import Ran, captured, pg_plan, rows_read, sqlite_plan
from tests.support.search_scale import bulk_messages
from xworkmate.controllers import SessionController
from xworkmate.domain.viewers import DESKTOP
from xworkmate.store import Store
from xworkmate.store.checkpoints import CheckpointRepository

OTHERS = 2_000  # messages of another line before and after the line paged
LINE = 1_500
PAGE = 200


@pytest.fixture
def layout(store: Store, controller: SessionController) -> tuple[str, list[int]]:
    """A line of LINE messages with OTHERS messages of another line before it and OTHERS after it."""
    line = controller.lines.create_line("Paged").thread_id
    other = controller.lines.create_line("Other").thread_id
    bulk_messages(store, other, OTHERS, {})
    ids = bulk_messages(store, line, LINE, {})
    bulk_messages(store, other, OTHERS, {})
    with store.engine.begin() as connection:  # the planner's statistics, as a database in use has them
        connection.execute(text("ANALYZE"))
    return line, ids


def _message_reads(ran: list[Ran]) -> list[Ran]:
    return [r for r in ran if "FROM messages" in r.statement]


def _assert_stops_early(store: Store, ran: list[Ran], rows: int) -> None:
    reads = _message_reads(ran)
    assert reads
    for read in reads:
        if store.engine.dialect.name == "postgresql":
            nodes = pg_plan(store, read)
            indexes = {node.get("Index Name") for node in nodes} - {None}
            assert indexes == {"ix_messages_thread_id_id"}, nodes
            assert rows_read(nodes) <= rows, nodes  # the page, not the other line's messages
        else:
            [step] = sqlite_plan(store, read)
            assert "INDEX ix_messages_thread_id_id (thread_id=?" in step, step


def test_the_page_that_reaches_a_lines_first_message_reads_only_that_page(
    store: Store, layout: tuple[str, list[int]]
) -> None:
    line, ids = layout
    with captured(store) as ran:
        page = store.messages.page_ids(line, viewer=DESKTOP, before_id=ids[50], limit=PAGE)
    assert page == ids[:50]
    _assert_stops_early(store, ran, 50)


def test_the_newest_page_of_a_line_others_wrote_after_reads_only_that_page(
    store: Store, layout: tuple[str, list[int]]
) -> None:
    line, ids = layout
    with captured(store) as ran:
        page = store.messages.page_ids(line, viewer=DESKTOP, limit=PAGE)
    assert page == ids[-PAGE:]
    _assert_stops_early(store, ran, PAGE)
    with captured(store) as ran:
        newest = store.messages.newest(line, limit=50, viewer=DESKTOP)
    assert [m.id for m in newest] == ids[-50:]
    _assert_stops_early(store, ran, 50)


def test_scrolling_a_line_to_its_start_and_exporting_it_read_each_message_once(
    store: Store, layout: tuple[str, list[int]]
) -> None:
    line, ids = layout
    seen: list[int] = []
    before: int | None = None
    with captured(store) as ran:
        while True:
            page = store.messages.page_ids(line, viewer=DESKTOP, before_id=before, limit=PAGE)
            seen = page + seen
            if len(page) < PAGE:
                break
            before = page[0]
    assert seen == ids
    assert len(_message_reads(ran)) == LINE // PAGE + 1
    if store.engine.dialect.name == "postgresql":
        read = sum(rows_read(pg_plan(store, r)) for r in _message_reads(ran))
        assert read <= LINE + PAGE  # each of the line's rows once (and one more a page), no other line's
    with captured(store) as ran:
        exported = [m.id for m in store.messages.iter_for_thread(line, viewer=DESKTOP, page=500)]
    assert exported == ids
    last: Any = _message_reads(ran)[-1]  # the page past the line's newest message
    _assert_stops_early(store, [last], LINE % 500 + 1)


def test_a_turns_checkpoint_finds_the_lines_newest_message_through_the_lines_index(
    store: Store, layout: tuple[str, list[int]]
) -> None:
    """Every turn's checkpoint row records its fork point from the line's newest message: one row read,
    however many messages other lines wrote after it."""
    line, ids = layout
    with captured(store) as ran:
        turn = CheckpointRepository(store).begin(line, "0" * 40)
    assert turn.fork_before_id == ids[-1]  # before the newest message: the person's, the turn's prompt
    _assert_stops_early(store, ran, 1)
