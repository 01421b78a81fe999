"""The CAT-7 database backstop and migration 0003, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest
from sqlalchemy import Connection, text
from sqlalchemy.exc import IntegrityError

from xworkmate.domain.viewers import DESKTOP
from xworkmate.store import Store, open_store
from xworkmate.store.database import create_store_engine, head_revision


def _insert(
    conn: Connection, key: str, *, parent: str | None = None, category: str | None = None, own: bool = False
) -> None:
    conn.execute(
        text(
            "INSERT INTO threads (thread_id, title, parent_key, category, category_own, created_at, updated_at)"
            " VALUES (:k, :k, :p, :c, :o, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
        ),
        {"k": key, "p": parent, "c": category, "o": own},
    )


def _categories(store: Store) -> dict[str, str | None]:
    with store.engine.connect() as conn:
        return {row[0]: row[1] for row in conn.execute(text("SELECT thread_id, category FROM threads"))}


@pytest.fixture
def medical_parent(store: Store) -> Store:
    with store.engine.begin() as conn:
        _insert(conn, "parent", category="medical")
        _insert(conn, "plain")
    return store


def test_direct_sql_cannot_insert_a_child_with_another_category(medical_parent: Store) -> None:
    """CAT-7: raw SQL, no application code: the database refuses it, own or not."""
    for own in (False, True):
        with pytest.raises(IntegrityError, match="CAT-7"), medical_parent.engine.begin() as conn:
            _insert(conn, f"child-{own}", parent="parent", category="legal", own=own)
    assert set(_categories(medical_parent)) == {"parent", "plain"}


def test_direct_sql_cannot_update_a_child_to_another_category(medical_parent: Store) -> None:
    """CAT-7: on update of the category, and on a move under a category parent."""
    with medical_parent.engine.begin() as conn:
        _insert(conn, "child", parent="parent")
        _insert(conn, "legal-line", category="legal")
    with pytest.raises(IntegrityError, match="CAT-7"), medical_parent.engine.begin() as conn:
        conn.execute(text("UPDATE threads SET category = 'legal' WHERE thread_id = 'child'"))
    with pytest.raises(IntegrityError, match="CAT-7"), medical_parent.engine.begin() as conn:
        conn.execute(text("UPDATE threads SET parent_key = 'parent' WHERE thread_id = 'legal-line'"))
    assert _categories(medical_parent)["child"] == "medical"
    assert _categories(medical_parent)["legal-line"] == "legal"


def test_a_child_inherits_the_parents_category_unless_it_owns_its_own(medical_parent: Store) -> None:
    """CAT-7: copied when ``category_own`` is false; kept (None included) when true."""
    with medical_parent.engine.begin() as conn:
        _insert(conn, "branch", parent="parent")
        _insert(conn, "same", parent="parent", category="medical")
        _insert(conn, "normal-task", parent="parent", own=True)
        _insert(conn, "medical-task", parent="parent", category="medical", own=True)
        _insert(conn, "under-plain", parent="plain", category="legal")
    assert _categories(medical_parent) == {
        "parent": "medical",
        "plain": None,
        "branch": "medical",
        "same": "medical",
        "normal-task": None,
        "medical-task": "medical",
        "under-plain": "legal",
    }


def test_clearing_or_moving_an_inheriting_child_puts_the_parents_category_back(medical_parent: Store) -> None:
    """CAT-7: the rule holds on every update of parent or category, and terminates."""
    with medical_parent.engine.begin() as conn:
        _insert(conn, "branch", parent="parent")
        _insert(conn, "loose")
        conn.execute(text("UPDATE threads SET category = NULL WHERE thread_id = 'branch'"))
        conn.execute(text("UPDATE threads SET parent_key = 'parent' WHERE thread_id = 'loose'"))
    assert _categories(medical_parent)["branch"] == "medical"
    assert _categories(medical_parent)["loose"] == "medical"


def test_the_repository_insert_is_held_to_the_same_rule(store: Store) -> None:
    """CAT-7: a bug in the application layer cannot create a child with another category."""
    from xworkmate.domain.threads import TaskThread, ThreadKind
    from xworkmate.store.repositories import utcnow

    now = utcnow()
    parent = store.threads.insert(
        TaskThread(thread_id="main", title="m", category="medical", created_at=now, updated_at=now)
    )
    fork = TaskThread(
        thread_id="draft:01J00000000000000000000000",
        title="f",
        kind=ThreadKind.FORK,
        parent_key=parent.thread_id,
        category="legal",
        created_at=now,
        updated_at=now,
    )
    with pytest.raises(IntegrityError, match="CAT-7"):
        store.threads.insert(fork, category_own=True)
    inherited = store.threads.insert(fork.model_copy(update={"category": None}))
    assert inherited.category == "medical"


def test_upgrading_to_0003_puts_existing_messages_in_generation_one_and_downgrading_keeps_rows(
    database_url: str,
) -> None:
    """PROV-2: old rows get a session generation; migration 0003 is reversible without losing rows."""
    from alembic import command

    from xworkmate.store.database import _alembic_config

    engine = create_store_engine(database_url)
    try:
        with engine.begin() as conn:
            command.upgrade(_alembic_config(conn), "0002")
            _insert(conn, "main")
            conn.execute(
                text(
                    "INSERT INTO messages (thread_id, role, source, content, created_at)"
                    " VALUES ('main', 'user', 'human', 'from before', CURRENT_TIMESTAMP)"
                )
            )
        with engine.begin() as conn:
            command.upgrade(_alembic_config(conn), "head")
        store = open_store(database_url)
        try:
            [generation] = store.threads.sessions("main")
            assert generation.generation == 1 and generation.ended_at is None
            [message] = store.messages.list_for_thread("main", viewer=DESKTOP)
            assert store.messages.provenance([message.id], viewer=DESKTOP)[message.id].session_id == generation.id
            assert store.messages.recent_human("main", viewer=DESKTOP)[0].content == "from before"
        finally:
            store.close()
        with engine.begin() as conn:
            command.downgrade(_alembic_config(conn), "0002")
        with engine.connect() as conn:
            assert conn.execute(text("SELECT content FROM messages")).scalar() == "from before"
        with engine.begin() as conn:
            command.upgrade(_alembic_config(conn), "head")
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head_revision()
            _insert(conn, "child", parent="main", category=None)
        with pytest.raises(IntegrityError, match="CAT-7"), engine.begin() as conn:
            conn.execute(text("UPDATE threads SET category = 'medical' WHERE thread_id = 'main'"))
            _insert(conn, "odd", parent="main", category="legal")
    finally:
        engine.dispose()
