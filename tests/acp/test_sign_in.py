"""Signing in to an ACP agent (issue 15, item 1): authMethods from initialize, ``authenticate`` on
"authentication required" or up front, the person's chosen method, the headless refusal, bad input."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tests.acp import AGENT
from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from xworkmate.controllers import SessionController, SignInRequested, SignInTerminalOpened, SignInTerminalView
from xworkmate.domain.messages import MessageRole
from xworkmate.domain.threads import ThreadStatus
from xworkmate.testing.acp_scripts import report_events, scripted_agent

ONE = [{"id": "openai", "name": "OpenAI key", "_meta": {"type": "terminal", "args": ["--auth"]}}]
TWO = [
    {"id": "oauth", "name": "Browser sign-in", "description": "opens a browser"},
    # Marked the older way (in ``_meta``, as Qwen does): it signs in through ``authenticate``. An ACP
    # ``type: "terminal"`` method never does (issue 32 item 4, ``test_a_terminal_method_headless_...``).
    {
        "id": "api-key",
        "name": "API key",
        "description": "uses OPENAI_API_KEY",
        "_meta": {"type": "terminal", "args": ["login"]},
    },
]


def _acp_line(controller: SessionController, name: str = "scripted") -> str:
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", name)
    return line.thread_id


def test_auth_required_with_one_method_signs_in_by_itself(sqlite_controller: SessionController, tmp_path: Path) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, auth_methods=ONE, require_auth=True, turn=[{"say": "in"}])
    key = _acp_line(controller)
    outcome = asyncio.run(controller.turns.run_turn(key, "hi", headless=True))
    assert outcome.status == "finished", outcome.error
    assert outcome.text == "in"
    assert [e["method_id"] for e in report_events(report, "authenticate")] == ["openai"]
    assert len(report_events(report, "new_session")) == 1
    notices = [m.content for m in controller.lines.messages(key) if "Signed in" in m.content]
    assert notices == ["Signed in to the agent with its method 'openai'."]


def test_auth_required_on_session_load_signs_in_and_resumes(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, session_id="s-7", load_session=True, turn=[{"say": "ok"}])
    key = _acp_line(controller)
    assert asyncio.run(controller.turns.run_turn(key, "first", headless=True)).status == "finished"
    # The agent forgot its credentials between turns: session/load now asks for a sign-in.
    report = scripted_agent(
        controller,
        tmp_path,
        session_id="s-7",
        load_session=True,
        auth_methods=ONE,
        require_auth=True,
        turn=[{"say": "again"}],
    )
    outcome = asyncio.run(controller.turns.run_turn(key, "second", headless=True))
    assert outcome.status == "finished", outcome.error
    assert [e["method_id"] for e in report_events(report, "authenticate")] == ["openai"]
    assert len(report_events(report, "load_session")) == 2  # refused once, then resumed after signing in
    assert len(report_events(report, "new_session")) == 1  # only the first turn's
    assert controller.get_thread(key).execution_binding.acp_session_id == "s-7"


def test_two_methods_headless_refuses_in_one_line_naming_them(home: Path, tmp_path: Path) -> None:
    state = tmp_path / "agent"
    state.mkdir()
    script = state / "s.json"
    report = state / "report.jsonl"
    script.write_text(json.dumps({"report": str(report), "auth_methods": TWO, "require_auth": True}))
    ok_json(
        home,
        "provider",
        "add",
        "two",
        "--acp-command",
        f"{sys.executable} {AGENT} {script}",
        "--acp-state-dir",
        str(state),
    )
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "two")
    proc = run_cli(home, "run", line, "hi")
    assert_one_line_error(proc, "needs sign-in", "oauth, api-key", "--acp-auth")
    assert report_events(report, "authenticate") == []
    # The line stays usable: choose a method and the same line runs.
    ok_json(home, "provider", "set", "two", "--acp-auth", "api-key")
    out = ok_json(home, "run", line, "again")
    assert out["status"] == "finished", out
    assert [e["method_id"] for e in report_events(report, "authenticate")] == ["api-key"]


def test_chosen_method_is_used_up_front(home: Path, tmp_path: Path) -> None:
    state = tmp_path / "agent"
    state.mkdir()
    script = state / "s.json"
    report = state / "report.jsonl"
    # The agent does not even require it: the person's choice signs in before session/new.
    script.write_text(json.dumps({"report": str(report), "auth_methods": TWO, "turn": [{"say": "hello"}]}))
    added = ok_json(
        home,
        "provider",
        "add",
        "two",
        "--acp-command",
        f"{sys.executable} {AGENT} {script}",
        "--acp-state-dir",
        str(state),
        "--acp-auth",
        "oauth",
    )
    assert added["acp_auth_method"] == "oauth"
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "two")
    out = ok_json(home, "run", line, "hi")
    assert out["status"] == "finished" and out["text"] == "hello"
    events = [json.loads(x)["event"] for x in report.read_text().splitlines()]
    assert events.index("authenticate") < events.index("new_session")
    assert [e["method_id"] for e in report_events(report, "authenticate")] == ["oauth"]
    [listed] = [p for p in ok_json(home, "provider", "list") if p["name"] == "two"]
    assert listed["acp_auth_method"] == "oauth"
    assert ok_json(home, "provider", "set", "two", "--acp-auth", "none")["acp_auth_method"] is None


def test_agent_without_methods_that_still_refuses_is_one_clear_line(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    scripted_agent(controller, tmp_path, require_auth=True)
    key = _acp_line(controller)
    outcome = asyncio.run(controller.turns.run_turn(key, "hi", headless=True))
    assert outcome.status == "failed"
    assert outcome.error and "\n" not in outcome.error
    assert "authentication required, and it lists no sign-in method" in outcome.error
    assert controller.lines.line_view(key).status is ThreadStatus.RUNNABLE
    scripted_agent(controller, tmp_path, turn=[{"say": "fine now"}])
    assert asyncio.run(controller.turns.run_turn(key, "again", headless=True)).text == "fine now"


def test_unknown_method_id_is_one_clear_line(home: Path, tmp_path: Path) -> None:
    state = tmp_path / "agent"
    state.mkdir()
    script = state / "s.json"
    report = state / "report.jsonl"
    script.write_text(json.dumps({"report": str(report), "auth_methods": TWO, "require_auth": True}))
    ok_json(
        home,
        "provider",
        "add",
        "two",
        "--acp-command",
        f"{sys.executable} {AGENT} {script}",
        "--acp-state-dir",
        str(state),
        "--acp-auth",
        "gmail",
    )
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "two")
    assert_one_line_error(run_cli(home, "run", line, "hi"), "no sign-in method 'gmail'", "oauth, api-key")
    assert report_events(report, "authenticate") == []
    # A method id the agent refuses at authenticate is one line too.
    script.write_text(json.dumps({"report": str(report), "auth_methods": TWO, "auth_accepts": ["oauth"]}))
    ok_json(home, "provider", "set", "two", "--acp-auth", "api-key")
    # ... and keeps the agent's own data.details (issue 15 leftover).
    assert_one_line_error(
        run_cli(home, "run", line, "hi"), "refused sign-in with 'api-key'", "(unknown sign-in method api-key)"
    )
    assert_one_line_error(run_cli(home, "provider", "set", "two", "--acp-auth", " x"), "not a sign-in method id")


def test_window_path_asks_and_the_pick_signs_in(sqlite_controller: SessionController, tmp_path: Path) -> None:
    """Not headless: the controller asks with a SignInRequested listing the methods; the line shows
    "needs sign-in" meanwhile; the pick authenticates and the turn proceeds."""
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, auth_methods=TWO, require_auth=True, turn=[{"say": "go"}])
    key = _acp_line(controller)
    seen: list[Any] = []
    views: list[Any] = []

    def on_change(change: object) -> None:
        if isinstance(change, SignInRequested):
            seen.append(change)
            views.append(controller.lines.line_view(key))
            asyncio.get_running_loop().call_soon(controller.approvals.choose_sign_in, change.request_id, "api-key")

    controller.subscribe(on_change)
    outcome = asyncio.run(controller.turns.run_turn(key, "hi"))
    assert outcome.status == "finished", outcome.error
    [asked] = seen
    assert [m.id for m in asked.methods] == ["oauth", "api-key"]
    assert asked.methods[0].description == "opens a browser"
    assert asked.methods[1].command and asked.methods[1].command.endswith("login")
    assert views[0].needs_sign_in and "sign-in" in views[0].explanation
    assert not controller.lines.line_view(key).needs_sign_in
    assert [e["method_id"] for e in report_events(report, "authenticate")] == ["api-key"]
    assert [m.content for m in controller.lines.messages(key) if m.role is MessageRole.ASSISTANT][-1] == "go"


def test_a_terminal_method_headless_names_the_command_to_run_and_never_authenticates(
    home: Path, tmp_path: Path
) -> None:
    """Issue 32 item 4: ACP's ``type: "terminal"`` is the agent's own login program, run by the person with
    the method's args and env; the client never sends it as ``authenticate``. Headless, one line says what
    to run (the agent's command and the args, the env names)."""
    state = tmp_path / "agent"
    state.mkdir()
    script = state / "s.json"
    report = state / "report.jsonl"
    methods = [
        {
            "id": "tui",
            "name": "Log in",
            "type": "terminal",
            "args": ["--login", "--fresh"],
            "env": {"LOGIN_MODE": "tui"},
        }
    ]
    script.write_text(json.dumps({"report": str(report), "auth_methods": methods, "require_auth": True}))
    command = f"{sys.executable} {AGENT} {script}"
    ok_json(home, "provider", "add", "tuiagent", "--acp-command", command, "--acp-state-dir", str(state))
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "tuiagent")
    proc = run_cli(home, "run", line, "hi")
    assert_one_line_error(
        proc,
        "signs in with 'tui' in a terminal",
        f"run `{sys.executable} {AGENT} {script} --login --fresh` with LOGIN_MODE set",
    )
    assert report_events(report, "authenticate") == []
    # Headless runs no login program, so it does not advertise auth.terminal (the window does).
    assert [e["auth_terminal"] for e in report_events(report, "initialize")] == [False]


def test_picking_a_terminal_method_at_the_window_runs_its_login_program_and_stop_ends_the_turn_in_one_line(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """Issue 32 item 4: the pick of a ``type: "terminal"`` method runs the agent's login program (its command and
    the method's args) in a sign-in terminal, never ``authenticate``; Stop ends it, and the turn in one line."""
    controller = sqlite_controller
    methods = [
        {"id": "oauth", "name": "Browser"},
        {"id": "tui", "name": "Log in", "type": "terminal", "args": ["--login"]},
    ]
    login = {"file": str(tmp_path / "scripted-agent" / "login"), "token": "t0k"}
    report = scripted_agent(
        controller, tmp_path, auth_methods=methods, require_auth=True, login=login, turn=[{"say": "go"}]
    )
    key = _acp_line(controller)
    opened: list[SignInTerminalOpened] = []

    def stop_at_prompt(terminal: SignInTerminalView) -> None:
        def on_text(_piece: str) -> None:
            if "token:" in terminal.text:
                terminal.stop()  # the person presses Stop

        terminal.listen(on_text, lambda _status: None)

    def on_change(change: object) -> None:
        if isinstance(change, SignInRequested):
            asyncio.get_running_loop().call_soon(controller.approvals.choose_sign_in, change.request_id, "tui")
        if isinstance(change, SignInTerminalOpened):
            opened.append(change)
            stop_at_prompt(change.terminal)

    controller.subscribe(on_change)
    outcome = asyncio.run(controller.turns.run_turn(key, "hi"))
    assert outcome.status == "failed"
    assert outcome.error and "\n" not in outcome.error
    assert "its sign-in program" in outcome.error and "--login` was stopped by signal 15" in outcome.error
    assert [o.terminal.command[-1] for o in opened] == ["--login"]
    assert report_events(report, "authenticate") == []
