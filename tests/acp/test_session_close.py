"""Issue 32 item 6: ``session/close`` when the agent advertises it. The agent process lives for one turn, so
the session is closed as each turn ends (answered, failed to answer, or stopped); the next turn resumes it."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from tests.acp import AgentHarness, Outcome, run_concurrently
from xworkmate.agents.acp import AcpRunner, AcpTimeouts
from xworkmate.agents.events import AssistantDelta

Scenarios = dict[str, tuple[AgentHarness, Outcome, Outcome]]

QUICK = AcpTimeouts(startup=15, idle=15, cancel_grace=1.0, exit_grace=1.0, kill_grace=1.0)
SETUPS: dict[str, dict[str, Any]] = {
    "closes": {"resume_session": True, "close_sessions": True},
    "close_fails": {"resume_session": True, "close_sessions": True, "close_mode": "error"},
    "close_hangs": {"resume_session": True, "close_sessions": True, "close_mode": "hang"},
    "no_close": {"resume_session": True},
}


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Scenarios:
    """Two turns a scenario: one that creates a session, one that resumes it."""
    harnesses = {n: AgentHarness(tmp_path_factory.mktemp(n)) for n in SETUPS}

    def turn(name: str, say: str, session: str | None = None) -> Coroutine[Any, Any, Outcome]:
        harness = harnesses[name]
        script = harness.script(**SETUPS[name], turn=[{"say": say}])
        return harness.turn(script, prompt=say, acp_session_id=session, runner=AcpRunner(QUICK))

    first = run_concurrently({n: turn(n, "first") for n in SETUPS})
    for name, out in first.items():
        assert out.result is not None, (name, out.error)
    second = run_concurrently({n: turn(n, "second", _session(first[n])) for n in SETUPS})
    return {n: (harnesses[n], first[n], second[n]) for n in SETUPS}


def _session(out: Outcome) -> str:
    assert out.result is not None, out.error
    return out.result.session_id


def test_an_agent_that_advertises_close_has_its_session_closed_as_each_turn_ends_and_resumed_next(
    scenarios: Scenarios,
) -> None:
    harness, first, second = scenarios["closes"]
    assert first.result is not None and second.result is not None, second.error
    stored = first.result.session_id
    assert second.result.resumed and second.result.session_id == stored
    events = [e["event"] for e in harness.report() if e["event"] in {"prompt", "close_session", "resume_session"}]
    assert events == ["prompt", "close_session", "resume_session", "prompt", "close_session"]
    assert [e["session_id"] for e in harness.report("close_session")] == [stored, stored]


@pytest.mark.parametrize("name", ["close_fails", "close_hangs"])
def test_a_close_that_fails_or_gets_no_answer_does_not_spoil_the_turn(scenarios: Scenarios, name: str) -> None:
    harness, first, second = scenarios[name]
    for out, said in ((first, "first"), (second, "second")):
        assert out.result is not None and out.error is None, out.error
        assert out.result.stop_reason == "end_turn"
        assert "".join(e.text for e in out.of(AssistantDelta)) == said
    assert second.result is not None and second.result.resumed
    assert len(harness.report("close_session")) == 2


def test_an_agent_that_does_not_advertise_close_is_never_sent_it(scenarios: Scenarios) -> None:
    harness, _, second = scenarios["no_close"]
    assert second.result is not None and second.result.resumed
    assert harness.report("close_session") == []


def test_a_stopped_turn_closes_its_session_too_so_no_stopped_or_archived_line_leaves_one_open(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Stop (and so archiving, which waits for no running turn: ``lines._archivable``) leaves no agent session
    open: the stopped turn's ``session/cancel`` is followed by ``session/close`` before the agent is reaped."""
    harness = AgentHarness(tmp_path_factory.mktemp("stopped"))
    script = harness.script(resume_session=True, close_sessions=True, turn=[{"say": "working"}, {"hang": True}])

    def said_working(events: list[object]) -> bool:
        return any(isinstance(e, AssistantDelta) and e.text == "working" for e in events)

    turn = harness.turn(script, runner=AcpRunner(QUICK), cancel_when=said_working)
    out = run_concurrently({"stopped": turn})["stopped"]
    assert isinstance(out.error, asyncio.CancelledError), out.error
    events = [e["event"] for e in harness.report() if e["event"] in {"prompt", "cancel", "close_session"}]
    assert events == ["prompt", "cancel", "close_session"]
    (closed,) = harness.report("close_session")
    (new,) = harness.report("new_session")
    assert closed["session_id"] == new["session_id"]
