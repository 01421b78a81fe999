"""What XWorkmate starts for an agent runs below the window's CPU priority (issue 34 item 1, ``agents.priority``).

A real turn of the scripted ACP agent in its real sandbox: the agent's process, what it runs itself, the
terminals it asks the client for and the git of the turn's checkpoints all report their nice value
(``nice`` with no argument prints it); a person's own action on the line (a revert) runs git as the window.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from pathlib import Path

import pytest

from tests.support.sandboxing import needs_bwrap
from xworkmate.agents.priority import AGENT_NICE
from xworkmate.controllers import SessionController
from xworkmate.controllers.store_thread import STORE_THREAD
from xworkmate.testing.acp_scripts import report_events, scripted_agent

OWN = os.getpriority(os.PRIO_PROCESS, 0)
AGENTS = min(OWN + AGENT_NICE, 19)


def _logging_git(folder: Path, log: Path) -> Path:
    """A ``git`` first on the ``PATH`` that notes its nice value and its command, then runs the real git."""
    real = shutil.which("git")
    assert real is not None
    folder.mkdir()
    wrapper = folder / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$(nice) $*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return folder


@needs_bwrap
def test_an_agent_what_it_runs_its_terminals_and_its_checkpoints_git_run_below_the_window(
    sqlite_controller: SessionController, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller = sqlite_controller
    log = tmp_path / "git.log"
    bin_folder = _logging_git(tmp_path / "bin", log)
    monkeypatch.setenv("PATH", f"{bin_folder}{os.pathsep}{os.environ['PATH']}")
    report = scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"shell": "nice; echo made > made.txt"},
            {"terminal": {"command": "nice"}},
            {"say": "done"},
        ],
    )
    line = controller.lines.create_line("priority")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")

    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "work", headless=True))
    assert outcome.status == "finished", outcome.error

    [shell] = report_events(report, "shell")
    assert str(shell["output"]).split() == [str(AGENTS)]  # the agent's own process tree
    [terminal] = report_events(report, "terminal")
    assert str(terminal["output"]).split() == [str(AGENTS)]  # a terminal the client ran for it
    turn_git = [row.split(" ", 1) for row in log.read_text().splitlines()]
    assert turn_git, "the turn's checkpoints ran no git"
    assert [row for row in turn_git if row[0] != str(AGENTS)] == []

    # The person's own action: git as the window, not below it.
    log.unlink()
    [turn] = controller.checkpoints.turns(line.thread_id)
    controller.checkpoints.revert_file(line.thread_id, "made.txt", turn.turn)
    assert not (Path(line.workspace_binding.path or "") / "made.txt").exists()
    person_git = [row.split(" ", 1) for row in log.read_text().splitlines()]
    assert person_git and {nice for nice, _command in person_git} == {str(OWN)}, person_git


def test_the_turns_store_thread_runs_below_the_window_and_the_window_thread_does_not(
    sqlite_controller: SessionController,
) -> None:
    """The turns' own thread in this process (each streamed delta stored) is an agent's work too: a real
    call through the controller's store thread reads its own nice value; the calling thread keeps its own."""

    def own_nice() -> tuple[str, int]:
        return threading.current_thread().name, os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    async def both() -> tuple[tuple[str, int], tuple[str, int]]:
        return await sqlite_controller._ctx.store_thread.call(own_nice), own_nice()

    (stored_on, stored_nice), (_here, here_nice) = asyncio.run(both())
    assert stored_on.startswith(STORE_THREAD)
    assert (stored_nice, here_nice) == (AGENTS, OWN)
