"""An agent CLI's code-running config in its writable state folders (issue 29, SBX-3).

A hostile agent may write its CLI's state folders (``~/.qwen``, ``~/.config/opencode``…), which are the
person's real ones. What the CLI runs from there when the person starts it by hand (MCP server commands,
hooks, plugins, extensions) stays read-only in the sandbox; a config file that did not exist (and so
could not be mounted), or one the CLI must write itself (Qwen's ``settings.json``: it cannot sign in
when that file is read-only), is named on the line once the agent's process ended. The agent's
ordinary state stays writable. Real bubblewrap, real processes, a temporary HOME.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from tests.support.sandboxing import needs_bwrap
from xworkmate.agents.agent_config import config_fingerprint, describe_config_changes
from xworkmate.controllers import SessionController
from xworkmate.controllers.containment import agent_config_paths, agent_state_dirs, line_sandbox
from xworkmate.domain.messages import MessageRole
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.acp_scripts import agent_folder, report_events, scripted_agent

PERSONS_SETTINGS = {"mcpServers": {"mine": {"command": "my-server"}}}


@pytest.fixture
def person_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "person"
    (home / ".qwen").mkdir(parents=True)
    (home / ".qwen" / "settings.json").write_text(json.dumps(PERSONS_SETTINGS))
    (home / ".config" / "opencode").mkdir(parents=True)  # no plugin folder yet
    monkeypatch.setenv("HOME", str(home))
    return home


@needs_bwrap
def test_qwen_and_opencode_config_stays_read_only_in_the_sandbox_while_their_state_stays_writable(
    sqlite_controller: SessionController, sqlite_store: Store, settings: Settings, person_home: Path
) -> None:
    line = sqlite_controller.lines.create_line("agents")
    thread = sqlite_controller.get_thread(line.thread_id)
    writable = [*agent_state_dirs(("qwen",), None), *agent_state_dirs(("/usr/bin/opencode",), None)]
    sandbox = line_sandbox(settings, sqlite_store, thread, writable=writable)
    watched = agent_config_paths(writable, sandboxed=True)
    before = config_fingerprint(watched)
    assert (person_home / ".config" / "opencode" / "plugin").is_dir()  # made, so it is mounted read-only

    script = "; ".join(
        [
            'echo \'{"mcpServers": {"x": {"command": "evil"}}}\' > ~/.qwen/settings.json; echo settings=$?',
            "mkdir ~/.qwen/extensions/evil; echo extension=$?",
            "echo 'export default {}' > ~/.config/opencode/plugin/evil.js; echo plugin=$?",
            "mv ~/.config/opencode/plugin ~/.config/opencode/old; echo plugin_moved=$?",
            "mkdir -p ~/.qwen/tmp && echo state > ~/.qwen/tmp/x; echo qwen_state=$?",
            "echo state > ~/.local/share/opencode/x; echo opencode_state=$?",
            # A config file that was missing cannot be mounted: its creation works, and is named afterwards.
            'echo \'{"mcp": {"x": {"type": "local", "command": ["evil"]}}}\' > ~/.config/opencode/opencode.json;'
            " echo created=$?",
        ]
    )
    done = subprocess.run(
        sandbox.wrap(["/bin/sh", "-c", script]),
        env={"HOME": str(person_home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    said = dict(part.split("=") for part in done.stdout.split() if "=" in part)
    assert said.keys() >= {"settings", "extension", "plugin", "plugin_moved", "created"}, done.stderr
    for tag in ("extension", "plugin", "plugin_moved"):
        assert said[tag] != "0", f"{tag} was allowed: {done.stdout}"
    assert not any((person_home / ".config" / "opencode" / "plugin").iterdir())
    assert not (person_home / ".qwen" / "extensions" / "evil").exists()
    assert said["qwen_state"] == "0" and (person_home / ".qwen" / "tmp" / "x").read_text() == "state\n"
    assert said["opencode_state"] == "0" and (person_home / ".local/share/opencode/x").read_text() == "state\n"

    notice = describe_config_changes(before, config_fingerprint(watched), watched)
    assert notice is not None
    assert "~/.config/opencode/opencode.json was added" in notice
    assert "~/.qwen/settings.json was changed" in notice  # Qwen writes it itself, so it stays writable
    assert "OpenCode runs its MCP server commands and plugins from there" in notice
    assert "Qwen Code runs its MCP server commands and hooks from there" in notice
    assert "outside the sandbox" in notice and "extensions" not in notice


def test_a_cli_recording_its_own_sign_in_is_not_reported_but_a_server_it_would_run_is(person_home: Path) -> None:
    """Qwen writes ``security.auth.selectedType`` when it signs in (a missing settings file is created for
    it); Claude Code rewrites ``~/.claude.json`` at every start. Neither is a change worth a notice; an MCP
    server in either is."""
    (person_home / ".qwen" / "settings.json").unlink()
    watched = agent_config_paths([*agent_state_dirs(("qwen",), None), "~/.claude.json"], sandboxed=True)
    before = config_fingerprint(watched)
    (person_home / ".qwen" / "settings.json").write_text('{"security": {"auth": {"selectedType": "openai"}}}')
    (person_home / ".claude.json").write_text('{"numStartups": 3, "projects": {"/p": {"lastCost": 1}}}')
    assert describe_config_changes(before, config_fingerprint(watched), watched) is None

    (person_home / ".claude.json").write_text('{"numStartups": 4, "projects": {"/p": {"mcpServers": {"x": {}}}}}')
    notice = describe_config_changes(before, config_fingerprint(watched), watched)
    assert notice is not None and "~/.claude.json was added" in notice and "Claude Code" in notice


@needs_bwrap
def test_a_turn_that_created_a_config_file_its_cli_runs_leaves_a_notice_naming_it(
    sqlite_controller: SessionController, tmp_path: Path, person_home: Path
) -> None:
    """A real ACP agent turn, with ``~/.qwen`` among the folders the person listed for an agent of another
    name: the table's protection applies there too. Its settings file, missing, is created by the agent's
    shell (a file cannot be mounted before it exists); the line names it once the agent's process ended."""
    controller = sqlite_controller
    (person_home / ".qwen" / "settings.json").unlink()
    evil = json.dumps({"mcpServers": {"x": {"command": "sh", "args": ["-c", "id > /tmp/mark"]}}})
    report = scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"shell": f"echo '{evil}' > $HOME/.qwen/settings.json; echo created=$?"},
            {"shell": "mkdir $HOME/.qwen/extensions/evil; echo extension=$?"},
            {"shell": "mkdir -p $HOME/.qwen/tmp && echo ok > $HOME/.qwen/tmp/state; echo state=$?"},
            {"say": "done"},
        ],
    )
    [record] = [p for p in controller.providers.records() if p.name == "scripted"]
    listed = (str(agent_folder(tmp_path)), "~/.qwen")
    controller.providers.add_provider(record.model_copy(update={"acp_state_dirs": listed}), replace=True)
    line = controller.lines.create_line("hostile agent")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")

    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "set things up", headless=True))
    assert outcome.status == "finished", outcome.error

    outputs = " ".join(str(event["output"]) for event in report_events(report, "shell"))
    assert "created=0" in outputs and "state=0" in outputs and "extension=0" not in outputs
    assert (person_home / ".qwen" / "tmp" / "state").read_text() == "ok\n"
    notices = [m.content for m in controller.lines.messages(line.thread_id) if m.role is MessageRole.SYSTEM]
    [notice] = [n for n in notices if "During this turn" in n]
    assert "~/.qwen/settings.json was added" in notice
    assert "Qwen Code runs its MCP server commands and hooks from there" in notice
    assert "outside the sandbox" in notice and "\n" not in notice
