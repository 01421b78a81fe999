"""The sign-in method a person chose for an ACP agent (issue 15, item 1).

* ``providers.acp_auth_method``: the id of one of the agent's ``authMethods``
  (from its ``initialize`` answer) that XWorkmate passes to ``authenticate``;
  NULL: the only method the agent offers, or ask the person.

Added in place, as 0004 added ``acp_state_dirs``.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("providers", sa.Column("acp_auth_method", sa.String(length=200), nullable=True))


def downgrade() -> None:
    op.drop_column("providers", "acp_auth_method")
