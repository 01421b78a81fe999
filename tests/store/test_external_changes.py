"""``ChangeWatcher`` (issue 18, item 6): what another connection wrote, cheaply, on both databases.

A second ``Store`` on the same URL stands for the CLI (its own engine and
connections); the window-level test drives a real ``xworkmate`` process.
"""

from __future__ import annotations

from datetime import UTC, datetime

from xworkmate.domain.keys import allocate_draft_key
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import TaskThread, WorkspaceBinding
from xworkmate.store import Store, open_store
from xworkmate.store.external_changes import ChangeWatcher


def test_the_watcher_sees_each_outside_write_once_and_nothing_when_idle(store: Store, database_url: str) -> None:
    watcher = ChangeWatcher(store)
    other = open_store(database_url)
    try:
        assert not watcher.poll().any
        other.providers.add(ProviderRecord(name="cli", base_url="http://127.0.0.1:9/v1", model="m"))
        change = watcher.poll()
        assert change.providers and not change.threads
        assert not watcher.poll().any
        now = datetime.now(UTC)
        other.threads.insert(
            TaskThread(
                thread_id=allocate_draft_key(),
                title="From the CLI",
                workspace_binding=WorkspaceBinding(),
                created_at=now,
                updated_at=now,
            )
        )
        change = watcher.poll()
        assert change.threads and not change.providers
        other.app_state.set("some.ui.state", "x")  # a write to neither table: nothing to refresh
        assert not watcher.poll().any
    finally:
        other.close()
        watcher.close()
