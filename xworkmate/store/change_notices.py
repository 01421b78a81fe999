"""The PostgreSQL channel on which writers tell the other processes what changed (issue 19 item 6, issue 31 item 3).

Migration 0014's triggers send most notices (lines, messages, providers, run statuses); a follow-up queue's
writer sends its own (``notify_queue_changed``), at its transaction's commit. ``store.external_changes``
listens. Kept apart from it so the queue's repository can send without importing the watcher (which imports
the store that builds the repository).
"""

from __future__ import annotations

import json

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

CHANNEL = "xworkmate_changes"
QUEUE_CHANGED = "q"
"""A notice's first item when a line's follow-up queue changed: ``["q", key]``."""


def notify_queue_changed(connection: Connection, key: str) -> None:
    """PostgreSQL: the other processes' listeners hear that ``key``'s follow-up queue changed when
    ``connection``'s transaction commits (and never if it rolls back). SQLite needs nothing: its watcher reads
    the queues whenever ``PRAGMA data_version`` moved."""
    if connection.dialect.name == "postgresql":
        connection.execute(select(func.pg_notify(CHANNEL, json.dumps([QUEUE_CHANGED, key]))))
