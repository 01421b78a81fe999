"""A turn's "before" snapshot may be taken beside the turn (issue 34 item 3, LOOP-1).

``checkpoint_turns.before_state``: NULL when the snapshot before the turn was taken before it
began (every older row); ``taking`` while a big folder's first snapshot runs beside the turn;
``not_exact`` when files changed after the turn began, so the snapshot may hold some of the
turn's own first changes; ``missing`` when the process stopped before it was taken.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("checkpoint_turns", sa.Column("before_state", sa.String(16), nullable=True))


def downgrade() -> None:
    op.drop_column("checkpoint_turns", "before_state")
