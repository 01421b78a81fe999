"""Crafted SQLite files for the fault tests (issue 29 item 5): what a hostile or broken file can look like."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def make_threads_an_endless_view(path: Path) -> None:
    """Replace the database's ``threads`` table with an endless recursive view of its rows: any read that
    sorts or counts them never ends unless something interrupts it."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA legacy_alter_table = ON")
        db.execute("ALTER TABLE threads RENAME TO threads_kept")
        db.execute(
            "CREATE VIEW threads AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)"
            " SELECT t.* FROM threads_kept t, n"
        )
