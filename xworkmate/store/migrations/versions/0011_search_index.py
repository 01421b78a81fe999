"""The search index (SPEC LOOP-3, issue 17 item 4).

* SQLite: ``message_search``, an FTS5 table (``tokenize='ascii'``: it splits on the spaces
  between the tokens ``domain.search.index_terms`` made, nothing more; prefix indexes for
  two and three characters) with ``rowid`` =
  ``messages.id`` and two columns, ``terms`` (words and CJK bigrams, in order) and ``chars``
  (CJK characters); a trigger drops a message's entry when the message goes.
* PostgreSQL: ``message_search(message_id → messages.id ON DELETE CASCADE, terms tsvector)``
  with a GIN index, and ten times the default statistics on ``terms`` (the planner's choice
  between the index and a newest-first walk depends on them).

Rows are written in the transaction that writes the message (``store.search``). Existing
messages are indexed here, in batches.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"  # merged after 0010: the chain is 0008, 0013, 0009, 0010, 0011
branch_labels = None
depends_on = None


def upgrade() -> None:
    from xworkmate.store.search import create_search_index, reindex_all

    bind = op.get_bind()
    create_search_index(bind)
    reindex_all(bind)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute(sa.text("DROP TRIGGER IF EXISTS messages_search_delete"))
        op.execute(sa.text("DROP TABLE IF EXISTS message_search"))
    else:
        op.execute(sa.text("DROP TABLE IF EXISTS message_search"))
