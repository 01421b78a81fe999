"""Lines' titles folded for search (issue 34 item 2, LOOP-3).

``threads.title_folded`` = ``domain.search.normalise(title)``: a search reads only the lines whose
title may match (a ``LIKE`` on this column), not all 20,000. NULL means "not folded yet" and is read as
"may match", so rows written by Core bulk inserts stay correct.

Revision ID: 0024
Revises: 0022
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from xworkmate.domain.search import normalise

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("threads", sa.Column("title_folded", sa.Text(), nullable=True))
    connection = op.get_bind()
    threads = sa.table("threads", sa.column("thread_id"), sa.column("title"), sa.column("title_folded"))
    rows = connection.execute(sa.select(threads.c.thread_id, threads.c.title)).all()
    if rows:
        connection.execute(
            threads.update()
            .where(threads.c.thread_id == sa.bindparam("key"))
            .values(title_folded=sa.bindparam("folded")),
            [{"key": key, "folded": normalise(title)} for key, title in rows],
        )


def downgrade() -> None:
    op.drop_column("threads", "title_folded")
