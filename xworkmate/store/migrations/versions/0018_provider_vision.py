"""A provider's model takes images (SPEC ATT-1, issue 31).

* ``providers.vision``: the model takes images as OpenAI ``image_url`` content
  parts; attachments that are images go only to such a provider.

Attachments themselves ride in the message's ``payload`` (no new table).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("providers", sa.Column("vision", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("providers", "vision")
