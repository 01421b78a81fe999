"""What an ACP agent offers a line, the line's usage meter, MCP servers (issue 15, items 3, 4-6).

* ``line_agent_state``: per line, JSON of the agent's modes, models, config options and slash
  commands (``domain.agent_session.AgentSessionState``) and the person's choices in the pickers;
* ``line_usage``: per line, context used of its size, tokens in and out, cost where known;
* ``mcp_servers``: MCP servers a person configured once (stdio command or http URL, environment
  references ``NAME=env:VAR`` never values (SEC-1), category tags as for providers);
* ``line_mcp_servers``: which of them a line gets.

New tables only; nothing existing is recreated.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"  # merged after 0011: the chain is 0008, 0013, 0009, 0010, 0011, 0012
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "line_agent_state",
        sa.Column(
            "thread_id", sa.String(200), sa.ForeignKey("threads.thread_id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("state", sa.Text(), nullable=False, server_default="{}"),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "line_usage",
        sa.Column(
            "thread_id", sa.String(200), sa.ForeignKey("threads.thread_id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("context_used", sa.BigInteger(), nullable=True),
        sa.Column("context_size", sa.BigInteger(), nullable=True),
        sa.Column("tokens_in", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("tokens_out", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("cost", sa.Float(), nullable=True),
        sa.Column("currency", sa.String(16), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "mcp_servers",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("transport", sa.String(10), nullable=False, server_default="stdio"),
        sa.Column("command", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("env_refs", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("tags", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "line_mcp_servers",
        sa.Column("thread_id", sa.String(200), sa.ForeignKey("threads.thread_id", ondelete="CASCADE"), nullable=False),
        sa.Column("server_name", sa.String(100), sa.ForeignKey("mcp_servers.name", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("thread_id", "server_name"),
    )


def downgrade() -> None:
    op.drop_table("line_mcp_servers")
    op.drop_table("mcp_servers")
    op.drop_table("line_usage")
    op.drop_table("line_agent_state")
