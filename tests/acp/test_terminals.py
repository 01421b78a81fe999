"""ACP terminals (issue 15 item 2, SBX-1): the agent's ``terminal/*`` requests run in the line's folder
under the line's sandbox and the permission rules of the native ``run_command``.

The scripted agent is a real ACP process; the terminals are real processes in real bubblewrap.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acp import AgentHarness
from tests.support.sandboxing import answer_approvals, needs_bwrap, path_without_bwrap
from xworkmate.agents.acp import AcpRunner, AcpTimeouts, permission_approver
from xworkmate.agents.events import ToolDone
from xworkmate.agents.sandbox import Sandbox, SandboxPolicy, detect_sandbox
from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.threads import PermissionLevel
from xworkmate.settings import Settings
from xworkmate.testing.acp_scripts import report_events, scripted_agent

# A system Python: the test checkout (and its venv) may live under /tmp, which a sandbox makes private.
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


@pytest.fixture
def loopback_port() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that accepts and closes connections."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


def _connect(port: int) -> str:
    return f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3); print('CONNECTED')"


def _line(controller: SessionController, level: str = "full") -> tuple[str, Path]:
    line = controller.lines.create_line("terminals")
    controller.line_settings.set_permission(line.thread_id, level)
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    return line.thread_id, Path(line.workspace_binding.path or "")


def _by_command(report: Path) -> list[dict[str, object]]:
    return report_events(report, "terminal")


@needs_bwrap
def test_terminals_run_in_the_folder_under_the_lines_sandbox(
    sqlite_controller: SessionController, settings: Settings, tmp_path: Path, loopback_port: int
) -> None:
    controller = sqlite_controller
    medical = controller.lines.create_line("clinic")
    controller._store.messages.append(
        medical.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content="MEDICAL-MARKER"
    )
    outside = tmp_path / "outside"
    outside.mkdir()
    report = scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"terminal": {"command": "echo made > made.txt; echo hello; exit 3", "tool_id": "t-made"}},
            {"terminal": {"command": f"echo pwned > {outside}/pwned.txt"}},
            {"terminal": {"command": "cat", "args": [str(settings.sqlite_path)]}},
            {"terminal": {"command": PY, "args": ["-c", _connect(loopback_port)]}},
            {"shell": f'{PY} -c "{_connect(loopback_port)}"'},  # the agent reaches what its line lists
            {
                "terminal": {
                    "command": "echo FOO=$FOO SECRET=$API_TOKEN OWN=$XWORKMATE_HOME",
                    "env": {"FOO": "bar", "API_TOKEN": "s3cr3t", "XWORKMATE_HOME": "/x"},
                }
            },
            {"say": "done"},
        ],
    )
    key, folder = _line(controller)
    # SBX-4: listed on a line whose network is off: the agent process reaches it, its terminals do not.
    controller.line_settings.set_allowed_hosts(key, add=[f"127.0.0.1:{loopback_port}"])
    outcome = asyncio.run(controller.turns.run_turn(key, "try", headless=True))
    assert outcome.status == "finished", outcome.error
    assert report_events(report, "initialize")[0]["terminal"] is True

    made, escape, database, net, env = _by_command(report)
    assert made["ok"] and made["exit_code"] == 3 and made["output"] == "hello\n"
    assert (folder / "made.txt").read_text() == "made\n"
    assert "no terminal" in str(made["after_release"])  # released
    assert escape["ok"] and escape["exit_code"] != 0 and not (outside / "pwned.txt").exists()
    assert database["exit_code"] != 0 and "MEDICAL-MARKER" not in str(database["output"])
    # SBX-1: the line's network setting (off), although the agent process reaches the listed port.
    assert net["exit_code"] != 0 and "CONNECTED" not in str(net["output"])
    assert "CONNECTED" in str(report_events(report, "shell")[0]["output"])
    assert env["output"] == "FOO=bar SECRET= OWN=\n"
    # The tool card shows the command and its output.
    cards = [m.content for m in controller.lines.messages(key) if m.role is MessageRole.TOOL]
    assert any("$ echo made > made.txt; echo hello; exit 3" in c and "hello" in c for c in cards), cards


@needs_bwrap
def test_output_limit_kill_and_a_cwd_outside(sqlite_controller: SessionController, tmp_path: Path) -> None:
    controller = sqlite_controller
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    report = scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"terminal": {"command": PY, "args": ["-c", "print('a' * 5000 + 'END')"], "output_byte_limit": 100}},
            {"terminal": {"command": "sleep", "args": ["30"], "kill_after": 0.5}},
            {"terminal": {"command": "pwd", "cwd": str(outside)}},
            {"terminal": {"command": "pwd", "cwd": "sub"}},
            {"say": "done"},
        ],
    )
    key, folder = _line(controller)
    (folder / "sub").mkdir()
    outcome = asyncio.run(asyncio.wait_for(controller.turns.run_turn(key, "go", headless=True), 30))
    assert outcome.status == "finished", outcome.error
    limited, killed, escaped, inside = _by_command(report)
    assert limited["truncated"] is True and str(limited["output"]).endswith("aEND\n")
    assert len(str(limited["output"]).encode()) <= 100
    assert killed["ok"] and killed["exit_code"] is None and killed["signal"] in ("SIGTERM", "SIGKILL")
    assert escaped["ok"] is False
    error = str(escaped["error"])
    assert "\n" not in error and error.startswith("refused: cwd") and "outside" in error
    assert inside["ok"] and str(inside["output"]).strip().endswith("/sub")


@needs_bwrap
def test_stop_kills_the_turns_terminals(sqlite_controller: SessionController, tmp_path: Path) -> None:
    controller = sqlite_controller
    marker = f"xwm-term-{uuid.uuid4().hex}"
    report = scripted_agent(
        controller,
        tmp_path,
        turn=[{"terminal": {"command": PY, "args": ["-c", "import time; time.sleep(300)", marker]}}],
    )
    key, _folder = _line(controller)

    def alive() -> bool:
        return subprocess.run(["pgrep", "-f", marker], capture_output=True, check=False).returncode == 0

    async def scenario() -> None:
        task = controller.turns.start_turn(key, "long job")
        while not alive():
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        controller.turns.stop(key)
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(scenario(), 30))
    assert not alive()  # SBX-1: nothing outlives the turn
    assert report_events(report, "cancel")


@needs_bwrap
def test_ask_line_asks_at_the_window_and_headless_refuses_in_one_line(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, turn=[{"terminal": {"command": "echo ran > ran.txt"}}])
    key, folder = _line(controller, "ask")

    asked = answer_approvals(controller, allowed=True)
    outcome = asyncio.run(controller.turns.run_turn(key, "go"))
    assert outcome.status == "finished", outcome.error
    [request] = asked
    assert request.tool == "execute" and request.unsandboxed is None and "echo ran" in request.summary
    assert (folder / "ran.txt").exists()

    (folder / "ran.txt").unlink()
    outcome = asyncio.run(controller.turns.run_turn(key, "again", headless=True))
    assert outcome.status == "finished", outcome.error
    assert len(asked) == 1  # headless: nobody is asked
    [refusal] = outcome.refused_approvals
    assert "\n" not in refusal and "needs approval" in refusal and "--permission" in refusal
    assert not (folder / "ran.txt").exists()
    assert report_events(report, "terminal")[-1]["ok"] is False


def test_no_sandbox_asks_at_every_level_at_the_window(
    sqlite_controller: SessionController, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller = sqlite_controller
    scripted_agent(controller, tmp_path, turn=[{"terminal": {"command": "echo ran > ran.txt"}}])
    key, folder = _line(controller, "full")
    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path))
    asked = answer_approvals(controller, allowed=True)
    outcome = asyncio.run(controller.turns.run_turn(key, "go"))
    assert outcome.status == "finished", outcome.error
    start, terminal = asked
    assert start.tool == "start_agent" and terminal.tool == "execute"
    assert terminal.unsandboxed is not None and "bwrap is not on PATH" in terminal.unsandboxed
    assert (folder / "ran.txt").exists()


def test_no_sandbox_headless_refuses_the_terminal_in_one_line(tmp_path: Path) -> None:
    """The agent runs (here, started by the runner directly); its terminal cannot be contained: refused."""
    harness = AgentHarness(tmp_path)
    no_bwrap = detect_sandbox(path_without_bwrap(tmp_path))
    assert not no_bwrap.available
    sandbox = Sandbox(SandboxPolicy(working_directory=harness.workspace), no_bwrap)
    runner = AcpRunner(AcpTimeouts(startup=15, idle=15))
    refused: list[str] = []
    script = harness.script(turn=[{"terminal": {"command": "echo ran > ran.txt"}}, {"say": "still here"}])

    async def turn() -> str:
        result = await runner.run_turn(
            harness.request(),
            command=harness.command(),
            env={"XWM_ACP_SCRIPT": json.dumps(script)},
            prompt="go",
            acp_session_id=None,
            approver=permission_approver(PermissionLevel.FULL, refused=refused),
            emit=lambda event: None,
            permission_level=PermissionLevel.FULL,
            command_sandbox=sandbox,
        )
        return result.text

    assert "still here" in asyncio.run(turn())
    [refusal] = refused
    assert "\n" not in refusal and "cannot run in a sandbox" in refusal and "bwrap is not on PATH" in refusal
    assert not (harness.workspace / "ran.txt").exists()
    assert harness.report("terminal")[-1]["ok"] is False
    # The line stays usable: the next turn runs.
    script["turn"] = [{"say": "next"}]
    assert "next" in asyncio.run(turn())


def test_tool_done_card_of_a_terminal(tmp_path: Path) -> None:
    """Without the controller: the ACP tool call showing the terminal ends with its command and output."""
    harness = AgentHarness(tmp_path)
    script = harness.script(turn=[{"terminal": {"command": "echo card-text", "tool_id": "t1"}}])
    out = harness.run(script, level=PermissionLevel.FULL)
    assert out.error is None, out.error
    [done] = [e for e in out.of(ToolDone) if e.call.id == "t1"]
    assert done.result.content.startswith("$ echo card-text") and "card-text\n[exit code 0]" in done.result.content
