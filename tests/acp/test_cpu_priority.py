"""What XWorkmate starts for an agent runs below the window's CPU priority (issue 34 item 1, ``agents.priority``).

A real turn of the scripted ACP agent in its real sandbox: the agent's process, what it runs itself, the
terminals it asks the client for and the git of the turn's checkpoints all report their nice value
(``nice`` with no argument prints it); a person's own action on the line (a revert) runs git as the window.
Where the kernel shares the cores out by session first (its autogroups), every session under an agent's process
reports its group's nice value (``/proc/self/autogroup``), the one the agent made itself included.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from tests.support.sandboxing import needs_bwrap
from tests.support.sessions import GROUP_AGENTS, GROUP_OWN, group_nice, needs_autogroups
from xworkmate.agents.priority import AGENT_NICE
from xworkmate.controllers import SessionController
from xworkmate.controllers.store_thread import STORE_THREAD
from xworkmate.testing.acp_scripts import report_events, scripted_agent

OWN = os.getpriority(os.PRIO_PROCESS, 0)
AGENTS = min(OWN + AGENT_NICE, 19)


def _group_nice_once_lowered() -> str:
    """A shell command printing its session group's nice value once it is the agents' (or after 5 s: as it is).
    No single quotes: ``setsid sh -c '…'`` runs it as it is."""
    wait = f'for i in $(seq 100); do grep -q "nice {GROUP_AGENTS}$" /proc/self/autogroup && break; sleep 0.05; done'
    return f'{wait}; cut -d" " -f3 /proc/self/autogroup'


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


@needs_bwrap
@needs_autogroups
def test_every_session_under_an_agent_runs_below_the_window_the_one_it_made_itself_too(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """An agent's process leads a session of its own and its sandbox starts another: where the kernel shares the
    cores by session, a nice value counts only inside one, so each of those competed with the window at full
    weight (seen: four scripted agents took the cores while the GUI thread waited for one). The agent's own
    session, a session it made with ``setsid``, and a terminal the client ran for it all run at the agents'
    nice value; the window's own session group does not."""
    controller = sqlite_controller
    report = scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"shell": _group_nice_once_lowered()},
            {"shell": f"setsid sh -c '{_group_nice_once_lowered()}'"},
            {"terminal": {"command": "sh", "args": ["-c", _group_nice_once_lowered()]}},
            {"say": "done"},
        ],
    )
    line = controller.lines.create_line("sessions")
    controller.line_settings.set_permission(line.thread_id, "full")  # its terminal runs without asking
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")

    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "work", headless=True))
    assert outcome.status == "finished", outcome.error

    own, made = report_events(report, "shell")
    assert str(own["output"]).split() == [str(GROUP_AGENTS)]  # the agent's own session, in its sandbox
    assert str(made["output"]).split() == [str(GROUP_AGENTS)]  # a session the agent made itself
    [terminal] = report_events(report, "terminal")
    assert str(terminal["output"]).split() == [str(GROUP_AGENTS)]  # a terminal the client ran for it
    assert group_nice() == GROUP_OWN  # the window's session as it was


@needs_autogroups
def test_an_unprivileged_persons_agent_sessions_are_lowered_though_the_kernel_takes_one_change_at_a_time() -> None:
    """Without privilege the kernel takes one change of a session group's nice value per 100 ms, machine-wide
    (the others come back as ``EAGAIN``): four agents started at once all end up below the window. Run as
    ``nobody`` when we are root (root is never held to that pace), by the system's Python with the module and the one
    module of ours it imports (``proc_stat``) alone."""
    prefix: list[str] = []
    python = sys.executable
    if os.geteuid() == 0:
        setpriv, python3 = shutil.which("setpriv"), shutil.which("python3", path="/usr/bin:/bin")
        if setpriv is None or python3 is None:
            pytest.skip("running as root without setpriv and a system python3 to drop to an unprivileged user")
        prefix, python = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"], python3
    import xworkmate
    import xworkmate.agents.priority as priority

    program = """
import importlib.util, os, subprocess, sys, time
sys.path.insert(0, os.path.dirname(sys.argv[1]))  # the package's one module it imports, copied beside it
spec = importlib.util.spec_from_file_location("priority", sys.argv[1])
priority = importlib.util.module_from_spec(spec)
spec.loader.exec_module(priority)
watch = priority.SessionWatch()
agents = [subprocess.Popen(["sleep", "30"], start_new_session=True) for _ in range(4)]
for agent in agents:
    watch.watch(agent.pid)
deadline, groups = time.monotonic() + 10, []
while time.monotonic() < deadline:
    groups = [open(f"/proc/{agent.pid}/autogroup").read().split()[2] for agent in agents]
    if all(int(group) >= priority.AGENT_NICE for group in groups):
        break
    time.sleep(0.02)
print(" ".join(groups), watch.lowered, open("/proc/self/autogroup").read().split()[2])
for agent in agents:
    agent.kill()
    agent.wait()
"""
    with tempfile.TemporaryDirectory(prefix="xwm-sessions-", dir="/var/tmp") as folder:
        module, script, package = Path(folder, "priority.py"), Path(folder, "watch.py"), Path(folder, "xworkmate")
        package.mkdir(mode=0o755)
        shutil.copyfile(str(priority.__file__), module)
        ours = [package / name for name in ("__init__.py", "proc_stat.py")]  # what priority.py imports, no more
        for copy in ours:
            shutil.copyfile(Path(xworkmate.__file__).with_name(copy.name), copy)
        script.write_text(program)
        os.chmod(folder, 0o755)
        for path in (module, script, *ours):
            path.chmod(0o644)
        done = subprocess.run(
            [*prefix, python, "-I", str(script), str(module)], capture_output=True, text=True, check=False, timeout=60
        )
    assert done.returncode == 0, done.stderr
    *groups, lowered, own = done.stdout.split()
    assert groups == [str(GROUP_AGENTS)] * 4 and lowered == "4", done.stdout
    assert own == str(GROUP_OWN)  # the watching process's own group is never lowered
