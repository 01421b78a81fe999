"""Providers (no secrets) and structured message payloads (tool calls, cards).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "providers",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("kind", sa.String(10), nullable=False, server_default="openai"),
        sa.Column("base_url", sa.Text(), nullable=True),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("tags", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("api_key_env", sa.String(200), nullable=True),
        sa.Column("api_key_keyring", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("is_default", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("acp_command", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("acp_env_refs", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("messages") as batch:
        batch.add_column(sa.Column("payload", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("payload")
    op.drop_table("providers")
