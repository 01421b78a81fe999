"""LOOP-1 through the controller: every turn of a ``full`` native line is checkpointed.

A scripted model (the real OpenAI-compatible test server) writes, edits, deletes and
creates files with ``write_file``, ``edit_file`` and ``run_command`` (in the real
bubblewrap sandbox); the change sets, restore, undo and revert are checked on the real
files, with the rows on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from tests.checkpoints.support import dot_git_state, make_repo, tree_state
from tests.controllers.conftest import scripted_controller
from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController
from xworkmate.controllers.changes import Change, ChangesRecorded
from xworkmate.domain.checkpoints import ChangeScope, CheckpointError, FileChange, FileChangeKind
from xworkmate.domain.messages import MessageRole
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import (
    ErrorReply,
    HangReply,
    OpenAIServer,
    ScriptedToolCall,
    TextReply,
    ToolCallReply,
)

pytestmark = needs_bwrap

PROMPT = "please create new.txt, fix edit.txt and tidy up the folder"


@pytest.fixture
def agent(store: Store, settings: Settings, openai_server: OpenAIServer) -> SessionController:
    return scripted_controller(store, settings, openai_server)


def call(name: str, call_id: str, **arguments: object) -> ScriptedToolCall:
    return ScriptedToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


def shell(cmd: str, call_id: str) -> ScriptedToolCall:
    return call("run_command", call_id, command=cmd, timeout_s=20)


def full_line(agent: SessionController, title: str = "work") -> tuple[str, Path]:
    line = agent.lines.create_line(title)
    agent.line_settings.set_permission(line.thread_id, "full")
    return line.thread_id, Path(line.workspace_binding.path or "")


def seed(folder: Path) -> None:
    (folder / "edit.txt").write_text("alpha\nbeta\ngamma\n")
    (folder / "doomed.txt").write_text("delete me\n")
    (folder / "mode.sh").write_text("#!/bin/sh\necho mode\n")
    (folder / "pic.bin").write_bytes(bytes(range(256)))


def turn_one(openai_server: OpenAIServer) -> None:
    """write_file creates, edit_file edits, run_command deletes, adds a binary and sets an exec bit."""
    openai_server.script(
        ToolCallReply(
            [
                call("write_file", "w", path="new.txt", content="fresh\n", quote="create new.txt"),
                call("edit_file", "e", path="edit.txt", old="beta\n", new="BETA\nbeta2\n", quote="fix edit.txt"),
                shell("rm doomed.txt && chmod +x mode.sh && printf '\\000\\377\\001' > blob.bin", "s"),
                shell("printf '\\001\\002' >> pic.bin", "s2"),
            ]
        ),
        TextReply(["done"]),
    )


def run(agent: SessionController, key: str, prompt: str = PROMPT) -> None:
    outcome = asyncio.run(agent.turns.run_turn(key, prompt, headless=True))
    assert outcome.status == "finished", outcome.error


def shadow_commits(agent: SessionController, key: str) -> int:
    git_dir = agent.checkpoints.root / f"{agent.get_thread(key).thread_id.replace(':', '-').lower()}.git"
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-list", "--count", "refs/xworkmate/snapshots"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout)


def test_each_turns_change_set_is_exactly_right(agent: SessionController, openai_server: OpenAIServer) -> None:
    key, folder = full_line(agent)
    seed(folder)
    recorded: list[Change] = []
    agent.subscribe(recorded.append)
    turn_one(openai_server)
    run(agent, key)
    changes = agent.checkpoints.changes(key)
    assert changes.turn == 1 and changes.scope is ChangeScope.TURN and changes.restorable
    assert changes.files == (
        FileChange(path="blob.bin", kind=FileChangeKind.ADDED, additions=0, deletions=0, binary=True),
        FileChange(path="doomed.txt", kind=FileChangeKind.DELETED, additions=0, deletions=1),
        FileChange(path="edit.txt", kind=FileChangeKind.MODIFIED, additions=2, deletions=1),
        FileChange(path="mode.sh", kind=FileChangeKind.MODIFIED, additions=0, deletions=0, mode_changed=True),
        FileChange(path="new.txt", kind=FileChangeKind.ADDED, additions=1, deletions=0),
        FileChange(path="pic.bin", kind=FileChangeKind.MODIFIED, additions=0, deletions=0, binary=True),
    )
    # The chip goes on the turn's last stored message: the model's closing reply.
    last = agent.lines.messages(key)[-1]
    assert last.role is MessageRole.ASSISTANT and changes.message_id == last.id
    assert [c for c in recorded if isinstance(c, ChangesRecorded)] == [ChangesRecorded(key=key, turn=1)]
    patch = agent.checkpoints.file_patch(key, "edit.txt")
    assert patch.startswith("diff --git a/edit.txt b/edit.txt") and "-beta\n+BETA\n+beta2\n" in patch
    assert agent.checkpoints.file_patch(key, "blob.bin") == ""

    # Turn 2 edits one file again; turn 3 only talks.
    openai_server.script(
        ToolCallReply([shell("echo more >> new.txt", "s3")]),
        TextReply(["ok"]),
        TextReply(["just words"]),
    )
    run(agent, key, "add more")
    commits = shadow_commits(agent, key)
    run(agent, key, "say something")
    assert shadow_commits(agent, key) == commits  # nothing changed: no new commit
    assert agent.checkpoints.changes(key, turn=2).files == (
        FileChange(path="new.txt", kind=FileChangeKind.MODIFIED, additions=1, deletions=0),
    )
    assert agent.checkpoints.changes(key, turn=3).files == ()
    assert [t.turn for t in agent.checkpoints.turns(key)] == [1, 2]  # only turns that changed files
    line = agent.checkpoints.changes(key, ChangeScope.LINE)
    assert line.turn == 3 and line.message_id is None
    assert [(f.path, f.kind) for f in line.files] == [
        ("blob.bin", FileChangeKind.ADDED),
        ("doomed.txt", FileChangeKind.DELETED),
        ("edit.txt", FileChangeKind.MODIFIED),
        ("mode.sh", FileChangeKind.MODIFIED),
        ("new.txt", FileChangeKind.ADDED),
        ("pic.bin", FileChangeKind.MODIFIED),
    ]
    assert [f.additions for f in line.files if f.path == "new.txt"] == [2]


def test_restore_and_undo_give_byte_identical_trees(agent: SessionController, openai_server: OpenAIServer) -> None:
    key, folder = full_line(agent)
    seed(folder)
    (folder / "mode.sh").chmod(0o644)
    state_before = tree_state(folder)
    turn_one(openai_server)
    run(agent, key)
    state_after = tree_state(folder)
    assert state_after != state_before and state_after["mode.sh"][1]

    result = agent.checkpoints.restore(key, 1)
    assert result.undo_available and result.fork_key is None and result.turn == 1
    assert tree_state(folder) == state_before
    agent.checkpoints.undo_restore(key)
    assert tree_state(folder) == state_after
    with pytest.raises(CheckpointError, match="no restore to undo"):
        agent.checkpoints.undo_restore(key)


def test_a_repositorys_own_git_is_untouched_by_turns_restore_and_undo(
    agent: SessionController, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    key, _ = full_line(agent)
    folder = tmp_path / "person-repo"
    make_repo(folder)
    agent.lines.bind_workspace(key, folder)
    before = dot_git_state(folder)
    openai_server.script(
        ToolCallReply([shell("echo agent > tracked.txt && echo x > made.txt", "s")]), TextReply(["ok"])
    )
    run(agent, key, "change tracked.txt")
    assert {f.path for f in agent.checkpoints.changes(key).files} == {"tracked.txt", "made.txt"}
    uncommitted = agent.checkpoints.changes(key, ChangeScope.UNCOMMITTED)
    assert {(f.path, f.kind) for f in uncommitted.files} == {
        ("tracked.txt", FileChangeKind.MODIFIED),
        ("made.txt", FileChangeKind.ADDED),
        ("staged.txt", FileChangeKind.ADDED),
    }
    assert "+agent" in agent.checkpoints.file_patch(key, "tracked.txt", ChangeScope.UNCOMMITTED)
    agent.checkpoints.restore(key, 1)
    agent.checkpoints.undo_restore(key)
    agent.checkpoints.revert_file(key, "made.txt", 1)
    assert dot_git_state(folder) == before


def test_revert_file_and_hunk(agent: SessionController, openai_server: OpenAIServer) -> None:
    key, folder = full_line(agent)
    seed(folder)
    long_text = "".join(f"row {i}\n" for i in range(30))
    (folder / "long.txt").write_text(long_text)
    turn_one(openai_server)
    run(agent, key)
    openai_server.script(
        ToolCallReply([shell("sed -i -e 's/^row 1$/ROW 1/' -e 's/^row 25$/ROW 25/' long.txt", "s")]),
        TextReply(["ok"]),
    )
    run(agent, key, "shout rows")
    agent.checkpoints.revert_hunk(key, "long.txt", 2, 1)
    assert (folder / "long.txt").read_text() == long_text.replace("row 1\n", "ROW 1\n")
    agent.checkpoints.revert_file(key, "doomed.txt", 1)  # deleted by turn 1: back
    assert (folder / "doomed.txt").read_text() == "delete me\n"
    agent.checkpoints.revert_file(key, "new.txt", 1)  # added by turn 1: gone
    assert not (folder / "new.txt").exists()
    agent.checkpoints.revert_file(key, "mode.sh", 1)
    assert not (folder / "mode.sh").stat().st_mode & 0o100
    agent.checkpoints.revert_file(key, "pic.bin", 1)
    assert (folder / "pic.bin").read_bytes() == bytes(range(256))
    agent.checkpoints.undo_restore(key)  # the last revert is undoable too
    assert (folder / "pic.bin").read_bytes() == bytes(range(256)) + b"\1\2"


def test_bad_input_is_one_line_each(agent: SessionController, openai_server: OpenAIServer) -> None:
    key, folder = full_line(agent)
    seed(folder)
    with pytest.raises(CheckpointError, match="has no checkpointed turn yet"):
        agent.checkpoints.changes(key)
    turn_one(openai_server)
    run(agent, key)
    cases = [
        (lambda: agent.checkpoints.restore(key, 7), "turn 7 is not a checkpointed turn"),
        (lambda: agent.checkpoints.revert_file(key, "nope.txt", 1), "nope.txt is not a file changed by turn 1"),
        (lambda: agent.checkpoints.revert_file(key, "../etc/passwd", 1), "is not a path inside"),
        (lambda: agent.checkpoints.revert_hunk(key, "edit.txt", 1, 5), "there is no hunk 5"),
        (lambda: agent.checkpoints.changes("draft:nope"), "no task line"),
        (lambda: agent.checkpoints.changes(key, ChangeScope.UNCOMMITTED), "not a git repository"),
    ]
    for action, fragment in cases:
        with pytest.raises(CheckpointError, match=fragment) as info:
            action()
        assert "\n" not in str(info.value)
    # A dirty tree: edited by hand since the turn's after-snapshot.
    (folder / "edit.txt").write_text("by hand\n")
    with pytest.raises(CheckpointError, match="changes made since its last checkpoint"):
        agent.checkpoints.restore(key, 1)
    assert (folder / "edit.txt").read_text() == "by hand\n"  # nothing lost
    agent.checkpoints.restore(key, 1, force=True)
    assert (folder / "edit.txt").read_text() == "alpha\nbeta\ngamma\n"
    agent.checkpoints.undo_restore(key)
    assert (folder / "edit.txt").read_text() == "by hand\n"  # the hand edit comes back


def test_restore_is_refused_while_a_turn_runs(agent: SessionController, openai_server: OpenAIServer) -> None:
    key, folder = full_line(agent)
    seed(folder)
    turn_one(openai_server)
    run(agent, key)
    openai_server.script(HangReply())

    async def scenario() -> None:
        task = agent.turns.start_turn(key, "hang")
        for _ in range(200):
            await asyncio.sleep(0.01)
            if openai_server.chat_requests and len(openai_server.chat_requests) >= 3:
                break
        assert agent.turns.is_running(key)
        for action in (
            lambda: agent.checkpoints.restore(key, 1),
            lambda: agent.checkpoints.revert_file(key, "new.txt", 1),
            lambda: agent.checkpoints.undo_restore(key),
        ):
            with pytest.raises(CheckpointError, match=f"line {key} is running a turn"):
                action()
        agent.turns.stop(key)
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert (folder / "new.txt").exists()
    # The stopped turn was checkpointed too (status stopped, nothing changed).
    stopped = agent.checkpoints.changes(key, turn=2)
    assert stopped.files == ()


def test_restore_with_fork_leaves_later_messages_out(agent: SessionController, openai_server: OpenAIServer) -> None:
    key, folder = full_line(agent)
    seed(folder)
    openai_server.script(TextReply(["hello"]))
    run(agent, key, "first, just talk")
    state_before = tree_state(folder)
    turn_one(openai_server)
    run(agent, key, PROMPT)
    result = agent.checkpoints.restore(key, 2, fork=True)
    assert result.fork_key is not None and result.fork_key != key
    fork = agent.get_thread(result.fork_key)
    assert fork.parent_key == key
    texts = [m.content for m in agent.lines.messages(result.fork_key)]
    assert "first, just talk" in texts and "hello" in texts
    assert PROMPT not in texts and "done" not in texts  # the turn and what followed are left out
    assert PROMPT in [m.content for m in agent.lines.messages(key)]  # stored messages are never deleted
    assert tree_state(Path(fork.workspace_binding.path or "")) == state_before
    assert tree_state(folder) == state_before


def test_a_failed_turn_is_checkpointed_too(agent: SessionController, openai_server: OpenAIServer) -> None:
    """Whatever the ending: the command wrote a file, then the provider failed; the change set has it."""
    key, folder = full_line(agent)
    openai_server.script(
        ToolCallReply([shell("echo half > half.txt", "s")]), ErrorReply(400, {"error": {"message": "bad request"}})
    )
    outcome = asyncio.run(agent.turns.run_turn(key, "start something", headless=True))
    assert outcome.status == "failed"
    assert agent.checkpoints.changes(key).files == (
        FileChange(path="half.txt", kind=FileChangeKind.ADDED, additions=1, deletions=0),
    )
    agent.checkpoints.restore(key, 1)
    assert not (folder / "half.txt").exists()


def test_a_checkpoint_that_cannot_be_taken_never_stops_the_turn(
    agent: SessionController, openai_server: OpenAIServer
) -> None:
    """ERR-1: the data folder's checkpoints/ is a file here, so git cannot make the shadow repository."""
    agent.checkpoints.root.parent.mkdir(parents=True, exist_ok=True)
    agent.checkpoints.root.write_text("not a folder")
    key, folder = full_line(agent)
    openai_server.script(ToolCallReply([shell("echo x > x.txt", "s")]), TextReply(["ok"]))
    run(agent, key, "write x")
    assert (folder / "x.txt").read_text() == "x\n"
    with pytest.raises(CheckpointError, match="has no checkpointed turn yet"):
        agent.checkpoints.changes(key)
    # Issue 29 item 5: the person is told, on the line, not only the log.
    notices = [m.content for m in agent.lines.messages(key) if m.role is MessageRole.SYSTEM]
    assert [n for n in notices if n.startswith("No checkpoint was taken before this turn (")], notices
