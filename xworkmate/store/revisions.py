"""The schema's revisions as the migration scripts name them, read without Alembic or SQLAlchemy.

Opening an up-to-date database is on the start-up path, and so is the window's first task list, read
before SQLAlchemy loads (``store/first_list``, issue 19 item 7): both ask ``head_revision`` whether a
database is current. Alembic itself is imported only when there is something to upgrade (``database``).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

_REVISION_RE = re.compile(r"^revision\s*=\s*[\"'](\w+)[\"']", re.MULTILINE)
_DOWN_RE = re.compile(r"^down_revision\s*=\s*(?:None|[\"'](\w+)[\"'])", re.MULTILINE)


class StoreOpenError(RuntimeError):
    """The database could not be opened; the message is one line a person can act on."""


@cache
def revisions() -> dict[str, str | None]:
    """revision → down_revision, read from the migration scripts (``MIGRATIONS_DIR/versions``)."""
    graph: dict[str, str | None] = {}
    for script in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        source = script.read_text(encoding="utf-8")
        revision, down = _REVISION_RE.search(source), _DOWN_RE.search(source)
        if revision is None or down is None:
            raise StoreOpenError(f"migration script {script.name} has no revision/down_revision line")
        graph[revision.group(1)] = down.group(1)
    return graph


def head_revision() -> str | None:
    graph = revisions()
    heads = set(graph) - {down for down in graph.values() if down is not None}
    if len(heads) > 1:
        raise StoreOpenError(f"the migrations have several heads: {', '.join(sorted(heads))}")
    return next(iter(heads), None)
