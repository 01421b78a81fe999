"""A line's folder pinned when it is bound (issue 29, SBX-3).

* ``threads.workspace_pin``: the bound folder's ``device:inode:real path`` at bind time
  (``domain.lines.FolderPin``). A folder that later became a symbolic link, another inode or another real path
  makes the line ``needs_workspace`` with the reason (ISO-4), and nothing runs or is checkpointed in it.
  Text, not two ``bigint`` columns: device and inode numbers are unsigned 64-bit.

Lines made before this revision are pinned here, by a data step: each bound folder that is a real directory
now (``os.lstat``: not a link, not missing) is pinned as it is. It only reads the file system and writes this
new column, so it is safe to run again and cannot make a line unrunnable: a folder that is missing or a link
now is left unpinned (it is ``needs_workspace`` today already for being missing, and a link is refused pinned
or not); the gate pins such a line the first time it runs in a real directory (``TurnController``).
Added in place, as 0010 added the worktree columns (recreating ``threads`` would cascade on SQLite).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from xworkmate.domain.lines import pin_folder  # the one pin rule, as the store applies it to every bind

    op.add_column("threads", sa.Column("workspace_pin", sa.Text(), nullable=True))
    bind = op.get_bind()
    bound = bind.execute(sa.text("SELECT thread_id, workspace_path FROM threads WHERE workspace_path IS NOT NULL"))
    pins = [{"key": key, "pin": pin} for key, path in bound.all() if (pin := pin_folder(path)) is not None]
    if pins:  # one executemany: one round trip a batch on a distant PostgreSQL, not one a line
        bind.execute(sa.text("UPDATE threads SET workspace_pin = :pin WHERE thread_id = :key"), pins)


def downgrade() -> None:
    # drop_column on SQLite >= 3.35 works in place; no table is recreated.
    op.drop_column("threads", "workspace_pin")
