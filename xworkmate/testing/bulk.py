"""Many lines at once, for tests and benchmarks of scale: bulk inserts, not a line's whole creation."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert

from xworkmate.domain.keys import allocate_draft_key
from xworkmate.store import Store
from xworkmate.store.tables import ThreadRow


def insert_lines(store: Store, folders: Sequence[str | os.PathLike[str]], *, batch: int = 20_000) -> list[str]:
    """One line bound to each of ``folders`` ("Line 0", "Line 1", … created in that order), inserted a
    ``batch`` of rows at a time, as many lines as a person gathers over years; returns their keys."""
    start = datetime.now(UTC)
    keys = [allocate_draft_key() for _ in folders]
    rows = [
        {
            "thread_id": key,
            "title": f"Line {n}",
            "workspace_path": os.fspath(folder),
            "created_at": start + timedelta(microseconds=n),
            "updated_at": start + timedelta(microseconds=n),
        }
        for n, (key, folder) in enumerate(zip(keys, folders, strict=True))
    ]
    with store.engine.begin() as conn:
        for i in range(0, len(rows), batch):
            conn.execute(insert(ThreadRow), rows[i : i + batch])
    return keys
