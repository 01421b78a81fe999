"""A line resumes its agent's session with the stored id (SPEC §5, ISO-3 execution binding)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acp import AgentHarness, Outcome, run_concurrently
from xworkmate.agents.acp import AcpSessionReady
from xworkmate.agents.events import AssistantDelta, AssistantDone

Scenarios = dict[str, tuple[AgentHarness, Outcome, Outcome]]


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Scenarios:
    """Each scenario: a first turn that creates a session, then a second turn given its id."""
    setups = {
        "resumes": {"load_session": True},
        "load_fails": {"load_session": True, "load_fails": True},
        "cannot_load": {"load_session": False},
    }
    harnesses = {n: AgentHarness(tmp_path_factory.mktemp(n)) for n in setups}
    first = run_concurrently(
        {
            n: h.turn(h.script(**setups[n], turn=[{"say": "first answer"}]), prompt="first question")
            for n, h in harnesses.items()
        }
    )
    second = {}
    for n, out in first.items():
        assert out.result is not None, out.error
        harness = harnesses[n]
        second[n] = harness.turn(
            harness.script(**setups[n], turn=[{"say": "second answer"}]),
            prompt="second question",
            acp_session_id=out.result.session_id,
        )
    later = run_concurrently(second)
    return {n: (harnesses[n], first[n], later[n]) for n in setups}


def test_a_stored_session_is_loaded_and_its_replay_is_not_repeated(scenarios: Scenarios) -> None:
    harness, first, second = scenarios["resumes"]
    assert first.result is not None and second.result is not None, second.error
    stored = first.result.session_id
    assert second.result.session_id == stored and second.result.resumed
    (load,) = harness.report("load_session")
    assert load == {"event": "load_session", "cwd": str(harness.workspace), "session_id": stored}
    assert len(harness.report("new_session")) == 1  # only the first turn created one
    # The agent replayed "first answer" while loading: the line already has it, so it is not emitted again.
    assert [e.text for e in second.of(AssistantDelta)] == ["second answer"]
    assert [e.text for e in second.of(AssistantDone)] == ["second answer"]
    (ready,) = second.of(AcpSessionReady)
    assert ready.resumed and ready.note is None and ready.session_id == stored


def test_a_session_that_cannot_be_loaded_falls_back_to_a_new_one_and_says_so(scenarios: Scenarios) -> None:
    harness, first, second = scenarios["load_fails"]
    assert first.result is not None and second.result is not None, second.error
    stored = first.result.session_id
    assert second.result.session_id != stored and not second.result.resumed
    assert len(harness.report("load_session")) == 1
    assert len(harness.report("new_session")) == 2
    (ready,) = second.of(AcpSessionReady)
    assert not ready.resumed and ready.session_id == second.result.session_id
    assert ready.note is not None and f"could not resume the agent's session {stored}" in ready.note


def test_an_agent_without_load_session_gets_a_new_session(scenarios: Scenarios) -> None:
    harness, first, second = scenarios["cannot_load"]
    assert first.result is not None and second.result is not None, second.error
    assert harness.report("load_session") == []
    (ready,) = second.of(AcpSessionReady)
    assert not ready.resumed and ready.note is not None and "cannot resume sessions" in ready.note


def test_scenarios_ran_in_their_own_folders(scenarios: Scenarios) -> None:
    assert len({Path(h.workspace) for h, _, _ in scenarios.values()}) == 3
