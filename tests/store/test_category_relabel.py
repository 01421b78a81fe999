"""The CAT-7 relabel guard (migration 0005) and the application's relabel past it (CAT-10).

Raw SQL stands for a bug in the application layer: the database refuses it. The
person's relabel (``SessionController.tasks.set_category``) moves a whole subtree and
is never refused by the same triggers. Every test runs on a SQLite file and on
its own PostgreSQL database.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import IntegrityError

from tests.dispatch.support import make_line
from xworkmate.controllers import SessionController
from xworkmate.domain.categories import EmptyCategoryError
from xworkmate.domain.threads import ThreadKind
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


def _relabel(engine: Engine, key: str, category: str | None) -> None:
    with engine.begin() as conn:
        conn.execute(text("UPDATE threads SET category = :c WHERE thread_id = :k"), {"c": category, "k": key})


def _categories(engine: Engine) -> dict[str, str | None]:
    with engine.connect() as conn:
        return {row[0]: row[1] for row in conn.execute(text("SELECT thread_id, category FROM threads"))}


def test_direct_sql_cannot_relabel_a_parent_whose_children_would_disagree(store: Store) -> None:
    """CAT-7: the parent of a medical task, or of a thread that inherits medical, cannot become legal.

    Under the new category both children would break CAT-7: a category task must
    carry its parent's category, and an inheriting child holds a copy of it. A
    parent whose only child is a normal task may still be relabelled, and
    clearing a category is not checked (nothing is checked under a normal parent).
    """
    with store.engine.begin() as conn:
        _insert(conn, "with-task", category="medical")
        _insert(conn, "medical-task", parent="with-task", category="medical", own=True)
        _insert(conn, "with-branch", category="medical")
        _insert(conn, "branch", parent="with-branch")
        _insert(conn, "with-normal-task", category="medical")
        _insert(conn, "normal-task", parent="with-normal-task", own=True)
    before = _categories(store.engine)
    assert before["branch"] == "medical"
    for parent in ("with-task", "with-branch"):
        with pytest.raises(IntegrityError, match="CAT-7"):
            _relabel(store.engine, parent, "legal")
    assert _categories(store.engine) == before

    _relabel(store.engine, "with-normal-task", "legal")
    _relabel(store.engine, "with-task", None)
    after = _categories(store.engine)
    assert after["with-normal-task"] == "legal" and after["normal-task"] is None
    assert after["with-task"] is None and after["medical-task"] == "medical"


def test_direct_sql_cannot_label_a_parent_over_an_inheriting_child_without_a_category(store: Store) -> None:
    """CAT-7: an inheriting child would hold the parent's category; a normal branch blocks a new label."""
    with store.engine.begin() as conn:
        _insert(conn, "plain")
        _insert(conn, "branch", parent="plain")
    with pytest.raises(IntegrityError, match="CAT-7"):
        _relabel(store.engine, "plain", "medical")
    assert _categories(store.engine) == {"plain": None, "branch": None}


def test_moving_a_line_under_a_category_parent_is_refused_when_its_own_children_disagree(store: Store) -> None:
    """CAT-7: the inherited copy is a relabel too, so a legal subtree cannot slide under a medical parent."""
    with store.engine.begin() as conn:
        _insert(conn, "medical-parent", category="medical")
        _insert(conn, "loose")
        _insert(conn, "legal-child", parent="loose", category="legal")
    with pytest.raises(IntegrityError, match="CAT-7"), store.engine.begin() as conn:
        conn.execute(text("UPDATE threads SET parent_key = 'medical-parent' WHERE thread_id = 'loose'"))
    assert _categories(store.engine) == {"medical-parent": "medical", "loose": None, "legal-child": "legal"}


def test_the_persons_relabel_moves_the_whole_subtree_where_direct_sql_is_refused(
    store: Store, controller: SessionController, tmp_path: Path
) -> None:
    """CAT-10 past CAT-7: medical → legal moves branches, category tasks and normal tasks at every depth.

    The same change as one raw UPDATE of the top is refused by the relabel guard.
    """
    top = make_line(store, tmp_path, category="medical", title="top")
    branch = make_line(store, tmp_path, kind=ThreadKind.BRANCH, parent_key=top.thread_id)
    medical_task = make_line(
        store, tmp_path, kind=ThreadKind.TASK, parent_key=top.thread_id, category="medical", category_own=True
    )
    normal_task = make_line(store, tmp_path, kind=ThreadKind.TASK, parent_key=top.thread_id, category_own=True)
    nested = make_line(store, tmp_path, kind=ThreadKind.BRANCH, parent_key=medical_task.thread_id)
    under_normal = make_line(store, tmp_path, kind=ThreadKind.TASK, parent_key=normal_task.thread_id)
    keys = [top, branch, medical_task, normal_task, nested, under_normal]

    with pytest.raises(IntegrityError, match="CAT-7"):
        _relabel(store.engine, top.thread_id, "legal")

    moved = controller.tasks.set_category(top.thread_id, "Legal")
    assert sorted(moved) == sorted(k.thread_id for k in keys)
    assert {_categories(store.engine)[k.thread_id] for k in keys} == {"legal"}
    # Inside a category tree only the parent's category may be set again (CAT-7), inheriting or own.
    assert controller.tasks.set_category(branch.thread_id, "legal") == [branch.thread_id]
    assert controller.tasks.set_category(medical_task.thread_id, "legal") == [medical_task.thread_id, nested.thread_id]
    assert controller.tasks.set_category(top.thread_id, None) == moved
    assert {_categories(store.engine)[k.thread_id] for k in keys} == {None}


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_an_empty_category_is_refused_and_the_subtree_keeps_its_label(
    store: Store, controller: SessionController, tmp_path: Path, blank: str
) -> None:
    """CAT-1, CAT-10: a blank label is not "normal"; only ``None`` (``--clear``) clears a subtree."""
    top = make_line(store, tmp_path, category="medical")
    task = make_line(store, tmp_path, kind=ThreadKind.TASK, parent_key=top.thread_id, category_own=True)
    with pytest.raises(EmptyCategoryError, match="--clear"):
        controller.tasks.set_category(top.thread_id, blank)
    with pytest.raises(EmptyCategoryError):
        store.threads.set_category(top.thread_id, blank)
    categories = _categories(store.engine)
    assert (categories[top.thread_id], categories[task.thread_id]) == ("medical", None)


def _trigger_names(conn: Connection) -> set[str]:
    if conn.dialect.name == "sqlite":
        query = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
    else:
        query = "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"
    return {row[0] for row in conn.execute(text(query))}


def test_migration_0005_round_trip_keeps_rows_and_restores_the_0003_triggers(database_url: str) -> None:
    """CAT-7: downgrading 0005 keeps every row and leaves 0003's triggers as they were; upgrading guards again."""
    from alembic import command

    from xworkmate.store.database import _alembic_config

    engine = create_store_engine(database_url)
    try:
        with engine.begin() as conn:
            command.upgrade(_alembic_config(conn), "0004")
            triggers_0004 = _trigger_names(conn)
            _insert(conn, "parent", category="medical")
            _insert(conn, "task", parent="parent", category="medical", own=True)
            _insert(conn, "branch", parent="parent")
        with engine.begin() as conn:
            command.upgrade(_alembic_config(conn), "head")
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head_revision()
            assert _trigger_names(conn) > triggers_0004
        rows = _categories(engine)
        assert rows == {"parent": "medical", "task": "medical", "branch": "medical"}
        with pytest.raises(IntegrityError, match="CAT-7"):
            _relabel(engine, "parent", "legal")

        with engine.begin() as conn:
            command.downgrade(_alembic_config(conn), "0004")
            assert _trigger_names(conn) == triggers_0004
        assert _categories(engine) == rows
        with engine.connect() as conn:  # 0003's behaviour: the relabel is accepted (then rolled back)
            conn.execute(text("UPDATE threads SET category = 'legal' WHERE thread_id = 'parent'"))
            assert conn.execute(text("SELECT category FROM threads WHERE thread_id = 'parent'")).scalar() == "legal"
            conn.rollback()
        with pytest.raises(IntegrityError, match="CAT-7"), engine.begin() as conn:  # 0003's insert check remains
            _insert(conn, "odd", parent="parent", category="legal")

        with engine.begin() as conn:
            command.upgrade(_alembic_config(conn), "head")
        assert _categories(engine) == rows
        with pytest.raises(IntegrityError, match="CAT-7"):
            _relabel(engine, "parent", "legal")
        reopened = open_store(database_url)
        try:
            assert sorted(reopened.threads.set_category("parent", "legal")) == ["branch", "parent", "task"]
        finally:
            reopened.close()
    finally:
        engine.dispose()
