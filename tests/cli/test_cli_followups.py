"""Issue 14, PROV-4 on the command line: `xworkmate run TASK "…"` is a follow-up, as real processes (SPEC §8)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import ok_json, run_cli
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """The command line on its SQLite file, and on its own PostgreSQL database."""
    if request.param == "sqlite":
        return {}
    return {"XWORKMATE_DATABASE_URL": str(request.getfixturevalue("pg_database_url"))}


def test_run_on_a_task_re_captures_its_sources_and_backs_a_write(
    home: Path, openai_server: OpenAIServer, db_env: dict[str, str]
) -> None:
    """The seed's scenario: the parent says A; task T is dispatched; the parent is compacted; the parent says
    B; `run T "go ahead now"` replaces T's sources with the new capture (B), and a write quoting B (or
    the follow-up itself) passes the gate (WR-1)."""
    env = db_env

    def cli(*args: str) -> Any:
        return ok_json(home, *args, env=env)

    cli("provider", "add", "local", "--base-url", openai_server.base_url, "--model", "test-model", "--default")
    parent = str(cli("thread", "new", "--title", "notes")["session_key"])
    openai_server.script(TextReply(["Understood."]))
    cli("run", parent, "only look at notes.md for now")  # A
    task = cli("task", "start", "--from", parent, "--goal", "tidy notes.md")
    key, folder = str(task["session_key"]), Path(task["workspace_path"])
    assert [m["content"] for m in cli("task", "sources", key)] == ["only look at notes.md for now"]
    cli("thread", "compact", parent)
    openai_server.script(TextReply(["Noted."]))
    cli("run", parent, "you may now give notes.md a proper title")  # B
    cli("thread", "set", key, "--permission", "auto-edit")

    def write(call_id: str, path: str, quote: str) -> ScriptedToolCall:
        return ScriptedToolCall(
            call_id, "write_file", json.dumps({"path": path, "content": "# Notes\n", "quote": quote})
        )

    openai_server.script(
        ToolCallReply(
            [
                write("w1", "notes.md", "you may now give notes.md a proper title"),
                write("w2", "followup.md", "go ahead now"),
            ]
        ),
        TextReply(["Titled."]),
    )
    proc = run_cli(home, "run", key, "go ahead now", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "finished"

    sources = cli("task", "sources", key)
    assert [m["content"] for m in sources] == ["you may now give notes.md a proper title"]
    task_request = openai_server.chat_requests[2].body["messages"]
    assert task_request[-1] == {"role": "user", "content": "go ahead now"}
    results = [m["content"] for m in cli("messages", key) if m["role"] == "tool"]
    assert len(results) == 2 and not any("refused" in r for r in results), results
    assert (folder / "notes.md").read_text() == "# Notes\n"
    assert (folder / "followup.md").read_text() == "# Notes\n"
