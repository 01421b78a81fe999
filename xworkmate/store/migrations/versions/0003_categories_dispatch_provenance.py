"""Categories, task dispatch and frozen dispatch provenance (CAT-7, CAT-10, PROV-1..PROV-5, Q-1).

* ``threads``: ``seal_level`` and ``current_session_id``;
* ``thread_sessions``: the session generations of a thread (compaction rotates them);
* ``messages``: ``session_id``, the frozen ``model_visible_text`` and the quarantine mark;
* ``dispatch_sources``: the ids of the human messages a task was dispatched on;
* the CAT-7 trigger on SQLite and PostgreSQL: a child of a category thread cannot
  carry another category, and inherits the parent's unless ``category_own``.

Columns are added in place (``ALTER TABLE … ADD COLUMN``), never by recreating a
table: on SQLite with foreign keys on, dropping and recreating ``threads`` would
cascade-delete every message and drop the triggers. A later migration that must
recreate ``threads`` on SQLite has to create the triggers again.

Existing threads get generation 1 and their messages are put in it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_big_id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

# -- CAT-7 on SQLite ----------------------------------------------------------------------
# A BEFORE trigger cannot assign NEW on SQLite, so a BEFORE trigger refuses the
# mismatch and an AFTER trigger copies the parent's category. The copy only
# matches a row whose category differs from the parent's, so the UPDATE it makes
# (which fires the UPDATE triggers again) finds nothing to change the second time.

_SQLITE_CHECK = """
CREATE TRIGGER {name}
BEFORE {event} ON threads
FOR EACH ROW
WHEN NEW.parent_key IS NOT NULL AND NEW.category IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'CAT-7: a child thread cannot have a category other than its parent''s category')
    FROM threads AS parent
    WHERE parent.thread_id = NEW.parent_key
      AND parent.category IS NOT NULL
      AND parent.category <> NEW.category;
END
"""

_SQLITE_INHERIT = """
CREATE TRIGGER {name}
AFTER {event} ON threads
FOR EACH ROW
WHEN NEW.parent_key IS NOT NULL AND NOT NEW.category_own
BEGIN
    UPDATE threads
    SET category = (SELECT parent.category FROM threads AS parent WHERE parent.thread_id = NEW.parent_key)
    WHERE thread_id = NEW.thread_id
      AND (SELECT parent.category FROM threads AS parent WHERE parent.thread_id = NEW.parent_key) IS NOT NULL
      AND category IS NOT (SELECT parent.category FROM threads AS parent WHERE parent.thread_id = NEW.parent_key);
END
"""

_SQLITE_TRIGGERS = {
    "threads_category_check_insert": (_SQLITE_CHECK, "INSERT"),
    "threads_category_check_update": (_SQLITE_CHECK, "UPDATE OF parent_key, category"),
    "threads_category_inherit_insert": (_SQLITE_INHERIT, "INSERT"),
    "threads_category_inherit_update": (_SQLITE_INHERIT, "UPDATE OF parent_key, category"),
}

# -- CAT-7 on PostgreSQL ------------------------------------------------------------------

_PG_FUNCTION = """
CREATE OR REPLACE FUNCTION threads_inherit_category() RETURNS trigger AS $$
DECLARE
    parent_category text;
BEGIN
    IF NEW.parent_key IS NULL THEN
        RETURN NEW;
    END IF;
    SELECT category INTO parent_category FROM threads WHERE thread_id = NEW.parent_key;
    IF parent_category IS NOT NULL THEN
        IF NEW.category IS NOT NULL AND NEW.category <> parent_category THEN
            RAISE EXCEPTION 'CAT-7: thread % cannot have category % under a thread of category %',
                NEW.thread_id, NEW.category, parent_category
                USING ERRCODE = 'check_violation';
        END IF;
        IF NOT NEW.category_own THEN
            NEW.category := parent_category;
        END IF;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql
"""

_PG_TRIGGERS = {
    "threads_category_insert": "INSERT",
    "threads_category_update": "UPDATE OF parent_key, category",
}


def _create_category_triggers() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name, (template, event) in _SQLITE_TRIGGERS.items():
            op.execute(sa.text(template.format(name=name, event=event)))
    elif dialect == "postgresql":
        op.execute(sa.text(_PG_FUNCTION))
        for name, event in _PG_TRIGGERS.items():
            op.execute(
                sa.text(
                    f"CREATE TRIGGER {name} BEFORE {event} ON threads"
                    " FOR EACH ROW EXECUTE FUNCTION threads_inherit_category()"
                )
            )
    else:  # pragma: no cover - only the two supported databases
        raise NotImplementedError(f"CAT-7 trigger not written for {dialect}")


def _drop_category_triggers() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name in _SQLITE_TRIGGERS:
            op.execute(sa.text(f"DROP TRIGGER IF EXISTS {name}"))
    elif dialect == "postgresql":
        for name in _PG_TRIGGERS:
            op.execute(sa.text(f"DROP TRIGGER IF EXISTS {name} ON threads"))
        op.execute(sa.text("DROP FUNCTION IF EXISTS threads_inherit_category()"))


def upgrade() -> None:
    with op.batch_alter_table("threads", recreate="never") as batch:
        batch.add_column(sa.Column("seal_level", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("current_session_id", _big_id, nullable=True))
    op.create_table(
        "thread_sessions",
        sa.Column("id", _big_id, primary_key=True, autoincrement=True),
        sa.Column(
            "thread_id",
            sa.String(200),
            sa.ForeignKey("threads.thread_id", name="fk_thread_sessions_thread", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("end_reason", sa.String(32), nullable=True),
        sa.UniqueConstraint("thread_id", "generation", name="uq_thread_sessions_thread_generation"),
    )
    with op.batch_alter_table("messages", recreate="never") as batch:
        batch.add_column(sa.Column("session_id", _big_id, nullable=True))
        batch.add_column(sa.Column("model_visible_text", sa.Text(), nullable=True))
        batch.add_column(sa.Column("quarantined", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("quarantine_message_id", _big_id, nullable=True))
    op.create_index("ix_messages_thread_session_source_id", "messages", ["thread_id", "session_id", "source", "id"])
    op.create_table(
        "dispatch_sources",
        sa.Column(
            "task_key",
            sa.String(200),
            sa.ForeignKey("threads.thread_id", name="fk_dispatch_sources_task", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column(
            "message_id",
            _big_id,
            sa.ForeignKey("messages.id", name="fk_dispatch_sources_message", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("task_key", "position", name="pk_dispatch_sources"),
    )
    op.create_index("ix_dispatch_sources_message_id", "dispatch_sources", ["message_id"])

    # Every existing thread starts in generation 1, with the messages it already has.
    op.execute(
        sa.text(
            "INSERT INTO thread_sessions (thread_id, generation, started_at)"
            " SELECT thread_id, 1, created_at FROM threads"
        )
    )
    op.execute(
        sa.text(
            "UPDATE threads SET current_session_id = (SELECT s.id FROM thread_sessions AS s"
            " WHERE s.thread_id = threads.thread_id AND s.generation = 1)"
        )
    )
    op.execute(
        sa.text(
            "UPDATE messages SET session_id = (SELECT t.current_session_id FROM threads AS t"
            " WHERE t.thread_id = messages.thread_id)"
        )
    )
    _create_category_triggers()


def downgrade() -> None:
    _drop_category_triggers()
    op.drop_index("ix_dispatch_sources_message_id", table_name="dispatch_sources")
    op.drop_table("dispatch_sources")
    op.drop_index("ix_messages_thread_session_source_id", table_name="messages")
    # Plain DROP COLUMN (SQLite 3.35+): recreating these tables would cascade-delete rows.
    for table, column in (
        ("messages", "quarantine_message_id"),
        ("messages", "quarantined"),
        ("messages", "model_visible_text"),
        ("messages", "session_id"),
        ("threads", "current_session_id"),
        ("threads", "seal_level"),
    ):
        op.execute(sa.text(f"ALTER TABLE {table} DROP COLUMN {column}"))
    op.drop_table("thread_sessions")
