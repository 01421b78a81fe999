"""A folder's first snapshot beside the turn, and one scan per snapshot on a hostile folder (issue 34 item 3).

LOOP-1: the first snapshot of a big folder hashes every file (seconds); the turn does not wait for it
past ``first_snapshot_wait_s``. The turn's row says ``taking`` until the snapshot is taken, then holds
it: proven by the files' ctimes to be the folder before the turn, or ``not_exact`` when the agent
wrote while it was being taken, which a restore says. Real git, real folders, rows on SQLite and
PostgreSQL; the snapshot is held back by holding the shadow repository's own lock, so the test does
not depend on the machine's speed.

SBX-3: the shadow repository's new options (untracked cache, split index, HEAD on the snapshot ref)
are set on it by XWorkmate; the folder's own config, attributes filters, fsmonitor, planted ``.git``
and links are never run or followed.
"""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.checkpoints.support import dot_git_state, git, make_repo, shadow_env
from xworkmate.agents.checkpoints import ShadowRepo
from xworkmate.controllers import SessionController
from xworkmate.domain.checkpoints import CheckpointError
from xworkmate.domain.keys import key_to_dir_name
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.store.checkpoints import CheckpointRepository


def _line(agent: SessionController) -> tuple[str, Path, ShadowRepo]:
    line = agent.lines.create_line("big folder")
    folder = Path(line.workspace_binding.path or "")
    git_dir = agent.checkpoints.root / f"{key_to_dir_name(line.thread_id)}.git"
    return line.thread_id, folder, ShadowRepo(git_dir, folder)


def test_the_first_snapshot_goes_on_beside_the_turn_and_the_row_gets_it_proven_exact(
    store: Store, settings: Settings
) -> None:
    agent = SessionController(store, settings)
    key, folder, shadow = _line(agent)
    (folder / "a.txt").write_text("before\n")
    checkpoints = agent.checkpoints
    checkpoints.first_snapshot_wait_s = 0.0

    async def turn() -> int:
        with shadow.lock:  # the snapshot cannot be taken yet: the turn must not wait for it
            started = await checkpoints.before_turn(key)
            assert started is not None and started.before_state == "taking"
            with pytest.raises(CheckpointError, match="still being taken"):
                checkpoints.changes(key, turn=started.turn)
        await checkpoints.after_turn(started, "finished")  # a turn that only read
        return started.turn

    first = asyncio.run(turn())
    row = CheckpointRepository(store).get(key, first)
    assert row is not None and row.before_state is None and row.before_commit == row.after_commit

    async def second() -> None:
        started = await checkpoints.before_turn(key)
        (folder / "a.txt").write_text("the second turn's\n")
        await checkpoints.after_turn(started, "finished")

    asyncio.run(second())
    result = checkpoints.restore(key, first)
    assert result.before_exact and (folder / "a.txt").read_text() == "before\n"


def test_a_write_while_the_first_snapshot_is_taken_marks_it_not_exact_and_restore_says_so(
    store: Store, settings: Settings
) -> None:
    agent = SessionController(store, settings)
    key, folder, shadow = _line(agent)
    (folder / "a.txt").write_text("before\n")
    checkpoints = agent.checkpoints
    checkpoints.first_snapshot_wait_s = 0.0

    async def turn() -> int:
        with shadow.lock:
            started = await checkpoints.before_turn(key)
            assert started is not None and started.before_state == "taking"
            (folder / "a.txt").write_text("the agent's first write\n")  # before the snapshot reads it
        await checkpoints.after_turn(started, "finished")
        return started.turn

    first = asyncio.run(turn())
    row = CheckpointRepository(store).get(key, first)
    assert row is not None and row.before_state == "not_exact" and row.before_commit
    result = checkpoints.restore(key, first, force=True)
    assert not result.before_exact


def test_the_first_snapshot_is_in_its_row_while_the_turn_runs_so_a_death_after_it_is_restorable(
    store: Store, settings: Settings
) -> None:
    """LOOP-1, ERR-2: the row gets the first snapshot as soon as it is taken, not at the turn's end;
    a process killed mid-turn after that leaves a row a restore can use (it said "missing")."""
    agent = SessionController(store, settings)
    key, folder, shadow = _line(agent)
    (folder / "a.txt").write_text("before\n")
    checkpoints = agent.checkpoints
    checkpoints.first_snapshot_wait_s = 0.0
    rows = CheckpointRepository(store)

    async def turn_that_dies() -> int:
        with shadow.lock:
            started = await checkpoints.before_turn(key)
            assert started is not None and started.before_state == "taking"
        for _ in range(600):  # the turn is still running: its after_turn never comes
            row = rows.get(key, started.turn)
            if row is not None and row.before_commit:
                break
            await asyncio.sleep(0.05)
        (folder / "a.txt").write_text("the agent's write, then the process dies\n")
        return started.turn

    turn = asyncio.run(turn_that_dies())
    row = rows.get(key, turn)
    assert row is not None and row.before_commit and row.before_state is None and row.finished_at is None
    assert rows.end_unfinished(key, "interrupted") == 1  # what the next open does once the owner is dead
    result = checkpoints.restore(key, turn, force=True)
    assert result.before_exact and (folder / "a.txt").read_text() == "before\n"


def test_a_first_snapshot_done_within_the_wait_is_an_ordinary_exact_before(
    sqlite_store: Store, settings: Settings
) -> None:
    agent = SessionController(sqlite_store, settings)
    key, folder, _shadow = _line(agent)
    (folder / "a.txt").write_text("before\n")
    agent.checkpoints.first_snapshot_wait_s = 60.0

    async def turn() -> None:
        started = await agent.checkpoints.before_turn(key)
        assert started is not None and started.before_state is None and started.before_commit
        (folder / "a.txt").write_text("changed\n")
        await agent.checkpoints.after_turn(started, "finished")

    asyncio.run(turn())
    [change] = agent.checkpoints.changes(key, turn=1).files
    assert (change.path, change.additions, change.deletions) == ("a.txt", 1, 1)


def _marker_script(tmp_path: Path, marker: Path) -> Path:
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("first_wait_s", [0.0, 60.0])
def test_snapshots_by_status_run_nothing_of_the_folder_and_follow_no_link(
    sqlite_store: Store, settings: Settings, tmp_path: Path, outside: Path, first_wait_s: float
) -> None:
    agent = SessionController(sqlite_store, settings)
    key, folder, shadow = _line(agent)
    make_repo(folder)
    marker = tmp_path / "ran"
    script = _marker_script(tmp_path, marker)
    # The agent's config names a filter (through its .gitattributes), an fsmonitor, hooks and the very options
    # XWorkmate now sets on its own repository, and a nested folder plants a .git file pointing elsewhere.
    for name, value in (
        ("filter.evil.clean", str(script)),
        ("filter.evil.smudge", str(script)),
        ("filter.evil.required", "true"),
        ("core.fsmonitor", str(script)),
        ("core.hooksPath", str(tmp_path)),
        ("core.untrackedCache", "false"),
        ("core.splitIndex", "false"),
        ("status.showUntrackedFiles", "no"),
    ):
        git(folder, "config", name, value)
    (folder / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (folder / "nested").mkdir()
    elsewhere = tmp_path / "elsewhere"  # a real repository outside, with its own fsmonitor
    git(tmp_path, "init", "-q", str(elsewhere))
    git(elsewhere, "config", "core.fsmonitor", str(script))
    (folder / "nested" / ".git").write_text(f"gitdir: {elsewhere / '.git'}\n")
    (folder / "nested" / "inside.txt").write_text("nested\n")
    (folder / "host-file").symlink_to(outside / "victim")
    (folder / "host-folder").symlink_to(outside / "sub")
    (folder / "plain.txt").write_text("plain\n")
    before_git = dot_git_state(folder)
    marker.unlink(missing_ok=True)  # the person's own git above ran their filter, not XWorkmate
    agent.checkpoints.first_snapshot_wait_s = first_wait_s

    async def turns() -> None:
        for text in ("one\n", "two\n"):
            started = await agent.checkpoints.before_turn(key)
            assert started is not None
            (folder / "plain.txt").write_text(text)
            (folder / "new.txt").write_text(text)
            await agent.checkpoints.after_turn(started, "finished")

    asyncio.run(turns())
    assert not marker.exists()
    assert dot_git_state(folder) == before_git
    files = {change.path for change in agent.checkpoints.changes(key, turn=2).files}
    assert files == {"plain.txt", "new.txt"}
    tree = shadow.git("ls-tree", "-r", "--full-tree", "refs/xworkmate/snapshots").decode()
    assert "120000 blob" in next(line for line in tree.splitlines() if line.endswith("\thost-file"))
    assert not any(line.endswith(("host-folder/keep.txt", "\tvictim")) for line in tree.splitlines())
    assert "nested/inside.txt" not in tree  # a folder with its own .git is not snapshotted
    config = (shadow.git_dir / "config").read_text()
    for option in ("untrackedcache = true", "splitindex = true", "showuntrackedfiles = all"):
        assert option in config.lower()
    assert (shadow.git_dir / "HEAD").read_text() == "ref: refs/xworkmate/snapshots\n"
    assert "fsmonitor" not in config.lower() and "filter" not in config.lower()
    assert stat.S_ISREG(os.lstat(outside / "victim").st_mode)
    assert (outside / "victim").read_text() == "the host's victim\n"
    # The shadow index is refreshed and kept by one status: a second status finds nothing to hash.
    again = subprocess.run(
        ["git", "status", "--porcelain=v2", "-z", "-uall"],
        env={**shadow_env(shadow), "GIT_TRACE2_PERF": str(tmp_path / "trace")},
        capture_output=True,
        check=True,
    )
    assert again.stdout == b"" or all(r.startswith(b"? ") for r in again.stdout.split(b"\0") if r)
    assert "....opendir:" in (tmp_path / "trace").read_text()  # the untracked cache answered


def test_a_row_left_taking_by_a_dead_process_ends_missing_and_restore_says_no_checkpoint(
    store: Store, settings: Settings
) -> None:
    """What ``recover_interrupted_turns`` does for a turn whose process died while its first snapshot was taken
    (the kill itself: tests/cli/test_crash_checkpoint_rows.py)."""
    agent = SessionController(store, settings)
    key, _folder, _shadow = _line(agent)
    rows = CheckpointRepository(store)
    started = rows.begin(key, "", "taking")
    assert rows.end_unfinished(key, "interrupted") == 1
    row = rows.get(key, started.turn)
    assert row is not None and (row.before_state, row.status) == ("missing", "interrupted")
    assert row.finished_at is not None
    with pytest.raises(CheckpointError, match="no checkpoint was taken before turn 1"):
        agent.checkpoints.restore(key, started.turn)
    assert rows.end_unfinished(key, "interrupted") == 0  # ended once
