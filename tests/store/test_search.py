"""Search across lines on SQLite (FTS5) and PostgreSQL (tsvector + GIN) alike (SPEC LOOP-3, CAT-4, Q-1, ERR-3).

Chinese two-character words and single characters are found (a trigram index could not),
the index follows every write in the same transaction, and every hit passes the one
visibility predicate.
"""

from __future__ import annotations

import pytest
from sqlalchemy import delete, text

from tests.support.search_scale import SHAPE_SIZE, check_exact_search
from tests.support.search_scale import found_ids as _ids
from tests.support.search_scale import say as _say
from xworkmate.controllers import SessionController
from xworkmate.controllers.search import search_lines
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.search import parse_query
from xworkmate.domain.viewers import DESKTOP, Viewer
from xworkmate.store import Store, open_store
from xworkmate.store.repositories import utcnow
from xworkmate.store.search import SearchRepository
from xworkmate.store.tables import MessageRow


@pytest.fixture
def line(controller: SessionController) -> str:
    return controller.lines.create_line("Notes").thread_id


def test_chinese_words_of_two_characters_and_single_characters_are_found(
    store: Store, controller: SessionController, line: str
) -> None:
    sky = _say(store, line, "我喜欢蓝色的天空")
    sea = _say(store, line, "大海是深蓝的")
    mixed = _say(store, line, "Deploy 到生产环境 with GPT蓝色-v2 today")
    assert _ids(store, "蓝色") == [mixed, sky]  # a two-character word; newest first
    assert _ids(store, "蓝") == [mixed, sea, sky]  # one character, anywhere in a run
    assert _ids(store, "的天空") == [sky]  # three or more: the exact phrase
    assert _ids(store, "蓝天") == []  # not a substring of 蓝色的天空, though both characters are there
    assert _ids(store, "生产") == [mixed]
    assert _ids(store, "gpt 蓝色") == [mixed]  # mixed Chinese and English: every part must match
    assert _ids(store, "deploy 大海") == []


def test_words_match_whole_or_as_a_prefix_and_case_and_width_do_not_matter(store: Store, line: str) -> None:
    greek = _say(store, line, "Die Straße nach ΑΘΉΝΑ, Ärger über ＦＵＬＬＷＩＤＴＨ text")
    code = _say(store, line, "def load_config(path): return yaml.safe_load(path)")
    assert _ids(store, "strasse") == [greek]
    assert _ids(store, "ärg*") == [greek]
    assert _ids(store, "ärg") == []  # whole words, unless a * says otherwise
    assert _ids(store, "αθήνα") == [greek]
    assert _ids(store, "fullwidth") == [greek]
    assert _ids(store, "config") == [code]  # load_config: the underscore separates words
    assert _ids(store, "safe_lo*") == [code]
    assert _ids(store, "conf*") == [code]
    assert _ids(store, "onfig*") == []  # not where a word begins
    assert _ids(store, "!!! ,,") == []  # nothing to search for


def test_tool_output_and_tool_call_arguments_are_searched(store: Store, line: str) -> None:
    output = _say(store, line, "Traceback: KeyError 'quux'", role=MessageRole.TOOL, source=MessageSource.TOOL)
    call = store.messages.append(
        line,
        role=MessageRole.ASSISTANT,
        source=MessageSource.AGENT,
        content="",
        payload={"tool_calls": [{"id": "c1", "function": {"name": "read_file", "arguments": '{"path": "年报.md"}'}}]},
    ).id
    assert _ids(store, "keyerror") == [output]
    assert _ids(store, "年报") == [call]
    assert _ids(store, "read_file") == [call]


def test_titles_are_searched_archived_lines_included(controller: SessionController, store: Store) -> None:
    old = controller.lines.create_line("蓝色 roadmap")
    controller.lines.archive_line(old.thread_id)
    _say(store, old.thread_id, "nothing here")
    results = search_lines(store, "蓝色")
    [group] = results.lines
    assert group.line_key == old.thread_id and group.archived and group.title_matched
    assert group.title.ranges == ((0, 2),)


def test_a_search_reads_only_the_lines_whose_folded_title_may_match(
    controller: SessionController, store: Store
) -> None:
    """Issue 34 item 2 (LOOP-3): with 20,000 lines a search must not read every title. It reads the hits'
    lines and those whose folded title holds each segment; width, case and renames are followed, and a
    line written by a Core bulk insert (no folded title) is still found."""
    wide = controller.lines.create_line("ＦＵＬＬＷＩＤＴＨ Plan").thread_id
    renamed = controller.lines.create_line("old name").thread_id
    controller.lines.rename_line(renamed, "Fullwidth notes")
    others = [controller.lines.create_line(f"unrelated {n}").thread_id for n in range(5)]
    _say(store, others[0], "fullwidth in a message")
    with store.engine.begin() as conn:  # a Core insert, as benchmarks seed: title_folded stays NULL
        conn.execute(text("UPDATE threads SET title_folded = NULL WHERE thread_id = :k"), {"k": others[1]})
        conn.execute(text("UPDATE threads SET title = 'FULLWIDTH bulk' WHERE thread_id = :k"), {"k": others[1]})
    read = SearchRepository(store).threads(viewer=DESKTOP, keys=[others[0]], title_may_match=parse_query("fullwidth"))
    assert {t.thread_id for t in read} == {wide, renamed, others[0], others[1]}  # not the other three
    results = search_lines(store, "fullwidth")
    assert {g.line_key for g in results.lines if g.title_matched} == {wide, renamed, others[1]}
    assert search_lines(store, "old").lines == ()


def test_hits_are_grouped_by_line_with_highlighted_snippets(controller: SessionController, store: Store) -> None:
    first = controller.lines.create_line("First").thread_id
    second = controller.lines.create_line("Second").thread_id
    a = _say(store, first, "the 蓝色 door")
    b = _say(store, second, "x" * 300 + " then 蓝色 and again 蓝色 " + "y" * 300)
    c = _say(store, first, "another 蓝色")
    results = search_lines(store, "蓝色")
    assert [g.line_key for g in results.lines] == [first, second]
    assert [h.message_id for h in results.lines[0].hits] == [c, a]
    [hit] = results.lines[1].hits
    assert hit.message_id == b
    snippet = hit.snippet
    assert snippet.text.startswith("…") and snippet.text.endswith("…")
    assert [snippet.text[s:e] for s, e in snippet.ranges] == ["蓝色", "蓝色"]
    only = search_lines(store, "蓝色", line=first)
    assert [g.line_key for g in only.lines] == [first]
    capped = search_lines(store, "蓝色", limit=2)
    assert capped.truncated and capped.message_count == 2


def test_a_line_the_viewer_may_not_read_is_never_found(controller: SessionController, store: Store) -> None:
    """CAT-4: a normal task viewer finds nothing of a category line, not even its title."""
    medical = controller.lines.create_line("蓝色 diagnosis").thread_id
    controller.tasks.set_category(medical, "medical")
    normal = controller.lines.create_line("Normal").thread_id
    secret = _say(store, medical, "patient 蓝色 chart")
    public = _say(store, normal, "public 蓝色 note")
    normal_viewer = Viewer.of_thread(normal, None)
    assert _ids(store, "蓝色") == [public, secret]  # the person at the desktop sees every line
    assert _ids(store, "蓝色", normal_viewer) == [public]
    assert _ids(store, "蓝色", normal_viewer, line=medical) == []
    results = search_lines(store, "蓝色", viewer=normal_viewer)
    assert [g.line_key for g in results.lines] == [normal]
    assert "diagnosis" not in results.model_dump_json()
    # A same-category reader may; a relabel is read live.
    other_medical = controller.lines.create_line("Other").thread_id
    controller.tasks.set_category(other_medical, "medical")
    assert _ids(store, "蓝色", Viewer.of_thread(other_medical, None)) == [public, secret]
    controller.tasks.set_category(medical, None)
    assert _ids(store, "蓝色", normal_viewer) == [public, secret]


def test_quarantine_hides_a_hit_from_the_model_not_from_the_person(store: Store, line: str) -> None:
    """Q-1: the index keeps the stored text; the read applies the mark live."""
    tool = store.messages.append_quarantined(line, content="untrusted 蓝色 page").id
    plain = _say(store, line, "plain 蓝色", role=MessageRole.TOOL, source=MessageSource.TOOL)
    model = Viewer.of_thread(line, None)
    assert _ids(store, "蓝色") == [plain, tool]
    assert _ids(store, "蓝色", model) == [plain]
    assert _ids(store, "quarantined", model) == []  # nor is the placeholder a hit
    store.messages.release(tool)
    assert _ids(store, "蓝色", model) == [plain, tool]
    store.messages.quarantine(plain)
    assert _ids(store, "蓝色", model) == [tool]
    assert _ids(store, "蓝色") == [plain, tool]


def test_the_index_follows_inserts_copies_edits_and_deletes(controller: SessionController, store: Store) -> None:
    line = controller.lines.create_line("Src").thread_id
    nul = _say(store, line, "before\x00after 蓝色")
    assert _ids(store, "after") == [nul]  # ERR-3: the stored text, NUL replaced, is what is indexed
    [message] = store.messages.get_many([nul], viewer=DESKTOP).values()
    assert "\x00" not in message.content

    fork = controller.tasks.fork(line, title="Fork")
    copies = [i for i in _ids(store, "蓝色") if i != nul]
    assert len(copies) == 1 and _ids(store, "蓝色", line=fork.thread_id) == copies

    with store.session() as session:  # an ORM edit of the text re-indexes it in the same transaction
        row = session.get(MessageRow, nul)
        assert row is not None
        row.content = "rewritten 绿色"
    assert _ids(store, "绿色") == [nul] and _ids(store, "after", line=line) == []

    with store.begin() as connection:
        connection.execute(delete(MessageRow).where(MessageRow.id == nul))
    assert _ids(store, "绿色") == []
    size = SearchRepository(store).index_size()
    assert size.indexed_messages == 1 and 0 < size.index_bytes < size.database_bytes


def test_a_failed_write_leaves_no_index_entry(store: Store, line: str) -> None:
    """The entry is part of the message's transaction: a rollback takes both."""
    with pytest.raises(RuntimeError), store.session() as session:
        session.add(
            MessageRow(
                thread_id=line, role="user", source="human", content="ghost 蓝色", created_at=utcnow(), state="complete"
            )
        )
        session.flush()
        raise RuntimeError("boom")
    assert _ids(store, "ghost") == []
    assert SearchRepository(store).index_size().indexed_messages == 0


def test_upgrading_to_the_index_indexes_existing_messages(database_url: str) -> None:
    """Migration 0011 indexes what was written before it."""
    from alembic import command

    from xworkmate.store.database import _alembic_config, create_store_engine

    engine = create_store_engine(database_url)
    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "0008")
        conn.execute(
            text(
                "INSERT INTO threads (thread_id, title, created_at, updated_at)"
                " VALUES ('main', 'Main', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO messages (thread_id, role, source, content, created_at)"
                " VALUES ('main', 'user', 'human', '旧的蓝色消息', CURRENT_TIMESTAMP)"
            )
        )
    engine.dispose()
    store = open_store(database_url)
    try:
        assert _ids(store, "蓝色") == [1]
    finally:
        store.close()


def test_search_at_a_shape_size(controller: SessionController, store: Store) -> None:
    """LOOP-3's exact answers over 3,000 messages; the same check over 100,000 is the scale benchmark
    (``python -m benchmarks search_exact``, issue 33 item 5)."""
    check_exact_search(controller, store, SHAPE_SIZE)
