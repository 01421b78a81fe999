"""Issue 34 item 2 (LOOP-3, CAT-4): a search for a frequent word stops after the newest hits, across all
lines and within one line whose messages others wrote after; the answers are those of the plain rule.

Pinned by the rows the PostgreSQL plan reads (EXPLAIN ANALYZE), never by time; on SQLite the same
searches give the same answers (FTS5 reads its index newest first already).
"""

from __future__ import annotations

import random

import pytest
from sqlalchemy import select, text

from tests.support.plans import captured, pg_plan, rows_read, sqlite_plan
from tests.support.search_scale import bulk_messages, say
from xworkmate.controllers import SessionController
from xworkmate.controllers.search import search_lines
from xworkmate.domain.search import FOLDED_TITLE_MAX_BYTES, normalise, parse_query
from xworkmate.domain.viewers import DESKTOP, Viewer
from xworkmate.store import Store
from xworkmate.store.search import SearchRepository
from xworkmate.store.tables import ThreadRow

OTHERS = 2_000
LINE = 1_500
LIMIT = 51
WORDS = ["alpha", "beta", "gamma", "delta", "部署", "数据库", "测试", "报告", "ünïcödé", "résumé"]


def _has(n: int, word: str) -> bool:
    """Whether message ``n`` of ``bulk_messages`` holds ``word``."""
    return word in (WORDS[n % 10], WORDS[(n * 7) % 10])


@pytest.fixture
def layout(store: Store, controller: SessionController) -> tuple[str, list[int], list[int]]:
    """A line of LINE messages between OTHERS of another line before it and OTHERS after it."""
    line = controller.lines.create_line("Searched").thread_id
    other = controller.lines.create_line("Other").thread_id
    before = bulk_messages(store, other, OTHERS, {})
    ids = bulk_messages(store, line, LINE, {})
    after = bulk_messages(store, other, OTHERS, {})
    with store.engine.begin() as connection:
        connection.execute(text("ANALYZE"))
    return line, ids, before + after


def _search(store: Store, query: str, *, line: str | None, viewer: Viewer = DESKTOP) -> tuple[list[int], int | None]:
    """The ids found, and on PostgreSQL the rows its plan read."""
    with captured(store) as ran:
        found = SearchRepository(store).messages(parse_query(query), viewer=viewer, line=line, limit=LIMIT)
    ids = [m.id for m in found]
    if store.engine.dialect.name != "postgresql":
        return ids, None
    [read] = [r for r in ran if "message_search" in r.statement]
    return ids, rows_read(pg_plan(store, read, index_scans_only=True))


def test_a_frequent_word_in_a_line_others_wrote_after_reads_that_lines_newest_messages(
    store: Store, layout: tuple[str, list[int], list[int]]
) -> None:
    line, ids, _others = layout
    expected = [i for n, i in reversed(list(enumerate(ids))) if _has(n, "alpha")][:LIMIT]
    found, read = _search(store, "alpha", line=line)
    assert found == expected
    if read is not None:  # about 250 of the line's messages (and their entries), not the other line's 2,000
        assert read <= 4 * (ids[-1] - expected[-1] + 1), read
    found, _read = _search(store, "alpha", line=line, viewer=Viewer.of_thread(line, None))
    assert found == expected  # the line's own reader: the same hits (CAT-4: a normal line)


def test_a_frequent_word_across_all_lines_reads_the_newest_hits_not_every_match(
    store: Store, layout: tuple[str, list[int], list[int]]
) -> None:
    _line, _ids, others = layout
    newest = others[OTHERS:]
    expected = [i for n, i in reversed(list(enumerate(newest))) if _has(n, "beta")][:LIMIT]
    found, read = _search(store, "beta", line=None)
    assert found == expected
    matches = (OTHERS * 2 + LINE) // 5  # one message in five holds "beta"
    if read is not None:
        assert read < matches / 2, read  # a walk newest first that stops, not all ~1,100 matches sorted


RARE_EVERY = 400  # one message in 400 holds the word: a few more matches than a page of hits
RARE_SIZE = 24_000


def test_a_word_in_few_messages_is_read_from_its_matches_not_by_walking_every_newer_entry(
    store: Store, controller: SessionController
) -> None:
    """At 5,000,000 messages a word in one of 2,000 was found by walking every entry newest first and
    testing it (115,000 read, 43 ms) instead of reading its 2,574 matches from the GIN index (4.4 ms): the
    planner counted the walk's pages as sequential and each match's page as a disk seek. The readers'
    connections are told a random page costs about a sequential one (``PG_READ_RANDOM_PAGE_COST``); at
    this size the default's plan walks all 24,000 entries for the 60 matches."""
    line = controller.lines.create_line("Rare").thread_id
    plant = {n: f"message {n} zyzzyva" for n in range(0, RARE_SIZE, RARE_EVERY)}
    ids = bulk_messages(store, line, RARE_SIZE, plant)
    with store.engine.begin() as connection:
        connection.execute(text("ANALYZE"))
    expected = [ids[n] for n in sorted(plant, reverse=True)][:LIMIT]
    found, read = _search(store, "zyzzyva", line=None)
    assert found == expected
    if read is not None:
        assert read <= 3 * len(plant), read  # its matches (and their entries), not a walk of 24,000


def test_the_title_test_reads_the_folded_titles_index_and_the_lines_it_names_by_key(
    store: Store, controller: SessionController
) -> None:
    """Issue 34 item 2 (0025): which lines' titles may hold what was typed is a substring test of every line;
    it reads ``ix_threads_title_folded`` (key and folded title), not every row of ``threads`` with its widest
    columns (4-8 ms at 20,000 lines on SQLite, the largest part of a search there; 1.2 ms on the index).
    The hits' lines are read by key, and a line both titled and hit comes once."""
    keys = [controller.lines.create_line(f"Line {n}").thread_id for n in range(60)]
    titled = controller.lines.create_line("Deploy notes").thread_id
    say(store, keys[7], "the deploy failed again")
    say(store, titled, "deploy checklist")
    with captured(store) as ran:
        found, threads = SearchRepository(store).find(parse_query("deploy"), viewer=DESKTOP, limit=LIMIT)
    assert sorted(t.thread_id for t in threads) == sorted([keys[7], titled])
    assert {m.thread_id for m in found} == {keys[7], titled}
    [read] = [r for r in ran if "title_folded" in r.statement]
    if store.engine.dialect.name == "sqlite":
        plan = sqlite_plan(store, read)
        assert "SCAN threads USING COVERING INDEX ix_threads_title_folded" in plan, plan
        assert not [step for step in plan if step == "SCAN threads"], plan
    else:
        with store.engines[1].connect() as connection:  # as autovacuum leaves a table: its pages marked all-visible
            connection.exec_driver_sql("VACUUM (ANALYZE) threads")
        nodes = pg_plan(store, read, index_scans_only=True)
        on_threads = [n["Node Type"] for n in nodes if n.get("Relation Name") == "threads"]
        assert "Seq Scan" not in on_threads and "Index Only Scan" in on_threads, on_threads


def _title_folding_past_the_index_limit() -> str:
    """500 characters (the most a title has) whose folded form PostgreSQL cannot keep in a btree entry: rare
    Han characters and the characters NFKC expands most, shuffled (little for its compression to find)."""
    seen: set[str] = set()
    expanding: list[str] = []
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        folded = normalise(chr(code))
        if len(folded) >= 2 and folded not in seen:
            seen.add(folded)
            expanding.append(chr(code))
    expanding.sort(key=lambda ch: -len(normalise(ch).encode()))
    rng = random.Random(34)
    chars = [chr(rng.randrange(0x20000, 0x2A6DF)) for _ in range(100)] + expanding[:400]
    rng.shuffle(chars)
    return "".join(chars)


def test_a_title_folding_past_the_index_limit_is_kept_as_may_match_and_still_found(
    store: Store, controller: SessionController
) -> None:
    """Issue 34 item 2 (0025): ``ix_threads_title_folded`` holds each line's folded title, and PostgreSQL refuses
    an index entry past 2,704 bytes: such a title (3,154 bytes folded) could not be given to a line at all. A
    folded title past ``FOLDED_TITLE_MAX_BYTES`` is stored as NULL, "may match", and matched in full."""
    title = _title_folding_past_the_index_limit()
    assert len(title) == 500 and len(normalise(title).encode()) > FOLDED_TITLE_MAX_BYTES
    made = controller.lines.create_line(title).thread_id
    renamed = controller.lines.create_line("Short").thread_id
    controller.lines.rename_line(renamed, title)
    word = title[200:203]
    results = search_lines(store, word)
    assert {line.line_key for line in results.lines if line.title_matched} >= {made, renamed}
    with store.connect() as connection:
        stored = (
            connection.execute(select(ThreadRow.title_folded).where(ThreadRow.thread_id.in_([made, renamed])))
            .scalars()
            .all()
        )
    assert stored == [None, None]


def test_the_upgrade_to_the_title_index_keeps_a_title_folded_past_the_limit_as_may_match(
    store: Store, controller: SessionController
) -> None:
    """Issue 34 item 2 (0025): 0024 folded every title whatever its length; the upgrade makes such a folded title
    NULL ("may match") before it builds the index, or PostgreSQL refuses the index and the database cannot be
    opened by this version."""
    from alembic import command

    from xworkmate.store.database import _alembic_config

    title = _title_folding_past_the_index_limit()
    key = controller.lines.create_line("Short").thread_id
    short = controller.lines.create_line("Another short one").thread_id
    with store.begin() as connection:
        command.downgrade(_alembic_config(connection), "0024")
        connection.execute(
            text("UPDATE threads SET title = :title, title_folded = :folded WHERE thread_id = :key"),
            {"title": title, "folded": normalise(title), "key": key},
        )
        command.upgrade(_alembic_config(connection), "head")
    with store.connect() as connection:
        stored = dict(connection.execute(select(ThreadRow.thread_id, ThreadRow.title_folded)).all())
    assert stored[key] is None and stored[short] == "another short one"
    assert key in {line.line_key for line in search_lines(store, title[200:203]).lines if line.title_matched}
