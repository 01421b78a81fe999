"""Worktree lines (issue 16, item 4): a line bound to a git worktree of a repository.

* ``threads.worktree_repo``: the repository the worktree was added from (its top folder);
* ``threads.worktree_branch``: the worktree's branch, kept while the line is archived so
  unarchiving can add the worktree again.

Both NULL for every other line (``workspace_kind`` is ``worktree`` only for these). Added in
place, as 0007 added ``quarantine_untrusted`` (recreating ``threads`` would cascade on SQLite).

Revision ID: 0010
Revises: 0009 (0008 on branch i16b before it merged i16a)
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("threads", sa.Column("worktree_repo", sa.Text(), nullable=True))
    op.add_column("threads", sa.Column("worktree_branch", sa.String(length=255), nullable=True))


def downgrade() -> None:
    # drop_column on SQLite >= 3.35 works in place; no table is recreated.
    op.drop_column("threads", "worktree_branch")
    op.drop_column("threads", "worktree_repo")
