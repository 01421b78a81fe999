"""Issue 29 tried again as an attacker: variants of its rows that the first fixes missed (SBX-3, SBX-4, SEC-1).

A scripted model (the real OpenAI-compatible server) drives the native agent, with real bubblewrap.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from pathlib import Path

import pytest

from tests.controllers.conftest import scripted_controller
from tests.support.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply
from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole
from xworkmate.settings import Settings
from xworkmate.store import Store


@pytest.fixture
def agent(sqlite_store: Store, settings: Settings, openai_server: OpenAIServer) -> SessionController:
    return scripted_controller(sqlite_store, settings, openai_server)


def call(name: str, call_id: str, **arguments: object) -> ScriptedToolCall:
    return ScriptedToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


def tool_outputs(controller: SessionController, key: str) -> dict[str, str]:
    return {
        (m.payload or {})["tool_call_id"]: m.content
        for m in controller.messages(key)
        if m.role is MessageRole.TOOL and m.payload
    }


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
    a = agent.create_line("A", workspace=app).thread_id
    agent.set_permission(a, "full")
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
    outcome = asyncio.run(agent.run_turn(a, "go", headless=True))
    swapper.join()

    out = tool_outputs(agent, a)
    assert "FIRST" in out["first"]
    assert not (victim / "pwned.txt").exists(), "the second command wrote through the swapped parent folder"
    assert "WROTE" not in out["second"] and "pick its folder again" in out["second"], out["second"]
    assert outcome.status in ("finished", "failed")
