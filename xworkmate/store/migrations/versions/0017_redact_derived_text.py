"""Text derived from messages before it was redacted, redacted now (SPEC SEC-1, issue 29 item 3).

Since issue 29 the search index holds the redacted text of each message, and a title made from a
first message is redacted before it is stored. A database written before that still has:

* ``message_search`` entries with the words of a key the person pasted (a search at query time
  already drops such hits; the words stay in the file until they are re-indexed): each message whose
  redacted text differs is re-indexed (``store.search.redact_index``, which reads every message once);
* ``threads.title`` made from such a message: each title is replaced by its redacted text.

The stored messages keep what the person typed. The redaction knows the common key formats here;
keys configured later are replaced as they are registered, in every new derived text.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from xworkmate.domain.secrets import redact
    from xworkmate.store.search import redact_index

    bind = op.get_bind()
    redact_index(bind)
    threads = sa.table("threads", sa.column("thread_id", sa.String), sa.column("title", sa.String))
    changed = [
        {"key": key, "title": redacted}
        for key, title in bind.execute(sa.select(threads.c.thread_id, threads.c.title))
        if title and (redacted := redact(title)) != title
    ]
    if changed:
        bind.execute(
            threads.update().where(threads.c.thread_id == sa.bindparam("key")).values(title=sa.bindparam("title")),
            changed,
        )


def downgrade() -> None:
    # Nothing to put back: the redacted words were never the person's (their messages keep them).
    pass
