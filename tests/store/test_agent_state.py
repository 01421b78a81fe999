"""Migration 0012 on both databases (issue 15): a line's agent offers and picks, its usage meter,
MCP servers and which lines get them; removing a server takes it off every line."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from xworkmate.controllers import SessionController
from xworkmate.domain.agent_session import (
    AgentChoice,
    AgentCommand,
    AgentConfigOption,
    AgentSessionState,
    LineUsage,
)
from xworkmate.domain.mcp import McpServerRecord
from xworkmate.store.agent_state import McpServerExistsError


def test_agent_state_and_usage_round_trip(controller: SessionController) -> None:
    store = controller._store
    key = controller.lines.create_line("A").thread_id
    assert store.agent_state.state(key) == AgentSessionState()
    assert store.agent_state.usage(key) == LineUsage()
    state = AgentSessionState(
        agent="qwen",
        modes=(AgentChoice(id="ask", name="Ask", description="asks\u0000first"),),
        mode="ask",
        config_options=(
            AgentConfigOption(id="web", name="Web", kind="boolean", value=False),
            AgentConfigOption(id="effort", name="Effort", value="low", choices=(AgentChoice(id="low", name="Low"),)),
        ),
        commands=(AgentCommand(name="review", description="review", hint="what"),),
        wanted_config={"web": True},
    )
    store.agent_state.set_state(key, state)
    store.agent_state.set_state(key, state)  # an upsert
    loaded = store.agent_state.state(key)
    assert loaded.modes[0].description == "asks\ufffdfirst"  # ERR-3: the same text on both databases
    assert loaded.model_copy(update={"modes": state.modes}) == state
    usage = LineUsage().plus(
        tokens_in=10**10, tokens_out=5, context_used=900, context_size=128000, cost=0.25, currency="USD"
    )
    store.agent_state.set_usage(key, usage)
    assert store.agent_state.usage(key) == usage
    assert store.agent_state.usage(key).plus(tokens_in=1).tokens_in == 10**10 + 1


def test_mcp_servers_and_the_lines_that_get_them(controller: SessionController) -> None:
    store = controller._store
    a = controller.lines.create_line("A").thread_id
    b = controller.lines.create_line("B").thread_id
    files = McpServerRecord(
        name="files", command=("mcp-files", "--root", "."), env_refs=(("TOKEN", "env:T"),), tags=("Medical",)
    )
    web = McpServerRecord(name="web", transport="http", url="https://example.org/mcp")
    store.mcp_servers.add(files)
    store.mcp_servers.add(web)
    with pytest.raises(McpServerExistsError):
        store.mcp_servers.add(files)
    assert store.mcp_servers.get("files") == files.model_copy(update={"tags": ("medical",)})
    assert [s.name for s in store.mcp_servers.all()] == ["files", "web"]
    store.mcp_servers.set_for_line(a, ["web", "files"])
    store.mcp_servers.set_for_line(b, ["files"])
    assert [s.name for s in store.mcp_servers.for_line(a)] == ["web", "files"]  # the person's order
    assert store.mcp_servers.remove("files")
    assert [s.name for s in store.mcp_servers.for_line(a)] == ["web"]
    assert store.mcp_servers.for_line(b) == []
    assert not store.mcp_servers.remove("files")
    with store.engine.connect() as conn:
        columns = set(conn.execute(text("SELECT * FROM mcp_servers")).keys())
    assert columns == {
        "name",
        "transport",
        "command",
        "url",
        "env_refs",
        "header_refs",
        "tags",
        "created_at",
    }  # no value column
