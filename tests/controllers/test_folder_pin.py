"""Issue 29, table row 5 (SBX-3, ISO-4): a line's folder is pinned when it is bound.

Between two turns the line's folder is replaced by a symbolic link to a home folder, to the data folder or
to another line's folder, or by another directory at the same path. The line is then ``needs_workspace``
with the reason, a turn on it is refused before anything is asked of the model or written (no
``pwned.txt`` in the target), no checkpoint snapshots the target, and binding the line again makes it
runnable. Real folders and links, the scripted OpenAI-compatible server, SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

from xworkmate.controllers import SessionController
from xworkmate.domain.checkpoints import CheckpointError
from xworkmate.domain.lines import FolderPin, folder_problem, pin_folder
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.threads import ThreadStatus
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.store.checkpoints import CheckpointRepository
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply

PWN = "write pwned.txt containing pwned"


def _pwn_turn(server: OpenAIServer) -> None:
    """What the model answers if the turn runs: write ``pwned.txt`` where the line's folder leads."""
    arguments = json.dumps({"path": "pwned.txt", "content": "pwned", "quote": PWN})
    server.script(ToolCallReply([ScriptedToolCall(id="c1", name="write_file", arguments=arguments)]), TextReply(["ok"]))


def _swap(folder: Path, replacement: Path | None) -> None:
    """The line's folder replaced between turns: by a link to ``replacement``, or (None) by a new directory at
    the same path, made before the old one goes so it cannot reuse its inode."""
    if replacement is not None:
        shutil.rmtree(folder)
        folder.symlink_to(replacement, target_is_directory=True)
        return
    fresh = folder.with_name(folder.name + ".new")
    fresh.mkdir()
    shutil.rmtree(folder)
    fresh.rename(folder)


@pytest.mark.parametrize("target", ["home", "data folder", "other line", "new directory"])
def test_a_line_whose_folder_was_swapped_between_turns_is_needs_workspace_and_never_runs_there(
    agent: SessionController,
    openai_server: OpenAIServer,
    store: Store,
    settings: Settings,
    tmp_path: Path,
    target: str,
) -> None:
    line = agent.lines.create_line("A")
    other = agent.lines.create_line("B")
    key = line.thread_id
    agent.line_settings.set_permission(key, "full")
    folder = Path(line.workspace_binding.path or "")
    fake_home = tmp_path / "person-home"
    fake_home.mkdir()
    (Path(other.workspace_binding.path or "") / "secret.txt").write_text("B's secret\n")
    openai_server.script(TextReply(["first turn"]))
    assert asyncio.run(agent.turns.run_turn(key, "hello")).status == "finished"

    replacement = {
        "home": fake_home,
        "data folder": settings.home,
        "other line": Path(other.workspace_binding.path or ""),
        "new directory": None,
    }[target]
    _swap(folder, replacement)
    where = replacement if replacement is not None else folder

    view = agent.lines.line_view(key)
    assert view.status is ThreadStatus.NEEDS_WORKSPACE
    if replacement is not None:
        assert f"{folder} was replaced by a symbolic link to {replacement.resolve()}" in view.explanation
    else:
        assert f"{folder} was replaced by another folder since it was bound" in view.explanation
    assert "Change folder" in view.explanation
    [listed] = [s for s in agent.lines.list_lines() if s.thread_id == key]
    assert agent.lines.summary_state(listed) == (ThreadStatus.NEEDS_WORKSPACE, view.explanation)

    _pwn_turn(openai_server)
    with pytest.raises(NotRunnable) as refused:
        asyncio.run(agent.turns.run_turn(key, PWN))
    assert refused.value.status is ThreadStatus.NEEDS_WORKSPACE and "since it was bound" in str(refused.value)
    assert not (where / "pwned.txt").exists()
    assert len(openai_server.chat_requests) == 1  # only the first turn reached the model
    assert [m.content for m in agent.lines.messages(key)] == ["hello", "first turn"]  # nothing stored

    # Checkpoints never follow it: no snapshot of the target, no restore into it.
    assert asyncio.run(agent.checkpoints.before_turn(key)) is None
    with pytest.raises(CheckpointError, match="since it was bound"):
        agent.checkpoints.restore(key, 1, force=True)
    last = CheckpointRepository(store).last(key)
    assert last is not None and last.turn == 1  # the first turn's, and no other

    # Choosing its folder again (Change folder…) pins it again and it runs.
    if replacement is not None:
        folder.unlink()
        folder.mkdir()
    rebound = agent.lines.bind_workspace(key, folder)
    assert rebound.workspace_binding.pin == pin_folder(str(folder))
    assert agent.lines.line_view(key).status is ThreadStatus.RUNNABLE
    _pwn_turn(openai_server)
    assert asyncio.run(agent.turns.run_turn(key, PWN)).status == "finished"
    assert (folder / "pwned.txt").read_text() == "pwned"
    assert not (fake_home / "pwned.txt").exists() and not (settings.home / "pwned.txt").exists()


def test_every_way_a_line_gets_a_folder_pins_it(agent: SessionController, tmp_path: Path) -> None:
    """SBX-3: create (own folder or a chosen one), bind, tasks, forks and main are pinned as their folder is."""
    chosen = tmp_path / "project"
    chosen.mkdir()
    made = agent.lines.create_line("own")
    picked = agent.lines.create_line("picked", workspace=chosen)
    task = agent.tasks.start_task(made.thread_id, "a goal").key
    fork = agent.tasks.fork(made.thread_id).thread_id
    for key in (made.thread_id, picked.thread_id, task, fork, "main"):
        binding = agent.get_thread(key).workspace_binding
        pin = FolderPin.parse(binding.pin)
        assert pin is not None, key
        found = os.stat(binding.path or "")
        assert (pin.device, pin.inode, pin.real_path) == (found.st_dev, found.st_ino, os.path.realpath(binding.path))


def test_recreate_folder_never_binds_a_link_found_at_the_lines_path(agent: SessionController, tmp_path: Path) -> None:
    """ "Recreate folder" makes a missing folder again; a link there (to another line's folder) is refused."""
    line = agent.lines.create_line("A")
    other = agent.lines.create_line("B")
    folder = Path(line.workspace_binding.path or "")
    _swap(folder, Path(other.workspace_binding.path or ""))
    with pytest.raises(ValueError, match="replaced by a symbolic link"):
        agent.lines.recreate_folder(line.thread_id)
    assert agent.get_thread(line.thread_id).workspace_binding.path == str(folder)
    folder.unlink()
    agent.lines.recreate_folder(line.thread_id)
    assert agent.lines.line_view(line.thread_id).status is ThreadStatus.RUNNABLE


def test_a_parent_swapped_for_a_link_is_seen_by_the_thorough_check_only(tmp_path: Path) -> None:
    """The same folder reached by another real path: one line's check (the gate, checkpoints) sees it; the
    list's one ``os.lstat`` a row does not need to (it is still the pinned inode)."""
    (tmp_path / "a" / "line").mkdir(parents=True)
    path = str(tmp_path / "a" / "line")
    pin = pin_folder(path)
    (tmp_path / "a").rename(tmp_path / "b")
    (tmp_path / "a").symlink_to(tmp_path / "b", target_is_directory=True)
    assert folder_problem(path, pin) is None
    assert folder_problem(path, pin, thorough=True) == (
        f"the line's folder {path} now leads to {tmp_path / 'b' / 'line'}, not to the folder it was bound to;"
        " pick its folder again (Change folder…)"
    )


def test_the_same_inode_mounted_again_on_another_device_number_is_the_same_folder(tmp_path: Path) -> None:
    """btrfs subvolumes and network file systems number their devices anew at each mount: not a swap."""
    found = os.stat(tmp_path)
    remounted = FolderPin(found.st_dev + 1, found.st_ino, os.path.realpath(tmp_path)).text
    assert folder_problem(str(tmp_path), remounted, thorough=True) is None
    elsewhere = FolderPin(found.st_dev + 1, found.st_ino, "/elsewhere").text
    assert folder_problem(str(tmp_path), elsewhere) is not None


def test_a_task_whose_folder_was_swapped_is_refused_by_the_same_gate(
    agent: SessionController, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """``task run`` and the window's task turns go through the one gate: refused with the folder's reason."""
    dispatcher = agent.lines.create_line("Dispatcher")
    task = agent.tasks.start_task(dispatcher.thread_id, "write pwned.txt").key
    folder = Path(agent.get_thread(task).workspace_binding.path or "")
    _swap(folder, Path(dispatcher.workspace_binding.path or ""))
    with pytest.raises(NotRunnable, match="replaced by a symbolic link"):
        asyncio.run(agent.turns.run_turn(task, None))
    assert openai_server.chat_requests == []


def test_no_acp_agent_is_started_to_list_its_sessions_in_a_swapped_folder(
    agent: SessionController, tmp_path: Path
) -> None:
    """Listing an ACP agent's sessions starts the agent in the line's folder: refused there too (SBX-3)."""
    line = agent.lines.create_line("ACP")
    _swap(Path(line.workspace_binding.path or ""), tmp_path)
    with pytest.raises(LookupError, match="replaced by a symbolic link"):
        asyncio.run(agent.agents.agent_sessions(line.thread_id))


def test_a_follow_up_turn_does_not_start_in_a_folder_swapped_during_the_turn_before(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Follow-ups start the next turn without the gate (issue 14): the folder is checked again first (SBX-3)."""
    controller = sqlite_controller
    report = scripted_agent(
        controller, tmp_path, session_id="s-1", load_session=True, turn=[{"sleep": 0.8}, {"echo_prompt": True}]
    )
    line = controller.lines.create_line("A")
    task = controller.tasks.start_task(line.thread_id, "draft the release notes", mode="acp", model="scripted")
    folder = Path(controller.get_thread(task.key).workspace_binding.path or "")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def scenario() -> None:
        turn = controller.turns.start_turn(task.key, None)
        async with asyncio.timeout(10):
            while not report_events(report, "prompt"):
                await asyncio.sleep(0.01)
        controller.followups.follow_up(task.key, "mention the new CLI flags")
        _swap(folder, elsewhere)
        await turn

    asyncio.run(asyncio.wait_for(scenario(), 30))
    assert len(report_events(report, "prompt")) == 1  # the follow-up waits for the line's next (refused) turn
    assert controller.lines.line_view(task.key).status is ThreadStatus.NEEDS_WORKSPACE
    assert list(elsewhere.iterdir()) == []
