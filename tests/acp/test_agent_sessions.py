"""Issue 15, item 7: session/resume when the agent advertises it (else session/load), and binding a
new line to one of the agent's existing sessions through session/list, only where advertised. Real
scripted agent processes; the CLI on both databases."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from tests.acp import AGENT
from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from tests.support.acp_scripts import report_events, scripted_agent
from xworkmate.controllers import SessionController


def test_a_stored_session_is_resumed_when_the_agent_advertises_resume(
    controller: SessionController, tmp_path: Path
) -> None:
    report = scripted_agent(
        controller, tmp_path, session_id="s-9", load_session=True, resume_session=True, turn=[{"say": "hi"}]
    )
    line = controller.create_line("A")
    controller.set_execution(line.thread_id, "acp", "scripted")
    assert asyncio.run(controller.run_turn(line.thread_id, "one", headless=True)).status == "finished"
    assert asyncio.run(controller.run_turn(line.thread_id, "two", headless=True)).status == "finished"
    assert [e["session_id"] for e in report_events(report, "resume_session")] == ["s-9"]
    assert report_events(report, "load_session") == []  # resume, not load: nothing replayed
    assert len(report_events(report, "new_session")) == 1
    answers = [m.content for m in controller.messages(line.thread_id) if m.content == "hi"]
    assert answers == ["hi", "hi"]


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_env(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "sqlite":
        return {}
    return {"XWORKMATE_DATABASE_URL": str(request.getfixturevalue("pg_database_url"))}


def _cli_agent(home: Path, tmp_path: Path, env: dict[str, str], name: str, **script: object) -> Path:
    state = tmp_path / f"{name}-agent"
    state.mkdir()
    report = state / "report.jsonl"
    path = state / "s.json"
    path.write_text(json.dumps({"report": str(report), "state": str(state / "sessions.json"), **script}))
    command = f"{sys.executable} {AGENT} {path}"
    ok_json(home, "provider", "add", name, "--acp-command", command, "--acp-state-dir", str(state), env=env)
    return report


def test_a_new_line_is_bound_to_an_existing_session_from_session_list(
    home: Path, tmp_path: Path, db_env: dict[str, str]
) -> None:
    env = db_env
    report = _cli_agent(
        home, tmp_path, env, "lister", session_id="s-old", load_session=True, list_sessions=True, turn=[{"say": "ok"}]
    )
    first = ok_json(home, "thread", "new", env=env)["session_key"]
    ok_json(home, "thread", "set", first, "--mode", "acp", "--provider", "lister", env=env)
    assert ok_json(home, "run", first, "remember 42", env=env)["status"] == "finished"

    second = ok_json(home, "thread", "new", env=env)["session_key"]
    ok_json(home, "thread", "set", second, "--mode", "acp", "--provider", "lister", env=env)
    listed = ok_json(home, "thread", "sessions", second, env=env)
    assert listed["supported"] is True
    assert [s["session_id"] for s in listed["sessions"]] == ["s-old"]
    assert (
        report_events(report, "list_sessions")[-1]["cwd"]
        == ok_json(home, "thread", "show", second, env=env)["workspace_path"]
    )
    proc = run_cli(home, "thread", "set", second, "--acp-session", "s-nope", env=env)
    assert_one_line_error(proc, "no session 's-nope'", "s-old")
    ok_json(home, "thread", "set", second, "--acp-session", "s-old", env=env)
    assert ok_json(home, "run", second, "what was it?", env=env)["status"] == "finished"
    assert [e["session_id"] for e in report_events(report, "load_session")] == ["s-old"]
    assert len(report_events(report, "new_session")) == 1  # only the first line's


def test_an_agent_that_does_not_list_sessions_is_not_asked(home: Path, tmp_path: Path) -> None:
    report = _cli_agent(home, tmp_path, {}, "plain", turn=[{"say": "ok"}])
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "plain")
    assert ok_json(home, "thread", "sessions", line) == {"supported": False, "sessions": []}
    assert "does not list its sessions" in run_cli(home, "thread", "sessions", line).stdout
    assert_one_line_error(run_cli(home, "thread", "set", line, "--acp-session", "s-1"), "does not list its sessions")
    assert report_events(report, "list_sessions") == []
    native = ok_json(home, "thread", "new")["session_key"]
    assert_one_line_error(run_cli(home, "thread", "sessions", native), native)
