"""Migration 0015 and the store's pins (issue 29, SBX-3), on SQLite and on PostgreSQL.

Lines bound before 0015 are pinned by its data step when their folder is a real directory; a folder missing
or a link then is left unpinned and never made unrunnable by the migration alone (a missing one is pinned by
the gate at the line's next run). Every binding the store writes is pinned as the folder is at that moment.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import text

from xworkmate.controllers import SessionController
from xworkmate.domain.lines import FolderPin, pin_folder
from xworkmate.domain.threads import ThreadStatus, WorkspaceBinding
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.store.database import create_store_engine

MISSING = "draft:01ARZ3NDEKTSV4RRFFQ69G5FAA"
LINKED = "draft:01ARZ3NDEKTSV4RRFFQ69G5FAB"


def _at_0014_with_lines(database_url: str, folders: dict[str, Path]) -> None:
    from alembic import command

    from xworkmate.store.database import _alembic_config

    engine = create_store_engine(database_url)
    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "0014")
        for key, folder in folders.items():
            conn.execute(
                text(
                    "INSERT INTO threads (thread_id, title, workspace_path, created_at, updated_at)"
                    " VALUES (:key, :key, :path, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                ),
                {"key": key, "path": str(folder)},
            )
    engine.dispose()


def test_upgrading_pins_the_folders_that_are_real_directories_and_leaves_the_others_runnable_as_before(
    database_url: str, settings: Settings, tmp_path: Path
) -> None:
    real, missing, linked = tmp_path / "real", tmp_path / "missing", tmp_path / "linked"
    real.mkdir()
    linked.symlink_to(real, target_is_directory=True)
    _at_0014_with_lines(database_url, {"main": real, MISSING: missing, LINKED: linked})

    store = open_store(database_url)
    try:
        pins = {key: store.threads.get(key).workspace_binding.pin for key in ("main", MISSING)}  # type: ignore[union-attr]
        found = os.stat(real)
        assert FolderPin.parse(pins["main"]) == (found.st_dev, found.st_ino, str(real.resolve()))
        assert pins[MISSING] is None
        assert store.threads.get(LINKED).workspace_binding.pin is None  # type: ignore[union-attr]

        controller = SessionController(store, settings)
        assert controller.lines.line_view("main").status is ThreadStatus.RUNNABLE
        missing.mkdir()  # the person makes the missing folder again by hand: runnable, pinned at its next run
        assert controller.lines.line_view(MISSING).status is ThreadStatus.RUNNABLE
        controller.turns.prepare_run(MISSING, "hi")
        assert store.threads.get(MISSING).workspace_binding.pin == pin_folder(str(missing))  # type: ignore[union-attr]
        # A link is refused pinned or not (SBX-3): the migration gave it no pin to hide behind.
        assert controller.lines.line_view(LINKED).status is ThreadStatus.NEEDS_WORKSPACE
    finally:
        store.close()


def test_downgrading_0015_drops_the_pins_and_upgrading_again_pins_anew(database_url: str, tmp_path: Path) -> None:
    from alembic import command

    from xworkmate.store.database import _alembic_config

    (tmp_path / "real").mkdir()
    _at_0014_with_lines(database_url, {"main": tmp_path / "real"})
    engine = create_store_engine(database_url)
    try:
        with engine.begin() as conn:
            command.upgrade(_alembic_config(conn), "0015")
            assert conn.execute(text("SELECT workspace_pin FROM threads")).scalar() == pin_folder(
                str(tmp_path / "real")
            )
            command.downgrade(_alembic_config(conn), "0014")
            command.upgrade(_alembic_config(conn), "0015")
            assert conn.execute(text("SELECT workspace_pin FROM threads")).scalar() == pin_folder(
                str(tmp_path / "real")
            )
    finally:
        engine.dispose()


def test_every_binding_the_store_writes_is_pinned_as_the_folder_is_then(store: Store, tmp_path: Path) -> None:
    """A binding handed to the store carries no say over its pin: the folder at that moment decides it."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    key = "main"
    SessionController(store, Settings(home=tmp_path / "home", database_url=None, workspace_root=tmp_path))
    stale = WorkspaceBinding(path=str(second), pin=pin_folder(str(first)))
    assert store.threads.set_workspace(key, stale).workspace_binding.pin == pin_folder(str(second))
    assert (
        store.threads.set_workspace(key, WorkspaceBinding(path=str(tmp_path / "nowhere"))).workspace_binding.pin is None
    )
    assert [s.workspace_pin for s in store.threads.summaries() if s.thread_id == key] == [None]
