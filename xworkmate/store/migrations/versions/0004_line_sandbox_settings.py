"""Per-line sandbox settings and ACP agents' writable state folders (SBX-1).

* ``threads.network_access``: whether commands of the line may use the network
  (``network off|on``, default off);
* ``threads.command_env_names``: JSON list of environment variable names the
  person lets through to the line's commands (the sandbox passes an allow-list);
* ``providers.acp_state_dirs``: JSON list of folders an ACP agent may write
  (its own config and data); NULL means the defaults for a known agent.

Columns are added in place, never by recreating a table (see 0003: recreating
``threads`` on SQLite would cascade-delete messages and drop the triggers).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("threads", sa.Column("network_access", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("threads", sa.Column("command_env_names", sa.Text(), nullable=False, server_default="[]"))
    op.add_column("providers", sa.Column("acp_state_dirs", sa.Text(), nullable=True))


def downgrade() -> None:
    # drop_column on SQLite >= 3.35 works in place; no table is recreated.
    op.drop_column("providers", "acp_state_dirs")
    op.drop_column("threads", "command_env_names")
    op.drop_column("threads", "network_access")
