"""SBX-1 for agent CLIs over ACP: the agent process and its own tools run in the line's sandbox.

The scripted agent (a real ACP process) runs shell commands itself, as OpenCode's bash
tool does, without asking the client: the sandbox is what contains them. Its own state
folder stays writable; its network is the allow-list with its model hosts (SBX-4, tests/network).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.sandboxing import answer_approvals, needs_bwrap, path_without_bwrap
from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.settings import Settings
from xworkmate.testing.acp_scripts import agent_folder, report_events, scripted_agent


@pytest.fixture
def person_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "person"
    home.mkdir()
    (home / "private.txt").write_text("PRIVATE-HOME-MARKER\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@needs_bwrap
def test_an_agents_own_shell_cannot_write_outside_or_read_the_database(
    sqlite_controller: SessionController, settings: Settings, tmp_path: Path, person_home: Path
) -> None:
    controller = sqlite_controller
    medical = controller.lines.create_line("clinic")
    controller.tasks.set_category(medical.thread_id, "medical")
    controller._store.messages.append(
        medical.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content="MEDICAL-MARKER"
    )
    outside = tmp_path / "outside"
    outside.mkdir()
    report = scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"shell": f"echo pwned > {outside}/pwned.txt; echo pwned > /tmp/xwm-acp-outside.txt"},
            {"shell": f"cat {settings.sqlite_path}"},
            {"shell": f"cat {person_home}/private.txt"},
            {"shell": f"echo state > {agent_folder(tmp_path)}/state.txt"},
            {"shell": "echo inside > inside.txt"},
            {"say": "done"},
        ],
    )
    line = controller.lines.create_line("normal")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "try", headless=True))
    assert outcome.status == "finished", outcome.error

    shells = report_events(report, "shell")
    assert len(shells) == 5
    assert not (outside / "pwned.txt").exists() and not Path("/tmp/xwm-acp-outside.txt").exists()
    assert "MEDICAL-MARKER" not in str(shells[1]["output"])
    assert "PRIVATE-HOME-MARKER" not in str(shells[2]["output"])
    assert (agent_folder(tmp_path) / "state.txt").read_text() == "state\n"  # its own state folder
    assert (Path(line.workspace_binding.path or "") / "inside.txt").read_text() == "inside\n"
    assert "MEDICAL-MARKER" not in outcome.text


def test_headless_acp_run_without_a_sandbox_is_refused_in_one_line(
    sqlite_controller: SessionController, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SBX-1: no silent fallback; the agent is never started unsandboxed headless."""
    controller = sqlite_controller
    scripted_agent(controller, tmp_path, turn=[{"say": "hi"}])
    line = controller.lines.create_line("acp")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path))
    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "hi", headless=True))
    assert outcome.status == "failed"
    assert outcome.error is not None and "\n" not in outcome.error
    assert "cannot run in a sandbox" in outcome.error and "install bubblewrap" in outcome.error
    assert not (agent_folder(tmp_path) / "scripted.pid").exists()  # never started


def test_window_asks_before_starting_an_agent_without_a_sandbox(
    sqlite_controller: SessionController, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    controller = sqlite_controller
    scripted_agent(controller, tmp_path, turn=[{"say": "hi"}])
    line = controller.lines.create_line("acp")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path))
    asked = answer_approvals(controller, allowed=False)
    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "hi"))
    [request] = asked
    assert request.tool == "start_agent" and request.unsandboxed is not None
    assert outcome.status == "failed" and "without a sandbox was refused" in (outcome.error or "")
    assert not (agent_folder(tmp_path) / "scripted.pid").exists()


@needs_bwrap
def test_an_agents_start_looks_at_the_disk_off_the_loops_thread(
    sqlite_controller: SessionController, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34 item 1: the loop is the window's, and twenty lines' streams wait behind it. The sandbox's mounts
    (every path resolved), the PATH's look-up and the allow-list proxy's folder and bridge (compiled there) are
    made on a worker: they held the loop 6-7 ms each at every agent's start."""
    from xworkmate.agents import net_proxy
    from xworkmate.agents.sandbox import Sandbox

    threads: dict[str, str] = {}

    def noted(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            threads.setdefault(name, threading.current_thread().name)
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(Sandbox, "wrap", noted("the sandbox's argv", Sandbox.wrap))
    monkeypatch.setattr(net_proxy, "bridge_launch", noted("the proxy's bridge", net_proxy.bridge_launch))
    controller = sqlite_controller
    scripted_agent(controller, tmp_path, turn=[{"say": "hi"}])
    line = controller.lines.create_line("acp")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")

    async def turn() -> tuple[str, str]:
        outcome = await controller.turns.run_turn(line.thread_id, "hello", headless=True)
        return outcome.status, threading.current_thread().name

    status, loop_thread = asyncio.run(turn())
    assert status == "finished"
    assert set(threads) == {"the sandbox's argv", "the proxy's bridge"}  # an allow-list sandbox: both made
    assert loop_thread not in threads.values(), threads
