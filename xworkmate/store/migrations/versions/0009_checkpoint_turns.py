"""Per-turn checkpoints (issue 16, LOOP-1).

* ``checkpoint_turns``: one row per turn of a line, with the shadow repository's commit
  from before and after the turn, the turn's last message and its change set (JSON).

Revision ID: 0009
Revises: 0013
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0013"  # merged after 0013 (line marks): the chain is 0008, 0013, 0009, 0010
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "checkpoint_turns",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column(
            "thread_id",
            sa.String(length=200),
            sa.ForeignKey("threads.thread_id", name="fk_checkpoint_turns_thread", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("before_commit", sa.String(length=64), nullable=False),
        sa.Column("after_commit", sa.String(length=64), nullable=True),
        sa.Column("message_id", _ID, nullable=True),
        sa.Column("fork_before_id", _ID, nullable=True),
        sa.Column("files", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("thread_id", "turn", name="uq_checkpoint_turns_thread_turn"),
    )


def downgrade() -> None:
    op.drop_table("checkpoint_turns")
