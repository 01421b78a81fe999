"""LOOP-1 on the command line: ``changes``, ``restore``, ``revert``, ``checkpoints`` (issue 16 item 5).

Turns run in this process (scripted model, real sandbox); the commands run as real
``python -m xworkmate`` processes on the same data folder.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.checkpoints.support import tree_state
from tests.checkpoints.test_turn_checkpoints import PROMPT, full_line, run, seed, shell, turn_one
from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from tests.controllers.conftest import scripted_controller
from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import HangReply, OpenAIServer, TextReply, ToolCallReply

pytestmark = needs_bwrap


@pytest.fixture
def agent(sqlite_store: Store, settings: Settings, openai_server: OpenAIServer) -> SessionController:
    return scripted_controller(sqlite_store, settings, openai_server)


def test_changes_restore_revert_and_undo(agent: SessionController, openai_server: OpenAIServer, home: Path) -> None:
    key, folder = full_line(agent)
    seed(folder)
    state_before = tree_state(folder)
    turn_one(openai_server)
    run(agent, key)
    state_after = tree_state(folder)

    text = run_cli(home, "changes", key)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].startswith("turn 1 (message ") and lines[0].endswith(": 6 files changed")
    assert "  M  edit.txt  +2 -1" in lines and "  A  blob.bin  (binary)" in lines
    assert "  D  doomed.txt  +0 -1" in lines and "  M  mode.sh  +0 -0 (mode)" in lines
    data = ok_json(home, "changes", key, "--turn", "1")
    assert data["turn"] == 1 and data["scope"] == "turn" and len(data["files"]) == 6
    new = next(f for f in data["files"] if f["path"] == "new.txt")
    assert (new["kind"], new["additions"], new["deletions"], new["binary"]) == ("added", 1, 0, False)
    patch = run_cli(home, "changes", key, "--patch")
    assert patch.returncode == 0 and "diff --git a/edit.txt b/edit.txt" in patch.stdout
    assert "blob.bin" not in patch.stdout  # binary: listed in the text form, no text diff
    assert [t["turn"] for t in ok_json(home, "changes", key, "--all")] == [1]

    restored = ok_json(home, "restore", key, "--turn", "1")
    assert restored == {"key": key, "turn": 1, "fork_key": None, "undo_available": True, "before_exact": True}
    assert tree_state(folder) == state_before
    undone = run_cli(home, "restore", key, "--undo")
    assert undone.returncode == 0, undone.stderr
    assert tree_state(folder) == state_after

    reverted = run_cli(home, "revert", key, "--turn", "1", "--file", "edit.txt")
    assert reverted.returncode == 0, reverted.stderr
    assert (folder / "edit.txt").read_text() == "alpha\nbeta\ngamma\n"


def test_bad_input_is_one_line_each(agent: SessionController, openai_server: OpenAIServer, home: Path) -> None:
    key, folder = full_line(agent)
    seed(folder)
    turn_one(openai_server)
    run(agent, key)
    assert_one_line_error(run_cli(home, "changes", key, "--turn", "4"), "turn 4 is not a checkpointed turn")
    assert_one_line_error(run_cli(home, "restore", key, "--turn", "9"), "turn 9 is not a checkpointed turn")
    assert_one_line_error(
        run_cli(home, "revert", key, "--turn", "1", "--file", "missing.txt"), "missing.txt is not a file changed"
    )
    assert_one_line_error(run_cli(home, "restore", key, "--undo"), "no restore to undo")
    assert_one_line_error(run_cli(home, "restore", key), "give --turn N")
    assert_one_line_error(run_cli(home, "changes", "draft:01J0000000000000000000NOPE"), "no task line")
    assert_one_line_error(run_cli(home, "changes", key, "--uncommitted"), "not a git repository")
    (folder / "new.txt").write_text("edited by hand\n")
    assert_one_line_error(run_cli(home, "restore", key, "--turn", "1"), "changes made since its last checkpoint")
    assert (folder / "new.txt").read_text() == "edited by hand\n"
    forced = run_cli(home, "restore", key, "--turn", "1", "--force")
    assert forced.returncode == 0, forced.stderr


def test_restore_is_refused_while_a_turn_runs_in_another_process(
    agent: SessionController, openai_server: OpenAIServer, home: Path
) -> None:
    """The window (here: this process) runs a turn; the command line is refused in one line."""
    key, folder = full_line(agent)
    seed(folder)
    turn_one(openai_server)
    run(agent, key)
    openai_server.script(HangReply())

    async def scenario() -> None:
        task = agent.turns.start_turn(key, "hang")
        while len(openai_server.chat_requests) < 3:
            await asyncio.sleep(0.02)
        proc = await asyncio.to_thread(run_cli, home, "restore", key, "--turn", "1")
        assert_one_line_error(proc, f"line {key} is running a turn")
        proc = await asyncio.to_thread(run_cli, home, "revert", key, "--turn", "1", "--file", "new.txt")
        assert_one_line_error(proc, "is running a turn")
        agent.turns.stop(key)
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert (folder / "new.txt").exists()
    assert run_cli(home, "restore", key, "--turn", "1").returncode == 0  # the turn ended: allowed again


def test_retention_prunes_archived_lines_only(
    agent: SessionController, openai_server: OpenAIServer, home: Path
) -> None:
    kept, _ = full_line(agent, "kept")
    gone, _ = full_line(agent, "gone")
    for key in (kept, gone):
        openai_server.script(ToolCallReply([shell("echo x > x.txt", "s")]), TextReply(["ok"]))
        run(agent, key, "write x")
    assert ok_json(home, "checkpoints", "retention") == {"retention_days": 30}
    assert ok_json(home, "checkpoints", "retention", "7") == {"retention_days": 7}
    agent.lines.archive_line(gone)
    assert ok_json(home, "checkpoints", "prune") == {"pruned": []}  # archived today: within 7 days
    assert ok_json(home, "checkpoints", "prune", "--older-than", "0") == {"pruned": [gone]}
    assert not (agent.checkpoints.root / f"{gone.replace(':', '-').lower()}.git").exists()
    assert (agent.checkpoints.root / f"{kept.replace(':', '-').lower()}.git").is_dir()
    assert_one_line_error(run_cli(home, "changes", gone), "has no checkpointed turn yet")
    assert ok_json(home, "changes", kept)["turn"] == 1
    assert_one_line_error(run_cli(home, "checkpoints", "retention", "soon"), "whole number of days")


def test_a_lines_own_excludes(agent: SessionController, openai_server: OpenAIServer, home: Path) -> None:
    key, _ = full_line(agent)
    assert ok_json(home, "checkpoints", "exclude", key, "secrets/", "*.tmp") == {
        "key": key,
        "excludes": ["secrets/", "*.tmp"],
    }
    openai_server.script(
        ToolCallReply([shell("mkdir secrets && echo s > secrets/k && echo t > a.tmp && echo ok > kept.txt", "s")]),
        TextReply(["ok"]),
    )
    run(agent, key, PROMPT)
    assert [f["path"] for f in ok_json(home, "changes", key)["files"]] == ["kept.txt"]
    assert json.loads(run_cli(home, "checkpoints", "exclude", key, "--clear", "--json").stdout)["excludes"] == []
