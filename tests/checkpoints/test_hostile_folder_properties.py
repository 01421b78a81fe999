"""SBX-3, generated: whatever an agent does to its folder between turns, revert and restore never
change anything outside it, and every refusal is one line (issue 29).

Between checkpointed turns (the controller's real ``before_turn`` / ``after_turn``, real git, real
files) the "agent" creates, modifies, removes and renames files and replaces paths with links to
an outside folder; then files, hunks and turns are reverted, restored and undone at random.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.checkpoints.support import host_state
from xworkmate.controllers import SessionController
from xworkmate.domain.checkpoints import CheckpointError

NAMES = st.sampled_from(["d", "e", "f"])
PATHS = st.lists(NAMES, min_size=1, max_size=3).map("/".join)
OPS = st.one_of(
    st.tuples(st.just("create"), PATHS, st.sampled_from(["x\n", "y\n", ""])),
    st.tuples(st.just("modify"), PATHS),
    st.tuples(st.just("remove"), PATHS),
    st.tuples(st.just("rename"), PATHS, PATHS),
    st.tuples(st.just("link"), NAMES, st.sampled_from(["", "", "d", "e", "victim"])),
)
REVERT = st.tuples(st.sampled_from(["revert", "revert", "hunk"]), st.integers(1, 4), st.integers(0, 9))
ACTIONS = st.one_of(
    REVERT,
    REVERT,
    st.tuples(st.just("restore"), st.integers(1, 4), st.booleans()),
    st.tuples(st.just("undo"), st.booleans()),
)
_examples = itertools.count()


def make_outside(path: Path) -> None:
    """The person's files, named like the agent's so that any write through a link would land on them."""
    for name in ("f", "d/f", "d/d", "d/e/f", "e/f", "e/e", "e/d/f", "sub/keep.txt", "victim"):
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(f"the host's {name}\n")


def reachable(folder: Path, path: str) -> bool:
    """What a sandboxed agent can write: no folder on the way is a link or a file."""
    current = folder
    for part in path.split("/")[:-1]:
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            return False
    return True


def drop(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def agent_does(folder: Path, outside: Path, op: tuple[object, ...]) -> None:
    """One thing the agent does in its folder, as it could from inside the sandbox (never through a link)."""
    kind, path = str(op[0]), str(op[1])
    target = folder / path
    if not reachable(folder, path):
        return
    if kind == "create" and not (target.is_dir() or target.is_symlink()):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(str(op[2]))
    elif kind == "modify" and target.is_file() and not target.is_symlink():
        with target.open("a") as handle:
            handle.write("more\n")
    elif kind == "remove":
        drop(target)
    elif kind == "rename":
        to = str(op[2])
        nested = (to + "/").startswith(path + "/") or (path + "/").startswith(to + "/")
        if os.path.lexists(target) and reachable(folder, to) and not nested:
            destination = folder / to
            drop(destination)
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.rename(target, destination)
    elif kind == "link":
        drop(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(outside / str(op[2]) if op[2] else outside)


def one_turn(agent: SessionController, key: str, folder: Path, outside: Path, ops: list[tuple[object, ...]]) -> None:
    started = asyncio.run(agent.checkpoints.before_turn(key))
    assert started is not None
    for op in ops:
        agent_does(folder, outside, op)
    asyncio.run(agent.checkpoints.after_turn(started, "finished"))


def person_does(agent: SessionController, key: str, turns: int, action: tuple[object, ...]) -> None:
    """A file or hunk revert, restore or undo (of one of the ``turns`` turns); a refusal is one line (ERR-1)."""
    checkpoints = agent.checkpoints
    turn = (int(str(action[1])) - 1) % turns + 1 if action[0] != "undo" else 0
    try:
        if action[0] in ("revert", "hunk"):
            files = checkpoints.changes(key, turn=turn).files
            if not files:
                return
            path = files[int(str(action[2])) % len(files)].path
            if action[0] == "revert":
                checkpoints.revert_file(key, path, turn)
            else:
                checkpoints.revert_hunk(key, path, turn, 0)
        elif action[0] == "restore":
            checkpoints.restore(key, turn, force=bool(action[2]))
        else:
            checkpoints.undo_restore(key, force=bool(action[1]))
    except CheckpointError as exc:
        assert "\n" not in str(exc) and str(exc), repr(str(exc))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(  # issue 29 row 4: the revert deleted the host's outside/f through the link d
    turns=[[("create", "d/f", "x\n")], [("remove", "d")], [("link", "d", "")]], actions=[("revert", 1, 0)]
)
@given(turns=st.lists(st.lists(OPS, max_size=5), min_size=1, max_size=4), actions=st.lists(ACTIONS, max_size=6))
def test_revert_and_restore_never_change_anything_outside_the_folder(
    sqlite_controller: SessionController,
    tmp_path: Path,
    turns: list[list[tuple[object, ...]]],
    actions: list[tuple[object, ...]],
) -> None:
    agent = sqlite_controller
    line = agent.lines.create_line("generated")
    key, folder = line.thread_id, Path(line.workspace_binding.path or "")
    (folder / "e").write_text("the line's e\n")
    outside = tmp_path / f"outside-{next(_examples)}"
    make_outside(outside)
    host = host_state(outside)
    for ops in turns:
        one_turn(agent, key, folder, outside, ops)
    for action in actions:
        person_does(agent, key, len(turns), action)
        assert host_state(outside) == host, action
