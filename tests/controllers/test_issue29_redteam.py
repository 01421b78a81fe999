"""Issue 29 tried again as an attacker: variants of its rows that the first fixes missed (SBX-3, SBX-4, SEC-1).

A scripted model (the real OpenAI-compatible server) drives the native agent, with real bubblewrap.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest

from tests.controllers.conftest import scripted_controller
from tests.controllers.test_sandbox_indirect_ways_out import call, git, tool_outputs
from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController, WorkspaceBindingError
from xworkmate.domain.messages import MessageRole
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply


@pytest.fixture
def agent(sqlite_store: Store, settings: Settings, openai_server: OpenAIServer) -> SessionController:
    return scripted_controller(sqlite_store, settings, openai_server)


def _wait_for(path: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.02)


# -- row 5, mid-turn: a parent folder swapped for a link between two commands of one turn ---------------


@needs_bwrap
def test_a_command_refuses_the_lines_folder_when_a_parent_was_swapped_for_a_link_during_the_turn(
    agent: SessionController, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """SBX-3: line A is bound to ``projects/x/app``. Line B (bound to ``projects/``) can rename ``x``
    away in its own sandbox although A's folder is hidden there by a mount, and put a link in its place
    whose ``app`` leads to any host folder. The gate only checks at the start of A's turn: A's next
    command in the same turn bound the link's target writable and wrote there. Each command checks the
    pin again."""
    projects = tmp_path / "projects"
    app = projects / "x" / "app"
    app.mkdir(parents=True)
    victim = tmp_path / "victim"  # stands in for $HOME, the data folder or another line's folder
    victim.mkdir()
    a = agent.lines.create_line("A", workspace=app).thread_id
    agent.line_settings.set_permission(a, "full")
    openai_server.script(
        ToolCallReply([call("run_command", "first", command="touch started && sleep 3 && echo FIRST")]),
        ToolCallReply([call("run_command", "second", command="echo pwned > pwned.txt && echo WROTE")]),
        TextReply(["done"]),
    )

    def swap() -> None:  # what line B's agent does in its sandbox (a rename and two links)
        _wait_for(app / "started")
        os.rename(projects / "x", projects / "y")
        (projects / "evil").mkdir()
        (projects / "evil" / "app").symlink_to(victim)
        (projects / "x").symlink_to("evil")

    swapper = threading.Thread(target=swap)
    swapper.start()
    outcome = asyncio.run(agent.turns.run_turn(a, "go", headless=True))
    swapper.join()

    out = tool_outputs(agent, a)
    assert "FIRST" in out["first"]
    assert not (victim / "pwned.txt").exists(), "the second command wrote through the swapped parent folder"
    assert "WROTE" not in out["second"] and "pick its folder again" in out["second"], out["second"]
    assert outcome.status in ("finished", "failed")


# -- row 3, variants: git's control files reached around the read-only ones ----------------------------


_NESTED = (
    "git init -q sub && git -C sub -c user.name=t -c user.email=t@x commit -q --allow-empty -m s"
    " && git -C sub config core.fsmonitor 'id > /tmp/mark' && git add sub"
    " && git -c user.name=t -c user.email=t@x commit -qm sub && echo NESTED"
)
_COMMONDIR = "mkdir -p evil && echo ../evil > .git/commondir; echo rc=$?"


@needs_bwrap
def test_a_nested_repository_the_agent_registered_or_a_commondir_it_wrote_leaves_a_notice(
    agent: SessionController, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """SBX-3: the top ``.git``'s hooks and config are read-only, but git also runs what a submodule's own
    config names (a plain ``git status`` in the line's repository runs ``status`` inside every gitlink
    with a ``.git``: its ``core.fsmonitor`` ran as the person), and ``.git/commondir`` moves config and
    hooks to a folder the agent writes. Neither can be kept read-only without stopping commits, so the
    line names both after the turn."""
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q")
    git(folder, "commit", "-q", "--allow-empty", "-m", "first")
    key = agent.lines.create_line("repo", workspace=folder).thread_id
    agent.line_settings.set_permission(key, "full")
    openai_server.script(
        ToolCallReply([call("run_command", "nested", command=_NESTED)]),
        TextReply(["done"]),
        ToolCallReply([call("run_command", "common", command=_COMMONDIR)]),
        TextReply(["done"]),
    )
    for _turn in range(2):  # two turns: a commondir to a folder that is no repository blinds git to the index
        outcome = asyncio.run(agent.turns.run_turn(key, "go", headless=True))
        assert outcome.status == "finished", outcome.error
    out = tool_outputs(agent, key)
    assert "NESTED" in out["nested"] and "rc=0" in out["common"], out

    first, second = [
        m.content for m in agent.lines.messages(key) if m.role is MessageRole.SYSTEM and "During this turn" in m.content
    ]
    assert "sub/.git/config was added" in first and "sub/.git/hooks was added" in first, first
    assert ".git/commondir was added" in second, second


# -- rows 5 and 8, variant: a line bound to the folder where other programs keep their sockets ---------


@pytest.mark.parametrize("shared", ["/tmp", "/dev/shm", "/run"])
def test_a_line_cannot_be_bound_to_a_shared_socket_folder(agent: SessionController, shared: str) -> None:
    """SBX-2, SBX-4: the sandbox gives each line a private ``/tmp`` and ``/run`` (network off: no local
    service's socket). Bound to ``/tmp`` itself, the line's sandbox showed it writable with every socket
    in it: the person's ssh-agent, the X display, and the allow-list proxies of the other lines'
    running turns. A folder inside it stays allowed."""
    if not os.path.isdir(shared):
        pytest.skip(f"no {shared} here")
    with pytest.raises(WorkspaceBindingError, match="other programs keep their sockets"):
        agent.lines.create_line("shared", workspace=shared)


def test_a_line_cannot_be_bound_to_a_folder_holding_the_sessions_runtime_folder(
    agent: SessionController, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SBX-4: the allow-list proxies' sockets live in ``$XDG_RUNTIME_DIR`` when it is set."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    with pytest.raises(WorkspaceBindingError, match=f"it contains {runtime}"):
        agent.lines.create_line("holds it", workspace=tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    assert agent.lines.create_line("inside", workspace=project).workspace_binding.path == str(project)


# -- row 8, variant: a line whose network is on still reaches no local service's socket ----------------


@needs_bwrap
def test_a_line_with_the_network_on_sees_no_local_services_sockets_in_run(
    agent: SessionController, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """SBX-1, SBX-4: ``on`` shares the host's network, not its Unix sockets. ``/run`` stayed shown for DNS,
    and with it every local service's socket: the session's D-Bus and systemd (``systemd-run --user`` runs
    a command outside the sandbox), the Docker daemon, gpg-agent, and MySQL's socket (root by peer
    credentials). Only the resolver's own folder is shown again, and a name still resolves."""
    folder = tmp_path / "work"
    folder.mkdir()
    key = agent.lines.create_line("online", workspace=folder).thread_id
    agent.line_settings.set_permission(key, "full")
    agent.line_settings.set_network(key, "on")
    seen = "echo RUN: $(ls -A /run); getent hosts localhost >/dev/null && echo RESOLVED"
    openai_server.script(ToolCallReply([call("run_command", "run", command=seen)]), TextReply(["done"]))
    outcome = asyncio.run(agent.turns.run_turn(key, "go", headless=True))
    assert outcome.status == "finished", outcome.error

    out = tool_outputs(agent, key)["run"]
    resolver = os.path.realpath("/etc/resolv.conf")
    allowed = {Path(resolver).relative_to("/run").parts[0]} if resolver.startswith("/run/") else set()
    [line] = [text for text in out.splitlines() if text.startswith("RUN:")]
    listed = set(line.split()[1:])
    assert listed <= allowed, out
    assert "RESOLVED" in out, out
