"""SBX-1: the native agent's commands run in a real bubblewrap sandbox, on a ``full`` line.

A scripted model (a real OpenAI-compatible server) makes the agent try each way out that
issue 12 found open: write outside the folder, read the database, read another line's
folder, read a file under the person's home, connect to a loopback port, leave a process
running after the turn. Every one fails; a write inside the folder succeeds. The same
commands with bwrap hidden from PATH (or failing) are never run headless.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.controllers.conftest import scripted_controller
from tests.support.sandboxing import answer_approvals, needs_bwrap, path_without_bwrap
from xworkmate.agents.sandbox import detect_sandbox
from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply


@pytest.fixture
def person_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The person's home folder, with a private file in it."""
    home = tmp_path / "person"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MARKER\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def agent_controller(
    sqlite_store: Store, settings: Settings, openai_server: OpenAIServer, person_home: Path
) -> SessionController:
    return scripted_controller(sqlite_store, settings, openai_server)


def command(cmd: str, call_id: str) -> ScriptedToolCall:
    return ScriptedToolCall(id=call_id, name="run_command", arguments=json.dumps({"command": cmd, "timeout_s": 20}))


def tool_outputs(controller: SessionController, key: str) -> dict[str, str]:
    """The stored result of each command, by its call id (what the model was sent)."""
    return {
        (m.payload or {})["tool_call_id"]: m.content
        for m in controller.lines.messages(key)
        if m.role is MessageRole.TOOL and m.payload
    }


@pytest.fixture
def medical_line(agent_controller: SessionController) -> Iterator[str]:
    """Another line whose conversation is medical: its text must never reach the normal line."""
    line = agent_controller.lines.create_line("clinic")
    agent_controller.tasks.set_category(line.thread_id, "medical")
    agent_controller._store.messages.append(
        line.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content="MEDICAL-MARKER diagnosis"
    )
    yield line.thread_id


@needs_bwrap
def test_every_way_out_fails_and_a_write_inside_succeeds(
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    settings: Settings,
    person_home: Path,
    medical_line: str,
    tmp_path: Path,
) -> None:
    """SBX-1 on a ``full`` line: the folder is the only place the agent's shell can touch."""
    outside = tmp_path / "outside"
    outside.mkdir()
    other = agent_controller.lines.create_line("other")
    other_folder = Path(other.workspace_binding.path or "")
    (other_folder / "secret.txt").write_text("OTHER-LINE-MARKER\n")
    line = agent_controller.lines.create_line("normal")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    folder = Path(line.workspace_binding.path or "")
    port = openai_server.base_url.split(":")[-1].split("/")[0]
    sleeper = f"sleep {4000 + os.getpid() % 1000}.5"
    openai_server.script(
        ToolCallReply(
            [
                command(f"echo pwned > {outside}/cmd_pwned.txt; echo pwned > /tmp/xwm-outside.txt", "write_out"),
                command(f"cat {settings.sqlite_path}", "read_db"),
                command(f"cat {other_folder}/secret.txt", "read_other"),
                command(f"cat {person_home}/.ssh/id_ed25519", "read_home"),
                command(f"bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' && echo CONNECTED", "loopback"),
                command(f"({sleeper}; echo late > {folder}/late.txt) > /dev/null 2>&1 & echo started", "background"),
                command("env", "env"),
                command("echo inside > inside.txt && cat inside.txt", "write_in"),
            ]
        ),
        TextReply(["done"]),
    )
    outcome = asyncio.run(agent_controller.turns.run_turn(line.thread_id, "try everything", headless=True))
    assert outcome.status == "finished", outcome.error
    assert outcome.refused_approvals == ()  # full + a sandbox: nothing waits, nothing is refused

    out = tool_outputs(agent_controller, line.thread_id)
    assert not (outside / "cmd_pwned.txt").exists()
    assert not Path("/tmp/xwm-outside.txt").exists()
    assert "MEDICAL-MARKER" not in out["read_db"] and "No such file" in out["read_db"]
    assert "OTHER-LINE-MARKER" not in out["read_other"]
    assert "PRIVATE-KEY-MARKER" not in out["read_home"]
    assert "CONNECTED" not in out["loopback"]
    assert "XWORKMATE" not in out["env"] and f"HOME={person_home}" in out["env"]
    assert (folder / "inside.txt").read_text() == "inside\n"
    assert "exit code 0" in out["write_in"]
    # No process outlives the command, let alone the turn.
    assert subprocess.run(["pgrep", "-f", sleeper], capture_output=True, check=False).returncode == 1
    time.sleep(0.2)
    assert not (folder / "late.txt").exists()

    # The medical text reached no request of the normal line's model.
    sent = json.dumps([r.body for r in openai_server.chat_requests])
    assert "MEDICAL-MARKER" not in sent and "OTHER-LINE-MARKER" not in sent and "PRIVATE-KEY-MARKER" not in sent


@needs_bwrap
def test_network_on_lets_a_lines_commands_reach_a_loopback_port(
    agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    """SBX-1: ``thread set KEY --network on`` is the line's own choice; off is the default."""
    line = agent_controller.lines.create_line("net")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    agent_controller.line_settings.set_network(line.thread_id, "on")
    port = openai_server.base_url.split(":")[-1].split("/")[0]
    openai_server.script(
        ToolCallReply([command(f"bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' && echo CONNECTED", "net")]),
        TextReply(["ok"]),
    )
    asyncio.run(agent_controller.turns.run_turn(line.thread_id, "connect", headless=True))
    assert "CONNECTED" in tool_outputs(agent_controller, line.thread_id)["net"]


@needs_bwrap
def test_named_variables_pass_and_others_do_not(
    agent_controller: SessionController, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SBX-1: the allow-list plus what the person named; a secret-looking name cannot be named."""
    monkeypatch.setenv("PROJECT_STAGE", "staging")
    monkeypatch.setenv("UNNAMED_VARIABLE", "should-not-pass")
    line = agent_controller.lines.create_line("env")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    agent_controller.line_settings.set_command_env(line.thread_id, ["PROJECT_STAGE"])
    with pytest.raises(ValueError, match="looks like it holds a secret"):
        agent_controller.line_settings.set_command_env(line.thread_id, ["OPENAI_API_KEY"])
    with pytest.raises(ValueError, match="XWorkmate's own"):
        agent_controller.line_settings.set_command_env(line.thread_id, ["XWORKMATE_HOME"])
    openai_server.script(ToolCallReply([command("env", "env")]), TextReply(["ok"]))
    asyncio.run(agent_controller.turns.run_turn(line.thread_id, "show env", headless=True))
    env = tool_outputs(agent_controller, line.thread_id)["env"]
    assert "PROJECT_STAGE=staging" in env and "should-not-pass" not in env


# -- without a sandbox -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fake_bwrap", "said"),
    [
        (None, "bwrap is not on PATH; install bubblewrap"),
        ("bwrap: No permissions to creating new namespace", "fails (bwrap: No permissions to creating new namespace)"),
    ],
    ids=["no-bwrap", "bwrap-fails"],
)
@pytest.mark.parametrize("network", ["off", "on"])
def test_headless_run_refuses_a_command_that_cannot_be_sandboxed(
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_bwrap: str | None,
    said: str,
    network: str,
) -> None:
    """SBX-1: no silent fallback. Even on ``full``, headless, the command is refused in one line naming the fix."""
    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path, fake_bwrap))
    assert not detect_sandbox().available
    line = agent_controller.lines.create_line("bare")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    agent_controller.line_settings.set_network(line.thread_id, network)
    marker = tmp_path / f"ran-{uuid.uuid4().hex}"
    openai_server.script(ToolCallReply([command(f"touch {marker}", "c1")]), TextReply(["ok"]))
    outcome = asyncio.run(agent_controller.turns.run_turn(line.thread_id, "touch it", headless=True))
    assert not marker.exists()
    [refusal] = outcome.refused_approvals
    assert "\n" not in refusal and said in refusal and "cannot run in a sandbox" in refusal
    stored = tool_outputs(agent_controller, line.thread_id)["c1"]
    assert "was not approved" in stored and "sandbox" in stored


def test_window_asks_before_an_unsandboxed_command_and_runs_it_once_allowed(
    agent_controller: SessionController, openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SBX-1: at the window, a ``full`` line still asks, and the request says it would run unsandboxed."""

    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path))
    line = agent_controller.lines.create_line("bare")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    marker = tmp_path / "ran-after-approval"
    openai_server.script(ToolCallReply([command(f"touch {marker}", "c1")]), TextReply(["ok"]))
    asked = answer_approvals(agent_controller, allowed=True)
    outcome = asyncio.run(agent_controller.turns.run_turn(line.thread_id, "touch it"))
    assert outcome.status == "finished"
    [request] = asked
    assert request.unsandboxed is not None and "bwrap is not on PATH" in request.unsandboxed
    assert marker.exists()
    assert "ran without a sandbox" in tool_outputs(agent_controller, line.thread_id)["c1"]


@pytest.mark.skipif(not os.environ.get("CI"), reason="only CI promises bubblewrap (`.ci/run` installs it)")
def test_bubblewrap_runs_in_ci() -> None:
    """The sandboxed tests above are never skipped in CI: `.ci/run` installs bubblewrap."""
    assert shutil.which("bwrap") is not None and detect_sandbox().available, detect_sandbox().detail
