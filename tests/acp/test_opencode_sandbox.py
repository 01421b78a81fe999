"""A real agent CLI's own tools stay in the line's folder (issue 12, SBX-1): OpenCode over ACP.

OpenCode from npm (``tests/support/install_agents.sh``) runs as a line's ACP agent at permission
``full``, headless, against the scripted OpenAI server. The scripted model has OpenCode's own
``bash``, ``write`` and ``read`` tools try to escape: write into ``/tmp`` and a sibling folder,
read the XWorkmate database (for another line's text) and a file under HOME. OpenCode is
configured to allow all of its tools without asking, so nothing but the sandbox stands in the
way. A write inside the folder must succeed, so the test cannot pass by OpenCode not running.

The test folders live outside ``/tmp`` (under ``/var/tmp`` when it is writable): a private
``/tmp`` alone would otherwise hide the sibling folder, HOME and the database.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.opencode_agent import (
    OPENCODE_STATE_DIRS,
    OPENCODE_VERSION,
    agents_dir,
    bash,
    install_status,
    opencode_config,
    opencode_env,
    opencode_executable,
    prepare_opencode_home,
    read,
    requests_containing,
    session_requests,
    tool_names,
    tool_results,
    write,
)
from tests.support.sandboxing import (
    PG_DIRECT_PROBE,
    PG_PROXIED_PROBE,
    network_log,
    non_loopback_address,
    server_destination,
)
from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.testing.latency_proxy import LatencyProxy
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply

TURN_TIMEOUT = 240.0


@pytest.fixture(scope="module")
def opencode() -> Path:
    """The installed OpenCode launcher; skipped only when the installer could not reach the registry."""
    executable = opencode_executable()
    if executable is not None:
        return executable
    status = install_status() or ""
    if status.startswith("unreachable:"):
        pytest.skip(
            f"OpenCode {OPENCODE_VERSION} is not installed: {status.removeprefix('unreachable:').strip()}"
            " (tests/support/install_agents.sh)"
        )
    pytest.fail(
        f"OpenCode {OPENCODE_VERSION} is not installed in {agents_dir()}: run tests/support/install_agents.sh"
        " (.ci/run does; it records when the registry cannot be reached and this test is then skipped)"
    )


def _base_folder() -> Path:
    for parent in ("/var/tmp", None):
        try:
            return Path(tempfile.mkdtemp(prefix="xw-opencode-", dir=parent)).resolve()
        except OSError:
            continue
    raise RuntimeError("no writable temporary folder")


@dataclass
class Scene:
    base: Path
    home: Path  # the HOME the app (and so the agent) is started with
    xw_home: Path  # XWORKMATE_HOME: database, logs
    folder: Path  # the line's folder
    sibling: Path  # a folder beside it
    settings: Settings
    store: Store
    controller: SessionController
    db_marker: str  # stored in another line's messages
    home_marker: str  # in a file under HOME

    @property
    def home_secret(self) -> Path:
        return self.home / "notes" / "secret.txt"

    def files(self) -> set[Path]:
        return {p for p in self.base.rglob("*") if not p.is_dir()}


@pytest.fixture
def scene(monkeypatch: pytest.MonkeyPatch) -> Iterator[Scene]:
    base = _base_folder()
    home = base / "home"
    xw_home = base / "xworkmate-home"
    folder = base / "work" / "project"
    sibling = base / "work" / "sibling"
    for path in (home / "notes", xw_home, folder, sibling):
        path.mkdir(parents=True)
    home_marker = f"home-secret-{uuid.uuid4().hex}"
    (home / "notes" / "secret.txt").write_text(f"{home_marker}\n")
    prepare_opencode_home(home)

    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XWORKMATE_HOME", str(xw_home))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)

    settings = Settings(home=xw_home, database_url=None, workspace_root=None)
    store = open_store(settings.effective_database_url)
    controller = SessionController(store, settings)
    other = controller.lines.create_line("Medical notes")
    db_marker = f"diagnosis-{uuid.uuid4().hex}"
    store.messages.append(
        other.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content=f"My {db_marker}, keep it private."
    )
    try:
        yield Scene(base, home, xw_home, folder, sibling, settings, store, controller, db_marker, home_marker)
    finally:
        store.close()
        shutil.rmtree(base, ignore_errors=True)


def _register_opencode(
    scene: Scene,
    server: OpenAIServer,
    executable: Path,
    monkeypatch: pytest.MonkeyPatch,
    base_url: str | None = None,
    more_models: tuple[str, ...] = (),
) -> ProviderRecord:
    """OpenCode as an ACP provider whose environment references carry its config (as a person would set it);
    ``base_url``: where it finds the model server, when not at the server's own address; ``more_models``: models
    of the test provider besides ``test-model``."""
    base_url = base_url or server.base_url
    config = opencode_config(base_url)
    for model in more_models:
        config["provider"]["xwtest"]["models"][model] = {"name": model, "tool_call": True}
    env = opencode_env(config)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    record = ProviderRecord(
        name="opencode",
        kind=ProviderKind.ACP,
        acp_command=(str(executable), "acp"),
        acp_env_refs=tuple((name, f"env:{name}") for name in env),
        # acp_state_dirs left unset: the defaults for a known agent named `opencode` apply.
        # SBX-4: the model server is on loopback, so the person names it; nothing else on loopback is reachable.
        acp_allow_hosts=(server_destination(base_url),),
    )
    return scene.controller.providers.add_provider(record, replace=True)


def _allowed_new_file(scene: Scene, path: Path) -> bool:
    """Where a turn may leave files: the line's folder, OpenCode's state folders, the app's own data."""
    allowed = [scene.folder, scene.xw_home]
    allowed += [scene.home / entry.removeprefix("~/") for entry in OPENCODE_STATE_DIRS]
    return any(path == root or root in path.parents for root in allowed)


def test_opencode_tools_on_a_full_line_cannot_leave_the_folder(
    scene: Scene, opencode: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller = scene.controller
    _register_opencode(scene, openai_server, opencode, monkeypatch)
    line = controller.lines.create_line("Escape attempts", workspace=scene.folder)
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "opencode")

    tag = uuid.uuid4().hex
    tmp_by_bash = Path(f"/tmp/outside-{tag}.txt")
    tmp_by_write = Path(f"/tmp/outside-{tag}-write.txt")
    database = scene.settings.sqlite_path
    attempts = [
        bash("tmp-bash", f"echo pwned > {tmp_by_bash}", "write into /tmp"),
        write("tmp-write", tmp_by_write, "pwned\n"),
        bash("sibling-bash", "mkdir -p ../sibling && echo pwned > ../sibling/pwned.txt", "write beside the folder"),
        write("sibling-write", scene.sibling / "written.txt", "pwned\n"),
        bash("db-bash", f"grep -a -h -o 'diagnosis-[0-9a-f]*' {database}*", "read the XWorkmate database"),
        bash("home-bash", f"cat {scene.home_secret}", "read a file under HOME"),
        read("home-read", scene.home_secret),
        bash("inside-bash", "echo inside > inside.txt", "write inside the folder"),
        write("inside-write", scene.folder / "inside-write.txt", "inside\n"),
    ]
    openai_server.script(*(ToolCallReply([call]) for call in attempts), TextReply(["Done."]))
    before = scene.files()

    outcome = asyncio.run(
        asyncio.wait_for(controller.turns.run_turn(line.thread_id, "Try each tool call.", headless=True), TURN_TIMEOUT)
    )

    # The harness did run OpenCode's own tools, every one of them, and the turn ended normally.
    results = tool_results(openai_server)
    assert outcome.status == "finished", f"the OpenCode turn did not finish: {outcome.error}"
    assert {"bash", "write", "read"} <= tool_names(openai_server)
    assert openai_server.pending_replies == 0, f"OpenCode stopped early; tool results so far: {results}"
    assert [c.id for c in attempts if c.id not in results] == [], f"no result for some calls: {results}"
    assert (scene.folder / "inside.txt").read_text() == "inside\n", results["inside-bash"]
    assert (scene.folder / "inside-write.txt").read_text() == "inside\n", results["inside-write"]

    # Nothing outside the folder was written, and nothing secret reached the model or the line.
    escapes: list[str] = []
    for path in (tmp_by_bash, tmp_by_write):
        if path.exists():
            escapes.append(f"{path} was written")
            path.unlink()
    escapes += [f"{p} was written" for p in sorted(scene.files() - before) if not _allowed_new_file(scene, p)]
    leaked = requests_containing(openai_server, [scene.db_marker, scene.home_marker])
    escapes += [f"{needle} reached the model in {n} request(s)" for needle, n in leaked.items() if n]
    stored = "\n".join(m.content for m in controller.lines.messages(line.thread_id))
    escapes += [f"{needle} was stored on the line" for needle in leaked if needle in stored]
    assert escapes == [], "OpenCode's tools left the line's folder:\n" + "\n".join(
        [*escapes, "tool results the model saw:", *(f"  {k}: {v[:200]!r}" for k, v in results.items())]
    )
    assert len(session_requests(openai_server)) == len(attempts) + 1
    # SBX-3: an ordinary session changes nothing OpenCode would run outside the sandbox, and the line says nothing.
    assert [m.content for m in controller.lines.messages(line.thread_id) if "During this turn" in m.content] == []


def test_opencode_on_a_line_without_a_network_choice_reaches_its_model_and_not_postgresql(
    scene: Scene, opencode: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29 row 8, SBX-4: an ACP agent on a normal line gets the allow-list, not the whole network.

    The model server is on loopback, so the person names it (``--acp-allow-host``); the turn works
    through the proxy, the team PostgreSQL on 127.0.0.1:5432 is refused directly and through the
    proxy, and the turn's network log shows the model host allowed and 5432 denied.
    """
    controller = scene.controller
    _register_opencode(scene, openai_server, opencode, monkeypatch)
    line = controller.lines.create_line("Network", workspace=scene.folder)
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "opencode")
    assert controller.get_thread(line.thread_id).context_state.network.value == "off"  # not chosen

    calls = [
        bash("pg-direct", PG_DIRECT_PROBE, "reach PostgreSQL"),
        bash("pg-proxied", PG_PROXIED_PROBE, "via the proxy"),
    ]
    openai_server.script(*(ToolCallReply([call]) for call in calls), TextReply(["Done."]))
    outcome = asyncio.run(
        asyncio.wait_for(controller.turns.run_turn(line.thread_id, "Try PostgreSQL.", headless=True), TURN_TIMEOUT)
    )

    results = tool_results(openai_server)
    assert outcome.status == "finished", f"the OpenCode turn did not finish: {outcome.error}"
    assert "PG-DIRECT-CLOSED" in results["pg-direct"], results
    assert results["pg-proxied"].strip() == "PG-PROXIED-403", results
    logged = network_log(controller, line.thread_id)
    model = server_destination(openai_server.base_url)
    assert {"host": "127.0.0.1", "port": int(model.rpartition(":")[2]), "allowed": True} in logged, logged
    assert {"host": "127.0.0.1", "port": 5432, "allowed": False} in logged, logged
    # Issue 32 item 6: OpenCode advertises sessionCapabilities.close; the turn closed its session as it ended
    # (the agent process lives one turn) and OpenCode answered.
    trace = [json.loads(row) for row in Path(os.environ["XWORKMATE_ACP_TRACE"]).read_text().splitlines() if row]
    prompts = [e["msg"] for e in trace if e["dir"] == "out" and e["msg"].get("method") == "session/prompt"]
    closes = [e["msg"] for e in trace if e["dir"] == "out" and e["msg"].get("method") == "session/close"]
    assert [c["params"]["sessionId"] for c in closes] == [p["params"]["sessionId"] for p in prompts], closes
    replies = {e["msg"]["id"]: e["msg"] for e in trace if e["dir"] == "in" and "method" not in e["msg"]}
    assert all("result" in replies[c["id"]] for c in closes), [replies.get(c["id"]) for c in closes]
    # Issue 32 item 8: XWorkmate offers its terminals, but OpenCode 1.18.33 runs its bash tool itself (its ACP
    # agent never calls terminal/create; only the SDK's client class has it).
    initialize = next(e["msg"] for e in trace if e["dir"] == "out" and e["msg"].get("method") == "initialize")
    assert initialize["params"]["clientCapabilities"]["terminal"] is True
    assert [e["msg"]["method"] for e in trace if str(e["msg"].get("method", "")).startswith("terminal/")] == []


def test_opencode_reaches_a_model_host_that_is_not_loopback_through_the_proxy_variables(
    scene: Scene, opencode: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SBX-4: a model host off loopback (this machine's own LAN address stands for it) is reachable only
    through the proxy: OpenCode must honour HTTPS_PROXY/HTTP_PROXY, and the proxy logs the host as allowed."""
    address = non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to stand for a remote model host")
    with LatencyProxy(openai_server.port, delay_s=0.0, listen_host=address) as relay:
        base_url = f"http://{address}:{relay.port}/v1"
        _register_opencode(scene, openai_server, opencode, monkeypatch, base_url=base_url)
        line = scene.controller.lines.create_line("Remote model", workspace=scene.folder)
        scene.controller.line_settings.set_execution(line.thread_id, "acp", "opencode")
        openai_server.script(TextReply(["Hello from afar."]))
        outcome = asyncio.run(
            asyncio.wait_for(scene.controller.turns.run_turn(line.thread_id, "Say hello.", headless=True), TURN_TIMEOUT)
        )
    assert outcome.status == "finished", f"the OpenCode turn did not finish: {outcome.error}"
    assert "Hello from afar." in outcome.text
    logged = network_log(scene.controller, line.thread_id)
    assert {"host": address, "port": relay.port, "allowed": True} in logged, logged


def test_a_model_pick_reaches_opencode_as_its_model_option_and_lasts_across_turns(
    scene: Scene, opencode: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32 item 1 (and 3: ``--acp-model`` calls ``choose_agent_model``): OpenCode offers its model only as a
    config option (``category: "model"``, values ``provider/model``). The pick is sent as
    ``session/set_config_option`` (never ``session/set_model``) once the next turn's session is open, OpenCode's
    model requests name it from then on, and it is still in use on the turn after (the session resumed)."""
    controller = scene.controller
    _register_opencode(scene, openai_server, opencode, monkeypatch, more_models=("second-model",))
    line = controller.lines.create_line("Models", workspace=scene.folder)
    key = line.thread_id
    controller.line_settings.set_execution(key, "acp", "opencode")

    def turn(words: str, reply: str) -> None:
        openai_server.script(TextReply([reply]))
        outcome = asyncio.run(asyncio.wait_for(controller.turns.run_turn(key, words, headless=True), TURN_TIMEOUT))
        assert outcome.status == "finished", f"the OpenCode turn did not finish: {outcome.error}"
        assert reply in outcome.text

    turn("Say one.", "One.")
    state = controller.agents.agent_session(key)
    option = state.category_option("model")
    assert option is not None and state.model == "xwtest/test-model", state
    assert "xwtest/second-model" in [c.id for c in option.choices]
    assert session_requests(openai_server)[-1]["model"] == "test-model"

    controller.agents.choose_agent_model(key, "xwtest/second-model")
    turn("Say two.", "Two.")
    assert session_requests(openai_server)[-1]["model"] == "second-model"
    turn("Say three.", "Three.")
    assert session_requests(openai_server)[-1]["model"] == "second-model"
    settled = controller.agents.agent_session(key)
    assert (settled.model, settled.wanted_model) == ("xwtest/second-model", None), settled

    trace = [json.loads(row) for row in Path(os.environ["XWORKMATE_ACP_TRACE"]).read_text().splitlines() if row]
    sent = [e["msg"] for e in trace if e["dir"] == "out" and "method" in e["msg"]]
    assert "session/set_model" not in {m["method"] for m in sent}
    picks = [m["params"] for m in sent if m["method"] == "session/set_config_option"]
    assert picks and all((p["configId"], p["value"]) == ("model", "xwtest/second-model") for p in picks), picks
