"""SEC-1 in the search index, on SQLite and PostgreSQL: what is indexed is the redacted text; an entry
written before the index was redacted never makes a key findable, and ``redact_index`` rewrites it."""

from __future__ import annotations

from sqlalchemy import text

from xworkmate.controllers import SessionController
from xworkmate.controllers.search import search_lines
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.search import index_terms
from xworkmate.domain.secrets import REDACTED
from xworkmate.domain.viewers import DESKTOP
from xworkmate.store import Store
from xworkmate.store.repositories import utcnow
from xworkmate.store.search import insert_messages, redact_index

TOKEN = "glpat-Ab3dEf6hIj9kLm2nOp5qRs"
SAID = f"push with {TOKEN} tonight"


def _index_rows(store: Store) -> list[str]:
    with store.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        sql = "SELECT terms FROM message_search" if sqlite else "SELECT terms::text FROM message_search"
        return [row[0] for row in connection.execute(text(sql))]


def _index_as_before_sec1(store: Store, message_id: int, said: str) -> None:
    """The entry an older XWorkmate wrote: the stored text's tokens, key included."""
    terms = index_terms(said)
    with store.begin() as connection:
        if connection.dialect.name == "sqlite":
            connection.execute(text("DELETE FROM message_search WHERE rowid = :id"), {"id": message_id})
            connection.execute(
                text("INSERT INTO message_search (rowid, terms, chars) VALUES (:id, :terms, '')"),
                {"id": message_id, "terms": " ".join(terms.terms)},
            )
        else:
            connection.execute(text("DELETE FROM message_search WHERE message_id = :id"), {"id": message_id})
            connection.execute(
                text("INSERT INTO message_search (message_id, terms) VALUES (:id, CAST(:terms AS tsvector))"),
                {"id": message_id, "terms": terms.tsvector_literal()},
            )


def test_a_message_with_a_key_is_indexed_redacted_whoever_writes_it(
    store: Store, controller: SessionController
) -> None:
    """The ORM write and the Core bulk insert both index ``[redacted]``, never the key's words."""
    key = controller.lines.create_line("Deploys").thread_id
    store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=SAID)
    row = {
        "thread_id": key,
        "role": "user",
        "source": "human",
        "content": SAID,
        "state": "complete",
        "created_at": utcnow(),
        "payload": None,
        "quarantined": False,
    }
    with store.begin() as connection:
        insert_messages(connection, [row])
    rows = _index_rows(store)
    assert len(rows) == 2
    for terms in rows:
        assert "redacted" in terms and "ab3def6hij9klm2nop5qrs" not in terms and "glpat" not in terms
    assert [m.content for m in store.messages.list_for_thread(key, viewer=DESKTOP)] == [SAID, SAID]  # stored as typed
    assert search_lines(store, "Ab3dEf6hIj9kLm2nOp5qRs").lines == ()


def test_an_entry_indexed_before_redaction_finds_no_key_and_redact_index_rewrites_it(
    store: Store, controller: SessionController
) -> None:
    """An existing database: a search for the key finds nothing though the old entry holds it; the
    message is still found by its other words, with a redacted snippet; ``redact_index`` (for the
    migration) rewrites exactly the entries that held a secret."""
    key = controller.lines.create_line("Deploys").thread_id
    held = store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=SAID).id
    plain = store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content="push tomorrow").id
    _index_as_before_sec1(store, held, SAID)
    assert any("ab3def6hij9klm2nop5qrs" in terms for terms in _index_rows(store))

    assert search_lines(store, "Ab3dEf6hIj9kLm2nOp5qRs").lines == ()
    [group] = search_lines(store, "push").lines
    assert [(hit.message_id, hit.snippet.text) for hit in group.hits] == [
        (plain, "push tomorrow"),
        (held, f"push with {REDACTED} tonight"),
    ]

    with store.begin() as connection:
        assert redact_index(connection) == 1
    assert not any("ab3def6hij9klm2nop5qrs" in terms for terms in _index_rows(store))
    [group] = search_lines(store, "tonight").lines
    assert [hit.message_id for hit in group.hits] == [held]


def test_upgrading_an_older_database_redacts_its_index_and_its_titles_made_from_a_key(
    store: Store, controller: SessionController
) -> None:
    """Migration 0017 (SEC-1): a database written before redaction (an index entry and a title made from a
    message with a key) comes out of the upgrade with neither holding the key; the message keeps it."""
    from alembic import command

    from xworkmate.store.database import _alembic_config

    key = controller.lines.create_line("Deploys").thread_id
    held = store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=SAID).id
    _index_as_before_sec1(store, held, SAID)
    with store.begin() as connection:
        connection.execute(
            text("UPDATE threads SET title = :title WHERE thread_id = :key"), {"title": SAID, "key": key}
        )
        command.downgrade(_alembic_config(connection), "0016")
        command.upgrade(_alembic_config(connection), "head")
    assert not any("ab3def6hij9klm2nop5qrs" in terms for terms in _index_rows(store))
    assert store.threads.get(key).title == f"push with {REDACTED} tonight"
    assert [m.content for m in store.messages.list_for_thread(key, viewer=DESKTOP)] == [SAID]
