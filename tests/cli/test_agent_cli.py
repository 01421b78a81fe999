"""Issue 15 from the command line, on both databases: `mcp add|list|remove`, `thread set --mcp`
(a category line only gets servers tagged with it, the providers' rule), MCP servers handed to a real
scripted agent on session/new with env references resolved at spawn time and never stored (SEC-1),
`--acp-mode/--acp-model/--acp-config`, and `usage` in `thread show --json` (ACP and native)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.acp import AGENT
from tests.acp.test_session_offers import CONFIG, MODEL_OPTION, MODELS, MODES
from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from xworkmate.testing.acp_scripts import report_events
from xworkmate.testing.openai_server import OpenAIServer, TextReply

SECRET = "mcp-secret-value-7731"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_env(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "sqlite":
        return {}
    return {"XWORKMATE_DATABASE_URL": str(request.getfixturevalue("pg_database_url"))}


def _agent(home: Path, tmp_path: Path, env: dict[str, str], **script: object) -> Path:
    state = tmp_path / "agent"
    state.mkdir(exist_ok=True)
    report = state / "report.jsonl"
    path = state / "s.json"
    path.write_text(json.dumps({"report": str(report), "state": str(state / "sessions.json"), **script}))
    ok_json(
        home,
        "provider",
        "add",
        "scripted",
        "--acp-command",
        f"{sys.executable} {AGENT} {path}",
        "--acp-state-dir",
        str(state),
        "--replace",
        env=env,
    )
    return report


def test_mcp_add_list_remove_and_bad_input(home: Path, db_env: dict[str, str]) -> None:
    env = db_env
    added = ok_json(
        home,
        "mcp",
        "add",
        "files",
        "--command",
        "mcp-files --root .",
        "--env",
        "TOKEN=env:FILES_TOKEN",
        "--tag",
        "Medical",
        env=env,
    )
    assert added == {
        "name": "files",
        "transport": "stdio",
        "command": ["mcp-files", "--root", "."],
        "url": None,
        "env": ["TOKEN=env:FILES_TOKEN"],
        "headers": [],
        "tags": ["medical"],
    }
    ok_json(home, "mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp", env=env)
    assert [s["name"] for s in ok_json(home, "mcp", "list", env=env)] == ["files", "web"]
    assert_one_line_error(run_cli(home, "mcp", "add", "files", "--command", "x", env=env), "already exists")
    proc = run_cli(home, "mcp", "add", "bad", "--command", "x", "--env", f"TOKEN={SECRET}", env=env)
    assert_one_line_error(proc, "NAME=env:VAR")
    assert SECRET not in proc.stderr + proc.stdout  # a pasted value is not echoed (SEC-1)
    assert_one_line_error(run_cli(home, "mcp", "add", "none", env=env), "--command", "--url")
    assert_one_line_error(run_cli(home, "mcp", "add", "ftp", "--url", "ftp://x", env=env), "http://")
    assert_one_line_error(run_cli(home, "mcp", "remove", "nope", env=env), "no MCP server named 'nope'")
    assert ok_json(home, "mcp", "remove", "web", env=env) == {"removed": "web"}
    assert [s["name"] for s in ok_json(home, "mcp", "list", env=env)] == ["files"]


def test_a_line_gets_the_servers_chosen_for_it_and_a_category_line_only_tagged_ones(
    home: Path, db_env: dict[str, str]
) -> None:
    env = db_env
    ok_json(home, "mcp", "add", "files", "--command", "mcp-files", "--tag", "medical", env=env)
    ok_json(home, "mcp", "add", "search", "--command", "mcp-search", env=env)
    line = ok_json(home, "thread", "new", env=env)["session_key"]
    shown = ok_json(home, "thread", "set", line, "--mcp", "files,search", env=env)
    assert shown["mcp_servers"] == ["files", "search"]
    assert_one_line_error(run_cli(home, "thread", "set", line, "--mcp", "nope", env=env), "no MCP server named 'nope'")
    assert ok_json(home, "thread", "show", line, env=env)["mcp_servers"] == ["files", "search"]  # unchanged

    medical = ok_json(home, "thread", "new", env=env)["session_key"]
    ok_json(home, "thread", "category", medical, "--set", "medical", env=env)
    proc = run_cli(home, "thread", "set", medical, "--mcp", "files,search", env=env)
    assert_one_line_error(proc, "carries category medical", "search", "not tagged medical")
    assert ok_json(home, "thread", "set", medical, "--mcp", "files", env=env)["mcp_servers"] == ["files"]
    assert ok_json(home, "thread", "set", line, "--mcp", "", env=env)["mcp_servers"] == []
    ok_json(home, "mcp", "remove", "files", env=env)
    assert ok_json(home, "thread", "show", medical, env=env)["mcp_servers"] == []


def test_mcp_servers_reach_the_agent_with_env_resolved_at_spawn_and_a_missing_one_is_one_line(
    home: Path, tmp_path: Path, db_env: dict[str, str]
) -> None:
    env = db_env
    report = _agent(home, tmp_path, env, turn=[{"say": "ok"}])
    ok_json(
        home,
        "mcp",
        "add",
        "files",
        "--command",
        f"{sys.executable} -m mcp_files",
        "--env",
        "TOKEN=env:FILES_TOKEN",
        env=env,
    )
    ok_json(home, "mcp", "add", "gone", "--command", "no-such-mcp-server-xwm", env=env)
    ok_json(home, "mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp", env=env)
    line = ok_json(home, "thread", "new", env=env)["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "scripted", "--mcp", "files,gone,web", env=env)
    out = ok_json(home, "run", line, "hi", env={**env, "FILES_TOKEN": SECRET})
    assert out["status"] == "finished" and out["text"] == "ok", out
    (new,) = report_events(report, "new_session")
    assert new["mcp"] == [{"name": "files", "command": [sys.executable, "-m", "mcp_files"], "env": {"TOKEN": SECRET}}]
    messages = ok_json(home, "messages", line, env=env)
    notices = [m["content"] for m in messages if "MCP server" in m["content"]]
    assert len(notices) == 2 and all("\n" not in n for n in notices)
    assert "'gone' was not started: no executable 'no-such-mcp-server-xwm' on PATH" in notices[0]
    assert "'web' was not started: the agent does not take http MCP servers" in notices[1]
    # SEC-1: the value reached only the agent; not the database, not the log.
    for path in [*home.rglob("*.db"), *home.rglob("*.log")]:
        assert SECRET.encode() not in path.read_bytes(), path
    dumped = json.dumps(ok_json(home, "thread", "show", line, env=env)) + json.dumps(messages)
    assert SECRET not in dumped

    # An unset reference: that server is left out in one line, the turn still runs.
    out = ok_json(home, "run", line, "again", env=env)
    assert out["status"] == "finished", out
    texts = [m["content"] for m in ok_json(home, "messages", line, env=env)]
    assert any("'files' was not started: TOKEN comes from $FILES_TOKEN, which is not set" in t for t in texts)


def test_http_servers_go_to_an_agent_that_takes_them(home: Path, tmp_path: Path) -> None:
    report = _agent(home, tmp_path, {}, mcp_http=True, turn=[{"say": "ok"}])
    ok_json(home, "mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp")
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "scripted", "--mcp", "web")
    assert ok_json(home, "run", line, "hi")["status"] == "finished"
    (new,) = report_events(report, "new_session")
    assert new["mcp"] == [{"name": "web", "url": "http://127.0.0.1:9/mcp", "type": "http", "headers": {}}]


QWEN_MCP_FAILED = (
    "Warning: MCP server(s) failed to start: {names}. Continuing with built-in tools and any servers that did connect."
)


def test_an_mcp_server_the_agent_reports_failing_is_one_line_on_the_line_and_on_runs_stderr(
    home: Path, tmp_path: Path
) -> None:
    """Issue 32, item 5 (ERR-1): an MCP server the agent got but could not start, as the agent reports it (Qwen
    Code's stderr line), is one notice on the line, one ``xworkmate: warning:`` line on ``run``'s stderr and in
    the outcome's ``warnings``; the turn finishes, and a server said twice is said once."""
    said = QWEN_MCP_FAILED.format(names="broken, other")
    _agent(
        home, tmp_path, {},
        turn=[{"stderr": said}, {"stderr": QWEN_MCP_FAILED.format(names="broken")}, {"sleep": 0.5}, {"say": "ok"}],
    )  # fmt: skip
    ok_json(home, "mcp", "add", "broken", "--command", "false")
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "scripted", "--mcp", "broken")
    proc = run_cli(home, "run", line, "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
    (warning,) = proc.stderr.strip().splitlines()
    assert warning.startswith("xworkmate: warning: MCP servers 'broken', 'other' failed to start inside"), warning
    assert "the turn went on without it" in warning
    notices = [m["content"] for m in ok_json(home, "messages", line) if "failed to start inside" in m["content"]]
    assert notices == [warning.removeprefix("xworkmate: warning: ")]

    out = ok_json(home, "run", line, "again")  # each turn's agent says it again: the line hears it again
    assert out["status"] == "finished" and out["warnings"] == notices, out

    _agent(home, tmp_path, {}, turn=[{"stderr": "Warning: something else entirely"}, {"sleep": 0.3}, {"say": "ok"}])
    quiet = run_cli(home, "run", line, "once more")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr


def test_sse_servers_and_headers_from_references_reach_an_agent_that_takes_them(home: Path, tmp_path: Path) -> None:
    """Issue 32, item 6: ``--transport sse`` and ``--header NAME=env:VAR`` for http/sse servers; the value is read
    at spawn, reaches only the agent (SEC-1), and an agent without sse gets the server left out in one line."""
    token = "hdr-" + SECRET
    report = _agent(home, tmp_path, {}, mcp_http=True, mcp_sse=True, turn=[{"say": "ok"}])
    added = ok_json(
        home, "mcp", "add", "events", "--url", "http://127.0.0.1:9/sse", "--transport", "sse",
        "--header", "Authorization=env:EVENTS_TOKEN",
    )  # fmt: skip
    assert (added["transport"], added["headers"]) == ("sse", ["Authorization=env:EVENTS_TOKEN"])
    ok_json(home, "mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp", "--header", "X-Api-Key=env:WEB_KEY")
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "scripted", "--mcp", "events,web")
    out = ok_json(home, "run", line, "hi", env={"EVENTS_TOKEN": token, "WEB_KEY": "k-12345678"})
    assert out["status"] == "finished", out
    (new,) = report_events(report, "new_session")
    assert new["mcp"] == [
        {"name": "events", "url": "http://127.0.0.1:9/sse", "type": "sse", "headers": {"Authorization": token}},
        {"name": "web", "url": "http://127.0.0.1:9/mcp", "type": "http", "headers": {"X-Api-Key": "k-12345678"}},
    ]
    for path in [*home.rglob("*.db"), *home.rglob("*.log")]:
        assert token.encode() not in path.read_bytes(), path

    # Bad input is one line and stores nothing.
    for args, words in [
        (("--url", "http://x/sse", "--transport", "sse", "--header", "Authorization=Bearer abc"), "NAME=env:VAR"),
        (("--command", "srv", "--header", "A=env:B"), "--header is for http and sse"),
        (("--url", "http://x/sse", "--env", "A=env:B"), "--env is for stdio servers"),
        (("--url", "http://x/sse", "--transport", "stdio"), "--transport stdio needs --command"),
    ]:
        proc = run_cli(home, "mcp", "add", "bad", *args)
        assert_one_line_error(proc, words)
        assert "abc" not in proc.stderr
    assert [s["name"] for s in ok_json(home, "mcp", "list")] == ["events", "web"]

    # An agent that does not take sse: left out in one line, the turn runs.
    report = _agent(home, tmp_path, {}, mcp_http=True, turn=[{"say": "ok"}])
    out = ok_json(home, "run", line, "again", env={"EVENTS_TOKEN": token, "WEB_KEY": "k-12345678"})
    assert out["status"] == "finished", out
    texts = [m["content"] for m in ok_json(home, "messages", line)]
    assert any("'events' was not started: the agent does not take sse MCP servers" in t for t in texts)


def test_acp_mode_model_and_config_from_the_cli_and_usage_in_thread_show(
    home: Path, tmp_path: Path, db_env: dict[str, str]
) -> None:
    env = db_env
    report = _agent(
        home,
        tmp_path,
        env,
        session_id="s-1",
        load_session=True,
        modes=MODES,
        models=MODELS,  # the removed unstable field: ignored; the model is the config option
        config_options=[MODEL_OPTION, *CONFIG],
        commands=[{"name": "review", "description": "review the diff"}],
        prompt_usage={"inputTokens": 100, "outputTokens": 20, "totalTokens": 120},
        turn=[{"usage": {"used": 900, "size": 32000, "cost": {"amount": 0.5, "currency": "EUR"}}}, {"say": "ok"}],
    )
    line = ok_json(home, "thread", "new", env=env)["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "scripted", env=env)
    assert_one_line_error(run_cli(home, "thread", "set", line, "--acp-mode", "code", env=env), "run a turn first")
    assert ok_json(home, "run", line, "hi", env=env)["status"] == "finished"
    shown = ok_json(home, "thread", "show", line, env=env)
    assert shown["usage"] == {
        "context_used": 900,
        "context_size": 32000,
        "tokens_in": 100,
        "tokens_out": 20,
        "cost": 0.5,
        "currency": "EUR",
    }
    assert shown["agent_session"]["modes"] == ["ask", "code", "plan"] and shown["agent_session"]["commands"] == [
        "review"
    ]
    assert_one_line_error(
        run_cli(home, "thread", "set", line, "--acp-mode", "nope", env=env), "it offers: ask, code, plan"
    )
    assert_one_line_error(run_cli(home, "thread", "set", line, "--acp-config", "web=maybe", env=env), "on or off")
    picked = ok_json(
        home, "thread", "set", line, "--acp-mode", "plan", "--acp-model", "large", "--acp-config", "web=on", env=env
    )["agent_session"]
    assert (picked["mode"], picked["model"], picked["config_options"]["web"], picked["pending"]) == (
        "plan",
        "large",
        True,
        True,
    )
    assert ok_json(home, "run", line, "again", env=env)["status"] == "finished"
    assert [(e["what"], e["value"]) for e in report_events(report, "set")] == [
        ("mode", "plan"),
        ("config", "large"),  # --acp-model set the agent's model config option (issue 32, item 3)
        ("config", True),
    ]
    after = ok_json(home, "thread", "show", line, env=env)
    assert after["agent_session"]["pending"] is False
    assert (after["usage"]["tokens_in"], after["usage"]["tokens_out"]) == (200, 40)


def test_native_usage_from_the_providers_final_chunk(
    home: Path, openai_server: OpenAIServer, db_env: dict[str, str]
) -> None:
    env = db_env
    ok_json(
        home,
        "provider",
        "add",
        "local",
        "--base-url",
        openai_server.base_url,
        "--model",
        "test-model",
        "--default",
        env=env,
    )
    openai_server.script(
        TextReply(["hel", "lo"], usage={"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}),
        TextReply(["again"], usage={"prompt_tokens": 60, "completion_tokens": 3, "total_tokens": 63}),
    )
    line = ok_json(home, "thread", "new", env=env)["session_key"]
    assert ok_json(home, "thread", "show", line, env=env)["usage"]["tokens_in"] == 0
    assert ok_json(home, "run", line, "hi", env=env)["status"] == "finished"
    assert ok_json(home, "run", line, "more", env=env)["status"] == "finished"
    usage = ok_json(home, "thread", "show", line, env=env)["usage"]
    assert usage == {
        "context_used": 63,
        "context_size": None,
        "tokens_in": 102,
        "tokens_out": 10,
        "cost": None,
        "currency": None,
    }
    assert all(r.body.get("stream_options") == {"include_usage": True} for r in openai_server.chat_requests)


def test_provider_list_shows_the_name_and_version_the_agent_reported(home: Path, tmp_path: Path) -> None:
    """Issue 15, item 8: discovery stays on PATH; what the agent says in agentInfo is shown once it ran."""
    _agent(home, tmp_path, {}, agent_info={"name": "scripted-agent", "version": "4.2.1"}, turn=[{"say": "ok"}])
    [before] = ok_json(home, "provider", "list")
    assert before["agent_info"] is None
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "scripted")
    assert ok_json(home, "run", line, "hi")["status"] == "finished"
    [after] = ok_json(home, "provider", "list")
    assert after["agent_info"] == {
        "name": "scripted-agent",
        "title": None,
        "version": "4.2.1",
        "lists_sessions": False,
        "takes_images": False,
    }
    text = run_cli(home, "provider", "list").stdout
    assert "scripted  ACP: " in text and "(reports scripted-agent 4.2.1)" in text


# -- item 7: binding a line to an existing session (session/list) --------------------------------


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


def test_a_session_is_deleted_where_the_agent_offers_it_and_the_line_bound_to_it_starts_anew(
    home: Path, tmp_path: Path
) -> None:
    """Issue 32, item 6: ``thread sessions KEY --delete ID`` sends session/delete (only where advertised) and
    lists what is left; the line that was bound to it starts a new session on its next turn."""
    report = _cli_agent(
        home, tmp_path, {}, "deleter", session_id="s-old", load_session=True, list_sessions=True,
        delete_sessions=True, turn=[{"say": "ok"}],
    )  # fmt: skip
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "deleter")
    assert ok_json(home, "run", line, "remember 42")["status"] == "finished"
    assert ok_json(home, "thread", "show", line)["acp_session_id"] == "s-old"
    proc = run_cli(home, "thread", "sessions", line, "--delete", "s-nope", "--json")
    assert_one_line_error(proc, "s-nope")
    left = ok_json(home, "thread", "sessions", line, "--delete", "s-old")
    assert left == {"supported": True, "sessions": []}
    assert [e["session_id"] for e in report_events(report, "delete_session")] == ["s-nope", "s-old"]
    assert ok_json(home, "thread", "show", line)["acp_session_id"] is None
    assert ok_json(home, "run", line, "again")["status"] == "finished"
    assert len(report_events(report, "new_session")) == 2 and report_events(report, "load_session") == []

    plain = _cli_agent(home, tmp_path, {}, "lister-only", list_sessions=True, turn=[{"say": "ok"}])
    other = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", other, "--mode", "acp", "--provider", "lister-only")
    proc = run_cli(home, "thread", "sessions", other, "--delete", "s-1")
    assert_one_line_error(proc, "cannot delete sessions", "session/delete")
    assert report_events(plain, "delete_session") == []
