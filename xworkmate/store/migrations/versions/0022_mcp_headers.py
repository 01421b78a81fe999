"""MCP servers over sse, and headers for http/sse servers as references (issue 32, item 6).

``mcp_servers.header_refs``: ``[[NAME, "env:VAR"], ...]``, read from the environment when an agent
starts and never stored as values (SEC-1). ``transport`` may now also be ``sse`` (the column fits it).

Revision ID: 0022
Revises: 0020
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("mcp_servers", sa.Column("header_refs", sa.Text(), nullable=False, server_default="[]"))


def downgrade() -> None:
    # An sse server goes: the old build knew only stdio and http.
    op.execute("DELETE FROM mcp_servers WHERE transport = 'sse'")
    op.drop_column("mcp_servers", "header_refs")
