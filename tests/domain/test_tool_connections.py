"""SBX-4: the one rule that gives a proxied connection to a tool call (``domain.network.ToolConnections``)."""

from __future__ import annotations

from xworkmate.domain.network import ToolConnections


def test_a_connection_belongs_to_the_most_recent_running_call_and_none_when_no_call_runs() -> None:
    log = ToolConnections()
    assert log.connection("api.x.com", 443, True) is None  # the agent's own model request: no card
    log.started("a")
    log.started("b")
    assert log.connection("example.com", 443, False) == "b"
    assert log.connection("example.com", 443, False) == "b"  # kept once per destination and verdict
    assert log.finished("b") == [{"host": "example.com", "port": 443, "allowed": False}]
    assert log.connection("api.x.com", 443, True) == "a"
    assert log.finished("a") == [{"host": "api.x.com", "port": 443, "allowed": True}]
    assert log.finished("never-started") == []
    assert log.connection("api.x.com", 443, True) is None
