"""A third real agent (issue 32, item 7): codex-acp from npm, through ``xworkmate run``.

codex-acp 0.16.0 (``tests/support/install_agents.sh``) runs as a line's ACP agent in XWorkmate's
sandbox, in a fresh HOME, against the scripted server's Responses API (``POST /v1/responses``; codex
refuses the chat API), configured in its own ``~/.codex/config.toml`` (``tests/support/codex_agent.py``)
and registered as a person would: ``provider add codex --acp-command .../codex-acp --acp-env
XWTEST_API_KEY=env:CODEX_TEST_KEY --acp-allow-host 127.0.0.1:PORT`` (its state folder ``~/.codex`` is
XWorkmate's default for ``codex-acp``).

Every command goes through the real CLI (``python -m xworkmate``), one process each, with the ACP
trace (``XWORKMATE_ACP_TRACE``) passed on, so the autouse ``acp_traffic_checked`` fixture validates
every message against the official v1 schema; the tests also read that trace to see what was said.
The folders live outside ``/tmp`` (under ``/var/tmp`` when writable), as for OpenCode and Qwen.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.codex_agent import (
    CODEX_ACP_VERSION,
    CODEX_ENV_REFS,
    CODEX_KEY_VAR,
    CODEX_MODEL,
    agents_dir,
    codex_executable,
    exec_command,
    install_status,
    prepare_codex_home,
    session_requests,
    tool_results,
)
from tests.support.sandboxing import server_destination
from xworkmate.testing.openai_server import HangReply, OpenAIServer, TextReply, ToolCallReply

CLI_TIMEOUT = 240.0


@pytest.fixture(scope="module")
def codex() -> Path:
    """The installed codex-acp launcher; skipped only when the installer could not reach the registry."""
    executable = codex_executable()
    if executable is not None:
        return executable
    status = install_status() or ""
    if status.startswith("unreachable:"):
        pytest.skip(
            f"codex-acp {CODEX_ACP_VERSION} is not installed: {status.removeprefix('unreachable:').strip()}"
            " (tests/support/install_agents.sh)"
        )
    pytest.fail(
        f"codex-acp {CODEX_ACP_VERSION} is not installed in {agents_dir()}: run tests/support/install_agents.sh"
        " (.ci/run does, through make test; it records when the registry cannot be reached and this test"
        " is then skipped)"
    )


def _base_folder() -> Path:
    for parent in ("/var/tmp", None):
        try:
            return Path(tempfile.mkdtemp(prefix="xw-codex-", dir=parent)).resolve()
        except OSError:
            continue
    raise RuntimeError("no writable temporary folder")


@dataclass
class Scene:
    base: Path
    home: Path  # the fresh HOME every command (and so the agent) starts with
    xw_home: Path  # XWORKMATE_HOME: database, logs
    key: str  # the API key, only ever in the environment

    def files(self) -> dict[Path, int]:
        """Every file under the base folder but XWorkmate's own data, with its modification time."""
        found = {p: p.stat().st_mtime_ns for p in self.base.rglob("*") if p.is_file() and not p.is_symlink()}
        return {p: t for p, t in found.items() if self.xw_home not in p.parents}

    def env(self) -> dict[str, str]:
        drop = ("XWORKMATE_", "XDG_", "CODEX_", "OPENAI_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
        env.update({"HOME": str(self.home), "XWORKMATE_HOME": str(self.xw_home), "QT_QPA_PLATFORM": "offscreen"})
        trace = os.environ.get("XWORKMATE_ACP_TRACE")
        if trace:
            env["XWORKMATE_ACP_TRACE"] = trace  # the schema check of every message (conftest)
        env[CODEX_KEY_VAR] = self.key
        return env

    def cli(self, *args: str, timeout: float = CLI_TIMEOUT) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "xworkmate", *args],
            capture_output=True,
            text=True,
            env=self.env(),
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

    def codex_line(self, folder: Path, permission: str = "full") -> str:
        key = self.ok("thread", "new", "--workspace", str(folder))["session_key"]
        self.ok("thread", "set", key, "--mode", "acp", "--provider", "codex", "--permission", permission)
        return str(key)


@pytest.fixture
def scene(codex: Path, openai_server: OpenAIServer) -> Iterator[Scene]:
    base = _base_folder()
    home = base / "home"
    xw_home = base / "xworkmate-home"
    for path in (home, xw_home):
        path.mkdir(parents=True)
    prepare_codex_home(home, openai_server.base_url)
    scene = Scene(base, home, xw_home, key=f"sk-test-{uuid.uuid4().hex}")
    env = [f"--acp-env={name}={ref}" for name, ref in CODEX_ENV_REFS]
    # SBX-4: the model server is on loopback, so the person names it for the agent's allow-list.
    model_host = f"--acp-allow-host={server_destination(openai_server.base_url)}"
    scene.ok("provider", "add", "codex", "--acp-command", shlex.quote(str(codex)), *env, model_host)
    try:
        yield scene
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _codex_processes(scene: Scene) -> list[int]:
    """Processes still running with the scene's HOME (codex-acp's node launcher starts a native child)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"HOME={scene.home}".encode() in environ and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


def _trace() -> list[dict[str, Any]]:
    """Every ACP message of this test so far (``{"dir": "out"|"in", "msg": …}``), in order."""
    path = os.environ.get("XWORKMATE_ACP_TRACE")
    if not path or not Path(path).exists():
        return []
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def _sent(direction: str, method: str) -> list[dict[str, Any]]:
    return [e["msg"] for e in _trace() if e["dir"] == direction and e["msg"].get("method") == method]


def _answers_to(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """XWorkmate's answers to the agent's ``requests``, in their order."""
    ids = [r["id"] for r in requests]
    answers = {e["msg"]["id"]: e["msg"] for e in _trace() if e["dir"] == "out" and "method" not in e["msg"]}
    return [answers[i] for i in ids if i in answers]


def test_a_codex_turn_streams_its_reply_into_the_line(scene: Scene, openai_server: OpenAIServer) -> None:
    folder = scene.folder("project")
    key = scene.codex_line(folder)
    openai_server.script(TextReply(["Hel", "lo from ", "codex."]))
    before = scene.files()

    done = scene.cli("run", key, "Say hello.", "--json")

    assert done.returncode == 0, f"xworkmate run failed: {done.stderr}"
    out = json.loads(done.stdout)
    assert (out["status"], out["text"]) == ("finished", "Hello from codex."), out
    # The reply came through the Responses API, piece by piece, as the three deltas the server streamed.
    [request] = openai_server.responses_requests
    assert openai_server.chat_requests == []
    assert request.body["model"] == CODEX_MODEL and request.body["stream"] is True, request.body
    chunks = [
        m["params"]["update"]["content"]["text"]
        for m in _sent("in", "session/update")
        if m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    ]
    assert chunks == ["Hel", "lo from ", "codex."], chunks
    # The key reached the server through the environment reference only.
    assert request.headers.get("authorization") == f"Bearer {scene.key}"
    assert scene.key not in json.dumps(scene.ok("provider", "list"))
    # No sign-in was needed (its own model provider with a key), and what it is reached the provider.
    assert _sent("out", "authenticate") == []
    [listed] = scene.ok("provider", "list")
    info = listed["agent_info"]
    assert (info["name"], info["title"], info["version"]) == ("codex-acp", "Codex", CODEX_ACP_VERSION), info
    [message] = [m for m in scene.ok("messages", key) if m["role"] == "assistant"]
    assert message["content"] == "Hello from codex."
    # SBX-4: the model server was reached through the allow-list proxy, and nothing else was asked for.
    logged = [m["network"] for m in scene.ok("messages", key) if m["network"]]
    model = server_destination(openai_server.base_url)
    assert {"host": "127.0.0.1", "port": int(model.rpartition(":")[2]), "allowed": True} in logged, logged
    assert all(entry["allowed"] for entry in logged), logged
    # SBX-1: codex wrote only in its own state folder (~/.codex: sessions, its state databases, logs).
    state = scene.home / ".codex"
    changed = [p for p, mtime in scene.files().items() if before.get(p) != mtime]
    assert changed and all(state in p.parents for p in changed), changed


def test_codex_asks_before_a_command_and_the_line_allows_then_refuses_it(
    scene: Scene, openai_server: OpenAIServer
) -> None:
    """``approval_policy = "untrusted"``: codex asks (``session/request_permission``, kind ``execute``)
    before it runs a command. On a ``full`` line XWorkmate allows it (option ``approved``) and the command
    runs in the line's folder; after ``--permission auto-edit`` the same request is refused (``abort``),
    said in one line, and the command does not run."""
    folder = scene.folder("project")
    key = scene.codex_line(folder, permission="full")
    openai_server.script(
        ToolCallReply([exec_command("c1", "echo allowed > allowed.txt")]), TextReply(["Made allowed.txt."])
    )

    done = scene.cli("run", key, "Make allowed.txt.", "--json")

    results = tool_results(openai_server)
    assert done.returncode == 0, f"xworkmate run failed: {done.stderr}\nmodel saw: {results}"
    assert json.loads(done.stdout)["text"] == "Made allowed.txt.", done.stdout
    asked = _sent("in", "session/request_permission")
    assert [(r["params"]["toolCall"]["toolCallId"], r["params"]["toolCall"]["kind"]) for r in asked] == [
        ("c1", "execute")
    ]
    [answer] = _answers_to(asked)
    assert answer["result"]["outcome"] == {"outcome": "selected", "optionId": "approved"}, answer
    assert (folder / "allowed.txt").read_text() == "allowed\n"
    assert "exited with code 0" in results["c1"], results
    # Issue 32, item 8: XWorkmate offers its terminals, but codex-acp 0.16.0 runs commands itself (its
    # binary has no call of ``terminal/create``); so do the pinned OpenCode and Qwen Code.
    [initialize] = _sent("out", "initialize")
    assert initialize["params"]["clientCapabilities"]["terminal"] is True
    assert [e["msg"]["method"] for e in _trace() if e["msg"].get("method", "").startswith("terminal/")] == []

    scene.ok("thread", "set", key, "--permission", "auto-edit")
    openai_server.script(ToolCallReply([exec_command("c2", "echo refused > refused.txt")]), TextReply(["Understood."]))

    again = scene.cli("run", key, "Make refused.txt.", "--json")

    asked = _sent("in", "session/request_permission")
    assert [r["params"]["toolCall"]["toolCallId"] for r in asked] == ["c1", "c2"]
    refusal = _answers_to(asked)[1]
    assert refusal["result"]["outcome"] == {"outcome": "selected", "optionId": "abort"}, refusal
    assert not (folder / "refused.txt").exists()
    # Headless, the refusal is the run's one-line error, naming the level and how to allow it (ERR-1).
    assert again.returncode != 0, again.stdout
    lines = again.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xworkmate: error: "), again.stderr
    assert "echo refused > refused.txt" in lines[0] and "auto-edit" in lines[0], lines[0]
    assert f"xworkmate thread set {key} --permission full" in lines[0], lines[0]
    # Codex's "abort" ends its turn without asking the model again ("Understood." is still queued); the
    # line is not broken by it: at ``full`` again, its next turn gets that reply.
    assert (len(openai_server.responses_requests), openai_server.pending_replies) == (3, 1)
    scene.ok("thread", "set", key, "--permission", "full")
    last = scene.cli("run", key, "Carry on.", "--json")
    assert last.returncode == 0, last.stderr
    assert json.loads(last.stdout)["text"] == "Understood.", last.stdout


def test_cancelling_a_codex_turn_stops_it_and_leaves_the_line_usable(scene: Scene, openai_server: OpenAIServer) -> None:
    folder = scene.folder("project")
    key = scene.codex_line(folder)
    openai_server.script(HangReply(["Thinking about it"]))
    process = subprocess.Popen(
        [sys.executable, "-m", "xworkmate", "run", key, "Think forever.", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=scene.env(),
    )
    try:
        deadline = time.monotonic() + CLI_TIMEOUT
        while not any(
            m["params"]["update"].get("sessionUpdate") == "agent_message_chunk" for m in _sent("in", "session/update")
        ):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "codex never streamed the first words"
            time.sleep(0.1)
        running = _codex_processes(scene)
        assert len(running) >= 3, running  # xworkmate run, and in its sandbox the launcher and codex itself
        process.send_signal(signal.SIGINT)  # Ctrl+C: stops the turn as Stop does
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

    assert process.returncode == 130, (out, err)
    [cancel] = _sent("out", "session/cancel")
    [prompt] = _sent("out", "session/prompt")
    assert cancel["params"]["sessionId"] == prompt["params"]["sessionId"]
    # Codex answered the prompt "cancelled" and dropped its request to the model.
    [answer] = _answers_to_prompt(prompt)
    assert answer["result"]["stopReason"] == "cancelled", answer
    assert openai_server.wait_for_disconnect(timeout=30), "codex kept its model request open"
    # Nothing of codex outlives the stopped turn (its launcher's native child included).
    deadline = time.monotonic() + 10
    while _codex_processes(scene) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _codex_processes(scene) == []

    openai_server.script(TextReply(["Still here."]))
    again = scene.cli("run", key, "Are you there?", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["text"] == "Still here."


def _answers_to_prompt(prompt: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        e["msg"]
        for e in _trace()
        if e["dir"] == "in" and "method" not in e["msg"] and e["msg"].get("id") == prompt["id"]
    ]


def test_a_model_picked_for_a_codex_line_reaches_the_responses_request_and_stays_picked(
    scene: Scene, openai_server: OpenAIServer
) -> None:
    """Issue 32, item 1: codex offers its model only as a config option (``category: "model"``);
    ``--acp-model`` sets it with ``session/set_config_option`` (never ``session/set_model``), the next
    Responses request names it, and it stays picked on the turn after (the session resumed)."""
    folder = scene.folder("project")
    key = scene.codex_line(folder)
    openai_server.script(TextReply(["First."]))
    first = scene.cli("run", key, "First turn.", "--json")
    assert first.returncode == 0, first.stderr
    shown = scene.ok("thread", "show", key)["agent_session"]
    assert shown["model"] == CODEX_MODEL and "gpt-5.4" in shown["models"], shown

    scene.ok("thread", "set", key, "--acp-model", "gpt-5.4")
    openai_server.script(TextReply(["Second."]), TextReply(["Third."]))
    second = scene.cli("run", key, "Second turn.", "--json")
    assert second.returncode == 0, second.stderr
    third = scene.cli("run", key, "Third turn.", "--json")
    assert third.returncode == 0, third.stderr

    models = [body["model"] for body in session_requests(openai_server)]
    assert models == [CODEX_MODEL, "gpt-5.4", "gpt-5.4"], models
    assert _sent("out", "session/set_model") == []
    sets = [m["params"] for m in _sent("out", "session/set_config_option")]
    assert sets and all((p["configId"], p["value"]) == ("model", "gpt-5.4") for p in sets), sets
    # Each later turn (a new process) resumes codex's session; codex forgets the pick on resume, so it is
    # sent again after each resume, before the prompt.
    # Issue 32 item 6: codex advertises sessionCapabilities.close; each turn's process closes its session as
    # the turn ends (the process lives one turn), and codex answers it.
    kinds = ("session/new", "session/resume", "session/prompt", "session/set_config_option", "session/close")
    steps = [e["msg"]["method"] for e in _trace() if e["dir"] == "out" and e["msg"].get("method") in kinds]
    resumed = ["session/resume", "session/set_config_option", "session/prompt", "session/close"]
    assert steps == ["session/new", "session/prompt", "session/close", *resumed, *resumed], steps
    closes = _sent("out", "session/close")
    replies = {e["msg"]["id"]: e["msg"] for e in _trace() if e["dir"] == "in" and "method" not in e["msg"]}
    assert all("result" in replies[c["id"]] for c in closes), [replies.get(c["id"]) for c in closes]
    assert {m["params"]["sessionId"] for m in _sent("out", "session/prompt")} == {
        m["params"]["sessionId"] for m in _sent("out", "session/resume")
    }
    resumes = _sent("out", "session/resume")
    answers = {e["msg"]["id"]: e["msg"] for e in _trace() if e["dir"] == "in" and "method" not in e["msg"]}
    offered = [
        [o["currentValue"] for o in answers[r["id"]]["result"]["configOptions"] if o["id"] == "model"] for r in resumes
    ]
    assert offered == [[CODEX_MODEL], [CODEX_MODEL]], offered  # what codex says after resume: its default
    after = scene.ok("thread", "show", key)["agent_session"]
    assert (after["model"], after["pending"]) == ("gpt-5.4", False), after
