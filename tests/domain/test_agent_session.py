"""The rules of issue 15's domain: picks against what the agent offers, the usage meter's arithmetic
and text, and one category rule for providers and MCP servers (CAT-2)."""

from __future__ import annotations

import pytest

from xworkmate.domain.agent_session import (
    AgentChoice,
    AgentConfigOption,
    AgentSessionState,
    LineUsage,
    UnknownAgentChoiceError,
    format_tokens,
)
from xworkmate.domain.categories import tags_allow
from xworkmate.domain.mcp import McpServerError, McpServerRecord, parse_env_ref, servers_for_category
from xworkmate.llm.providers import ProviderConfig

STATE = AgentSessionState(
    modes=(AgentChoice(id="ask", name="Ask"), AgentChoice(id="code", name="Code")),
    mode="ask",
    config_options=(
        AgentConfigOption(id="web", name="Web", kind="boolean", value=False),
        AgentConfigOption(
            id="effort",
            name="Effort",
            value="low",
            choices=(AgentChoice(id="low", name="Low"), AgentChoice(id="high", name="High")),
        ),
    ),
)


def test_picks_are_checked_and_a_pick_of_the_current_value_is_no_pick() -> None:
    assert STATE.choose_mode("code").wanted_mode == "code"
    assert STATE.choose_mode("ask").wanted_mode is None
    with pytest.raises(UnknownAgentChoiceError, match="it offers: ask, code"):
        STATE.choose_mode("plan")
    assert STATE.choose_config("web", "on").wanted_config == {"web": True}
    assert STATE.choose_config("web", "off").wanted_config == {}
    assert STATE.choose_config("effort", "high").shown_config(STATE.config_options[1]) == "high"
    with pytest.raises(UnknownAgentChoiceError, match="on or off"):
        STATE.choose_config("web", "maybe")
    with pytest.raises(UnknownAgentChoiceError, match="value of 'effort'"):
        STATE.choose_config("effort", "max")
    offered = STATE.choose_mode("code").offered(STATE.model_copy(update={"mode": "ask"}))
    assert offered.wanted_mode == "code"  # the agent's report keeps the person's pick


def test_usage_adds_tokens_and_replaces_context_and_cost() -> None:
    usage = LineUsage().plus(tokens_in=1200, tokens_out=300, context_used=5400, context_size=128000)
    usage = usage.plus(tokens_in=-5, cost=0.0125, currency="USD")
    assert (usage.tokens_in, usage.tokens_out, usage.context_used, usage.cost) == (1200, 300, 5400, 0.0125)
    assert usage.describe() == "ctx 5.4k/128k · in 1.2k · out 300 · 0.0125 USD"
    assert LineUsage().describe() == "no usage yet" and LineUsage().empty
    assert [format_tokens(n) for n in (999, 1000, 1500, 2_000_000, None)] == ["999", "1k", "1.5k", "2M", "?"]


def test_one_category_rule_for_providers_and_mcp_servers() -> None:
    tagged = McpServerRecord(name="files", command=("x",), tags=("medical",))
    plain = McpServerRecord(name="web", command=("y",))
    assert servers_for_category([tagged, plain], "medical") == [tagged]
    assert servers_for_category([tagged, plain], None) == [tagged, plain]
    provider = ProviderConfig(name="p", base_url="http://127.0.0.1:1/v1", model="m", tags=frozenset({"medical"}))
    for category in (None, "medical", "legal"):
        assert provider.allows(category) == tags_allow(frozenset({"medical"}), category) == tagged.allows(category)


def test_env_references_only() -> None:
    assert parse_env_ref("TOKEN=env:MY_TOKEN") == ("TOKEN", "env:MY_TOKEN")
    for bad in ("TOKEN=sk-123", "TOKEN", "=env:X", "TOKEN=keyring:x", "TOKEN=env:"):
        with pytest.raises(McpServerError) as caught:
            parse_env_ref(bad)
        assert "sk-123" not in str(caught.value)
