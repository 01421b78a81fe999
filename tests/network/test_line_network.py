"""SBX-4 on real turns: a native line's commands and an ACP agent's own shell on an allow-list line.

Real bwrap, a real OpenAI-compatible server (the native agent's model, and the "listed" service),
the scripted ACP agent as a real process; PostgreSQL's port 127.0.0.1:5432 stands for every loopback
service that is not on the list.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.controllers.conftest import scripted_controller
from tests.support.sandboxing import (
    PG_DIRECT_PROBE,
    PG_PROXIED_PROBE,
    needs_bwrap,
    network_calls,
    network_log,
    server_destination,
)
from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply


def _reach(server: OpenAIServer) -> str:
    """A command that fetches the listed server's model list (curl honours the proxy variables)."""
    return f"curl -s -o /dev/null -w 'LISTED-%{{http_code}}' {server.base_url}/models"


@pytest.fixture
def agent_controller(
    sqlite_store: Store,
    settings: Settings,
    openai_server: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> SessionController:
    home = tmp_path / "person"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return scripted_controller(sqlite_store, settings, openai_server)


def _command(cmd: str, call_id: str) -> ScriptedToolCall:
    return ScriptedToolCall(id=call_id, name="run_command", arguments=json.dumps({"command": cmd, "timeout_s": 20}))


@needs_bwrap
def test_an_allow_list_lines_commands_reach_only_the_listed_host(
    agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    controller = agent_controller
    line = controller.lines.create_line("listed")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_network(line.thread_id, "allow-list")
    controller.line_settings.set_allowed_hosts(line.thread_id, add=[server_destination(openai_server.base_url)])
    openai_server.script(
        ToolCallReply([_command(_reach(openai_server), "listed")]),
        ToolCallReply([_command(PG_DIRECT_PROBE, "pg-direct")]),
        ToolCallReply([_command(PG_PROXIED_PROBE, "pg-proxied")]),
        TextReply(["ok"]),
    )
    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "reach", headless=True))

    assert outcome.status == "finished", outcome.error
    outputs = {
        (m.payload or {})["tool_call_id"]: m.content
        for m in controller.lines.messages(line.thread_id)
        if m.role is MessageRole.TOOL and m.payload
    }
    assert "LISTED-200" in outputs["listed"], outputs
    assert "PG-DIRECT-CLOSED" in outputs["pg-direct"], outputs
    assert "PG-PROXIED-403" in outputs["pg-proxied"], outputs
    port = int(server_destination(openai_server.base_url).rpartition(":")[2])
    assert network_log(controller, line.thread_id) == [
        {"host": "127.0.0.1", "port": port, "allowed": True},
        {"host": "127.0.0.1", "port": 5432, "allowed": False},
    ]
    # Each connection belongs to the command that made it, on its card and in the notice.
    assert network_calls(controller, line.thread_id) == [
        (f"127.0.0.1:{port}", "listed"),
        ("127.0.0.1:5432", "pg-proxied"),
    ]
    connections = {
        (m.payload or {})["tool_call_id"]: (m.payload or {}).get("connections")
        for m in controller.lines.messages(line.thread_id)
        if m.role is MessageRole.TOOL
    }
    assert connections == {
        "listed": [{"host": "127.0.0.1", "port": port, "allowed": True}],
        "pg-direct": None,  # no proxy asked: nothing to show
        "pg-proxied": [{"host": "127.0.0.1", "port": 5432, "allowed": False}],
    }


@needs_bwrap
def test_the_scripted_acp_agent_on_an_allow_list_line_cannot_reach_postgresql(
    agent_controller: SessionController, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """Issue 29 row 8 with the scripted agent: its own shell reaches the listed host and not 5432."""
    controller = agent_controller
    report = scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"shell": _reach(openai_server)},
            {"shell": PG_DIRECT_PROBE},
            {"shell": PG_PROXIED_PROBE},
            {"terminal": {"command": _reach(openai_server)}},  # its terminals: the line's own proxy
            {"terminal": {"command": PG_PROXIED_PROBE}},
            {"say": "done"},
        ],
    )
    line = controller.lines.create_line("acp")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    controller.line_settings.set_network(line.thread_id, "allow-list")
    controller.line_settings.set_allowed_hosts(line.thread_id, add=[server_destination(openai_server.base_url)])

    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "try", headless=True))

    assert outcome.status == "finished", outcome.error
    shells = [str(event["output"]) for event in report_events(report, "shell")]
    assert "LISTED-200" in shells[0], shells
    assert "PG-DIRECT-CLOSED" in shells[1], shells
    assert "PG-PROXIED-403" in shells[2], shells
    terminals = [str(event["output"]) for event in report_events(report, "terminal")]
    assert "LISTED-200" in terminals[0] and "PG-PROXIED-403" in terminals[1], terminals
    assert {"host": "127.0.0.1", "port": 5432, "allowed": False} in network_log(controller, line.thread_id)


@needs_bwrap
def test_an_acp_agent_on_a_line_with_no_network_choice_has_no_loopback_services(
    agent_controller: SessionController, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """The default (issue 29 row 8): not even a loopback server the line did not list is reachable."""
    controller = agent_controller
    report = scripted_agent(controller, tmp_path, turn=[{"shell": _reach(openai_server)}, {"say": "done"}])
    line = controller.lines.create_line("acp")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")

    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "try", headless=True))

    assert outcome.status == "finished", outcome.error
    [shell] = [str(event["output"]) for event in report_events(report, "shell")]
    assert "LISTED-000" in shell or "LISTED-403" in shell, shell


@needs_bwrap
def test_an_acp_agents_connection_belongs_to_its_tool_call_in_progress_and_else_to_none(
    agent_controller: SessionController, tmp_path: Path
) -> None:
    """SBX-4, issue 29: while the agent's tool call runs, what it reaches is that call's (its card); with
    no call running (as the agent's own model request) the notice names no call and no card lists it."""
    controller = agent_controller
    no_call = "curl -s -o /dev/null --noproxy '' -x \"$HTTPS_PROXY\" http://127.0.0.1:9/"
    scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"tool": {"id": "t1", "title": "probe the database", "kind": "execute", "status": "in_progress"}},
            {"shell": PG_PROXIED_PROBE},
            {"tool_update": {"id": "t1", "status": "completed", "text": "probed"}},
            {"shell": no_call},
            {"say": "done"},
        ],
    )
    line = controller.lines.create_line("acp")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    controller.line_settings.set_network(line.thread_id, "allow-list")

    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "try", headless=True))

    assert outcome.status == "finished", outcome.error
    assert network_calls(controller, line.thread_id) == [("127.0.0.1:5432", "t1"), ("127.0.0.1:9", None)]
    [tool] = [m for m in controller.lines.messages(line.thread_id) if m.role is MessageRole.TOOL]
    assert (tool.payload or {})["connections"] == [{"host": "127.0.0.1", "port": 5432, "allowed": False}]
