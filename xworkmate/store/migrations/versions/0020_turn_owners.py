"""Turns that survive a crash (issue 31 item 4, SPEC ERR-2, ISO-4).

* ``turn_owners``: one row per line with a turn running — the process that runs
  it (``host``, ``pid`` and that process's start time, so a reused pid is not
  taken for it), when it last said it was alive (``heartbeat_at``, the lease a
  process on another host judges by), the newest message before the turn
  (``after_message_id``: what the turn stored is newer) and the reply it was
  streaming (``partial_text``, flushed as it streams: kept when the process dies).
  A row left behind by a process that is gone is a turn that was interrupted.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "turn_owners",
        sa.Column(
            "thread_id",
            sa.String(length=200),
            sa.ForeignKey("threads.thread_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("process_started", sa.String(length=32), nullable=False, server_default=""),
        sa.Column("mode", sa.String(length=16), nullable=False, server_default="native"),
        sa.Column("after_message_id", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("partial_text", sa.Text(), nullable=False, server_default=""),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("turn_owners")
