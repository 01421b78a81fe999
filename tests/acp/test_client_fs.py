"""The client file system we offer an agent stays inside the line's working directory (WR-1, ISO-6)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.acp import AgentHarness, assert_reaped
from xworkmate.agents.sandbox import Sandbox, SandboxPolicy


def test_reads_and_writes_inside_work_and_everything_outside_is_refused(tmp_path: Path) -> None:
    harness = AgentHarness(tmp_path)
    ws = harness.workspace
    (ws / "notes.txt").write_text("one\ntwo\nthree\nfour\n")
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "key.txt").write_text("do not read")
    (ws / "link").symlink_to(outside, target_is_directory=True)

    script = harness.script(
        turn=[
            {"write": {"path": "out/result.txt", "content": "written by the agent\n"}},
            {"write": {"path": str(ws / "abs.txt"), "content": "absolute but inside"}},
            {"write": {"path": "../escape.txt", "content": "x"}},
            {"write": {"path": str(tmp_path / "elsewhere.txt"), "content": "x"}},
            {"write": {"path": "link/planted.txt", "content": "x"}},
            {"read": {"path": "notes.txt", "line": 2, "limit": 2}},
            {"read": {"path": str(outside / "key.txt")}},
            {"read": {"path": "link/key.txt"}},
            {"read": {"path": "missing.txt"}},
        ]
    )
    out = harness.run(script)

    assert out.error is None, out.error
    writes = {row["path"]: row for row in harness.report("write")}
    assert writes["out/result.txt"]["ok"] and writes[str(ws / "abs.txt")]["ok"]
    assert (ws / "out" / "result.txt").read_text() == "written by the agent\n"
    assert (ws / "abs.txt").read_text() == "absolute but inside"
    for refused in ("../escape.txt", str(tmp_path / "elsewhere.txt"), "link/planted.txt"):
        assert not writes[refused]["ok"], refused
        assert "outside the working directory" in writes[refused]["error"]
        assert writes[refused]["data"]["reason"] == "path_escape"
    # Nothing was touched outside.
    assert not (tmp_path / "escape.txt").exists()
    assert not (tmp_path / "elsewhere.txt").exists()
    assert sorted(p.name for p in outside.iterdir()) == ["key.txt"]

    reads = harness.report("read")
    assert reads[0] == {"event": "read", "path": "notes.txt", "ok": True, "content": "two\nthree\n"}
    assert not reads[1]["ok"] and "outside the working directory" in reads[1]["error"]
    assert not reads[2]["ok"] and "outside the working directory" in reads[2]["error"]
    assert not reads[3]["ok"]
    assert_reaped(harness.pid())


def test_an_agent_read_or_write_through_a_hard_link_is_refused(tmp_path: Path) -> None:
    """SBX-2: the client file system applies the file tools' hard-link rule to reads and writes."""
    harness = AgentHarness(tmp_path)
    ws = harness.workspace
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "key.txt").write_text("do not read")
    os.link(outside / "key.txt", ws / "key.txt")

    out = harness.run(
        harness.script(
            turn=[
                {"read": {"path": "key.txt"}},
                {"write": {"path": "key.txt", "content": "overwritten"}},
            ]
        )
    )

    assert out.error is None, out.error
    [read] = harness.report("read")
    assert not read["ok"] and "hard links" in read["error"]
    assert "do not read" not in read["error"]
    [write] = harness.report("write")
    assert not write["ok"] and write["data"]["reason"] == "hard_link"
    assert (outside / "key.txt").read_text() == "do not read"
    assert_reaped(harness.pid())


def test_an_agent_read_write_of_what_the_lines_sandbox_hides_is_refused(tmp_path: Path) -> None:
    """SBX-2, SBX-3 (issue 29 row 6): the client file system refuses what the line's sandbox hides (a nested
    line's folder) and, for a write, what it keeps read-only (the repository's hooks); one policy for both."""
    harness = AgentHarness(tmp_path)
    ws = harness.workspace
    nested = ws / "app"
    nested.mkdir()
    (nested / "secret.txt").write_text("NESTED-SECRET")
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / "own.txt").write_text("own")
    policy = SandboxPolicy(working_directory=ws, hidden=(nested,), read_only=(ws / ".git" / "hooks",))

    out = harness.run(
        harness.script(
            turn=[
                {"read": {"path": "app/secret.txt"}},
                {"write": {"path": "app/planted.txt", "content": "x"}},
                {"write": {"path": ".git/hooks/pre-commit", "content": "id"}},
                {"read": {"path": "own.txt"}},
            ]
        ),
        command_sandbox=Sandbox(policy),
    )

    assert out.error is None, out.error
    read_secret, read_own = harness.report("read")
    assert not read_secret["ok"] and "hidden from this line" in read_secret["error"]
    assert "NESTED-SECRET" not in json.dumps(harness.report())
    assert read_own["ok"] and read_own["content"] == "own"
    planted, hook = harness.report("write")
    assert not planted["ok"] and planted["data"]["reason"] == "hidden_path"
    assert not hook["ok"] and "read-only for this line" in hook["error"]
    assert not (nested / "planted.txt").exists() and not (ws / ".git" / "hooks" / "pre-commit").exists()
