"""A line's network by allow-list (SPEC SBX-4, issue 29).

* ``threads.network_mode``: ``off``, ``allow-list`` or ``on``, replacing the
  boolean ``network_access`` of 0004 (true → ``on``, false → ``off``);
* ``threads.network_hosts``: JSON list of the ``host:port`` entries an
  ``allow-list`` line reaches through XWorkmate's proxy;
* ``providers.acp_allow_hosts``: JSON list of ``host:port`` entries an ACP
  agent's sandbox reaches besides its known model hosts (``--acp-allow-host``).

Columns are added and dropped in place, never by recreating a table (see 0004).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("threads", sa.Column("network_mode", sa.String(length=16), nullable=False, server_default="off"))
    op.add_column("threads", sa.Column("network_hosts", sa.Text(), nullable=False, server_default="[]"))
    op.execute("UPDATE threads SET network_mode = 'on' WHERE network_access")
    op.drop_column("threads", "network_access")
    op.add_column("providers", sa.Column("acp_allow_hosts", sa.Text(), nullable=False, server_default="[]"))


def downgrade() -> None:
    # An allow-list line goes back to off: the old build knew only off and on.
    op.add_column("threads", sa.Column("network_access", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.execute("UPDATE threads SET network_access = (network_mode = 'on')")
    op.drop_column("providers", "acp_allow_hosts")
    op.drop_column("threads", "network_hosts")
    op.drop_column("threads", "network_mode")
