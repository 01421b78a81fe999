"""Other processes' changes, told to the window (issue 19, item 6).

* ``line_runs``: one row per line that has run a turn — its run status
  (``running``, ``needs_approval``, ``needs_sign_in``, then how the turn ended:
  ``finished``, ``step_limit``, ``failed``, ``stopped``), which process wrote it
  (``origin``) and when. Until now a turn's state lived only in the memory of
  the process running it, so another window could not show "running" or "needs
  approval" for it.
* PostgreSQL only: a trigger function ``xworkmate_notify_change`` and triggers
  that ``pg_notify('xworkmate_changes', …)`` on a new line, a line whose row
  changed in more than ``updated_at`` (a new message only touches that), a new
  message, any provider write and any ``line_runs`` write. The notice is sent
  at commit, inside the writer's transaction, whoever wrote (the window, the
  CLI, an older build); its payload is a small JSON array naming the table and
  the key (see ``store/external_changes.py``). SQLite has no NOTIFY: its
  watcher compares small reads when ``PRAGMA data_version`` moved.

Revision ID: 0014
Revises: 0012
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0012"
branch_labels = None
depends_on = None

_FUNCTION = """
CREATE FUNCTION xworkmate_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'messages' THEN
        PERFORM pg_notify('xworkmate_changes', json_build_array('m', NEW.thread_id, NEW.id)::text);
    ELSIF TG_TABLE_NAME = 'threads' THEN
        IF TG_OP = 'INSERT' THEN
            PERFORM pg_notify('xworkmate_changes', json_build_array('l+', NEW.thread_id)::text);
        ELSIF (to_jsonb(OLD) - 'updated_at') IS DISTINCT FROM (to_jsonb(NEW) - 'updated_at') THEN
            PERFORM pg_notify('xworkmate_changes', json_build_array('l', NEW.thread_id)::text);
        END IF;
    ELSIF TG_TABLE_NAME = 'providers' THEN
        PERFORM pg_notify('xworkmate_changes', '["p"]');
    ELSIF TG_TABLE_NAME = 'line_runs' THEN
        PERFORM pg_notify(
            'xworkmate_changes', json_build_array('r', NEW.thread_id, NEW.status, NEW.origin)::text
        );
    END IF;
    RETURN NULL;
END
$$
"""

_TRIGGERS = {
    "threads": "AFTER INSERT OR UPDATE",
    "messages": "AFTER INSERT",
    "providers": "AFTER INSERT OR UPDATE OR DELETE",
    "line_runs": "AFTER INSERT OR UPDATE",
}


def upgrade() -> None:
    op.create_table(
        "line_runs",
        sa.Column(
            "thread_id",
            sa.String(length=200),
            sa.ForeignKey("threads.thread_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("origin", sa.String(length=64), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_FUNCTION)
    for table, when in _TRIGGERS.items():
        op.execute(
            f"CREATE TRIGGER xworkmate_notify_{table} {when} ON {table}"
            " FOR EACH ROW EXECUTE FUNCTION xworkmate_notify_change()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in _TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS xworkmate_notify_{table} ON {table}")
        op.execute("DROP FUNCTION IF EXISTS xworkmate_notify_change()")
    op.drop_table("line_runs")
