"""The follow-up queue (issue 31 item 3): what the person sent while a turn ran, in order.

* ``queued_followups``: one row per queued follow-up of a line — its ``position`` (the delivery
  order; the person reorders it), its ``text`` (editable until delivered) and ``created_at``.
  A row is not a message: it becomes the person's message (and, on a task, re-captures the
  dispatch snapshot, PROV-4) when it is delivered, and the row is deleted then.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "queued_followups",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
        sa.Column(
            "thread_id",
            sa.String(length=200),
            sa.ForeignKey("threads.thread_id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_queued_followups_thread_position", "queued_followups", ["thread_id", "position"])


def downgrade() -> None:
    op.drop_index("ix_queued_followups_thread_position", table_name="queued_followups")
    op.drop_table("queued_followups")
