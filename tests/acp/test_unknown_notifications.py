"""Notifications an agent sends that this client does not know (issue 32, item 2; ERR-1).

Qwen Code sends its own ``qwen/notify/...`` notifications; a newer agent may send a session update kind
this client's schema lacks. Both are ignored quietly (debug in the log): no traceback on ``xworkmate
run``'s stderr, and the turn's reply is whole. An unknown *request* is still answered -32601 (the
scripted agent's fs/terminal requests are covered elsewhere).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.acp import AGENT
from tests.cli.test_cli import ok_json, run_cli


def test_unknown_notifications_leave_stderr_empty_and_the_reply_whole(home: Path, tmp_path: Path) -> None:
    state = tmp_path / "agent"
    state.mkdir()
    script = state / "s.json"
    turn = [
        {"say": "before "},
        {"notify": {"method": "qwen/notify/approvalModeChanged", "params": {"mode": "yolo"}}},
        {"raw_update": {"sessionUpdate": "something_from_the_future", "value": 1}},
        {"notify": {"method": "session/update", "params": {"sessionId": 7}}},  # not even the right shape
        {"say": "after"},
    ]
    script.write_text(json.dumps({"report": str(state / "report.jsonl"), "turn": turn}))
    ok_json(
        home,
        "provider",
        "add",
        "qwenish",
        "--acp-command",
        f"{sys.executable} {AGENT} {script}",
        "--acp-state-dir",
        str(state),
    )
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "qwenish")
    proc = run_cli(home, "run", line, "hi", "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = json.loads(proc.stdout)
    assert (out["status"], out["text"]) == ("finished", "before after"), out
