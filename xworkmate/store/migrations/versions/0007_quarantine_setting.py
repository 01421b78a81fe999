"""Quarantine of untrusted tool output, per line (SPEC Q-1, issue 14).

* ``threads.quarantine_untrusted``: when true, the output of the line's
  untrusted tools (``domain.tool_trust``) is stored quarantined: whole for the
  person, a placeholder for the model. Default off.

The column is added in place, never by recreating ``threads`` (see 0003:
recreating it on SQLite would cascade-delete messages and drop the triggers).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "threads",
        sa.Column("quarantine_untrusted", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    # drop_column on SQLite >= 3.35 works in place; no table is recreated.
    op.drop_column("threads", "quarantine_untrusted")
