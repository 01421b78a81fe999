"""What the window remembers per line for the person (issue 17, LOOP-2).

* ``line_marks``: one row per line, written only once the person or a turn
  gives it something to hold —
  ``last_seen_message_id`` (the newest message the person has seen on it: a
  finish or failure after it is unread), ``last_outcome`` / ``last_outcome_at``
  (how and when its last turn ended), ``outcome_message_id`` (the line's newest
  message when it ended, so start-up needs no scan of the messages),
  ``notifications_muted`` and ``draft``
  (the composer's unsent text).

A table of its own, not columns on ``threads``: these are the person's marks,
written often (every switch, the draft as it is typed), and never part of a
line's identity or its copies (a fork starts unread-free with no draft).

Revision ID: 0013
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "line_marks",
        sa.Column(
            "thread_id",
            sa.String(length=200),
            sa.ForeignKey("threads.thread_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("last_seen_message_id", sa.BigInteger(), nullable=True),
        sa.Column("last_outcome", sa.String(length=16), nullable=True),
        sa.Column("last_outcome_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome_message_id", sa.BigInteger(), nullable=True),
        sa.Column("notifications_muted", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("draft", sa.Text(), nullable=False, server_default=""),
    )


def downgrade() -> None:
    op.drop_table("line_marks")
