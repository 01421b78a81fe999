"""Task lines: threads, messages, app state (SPEC §2, ISO-1..ISO-4).

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_big_id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "threads",
        sa.Column("thread_id", sa.String(200), primary_key=True),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False, server_default="conversation"),
        sa.Column(
            "parent_key",
            sa.String(200),
            sa.ForeignKey("threads.thread_id", name="fk_threads_parent", ondelete="RESTRICT"),
            nullable=True,
        ),
        sa.Column("category", sa.String(64), nullable=True),
        sa.Column("category_own", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("archived", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("workspace_path", sa.Text(), nullable=True),
        sa.Column("workspace_kind", sa.String(20), nullable=False, server_default="local"),
        sa.Column("workspace_bound_by", sa.String(20), nullable=False, server_default="explicit"),
        sa.Column("execution_mode", sa.String(10), nullable=False, server_default="native"),
        sa.Column("provider", sa.String(200), nullable=True),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("acp_session_id", sa.String(200), nullable=True),
        sa.Column("context_model", sa.String(200), nullable=True),
        sa.Column("selected_skills", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("permission_level", sa.String(16), nullable=False, server_default="ask"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_threads_parent_key", "threads", ["parent_key"])
    op.create_index("ix_threads_archived_created", "threads", ["archived", "created_at"])
    op.create_table(
        "messages",
        sa.Column("id", _big_id, primary_key=True, autoincrement=True),
        sa.Column(
            "thread_id",
            sa.String(200),
            sa.ForeignKey("threads.thread_id", name="fk_messages_thread", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False, server_default="complete"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_messages_thread_id_id", "messages", ["thread_id", "id"])
    op.create_table(
        "app_state",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("app_state")
    op.drop_index("ix_messages_thread_id_id", table_name="messages")
    op.drop_table("messages")
    op.drop_index("ix_threads_archived_created", table_name="threads")
    op.drop_index("ix_threads_parent_key", table_name="threads")
    op.drop_table("threads")
