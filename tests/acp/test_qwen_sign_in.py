"""A real agent that requires sign-in (issue 15, item 1): Qwen Code from npm, through ``xworkmate run``.

Qwen Code (``tests/support/install_agents.sh``) runs as a line's ACP agent at permission ``full``,
in a fresh HOME, offline against the scripted OpenAI server (``tests/support/qwen_agent.py``).
It answers ``session/new`` with "Authentication required" until the client calls
``authenticate``; XWorkmate must sign in with the one method it offers (``openai``) by itself.
The scripted model then has Qwen's own ``write_file`` tool create a file in the line's folder.

A line with a content category never starts it (CAT-3): ``run`` is refused in one line, and
Qwen's state folder and the model server show that no Qwen process ran.

Everything goes through the real CLI (``python -m xworkmate``), a separate process per command.
The test folders live outside ``/tmp`` (under ``/var/tmp`` when it is writable), as in
``test_opencode_sandbox.py``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.qwen_agent import (
    QWEN_ENV_REFS,
    QWEN_KEY_VAR,
    QWEN_STATE_DIRS,
    QWEN_VERSION,
    agents_dir,
    install_status,
    prepare_qwen_home,
    qwen_command,
    qwen_executable,
    session_requests,
    tool_names,
    tool_results,
    write_file,
)
from tests.support.sandboxing import PG_DIRECT_PROBE, non_loopback_address, server_destination
from xworkmate.testing.latency_proxy import LatencyProxy
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply

CLI_TIMEOUT = 240.0
SIGNED_IN = "Signed in to the agent with its method 'openai'."


@pytest.fixture(scope="module")
def qwen() -> Path:
    """The installed Qwen Code launcher; skipped only when the installer could not reach the registry."""
    executable = qwen_executable()
    if executable is not None:
        return executable
    status = install_status() or ""
    if status.startswith("unreachable:"):
        pytest.skip(
            f"Qwen Code {QWEN_VERSION} is not installed: {status.removeprefix('unreachable:').strip()}"
            " (tests/support/install_agents.sh)"
        )
    pytest.fail(
        f"Qwen Code {QWEN_VERSION} is not installed in {agents_dir()}: run tests/support/install_agents.sh"
        " (.ci/run does; it records when the registry cannot be reached and this test is then skipped)"
    )


def _base_folder() -> Path:
    for parent in ("/var/tmp", None):
        try:
            return Path(tempfile.mkdtemp(prefix="xw-qwen-", dir=parent)).resolve()
        except OSError:
            continue
    raise RuntimeError("no writable temporary folder")


@dataclass
class Scene:
    base: Path
    home: Path  # the fresh HOME every command (and so the agent) starts with
    xw_home: Path  # XWORKMATE_HOME: database, logs
    key: str  # the API key, only ever in the environment

    def files(self, *, data: bool = True) -> dict[Path, int]:
        """Every file under the base folder (without XWorkmate's own data unless ``data``), with its
        modification time."""
        files = {p: p.stat().st_mtime_ns for p in self.base.rglob("*") if p.is_file() and not p.is_symlink()}
        return files if data else {p: t for p, t in files.items() if self.xw_home not in p.parents}

    def cli(self, *args: str, timeout: float = CLI_TIMEOUT) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("XWORKMATE_", "XDG_", "QWEN_", "OPENAI_"))}
        env.update(
            {"HOME": str(self.home), "XWORKMATE_HOME": str(self.xw_home), "QT_QPA_PLATFORM": "offscreen"},
        )
        env[QWEN_KEY_VAR] = self.key
        trace = os.environ.get("XWORKMATE_ACP_TRACE")
        if trace:
            env["XWORKMATE_ACP_TRACE"] = trace  # issue 32 item 7: the schema check of every message (conftest)
        return subprocess.run(
            [sys.executable, "-m", "xworkmate", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )

    def ok(self, *args: str) -> Any:
        done = self.cli(*args, "--json")
        assert done.returncode == 0, f"xworkmate {' '.join(args)} failed: {done.stderr}"
        return json.loads(done.stdout)

    def folder(self, name: str) -> Path:
        path = self.base / "work" / name
        path.mkdir(parents=True)
        return path

    def qwen_line(self, folder: Path) -> str:
        key = self.ok("thread", "new", "--workspace", str(folder))["session_key"]
        self.ok("thread", "set", key, "--mode", "acp", "--provider", "qwen", "--permission", "full")
        return str(key)


@pytest.fixture
def scene(qwen: Path, openai_server: OpenAIServer) -> Iterator[Scene]:
    base = _base_folder()
    home = base / "home"
    xw_home = base / "xworkmate-home"
    for path in (home, xw_home):
        path.mkdir(parents=True)
    prepare_qwen_home(home, openai_server.base_url)
    scene = Scene(base, home, xw_home, key=f"sk-test-{uuid.uuid4().hex}")
    command = shlex.join(qwen_command(qwen, openai_server.base_url))
    env = [f"--acp-env={name}={ref}" for name, ref in QWEN_ENV_REFS]
    # No --acp-auth and no --acp-state-dir: the only method offered and the defaults for `qwen` apply.
    # SBX-4: the model server is on loopback, so the person names it for the agent's allow-list.
    model_host = f"--acp-allow-host={server_destination(openai_server.base_url)}"
    added = scene.ok("provider", "add", "qwen", "--acp-command", command, *env, model_host)
    assert added["acp_auth_method"] is None
    try:
        yield scene
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _allowed(scene: Scene, path: Path, folder: Path) -> bool:
    roots = [folder, scene.xw_home, *(scene.home / entry.removeprefix("~/") for entry in QWEN_STATE_DIRS)]
    return any(path == root or root in path.parents for root in roots)


def test_qwen_signs_in_by_itself_and_writes_in_the_lines_folder(scene: Scene, openai_server: OpenAIServer) -> None:
    folder = scene.folder("project")
    outside = scene.folder("sibling")
    key = scene.qwen_line(folder)
    target = folder / "hello.txt"
    content = f"written by qwen {uuid.uuid4().hex}\n"
    openai_server.script(ToolCallReply([write_file("w1", target, content)]), TextReply(["Wrote hello.txt."]))
    before = scene.files()

    done = scene.cli("run", key, "Create hello.txt in the project.", "--json")

    requests = session_requests(openai_server)
    results = tool_results(openai_server)
    assert done.returncode == 0, f"xworkmate run failed: {done.stderr}\nmodel saw tool results: {results}"
    out = json.loads(done.stdout)
    assert out["status"] == "finished", out
    assert out["text"] == "Wrote hello.txt.", out

    # Qwen refuses session/new until authenticate: the turn ran, so XWorkmate signed in, with the one
    # method offered, and said so on the line; Qwen recorded the method in its own settings.
    notices = [m["content"] for m in scene.ok("messages", key) if "Signed in" in m["content"]]
    assert notices == [SIGNED_IN]
    settings = json.loads((scene.home / ".qwen" / "settings.json").read_text())
    assert settings["security"]["auth"]["selectedType"] == "openai"
    # SBX-3: that is no change to what Qwen runs (MCP servers, hooks), so the line does not report it.
    assert [m["content"] for m in scene.ok("messages", key) if "During this turn" in m["content"]] == []
    # The key reached the model server through the environment reference, never on the command line.
    assert {r.headers.get("authorization") for r in openai_server.chat_requests} == {f"Bearer {scene.key}"}
    assert scene.key not in json.dumps(scene.ok("provider", "list"))

    # Qwen's own write_file tool wrote the file in the line's folder, and the model saw it succeed.
    assert "write_file" in tool_names(openai_server)
    assert target.read_text() == content, results
    assert "w1" in results and "error" not in results["w1"].lower(), results
    assert openai_server.pending_replies == 0
    assert len(requests) == 2, [r.get("messages", [])[-1] for r in requests]  # no background model requests

    # Nothing written outside the folder but Qwen's state and XWorkmate's own data.
    changed = [p for p, mtime in scene.files().items() if before.get(p) != mtime]
    assert [str(p) for p in changed if not _allowed(scene, p, folder)] == []
    assert list(outside.iterdir()) == []

    # Issue 15, items 4, 5 and 8: what the real agent offers reaches the line, and a pick is sent.
    shown = scene.ok("thread", "show", key)["agent_session"]
    assert {"default", "plan", "yolo"} <= set(shown["modes"]) and shown["mode"] == "default", shown
    assert shown["models"] and shown["model"] in shown["models"], shown  # the unstable `models` field
    assert "init" in shown["commands"], shown
    [listed] = scene.ok("provider", "list")
    info = listed["agent_info"]
    assert (info["name"], info["title"], info["version"]) == ("qwen-code", "Qwen Code", "0.24.4"), info
    scene.ok("thread", "set", key, "--acp-mode", "auto-edit")
    openai_server.script(TextReply(["Mode noted."]))
    again = scene.cli("run", key, "Say: mode noted.", "--json")
    assert again.returncode == 0, again.stderr
    after = scene.ok("thread", "show", key)["agent_session"]
    assert (after["mode"], after["pending"]) == ("auto-edit", False), after


def test_a_category_line_never_starts_qwen(scene: Scene, openai_server: OpenAIServer) -> None:
    folder = scene.folder("medical")
    key = scene.qwen_line(folder)
    scene.ok("thread", "category", key, "--set", "medical")
    openai_server.script(ToolCallReply([write_file("w1", folder / "leak.txt", "leak\n")]), TextReply(["no"]))
    state = scene.home / ".qwen"
    before = scene.files(data=False)

    done = scene.cli("run", key, "Write down the diagnosis.")

    assert done.returncode != 0, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xworkmate: error: "), done.stderr
    assert "medical" in lines[0] and "CAT-3" in lines[0], lines[0]
    # Refused before any process started: Qwen writes to ~/.qwen as soon as it starts (its settings'
    # version, installation_id, projects/), and here nothing changed there; the model server got nothing.
    assert sorted(p.name for p in state.iterdir()) == ["settings.json"]
    assert scene.files(data=False) == before
    assert openai_server.requests == []
    assert not (folder / "leak.txt").exists()
    # Passing the agent for one turn on a category line is refused the same way.
    scene.ok("thread", "set", key, "--mode", "native")
    refused = scene.cli("run", key, "Write down the diagnosis.", "--provider", "qwen")
    assert refused.returncode != 0 and "CAT-3" in refused.stderr, refused.stderr
    assert scene.files(data=False) == before
    assert openai_server.requests == []


def test_qwen_on_a_line_without_a_network_choice_reaches_its_model_and_not_postgresql(
    scene: Scene, openai_server: OpenAIServer
) -> None:
    """Issue 29 row 8, SBX-4, with Qwen Code (Node 20): its model server, named by ``--acp-allow-host``,
    works; its own shell cannot reach 127.0.0.1:5432; the turn's network log shows the model host allowed."""
    from xworkmate.testing.openai_server import ScriptedToolCall

    key = scene.qwen_line(scene.folder("network"))
    assert scene.ok("thread", "show", key)["network"] == "off"  # not chosen
    arguments = json.dumps({"command": PG_DIRECT_PROBE, "description": "reach PostgreSQL"})
    call = ScriptedToolCall("pg", "run_shell_command", arguments)
    openai_server.script(ToolCallReply([call]), TextReply(["Tried."]))

    done = scene.cli("run", key, "Try PostgreSQL.", "--json")

    results = tool_results(openai_server)
    assert done.returncode == 0, f"xworkmate run failed: {done.stderr}\nmodel saw tool results: {results}"
    assert "Output: PG-DIRECT-CLOSED" in results["pg"], results
    # Issue 32 item 8: XWorkmate offers its terminals, but Qwen Code 0.24.4 runs run_shell_command itself (its ACP
    # agent never calls terminal/create; only the SDK's client class has it).
    trace = [json.loads(row) for row in Path(os.environ["XWORKMATE_ACP_TRACE"]).read_text().splitlines() if row]
    initialize = next(e["msg"] for e in trace if e["dir"] == "out" and e["msg"].get("method") == "initialize")
    assert initialize["params"]["clientCapabilities"]["terminal"] is True
    assert [e["msg"]["method"] for e in trace if str(e["msg"].get("method", "")).startswith("terminal/")] == []
    logged = [m["network"] for m in scene.ok("messages", key) if m["network"]]
    model = server_destination(openai_server.base_url)
    assert {"host": "127.0.0.1", "port": int(model.rpartition(":")[2]), "allowed": True} in logged, logged


def test_qwen_reaches_a_model_host_that_is_not_loopback_through_the_proxy_variables(
    scene: Scene, qwen: Path, openai_server: OpenAIServer
) -> None:
    """SBX-4: a model host off loopback (this machine's LAN address stands for it) is reachable only through
    the proxy: Qwen Code on Node 20 must honour HTTPS_PROXY/HTTP_PROXY; the proxy logs the host allowed."""
    address = non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to stand for a remote model host")
    with LatencyProxy(openai_server.port, delay_s=0.0, listen_host=address) as relay:
        far = f"http://{address}:{relay.port}/v1"
        prepare_qwen_home(scene.home, far)
        env = [f"--acp-env={name}={ref}" for name, ref in QWEN_ENV_REFS]
        command = shlex.join(qwen_command(qwen, far))
        allow = f"--acp-allow-host={server_destination(far)}"
        scene.ok("provider", "add", "qwen", "--acp-command", command, *env, allow, "--replace")
        key = scene.qwen_line(scene.folder("far"))
        openai_server.script(TextReply(["Hello from afar."]))
        done = scene.cli("run", key, "Say hello.", "--json")
    assert done.returncode == 0, f"xworkmate run failed: {done.stderr}"
    assert json.loads(done.stdout)["text"] == "Hello from afar."
    logged = [m["network"] for m in scene.ok("messages", key) if m["network"]]
    assert {"host": address, "port": relay.port, "allowed": True} in logged, logged


def test_an_mcp_server_qwen_cannot_start_is_one_line_on_the_line_and_on_runs_stderr(
    scene: Scene, openai_server: OpenAIServer
) -> None:
    """Issue 32 item 5 (ERR-1): Qwen Code gets the line's MCP server (a program that exits at once), cannot start
    it, and says so on its stderr ("Warning: MCP server(s) failed to start: broken. ..."); XWorkmate makes that one
    notice on the line and one ``xworkmate: warning:`` line on ``run``'s stderr, and the turn finishes."""
    key = scene.qwen_line(scene.folder("mcp"))
    scene.ok("mcp", "add", "broken", "--command", "false")
    scene.ok("thread", "set", key, "--mcp", "broken")
    openai_server.script(TextReply(["Still here."]))

    done = scene.cli("run", key, "Say: still here.", "--json")

    assert done.returncode == 0, f"xworkmate run failed: {done.stderr}"
    out = json.loads(done.stdout)
    assert (out["status"], out["text"]) == ("finished", "Still here."), out
    expected = "MCP server 'broken' failed to start inside Qwen Code 0.24.4 (the agent says so); the turn went on"
    assert [w[: len(expected)] for w in out["warnings"]] == [expected], out["warnings"]
    assert done.stderr.strip().splitlines() == [f"xworkmate: warning: {out['warnings'][0]}"], done.stderr
    notices = [m["content"] for m in scene.ok("messages", key) if "failed to start inside" in m["content"]]
    assert notices == out["warnings"]
