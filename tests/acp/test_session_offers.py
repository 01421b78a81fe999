"""Modes, models and config options of an ACP agent (issue 15, item 4; issue 32, item 1), through a real
scripted agent.

The offers of session/new and session/load land in the line's state (both databases); a pick is
sent by the next turn as a config option where the agent offers one (a ``category: "model"`` option is
the model, a ``category: "mode"`` one the mode), with session/set_mode for modes offered alone, and
never with the removed session/set_model; current_mode_update and config_option_update keep the state
in sync; a refused or unknown pick is one line and the line stays usable; a model pick a resumed session
forgot is sent again.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from xworkmate.controllers import SessionController
from xworkmate.domain.agent_session import UnknownAgentChoiceError
from xworkmate.testing.acp_scripts import report_events, scripted_agent

MODES = {
    "current": "ask",
    "available": [
        {"id": "ask", "name": "Ask", "description": "asks before editing"},
        {"id": "code", "name": "Code", "description": "edits freely"},
        {"id": "plan", "name": "Plan"},
    ],
}
MODELS = {  # the unstable field, removed upstream: still sent by some agents, never used
    "current": "small",
    "available": [{"modelId": "small", "name": "Small"}, {"modelId": "large", "name": "Large", "description": "slow"}],
}
MODEL_OPTION = {
    "id": "model",
    "name": "Model",
    "category": "model",
    "type": "select",
    "currentValue": "small",
    "options": [{"value": "small", "name": "Small"}, {"value": "large", "name": "Large", "description": "slow"}],
}
CONFIG = [
    {
        "id": "effort",
        "name": "Reasoning effort",
        "type": "select",
        "currentValue": "low",
        "options": [{"value": "low", "name": "Low"}, {"value": "high", "name": "High"}],
    },
    {"id": "web", "name": "Web search", "type": "boolean", "currentValue": False},
]


def _acp_line(controller: SessionController) -> str:
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    return line.thread_id


def _offering(**extra: object) -> dict[str, object]:
    return {
        "session_id": "s-1",
        "load_session": True,
        "modes": MODES,
        "models": MODELS,
        "config_options": [MODEL_OPTION, *CONFIG],
        **extra,
    }


def test_offers_of_session_new_are_stored_and_picks_are_sent_next_turn(
    controller: SessionController, tmp_path: Path
) -> None:
    report = scripted_agent(controller, tmp_path, **_offering(turn=[{"say": "ok"}]))
    key = _acp_line(controller)
    assert asyncio.run(controller.turns.run_turn(key, "first", headless=True)).status == "finished"
    state = controller.agents.agent_session(key)
    assert [m.id for m in state.modes] == ["ask", "code", "plan"] and state.mode == "ask"
    assert state.modes[0].description == "asks before editing"
    assert [m.id for m in state.models] == ["small", "large"] and state.model == "small"
    assert state.option("model") is not None and state.other_options == state.config_options[1:]
    effort, web = state.other_options
    assert (effort.kind, effort.value, [c.id for c in effort.choices]) == ("select", "low", ["low", "high"])
    assert (web.kind, web.value) == ("boolean", False)
    assert state.agent == "scripted"
    assert report_events(report, "set") == []  # nothing picked: nothing sent

    controller.agents.choose_agent_mode(key, "code")
    controller.agents.choose_agent_model(key, "large")
    controller.agents.choose_agent_config(key, "effort", "high")
    controller.agents.choose_agent_config(key, "web", "on")
    picked = controller.agents.agent_session(key)
    assert (picked.shown_mode, picked.shown_model, picked.wanted_config) == (
        "code",
        "large",
        {"effort": "high", "web": True},
    )

    assert asyncio.run(controller.turns.run_turn(key, "second", headless=True)).status == "finished"
    sets = [(e["what"], e.get("config_id"), e["value"]) for e in report_events(report, "set")]
    assert sets == [
        ("mode", None, "code"),
        ("config", "model", "large"),
        ("config", "effort", "high"),
        ("config", "web", True),
    ]
    settled = controller.agents.agent_session(key)
    assert (settled.mode, settled.model, settled.wanted_mode, settled.wanted_model) == ("code", "large", None, None)
    assert settled.wanted_config == {}
    assert [o.value for o in settled.config_options] == ["large", "high", True]
    assert len(report_events(report, "load_session")) == 1  # the second turn loaded the session


def test_agent_side_updates_keep_the_state_in_sync(controller: SessionController, tmp_path: Path) -> None:
    changed = [MODEL_OPTION, dict(CONFIG[0], currentValue="high"), CONFIG[1]]
    scripted_agent(
        controller,
        tmp_path,
        **_offering(turn=[{"mode_update": "plan"}, {"config_update": changed}, {"say": "switched"}]),
    )
    key = _acp_line(controller)
    assert asyncio.run(controller.turns.run_turn(key, "go", headless=True)).status == "finished"
    state = controller.agents.agent_session(key)
    assert state.mode == "plan"
    assert state.option("effort") is not None and state.option("effort").value == "high"  # type: ignore[union-attr]


def test_unknown_pick_is_one_line_and_a_refused_one_leaves_the_line_usable(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, **_offering(refuse_set=["mode"], turn=[{"say": "fine"}]))
    key = _acp_line(controller)
    with pytest.raises(UnknownAgentChoiceError, match=r"no mode 'nope' .*run a turn first"):
        controller.agents.choose_agent_mode(key, "nope")  # nothing offered yet: one line saying why
    assert asyncio.run(controller.turns.run_turn(key, "first", headless=True)).status == "finished"
    with pytest.raises(UnknownAgentChoiceError, match="it offers: ask, code, plan"):
        controller.agents.choose_agent_mode(key, "nope")
    with pytest.raises(UnknownAgentChoiceError, match="no config option 'colour'"):
        controller.agents.choose_agent_config(key, "colour", "red")
    controller.agents.choose_agent_mode(key, "code")
    outcome = asyncio.run(controller.turns.run_turn(key, "second", headless=True))
    assert outcome.status == "finished" and outcome.text == "fine"
    assert [e["ok"] for e in report_events(report, "set")] == [False]
    notices = [m.content for m in controller.lines.messages(key) if "did not switch" in m.content]
    assert len(notices) == 1 and "\n" not in notices[0]
    assert "mode 'code'" in notices[0] and "cannot switch mode now" in notices[0]
    assert controller.agents.agent_session(key).wanted_mode is None  # not retried forever
    assert asyncio.run(controller.turns.run_turn(key, "third", headless=True)).status == "finished"


def test_offers_of_another_agent_are_not_shown(sqlite_controller: SessionController, tmp_path: Path) -> None:
    controller = sqlite_controller
    scripted_agent(controller, tmp_path, **_offering(turn=[{"say": "ok"}]))
    scripted_agent(controller, tmp_path, name="other", turn=[{"say": "ok"}])
    key = _acp_line(controller)
    assert asyncio.run(controller.turns.run_turn(key, "first", headless=True)).status == "finished"
    controller.line_settings.set_execution(key, "acp", "other")
    assert controller.agents.agent_session(key).modes == ()


def test_a_pick_during_a_running_turn_is_sent_to_the_live_session(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, **_offering(turn=[{"sleep": 1.5}, {"say": "done"}]))
    key = _acp_line(controller)

    async def scenario() -> str:
        turn = asyncio.ensure_future(controller.turns.run_turn(key, "go", headless=True))
        for _ in range(200):  # the session is open once its offers are stored
            if controller.agents.agent_session(key).modes:
                break
            await asyncio.sleep(0.05)
        controller.agents.choose_agent_mode(key, "plan")
        for _ in range(100):
            if report_events(report, "set"):
                break
            await asyncio.sleep(0.05)
        assert not turn.done(), "the pick was sent only after the turn"
        outcome = await turn
        return outcome.status

    assert asyncio.run(scenario()) == "finished"
    assert [(e["what"], e["value"]) for e in report_events(report, "set")] == [("mode", "plan")]
    state = controller.agents.agent_session(key)
    assert (state.mode, state.wanted_mode) == ("plan", None)


QWEN_LIKE_MODE = {
    "id": "mode",
    "name": "Approval mode",
    "category": "mode",
    "type": "select",
    "currentValue": "ask",
    "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}, {"value": "plan", "name": "Plan"}],
}


def test_the_removed_models_field_offers_nothing_and_set_model_is_never_sent(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Issue 32, item 1: an agent offering models only through the removed unstable field has no model picker;
    a pick is one line naming why, and no ``session/set_model`` request ever leaves XWorkmate."""
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, session_id="s-1", models=MODELS, turn=[{"say": "ok"}])
    key = _acp_line(controller)
    assert asyncio.run(controller.turns.run_turn(key, "first", headless=True)).status == "finished"
    state = controller.agents.agent_session(key)
    assert (state.models, state.model) == ((), None)
    with pytest.raises(UnknownAgentChoiceError, match="no model 'large'"):
        controller.agents.choose_agent_model(key, "large")
    assert asyncio.run(controller.turns.run_turn(key, "second", headless=True)).status == "finished"
    assert [e for e in report_events(report, "set") if e["what"] == "model"] == []


def test_a_mode_offered_as_a_config_option_is_set_as_that_option_and_both_views_agree(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Issue 32, item 2: Qwen offers both ``modes`` and a ``category: "mode"`` option; the pick goes through the
    option (not ``session/set_mode``), and the mode the line shows is the option's value, also after the agent
    switches by itself."""
    controller = sqlite_controller
    report = scripted_agent(
        controller,
        tmp_path,
        session_id="s-1",
        load_session=True,
        modes=MODES,
        config_options=[QWEN_LIKE_MODE, *CONFIG],
        turn=[{"say": "ok"}],
    )
    key = _acp_line(controller)
    assert asyncio.run(controller.turns.run_turn(key, "first", headless=True)).status == "finished"
    state = controller.agents.agent_session(key)
    assert ([m.id for m in state.modes], state.mode) == (["ask", "code", "plan"], "ask")
    assert [o.id for o in state.other_options] == ["effort", "web"]  # the mode option has its own picker
    controller.agents.choose_agent_mode(key, "code")
    assert asyncio.run(controller.turns.run_turn(key, "second", headless=True)).status == "finished"
    assert [(e["what"], e.get("config_id"), e["value"]) for e in report_events(report, "set")] == [
        ("config", "mode", "code")
    ]
    state = controller.agents.agent_session(key)
    option = state.option("mode")
    assert option is not None and (state.mode, option.value, state.wanted_mode) == ("code", "code", None)

    scripted_agent(
        controller,
        tmp_path,
        session_id="s-1",
        load_session=True,
        modes=MODES,
        config_options=[QWEN_LIKE_MODE, *CONFIG],
        turn=[{"mode_update": "plan"}, {"say": "planning"}],
    )
    assert asyncio.run(controller.turns.run_turn(key, "third", headless=True)).status == "finished"
    state = controller.agents.agent_session(key)
    option = state.option("mode")
    assert option is not None and (state.mode, option.value) == ("plan", "plan")


def test_a_model_pick_is_sent_again_when_a_resumed_session_forgot_it(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Issue 32, item 1 (codex-acp: a pick lasted one turn): each turn starts a new agent process that resumes
    the session with its default model; the kept pick is sent again, once per process, and the line keeps it."""
    controller = sqlite_controller
    report = scripted_agent(
        controller,
        tmp_path,
        session_id="s-1",
        resume_session=True,
        config_options=[MODEL_OPTION],
        turn=[{"say": "ok"}],
    )
    key = _acp_line(controller)
    assert asyncio.run(controller.turns.run_turn(key, "first", headless=True)).status == "finished"
    controller.agents.choose_agent_model(key, "large")
    for turn in ("second", "third"):
        assert asyncio.run(controller.turns.run_turn(key, turn, headless=True)).status == "finished"
    assert len(report_events(report, "resume_session")) == 2
    assert [(e["config_id"], e["value"]) for e in report_events(report, "set")] == [("model", "large")] * 2
    state = controller.agents.agent_session(key)
    assert (state.model, state.shown_model, state.chosen_model) == ("large", "large", "large")
