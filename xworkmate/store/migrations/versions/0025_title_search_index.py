"""Lines' folded titles in an index of their own, with the line's key (issue 34 item 2, LOOP-3).

A search asks which lines' folded titles may hold what was typed: a substring test no index can seek, so
every line is tested. Read from the table, that is every row of ``threads`` (its widest columns
included): 4-8 ms at 20,000 lines, the largest part of a search there on SQLite. This index holds only
``title_folded`` and ``thread_id``, so the same test reads it alone (SQLite: a covering index scan,
1.2 ms); the matching lines' other columns are then read by key.

A folded title past ``FOLDED_TITLE_MAX_BYTES`` (0024 folded every title, whatever its length) becomes NULL,
"may match", first: PostgreSQL refuses an index entry past 2,704 bytes, and the upgrade would fail.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from xworkmate.domain.search import folded_title

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    connection = op.get_bind()
    threads = sa.table("threads", sa.column("thread_id"), sa.column("title"), sa.column("title_folded"))
    rows = connection.execute(
        sa.select(threads.c.thread_id, threads.c.title).where(threads.c.title_folded.is_not(None))
    ).all()
    too_long = [key for key, title in rows if folded_title(title) is None]
    if too_long:
        connection.execute(threads.update().where(threads.c.thread_id.in_(too_long)).values(title_folded=None))
    op.create_index("ix_threads_title_folded", "threads", ["title_folded", "thread_id"])


def downgrade() -> None:
    op.drop_index("ix_threads_title_folded", table_name="threads")
