"""``session_info_update`` titles the agent session it was said for (issue 32 item 6): ``thread show --json``
and ``thread sessions`` (the window's session picker reads the same listing)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.acp import AGENT
from tests.cli.test_cli import ok_json


def test_session_info_update_titles_the_lines_session_in_show_and_sessions(home: Path, tmp_path: Path) -> None:
    state = tmp_path / "agent"
    state.mkdir()
    path = state / "s.json"
    turn = [{"say": "planning"}, {"session_info": {"title": "Fix the parser", "updatedAt": "2026-12-04T01:00:00Z"}}]
    script = {
        "report": str(state / "report.jsonl"),
        "state": str(state / "sessions.json"),
        "session_id": "s-titled",
        "load_session": True,
        "list_sessions": True,
        "turn": turn,
    }
    path.write_text(json.dumps(script))
    command = f"{sys.executable} {AGENT} {path}"
    ok_json(home, "provider", "add", "titler", "--acp-command", command, "--acp-state-dir", str(state))
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "titler")
    assert ok_json(home, "thread", "show", line)["agent_session"]["title"] is None
    assert ok_json(home, "run", line, "go")["status"] == "finished"

    assert ok_json(home, "thread", "show", line)["agent_session"]["title"] == "Fix the parser"
    listed = ok_json(home, "thread", "sessions", line)["sessions"]
    # The listing's own title is the first thing said ("planning"); the agent's newer word wins.
    assert [(s["session_id"], s["title"]) for s in listed] == [("s-titled", "Fix the parser")]

    # The title belongs to that session: a line on a new session of the agent shows none until it says one.
    script.update(session_id="s-other", load_session=False, turn=[{"say": "hi"}])
    path.write_text(json.dumps(script))
    other = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", other, "--mode", "acp", "--provider", "titler")
    assert ok_json(home, "run", other, "go")["status"] == "finished"
    assert ok_json(home, "thread", "show", other)["agent_session"]["title"] is None
