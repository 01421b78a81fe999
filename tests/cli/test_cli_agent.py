"""`xworkmate provider …`, `thread set` and headless `run`, as real processes against a real server (SPEC §5, §8)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from xworkmate.testing.openai_server import ErrorReply, OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply


def add_local(home: Path, server: OpenAIServer, *extra: str) -> dict[str, object]:
    return ok_json(
        home, "provider", "add", "local", "--base-url", server.base_url, "--model", "test-model", "--default", *extra
    )


def test_provider_add_and_list(home: Path, openai_server: OpenAIServer) -> None:
    added = add_local(home, openai_server, "--tag", "Medical", "--api-key-env", "LOCAL_KEY")
    assert added == {
        "name": "local",
        "kind": "openai",
        "base_url": openai_server.base_url,
        "model": "test-model",
        "tags": ["medical"],
        "api_key_env": "LOCAL_KEY",
        "api_key_keyring": False,
        "default": True,
        "acp_command": None,
        "acp_state_dirs": None,
        "acp_auth_method": None,
        "acp_allow_hosts": None,
        "vision": False,
    }
    assert [p["name"] for p in ok_json(home, "provider", "list")] == ["local"]


def test_provider_with_a_bad_url_names_the_field(home: Path) -> None:
    proc = run_cli(home, "provider", "add", "p", "--base-url", "ftp://x", "--model", "m")
    assert_one_line_error(proc, "base_url")
    assert ok_json(home, "provider", "list") == []


def test_provider_names_are_unique(home: Path, openai_server: OpenAIServer) -> None:
    add_local(home, openai_server)
    proc = run_cli(home, "provider", "add", "local", "--base-url", openai_server.base_url, "--model", "m")
    assert_one_line_error(proc, "already exists")


def test_headless_run_streams_one_turn_and_stores_it(home: Path, openai_server: OpenAIServer) -> None:
    add_local(home, openai_server)
    line = ok_json(home, "thread", "new")
    openai_server.script(TextReply(["All ", "done."]))
    out = ok_json(home, "run", line["session_key"], "summarise")
    assert out["status"] == "finished" and out["text"] == "All done." and out["provider"] == "local"
    openai_server.script(TextReply(["Hi"]))
    plain = run_cli(home, "run", line["session_key"], "again")
    assert plain.returncode == 0 and plain.stdout.strip() == "Hi"


def test_run_without_a_provider_says_so(home: Path) -> None:
    line = ok_json(home, "thread", "new")
    assert_one_line_error(run_cli(home, "run", line["session_key"], "hi"), "no agent provider")


def test_run_on_an_unknown_line_is_not_runnable(home: Path, openai_server: OpenAIServer) -> None:
    add_local(home, openai_server)
    assert_one_line_error(run_cli(home, "run", "draft:01ARZ3NDEKTSV4RRFFQ69G5FAV", "hi"), "not runnable")
    assert openai_server.chat_requests == []


def test_provider_error_is_one_line_and_the_conversation_is_kept(home: Path, openai_server: OpenAIServer) -> None:
    add_local(home, openai_server)
    line = ok_json(home, "thread", "new")
    openai_server.script(ErrorReply(401, {"error": {"message": "invalid api key"}}))
    assert_one_line_error(run_cli(home, "run", line["session_key"], "hello there"), "local")
    openai_server.script(TextReply(["fine now"]))
    assert ok_json(home, "run", line["session_key"], "retry")["text"] == "fine now"
    sent = openai_server.chat_requests[-1].body["messages"]
    assert {"role": "user", "content": "hello there"} in sent


def test_headless_run_on_an_ask_line_refuses_the_write(home: Path, openai_server: OpenAIServer) -> None:
    add_local(home, openai_server)
    line = ok_json(home, "thread", "new")
    args = json.dumps({"path": "out.txt", "content": "x", "quote": "put an x into out.txt"})
    openai_server.script(ToolCallReply([ScriptedToolCall("c1", "write_file", args)]), TextReply(["Could not."]))
    proc = run_cli(home, "run", line["session_key"], "put an x into out.txt")
    assert_one_line_error(proc, "needs approval", "--permission")
    assert not (Path(line["workspace_path"]) / "out.txt").exists()

    assert ok_json(home, "thread", "set", line["session_key"], "--permission", "auto-edit")["permission_level"] == (
        "auto-edit"
    )
    openai_server.script(ToolCallReply([ScriptedToolCall("c2", "write_file", args)]), TextReply(["Written."]))
    assert ok_json(home, "run", line["session_key"], "put an x into out.txt")["status"] == "finished"
    assert (Path(line["workspace_path"]) / "out.txt").read_text() == "x"
