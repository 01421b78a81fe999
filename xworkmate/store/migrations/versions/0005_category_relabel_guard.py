"""CAT-7 relabel guard: a parent cannot take a category its children would disagree with.

0003's trigger checks a row against its parent. This one checks it against its
children: setting a thread's category to ``P`` (by hand, or by the inherit copy
of 0003) is refused when a child would then break CAT-7 under ``P``:

* a child that inherits (``category_own`` false) and does not hold ``P``: it was
  copied from the parent and would now disagree with it;
* any child, own or not, that carries a category other than ``P``: a category
  task must carry its parent's category (CAT-5, CAT-7).

A task that owns ``None`` (a normal task) may stay normal under ``P``, as on
insert. Clearing a category (``P`` is ``NULL``) is not checked, as 0003 checks
nothing under a normal parent. The application's relabel (CAT-10) moves a whole
subtree level by level: it clears top-down, then labels bottom-up, so every
statement it makes satisfies both triggers (``ThreadRepository.set_category``).

Only triggers are added; ``threads`` is never recreated (see 0003). The
downgrade drops them, which leaves 0003's triggers exactly as they were.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

# -- on SQLite ----------------------------------------------------------------------------
# 0003's inherit copy is an UPDATE of ``category``, so it fires this trigger too:
# a child moved under a category parent cannot take a category its own children
# contradict. ``IS NOT`` is SQLite's null-safe "differs" (IS DISTINCT FROM needs 3.39).

_SQLITE_TRIGGER = "threads_category_guard_relabel"
_SQLITE_MESSAGE = (
    "CAT-7: a thread cannot take a category its child threads would disagree with; relabel its whole subtree (CAT-10)"
)

_SQLITE_GUARD = f"""
CREATE TRIGGER {_SQLITE_TRIGGER}
BEFORE UPDATE OF category ON threads
FOR EACH ROW
WHEN NEW.category IS NOT NULL AND NEW.category IS NOT OLD.category
BEGIN
    SELECT RAISE(ABORT, '{_SQLITE_MESSAGE}')
    FROM threads AS child
    WHERE child.parent_key = NEW.thread_id
      AND child.category IS NOT NEW.category
      AND NOT (child.category IS NULL AND child.category_own);
END
"""

# -- on PostgreSQL ------------------------------------------------------------------------
# BEFORE triggers run in name order, so this one runs after 0003's
# ``threads_category_update`` and sees the category that trigger may have copied
# in; it also fires on a move (``parent_key``) for that reason.

_PG_TRIGGER = "threads_category_update_relabel_guard"

_PG_MESSAGE = (
    "CAT-7: thread % cannot take category % while its child % has category %; relabel its whole subtree (CAT-10)"
)

_PG_FUNCTION = f"""
CREATE OR REPLACE FUNCTION threads_guard_relabel() RETURNS trigger AS $$
DECLARE
    child_key text;
    child_category text;
BEGIN
    IF NEW.category IS NULL OR NEW.category IS NOT DISTINCT FROM OLD.category THEN
        RETURN NEW;
    END IF;
    SELECT child.thread_id, child.category INTO child_key, child_category
    FROM threads AS child
    WHERE child.parent_key = NEW.thread_id
      AND child.category IS DISTINCT FROM NEW.category
      AND NOT (child.category IS NULL AND child.category_own)
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '{_PG_MESSAGE}',
            NEW.thread_id, NEW.category, child_key, coalesce(child_category, 'none')
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql
"""


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute(sa.text(_SQLITE_GUARD))
    elif dialect == "postgresql":
        op.execute(sa.text(_PG_FUNCTION))
        op.execute(
            sa.text(
                f"CREATE TRIGGER {_PG_TRIGGER} BEFORE UPDATE OF parent_key, category ON threads"
                " FOR EACH ROW EXECUTE FUNCTION threads_guard_relabel()"
            )
        )
    else:  # pragma: no cover - only the two supported databases
        raise NotImplementedError(f"CAT-7 relabel guard not written for {dialect}")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute(sa.text(f"DROP TRIGGER IF EXISTS {_SQLITE_TRIGGER}"))
    elif dialect == "postgresql":
        op.execute(sa.text(f"DROP TRIGGER IF EXISTS {_PG_TRIGGER} ON threads"))
        op.execute(sa.text("DROP FUNCTION IF EXISTS threads_guard_relabel()"))
