"""Seeding many lines quickly, through the store's public repository (not the window)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from xworkmate.controllers import SessionController
from xworkmate.domain.keys import allocate_draft_key
from xworkmate.domain.threads import TaskThread, WorkspaceBinding


def add_lines(controller: SessionController, count: int) -> list[str]:
    """``count`` lines sharing one existing folder (enough for list tests), oldest first."""
    store = controller._store  # test seeding only; the window never touches the store
    folder = controller.settings.threads_root / "bulk"
    folder.mkdir(parents=True, exist_ok=True)
    start = datetime.now(UTC)
    keys: list[str] = []
    for n in range(count):
        key = allocate_draft_key()
        when = start + timedelta(microseconds=n)
        store.threads.insert(
            TaskThread(
                thread_id=key,
                title=f"Bulk line {n}",
                workspace_binding=WorkspaceBinding(path=str(folder)),
                created_at=when,
                updated_at=when,
            )
        )
        keys.append(key)
    return keys
