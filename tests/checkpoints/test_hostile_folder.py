"""SBX-3 for checkpoints: revert and restore never follow a link an agent left in its folder (issue 29).

The turns run in the real sandbox with the scripted model (``run_command``); revert and restore run
as real ``python -m xworkmate`` processes, as in the issue's table (row 4). An "outside" folder
stands for the person's files: its picture (``host_state``) must never change.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.checkpoints.support import host_state, tree_state
from tests.checkpoints.test_turn_checkpoints import full_line, run, shell
from tests.cli.test_cli import assert_one_line_error, run_cli
from tests.controllers.conftest import scripted_controller
from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController
from xworkmate.domain.checkpoints import FileChangeKind
from xworkmate.domain.messages import MessageRole
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply

pytestmark = needs_bwrap


@pytest.fixture
def agent(sqlite_store: Store, settings: Settings, openai_server: OpenAIServer) -> SessionController:
    return scripted_controller(sqlite_store, settings, openai_server)


def turn(agent: SessionController, openai_server: OpenAIServer, key: str, command: str) -> None:
    """One turn whose only tool call is ``command`` in the sandbox."""
    openai_server.script(ToolCallReply([shell(command, "c")]), TextReply(["done"]))
    run(agent, key, f"please run {command}")


def row_four(agent: SessionController, openai_server: OpenAIServer, outside: Path) -> tuple[str, Path]:
    """Issue 29 row 4: turns add ``d/victim``, modify ``d/sub``, remove ``d``, then ``ln -s <outside> d``."""
    key, folder = full_line(agent)
    (folder / "d").mkdir()
    (folder / "d" / "sub").write_text("one\n")
    turn(agent, openai_server, key, "echo mine > d/victim")
    turn(agent, openai_server, key, "echo two > d/sub")
    turn(agent, openai_server, key, "rm -r d")
    turn(agent, openai_server, key, f"ln -s {outside} d")
    assert os.readlink(folder / "d") == str(outside)
    return key, folder


def test_revert_through_a_folder_that_became_a_link_is_refused_in_one_line(
    agent: SessionController, openai_server: OpenAIServer, home: Path, outside: Path
) -> None:
    """Row 4: both reverts used to delete the host's ``outside/victim`` and ``outside/sub`` (SBX-3)."""
    key, folder = row_four(agent, openai_server, outside)
    host, before = host_state(outside), tree_state(folder)

    victim = run_cli(home, "revert", key, "--turn", "1", "--file", "d/victim")
    assert_one_line_error(
        victim, f"cannot revert d/victim: its folder d is now a symbolic link (to {outside}); nothing was changed"
    )
    sub = run_cli(home, "revert", key, "--turn", "2", "--file", "d/sub")
    assert_one_line_error(sub, "cannot revert d/sub: its folder d is now a symbolic link", "nothing was changed")
    assert host_state(outside) == host
    assert tree_state(folder) == before and os.readlink(folder / "d") == str(outside)

    # The way out stays open: turn 4's own change, the link, is reverted (the link itself, never its
    # target), and then the file comes back into a real folder.
    assert run_cli(home, "revert", key, "--turn", "4", "--file", "d").returncode == 0
    assert not os.path.lexists(folder / "d")
    assert run_cli(home, "restore", key, "--turn", "3").returncode == 0
    assert (folder / "d" / "victim").read_text() == "mine\n" and not (folder / "d").is_symlink()
    assert host_state(outside) == host


def test_restore_of_a_whole_turn_through_a_linked_folder_changes_nothing(
    agent: SessionController, openai_server: OpenAIServer, home: Path, outside: Path
) -> None:
    """A restore whose files would go through a link it does not itself replace (here an ignored one)
    is refused before it writes anything, its other files included (SBX-3)."""
    key, folder = full_line(agent)
    (folder / "d").mkdir()
    (folder / "d" / "victim").write_text("mine\n")
    (folder / "d" / "sub").write_text("one\n")
    (folder / "notes.txt").write_text("first\n")
    turn(agent, openai_server, key, "echo more >> notes.txt")
    turn(agent, openai_server, key, f"rm -r d && ln -s {outside} d && echo d > .gitignore && echo again >> notes.txt")
    host, before = host_state(outside), tree_state(folder)

    refused = run_cli(home, "restore", key, "--turn", "2")
    assert_one_line_error(
        refused,
        f"cannot restore line {key} to before turn 2: d/",
        f"its folder d is now a symbolic link (to {outside}); nothing was changed",
    )
    assert host_state(outside) == host and tree_state(folder) == before
    assert (folder / "notes.txt").read_text() == "first\nmore\nagain\n"  # not half-restored

    # Restoring the turn before, where the link is no path the restore writes through, still works.
    os.unlink(folder / "d")
    forced = run_cli(home, "restore", key, "--turn", "1", "--force")
    assert forced.returncode == 0, forced.stderr
    assert (folder / "notes.txt").read_text() == "first\n" and (folder / "d" / "victim").read_text() == "mine\n"
    assert host_state(outside) == host


def test_a_folder_that_becomes_a_file_and_back_is_checkpointed_and_restorable(
    agent: SessionController, openai_server: OpenAIServer, home: Path
) -> None:
    """Issue 29 item 5: ``rm -r d; echo x > d`` stopped the line's checkpoints ("appears as both a file and as
    a directory"), and restore then said "is running a turn" for the turn limit plus a minute."""
    key, folder = full_line(agent)
    (folder / "d" / "e").mkdir(parents=True)
    (folder / "d" / "a").write_text("a\n")
    (folder / "d" / "e" / "b").write_text("b\n")
    turn(agent, openai_server, key, "rm -r d && echo x > d")
    turn(agent, openai_server, key, "rm d && mkdir d && echo a2 > d/a")

    first = agent.checkpoints.changes(key, turn=1).files
    assert [(f.path, f.kind) for f in first] == [
        ("d", FileChangeKind.ADDED),
        ("d/a", FileChangeKind.DELETED),
        ("d/e/b", FileChangeKind.DELETED),
    ]
    second = agent.checkpoints.changes(key, turn=2).files
    assert [(f.path, f.kind) for f in second] == [("d", FileChangeKind.DELETED), ("d/a", FileChangeKind.ADDED)]

    assert run_cli(home, "restore", key, "--turn", "2").returncode == 0
    assert tree_state(folder) == {"d": (b"x\n", False)}
    assert run_cli(home, "restore", key, "--turn", "1").returncode == 0
    assert tree_state(folder) == {"d/a": (b"a\n", False), "d/e/b": (b"b\n", False)}
    assert run_cli(home, "restore", key, "--undo").returncode == 0
    assert tree_state(folder) == {"d": (b"x\n", False)}
    turn(agent, openai_server, key, "echo y > d")
    assert [t.turn for t in agent.checkpoints.turns(key)] == [1, 2, 3]


def _immutable(path: Path, on: bool) -> None:
    subprocess.run(["chattr", "-R", "+i" if on else "-i", str(path)], check=True, capture_output=True)


def test_a_failed_checkpoint_leaves_the_line_runnable_with_a_notice(
    agent: SessionController, openai_server: OpenAIServer, home: Path, tmp_path: Path
) -> None:
    """Issue 29 item 5: a turn whose after-snapshot fails (here the shadow repository's objects are
    immutable, a real fault even for root) ends its row; restore is not refused as "running a turn"."""
    probe = tmp_path / "probe"
    probe.touch()
    try:
        _immutable(probe, True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("chattr +i is not available here (needs ext4 and CAP_LINUX_IMMUTABLE)")
    _immutable(probe, False)
    key, folder = full_line(agent)
    (folder / "notes.txt").write_text("first\n")
    turn(agent, openai_server, key, "echo one >> notes.txt")
    objects = agent.checkpoints.root / f"{key.replace(':', '-').lower()}.git" / "objects"
    _immutable(objects, True)
    try:
        turn(agent, openai_server, key, "echo two-and-never-seen >> notes.txt")
    finally:
        _immutable(objects, False)

    notices = [m.content for m in agent.lines.messages(key) if m.role is MessageRole.SYSTEM]
    assert any(n.startswith("No checkpoint was taken after this turn (") for n in notices), notices
    refused = run_cli(home, "changes", key, "--turn", "2")
    assert_one_line_error(refused, f"turn 2 of line {key} has no checkpoint after it")
    restored = run_cli(home, "restore", key, "--turn", "2", "--force")
    assert restored.returncode == 0, restored.stderr
    assert (folder / "notes.txt").read_text() == "first\none\n"
    turn(agent, openai_server, key, "echo three >> notes.txt")
    assert agent.checkpoints.changes(key, turn=3).files[0].path == "notes.txt"
