"""A time limit per turn, per line (issue 13).

* ``threads.turn_limit_s``: how long one turn may run, in seconds, on top of the
  model stream's gap timeout; past it the turn ends as Stop ends it. Default
  30 minutes.

The column is added in place, never by recreating ``threads`` (see 0003:
recreating it on SQLite would cascade-delete messages and drop the triggers).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("threads", sa.Column("turn_limit_s", sa.Integer(), nullable=False, server_default="1800"))


def downgrade() -> None:
    # drop_column on SQLite >= 3.35 works in place; no table is recreated.
    op.drop_column("threads", "turn_limit_s")
